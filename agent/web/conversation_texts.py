"""Page texts of the conversation list and of what the chat page adds around replies."""

from __future__ import annotations

CONVERSATION_TEXTS: dict[str, tuple[str, str]] = {
    "CHAT_CONVERSATIONS": ("对话列表", "Conversations"),
    "CHAT_CONVERSATION_UNTITLED": ("未命名对话", "Untitled conversation"),
    "CHAT_CONVERSATIONS_OLDER": ("显示更早的对话", "Show older conversations"),
    "CHAT_CONVERSATIONS_NEWEST": ("回到最新的对话", "Back to the newest conversations"),
    "CHAT_CONVERSATION_MANAGE": ("重命名或删除", "Rename or delete"),
    "CHAT_CONVERSATION_MANAGE_FOR": (
        "重命名或删除“{title}”",
        "Rename or delete “{title}”",
    ),
    "CHAT_CONVERSATION_TITLE": ("新标题", "New title"),
    "CHAT_CONVERSATION_RENAME": ("保存标题", "Save the title"),
    "CHAT_CONVERSATION_DELETE": ("删除这个对话", "Delete this conversation"),
    "CHAT_CONVERSATION_DELETE_HINT": (
        "删除后，这个对话会从列表中消失，其中还在等待确认的卡片会作废；之前完成的操作及其回执都会保留。",
        "The conversation leaves the list and its waiting cards are withdrawn; actions already "
        "done and their receipts stay.",
    ),
    "CHAT_CONVERSATION_RENAMED": ("对话已重命名。", "The conversation was renamed."),
    "CHAT_CONVERSATION_DELETED": ("对话已删除。", "The conversation was deleted."),
    "CHAT_REPLY_PENDING": ("正在思考…", "Thinking…"),
    "CHAT_REPLY_MISSING": (
        "这项操作已执行，但它的回复没有生成。可以重试生成回复（操作不会重复执行）。",
        "This action was done, but its reply was not written. You can retry the reply "
        "(the action will not run again).",
    ),
    "CHAT_REPLY_RETRY": ("重新生成回复", "Retry the reply"),
    "CHAT_LOGIN_AGAIN": ("在新标签页中重新登录", "Log in again in a new tab"),
    "CHAT_PROBLEM_UNEXPLAINED": (
        "请求没有完成，请重试；如果问题持续，请联系管理员。",
        "The request did not go through; retry, and contact your administrator if it persists.",
    ),
}
