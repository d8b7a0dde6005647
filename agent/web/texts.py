"""The chat page's texts (zh-CN and en), registered and rendered through
``lightnote.texts.page_texts`` like every page's (the language is ``page_locale``: the switch's
cookie first)."""

from __future__ import annotations

from agent.web.conversation_texts import CONVERSATION_TEXTS
from lightnote.texts.page_texts import define_page_texts, page_texts

CHAT_TEXTS: dict[str, tuple[str, str]] = {
    "CHAT_TITLE": ("LightNote 助手", "LightNote assistant"),
    "CHAT_INTRO": (
        "告诉助手你想做什么，例如“帮我创建一条今晚 9 点提交周报的高优先级待办”。"
        "任何修改都要你在确认卡上确认后才会执行。",
        "Tell the assistant what you need, e.g. “Create a high priority todo to submit the "
        "weekly report tonight at 9pm”. Nothing changes until you confirm it on a card.",
    ),
    "CHAT_CONVERSATION": ("对话", "Conversation"),
    "CHAT_EMPTY": ("还没有消息。", "No messages yet."),
    "CHAT_INPUT_LABEL": ("你的消息", "Your message"),
    "CHAT_INPUT_HINT_TOUCH": (
        "回车换行，点“发送”发送。",
        "Return starts a new line; the Send button sends.",
    ),
    "CHAT_INPUT_HINT": (
        "按 Enter 发送，Shift+Enter 换行。",
        "Enter sends; Shift+Enter starts a new line.",
    ),
    "CHAT_SEND": ("发送", "Send"),
    "CHAT_SENDING": ("正在处理…", "Working…"),
    "CHAT_NEW_CONVERSATION": ("新对话", "New conversation"),
    "CHAT_YOU": ("你", "You"),
    "CHAT_ASSISTANT": ("助手", "Assistant"),
    "CHAT_FACTS": ("查询到的数据", "Data looked up"),
    "CHAT_FACT_LINK": ("在列表页查看全部", "See the whole list on its page"),
    "CHAT_CARD": ("确认卡", "Confirmation card"),
    "CHAT_CARD_ACTIONS": ("确认或拒绝这项操作", "Confirm or reject this action"),
    "CHAT_CARD_EXPIRES": ("有效期至", "Valid until"),
    "CHAT_CARD_RISK": ("风险：{risk}", "Risk: {risk}"),
    "CHAT_RISK_LOW": ("低", "low"),
    "CHAT_RISK_MEDIUM": ("中", "medium"),
    "CHAT_RISK_HIGH": ("高", "high"),
    "CHAT_CONFIRM": ("确认执行", "Confirm"),
    "CHAT_REJECT": ("拒绝", "Reject"),
    "CHAT_CARD_REMAINING": ("剩余 {time}", "{time} left"),
    "CHAT_CARD_EXPIRED_NOW": (
        "这张确认卡已过期，没有执行任何操作。",
        "This card has expired; nothing was done.",
    ),
    "CHAT_ASK_AGAIN": ("重新发起确认", "Ask again"),
    "CHAT_ASK_AGAIN_HINT": (
        "为安全起见，确认令牌不会保存；重新发起会生成一张新的确认卡，旧卡作废。",
        "Confirmation tokens are never stored; asking again issues a new card and voids this one.",
    ),
    "CHAT_HISTORY_READY": ("等待确认", "Waiting for confirmation"),
    "CHAT_HISTORY_EXPIRED": ("已过期，未执行", "Expired, not done"),
    "CHAT_HISTORY_REJECTED": ("已拒绝，未执行", "Rejected, not done"),
    "CHAT_HISTORY_SUCCEEDED": ("已确认并执行", "Confirmed and done"),
    "CHAT_HISTORY_FAILED": ("未执行成功", "Not done"),
    "CHAT_HISTORY_UNKNOWN": ("结果暂时无法核验", "Outcome not verified yet"),
    "CHAT_HISTORY_VOIDED": ("已作废，未执行", "Withdrawn, not done"),
    "CHAT_VOIDED_SUPERSEDED": (
        "已被一张新的确认卡取代。",
        "A newer card replaced this one.",
    ),
    "CHAT_VOIDED_SESSION_DELETED": ("所在对话已删除。", "Its conversation was deleted."),
    "CHAT_VOIDED_INVALID": (
        "这张确认卡未通过完整性检查。",
        "This card failed its integrity check.",
    ),
    "CHAT_OPEN_ITEM": ("打开", "Open"),
    "CHAT_OPEN_TRASH": ("在回收站中查看", "See it in the trash"),
    "CHAT_PROBLEM_LOGIN": (
        "登录已过期，请重新登录；你输入的内容仍保留在输入框中。",
        "Your login has expired: log in again. Your text is still in the box.",
    ),
    "CHAT_OUTCOME_SUCCEEDED": ("已执行", "Done"),
    "CHAT_OUTCOME_FAILED": ("未执行成功", "Not done"),
    "CHAT_OUTCOME_RUNNING": ("正在执行…", "Running…"),
    "CHAT_OUTCOME_RUNNING_TEXT": (
        "服务器正在执行这项操作，结果出来后会显示在这里。",
        "The server is running this action; its result will appear here.",
    ),
    "CHAT_OUTCOME_UNKNOWN": ("结果暂时无法核验", "The outcome cannot be verified yet"),
    "CHAT_OUTCOME_REJECTED": ("已拒绝", "Rejected"),
    "CHAT_OUTCOME_REJECTED_TEXT": ("没有执行任何操作。", "Nothing was done."),
    "CHAT_OUTCOME_READY": ("等待确认", "Waiting for confirmation"),
    "CHAT_RECEIPT": ("服务器回执：{summary}", "Server receipt: {summary}"),
    "CHAT_RECEIPT_ID": ("回执编号", "Receipt id"),
    "CHAT_RECEIPT_AT": ("完成时间", "Settled at"),
    "CHAT_ERROR_CODE": ("错误代码", "Error code"),
    "CHAT_REPLY_LOADING": ("正在生成回复…", "Writing the reply…"),
    "CHAT_REPLY_SHOW": ("显示回复", "Show the reply"),
    "CHAT_CHECK_STATUS": ("查看状态", "Check the status"),
    "CHAT_RETRY": ("重试", "Retry"),
    "CHAT_PROBLEM": ("出错了：", "Problem:"),
    "CHAT_PROBLEM_GENERIC": (
        "请求没有成功（可能登录已过期），请刷新页面后重试。",
        "The request did not succeed (your login may have expired); reload the page and retry.",
    ),
    "CHAT_PROBLEM_NETWORK": (
        "无法连接服务器，请检查网络后重试。",
        "The server cannot be reached; check the connection and retry.",
    ),
    "CHAT_NOTICE_PLANNED": ("暂不支持", "Not available yet"),
    "CHAT_NOTICE_FORBIDDEN": ("不允许", "Not allowed"),
    "CHAT_NOTICE_REJECTED": ("未生成确认卡", "No card"),
    "CHAT_NOTICE_GUARDED": ("服务端提示", "From the server"),
    "CHAT_NOTICE_CLARIFY": ("需要补充", "Question"),
    "CHAT_ADMIN_CONVERSATIONS": (
        "{subject} 的对话（只读）",
        "{subject}'s conversations (read-only)",
    ),
    "CHAT_ADMIN_NO_CONVERSATIONS": (
        "{subject} 还没有对话。",
        "{subject} has no conversations yet.",
    ),
    "CHAT_ADMIN_VIEWING": (
        "你正在只读查看 {subject} 的对话，不能向其中发送消息，也不能确认其中的卡片。",
        "You are reading {subject}'s conversation: nothing can be sent into it and its cards "
        "cannot be confirmed.",
    ),
    "CHAT_ADMIN_ASK": (
        "在你自己的只读对话中向助手提问",
        "Ask the assistant in your own read-only conversation",
    ),
    "CHAT_ADMIN_COMPOSER": (
        "这是你自己的只读对话（绑定本次查看，不会出现在 {subject} 的对话中）：助手读取 {subject} "
        "的数据，但不会生成任何确认卡。",
        "This is your own read-only conversation (bound to this viewing; it never appears "
        "among {subject}'s): the assistant reads {subject}'s data but never offers a card.",
    ),
    "CHAT_TEXT_REQUIRED": ("请输入消息。", "Type a message."),
    "CHAT_TEXT_TOO_LONG": (
        "消息太长（最多 {max} 个字符）。",
        "The message is too long (at most {max} characters).",
    ),
    # Issue 15: choice cards, edit before confirming, undo after.
    "CHAT_CHOICE": ("选择卡", "Choice"),
    "CHAT_CHOICE_TITLE": ("你指的是哪一条？", "Which one do you mean?"),
    "CHAT_CHOICE_HINT": (
        "选择后会生成一张普通确认卡，确认后才会执行。也可以直接回复“第一条”。",
        "Picking one issues an ordinary card; nothing runs until you confirm it. You can "
        "also reply “the first one”.",
    ),
    "CHAT_CHOICE_PICK": ("选这条", "Pick this one"),
    "CHAT_CHOICE_DUE": ("截止 {due}", "due {due}"),
    "CHAT_CHOICE_NO_DUE": ("无截止时间", "no due time"),
    "CHAT_CHOICE_CREATED": ("创建于 {at}", "created {at}"),
    "CHAT_CHOICE_STATUS_OPEN": ("未完成", "open"),
    "CHAT_CHOICE_STATUS_DONE": ("已完成", "done"),
    "CHAT_CHOICE_READY": ("等待选择", "Waiting for a pick"),
    "CHAT_CHOICE_EXPIRED": ("已过期，未选择", "Expired, nothing picked"),
    "CHAT_CHOICE_CHOSEN": ("已选择", "Picked"),
    "CHAT_CHOICE_VOIDED": ("已作废", "Withdrawn"),
    "CHAT_CHOICE_PICKED": ("（已选）", "(picked)"),
    "CHAT_EDIT": ("修改", "Edit"),
    "CHAT_EDIT_HINT": (
        "只填写要改的项；保存后会生成一张新的确认卡，这张卡作废。",
        "Fill in only what to change; saving issues a new card and voids this one.",
    ),
    "CHAT_EDIT_SAVE": ("保存修改", "Save changes"),
    "CHAT_EDIT_TITLE": ("标题", "Title"),
    "CHAT_EDIT_DESCRIPTION": ("描述", "Description"),
    "CHAT_EDIT_CONTENT": ("内容", "Content"),
    "CHAT_EDIT_TAGS": ("标签（用逗号分隔）", "Tags (comma-separated)"),
    "CHAT_EDIT_PRIORITY": ("优先级", "Priority"),
    "CHAT_EDIT_PRIORITY_KEEP": ("不变", "unchanged"),
    "CHAT_PRIORITY_NORMAL": ("普通", "normal"),
    "CHAT_EDIT_DUE_AT": ("截止时间（如“明天下午3点”）", "Due (e.g. “tomorrow 3pm”)"),
    "CHAT_UNDO": ("撤销", "Undo"),
    "CHAT_UNDO_HINT": (
        "撤销会生成一张确认卡，确认后才会执行。",
        "Undo issues a card; nothing changes until you confirm it.",
    ),
    # Shown in place of a card's undo button once an undo card of it has run on this page.
    "CHAT_UNDO_RAN": ("已撤销：见下方的撤销卡。", "Undone: see the undo card below."),
    "CHAT_CONVERSATION_NOT_FOUND": (
        "这个对话不存在或不属于你，请刷新页面。",
        "This conversation does not exist or is not yours; reload the page.",
    ),
}
CHAT_TEXTS.update(CONVERSATION_TEXTS)
define_page_texts(CHAT_TEXTS)


def chat_texts(locale: str) -> dict[str, str]:
    """Return every chat page text in ``locale``, for the templates' ``t``."""
    return page_texts(locale, CHAT_TEXTS)
