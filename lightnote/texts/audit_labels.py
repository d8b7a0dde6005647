"""Audit event names and codes as a person reads them, in the page's language (the admin).

The stored ``event_type`` and ``code`` stay machine names; a name not in the table shows as
it is stored (a new event reads raw until it is named here).
"""

from __future__ import annotations

from django.utils import translation

from lightnote.texts.i18n import define_messages, message_template, normalize_locale, translate

EVENT_NAMES = {
    "account.deleted": ("账号已删除", "account deleted"),
    "action.executed": ("已执行", "action run"),
    "action.failed": ("执行失败", "action failed"),
    "action.outcome_unknown": ("执行结果未知", "outcome unknown"),
    "admin.context_ended": ("只读查看结束", "read-only view ended"),
    "admin.context_started": ("开始只读查看", "read-only view started"),
    "admin.request": ("只读查看中的请求", "request in a read-only view"),
    "admin.session_opened": ("只读查看中打开对话", "conversation opened in a read-only view"),
    "admin.write_refused": ("只读查看中拒绝写入", "write refused in a read-only view"),
    "auth.locked_out": ("登录被锁定", "login locked out"),
    "calendar_feed.created": ("已生成日历订阅地址", "calendar address made"),
    "calendar_feed.revoked": ("已停用日历订阅地址", "calendar address stopped"),
    "auth.login_failed": ("登录失败", "login failed"),
    "card.edited": ("确认卡已修改", "card edited"),
    "card.issued": ("已发出确认卡", "card issued"),
    "card.refused": ("拒绝发出确认卡", "card refused"),
    "card.reissued": ("重新发起确认卡", "card issued again"),
    "card.undo_issued": ("已发出撤销确认卡", "undo card issued"),
    "choice.chosen": ("已选择候选项", "candidate chosen"),
    "choice.issued": ("已发出候选项", "choice issued"),
    "choice.refused": ("拒绝发出候选项", "choice refused"),
    "confirm.claimed": ("确认并执行", "confirmed and run"),
    "confirm.duplicate": ("重复确认", "repeated confirm"),
    "confirm.duplicate_execution_fenced": ("重复执行已拦截", "repeated run fenced"),
    "confirm.expired": ("确认已过期", "confirm expired"),
    "confirm.forbidden": ("确认被拒绝（无权限）", "confirm forbidden"),
    "confirm.invalid": ("确认无效", "confirm not valid"),
    "confirm.reconciled": ("执行结果已核对", "outcome reconciled"),
    "confirm.rejected": ("已拒绝确认卡", "card rejected"),
    "continuation.expired": ("回复令牌已过期", "reply token expired"),
    "continuation.failed": ("生成回复失败", "reply failed"),
    "continuation.forbidden": ("回复被拒绝（无权限）", "reply forbidden"),
    "continuation.invalid": ("回复令牌无效", "reply token not valid"),
    "guard.replaced": ("回复已被替换", "reply replaced"),
    "mcp.api_write_refused": ("MCP 令牌写入被拒绝", "MCP token write refused"),
    "mcp.read": ("MCP 读取", "MCP read"),
    "mcp.session_opened": ("MCP 会话已打开", "MCP session opened"),
    "mcp.token_created": ("已创建 MCP 令牌", "MCP token created"),
    "mcp.token_revoked": ("已撤销 MCP 令牌", "MCP token revoked"),
    "note.created": ("笔记已创建", "note created"),
    "note.deleted": ("笔记已移入回收站", "note moved to the trash"),
    "note.restored": ("笔记已从回收站恢复", "note restored from the trash"),
    "note.updated": ("笔记已修改", "note changed"),
    "rate.limited": ("请求过于频繁", "rate limited"),
    "session.deleted": ("对话已删除", "conversation deleted"),
    "todo.completed": ("待办已完成", "todo completed"),
    "todo.created": ("待办已创建", "todo created"),
    "todo.deleted": ("待办已移入回收站", "todo moved to the trash"),
    "todo.next_occurrence_created": ("已创建重复待办的下一次", "next occurrence created"),
    "todo.reopened": ("待办已重新打开", "todo reopened"),
    "todo.restored": ("待办已从回收站恢复", "todo restored from the trash"),
    "todo.updated": ("待办已修改", "todo changed"),
    "turn.prose_withheld": ("回复文字已扣下", "reply text withheld"),
    "user.created": ("用户已创建", "user created"),
    "user.password_changed": ("用户密码已修改", "user password changed"),
    "user.preferences_updated": ("时区或语言已修改", "zone or language changed"),
    "user.reminder_emails_set": ("提醒邮件设置已修改", "reminder emails switched"),
    "user.updated": ("用户已修改", "user changed"),
}

# The channel a write came through (``details.channel``), as the admin names it.
CHANNEL_NAMES = {
    "admin": ("管理后台", "admin"),
    "agent": ("助手（确认卡）", "assistant (card)"),
    "api": ("REST 接口", "REST API"),
    "mcp": ("MCP 客户端（确认卡）", "MCP client (card)"),
    "page": ("网页", "web page"),
    "system": ("系统", "system"),
}


def _code(event_type: str) -> str:
    return "AUDIT_EVENT_" + event_type.upper().replace(".", "_")


def _channel_code(channel: str) -> str:
    return "AUDIT_CHANNEL_" + channel.upper()


define_messages({_code(name): texts for name, texts in EVENT_NAMES.items()})
define_messages({_channel_code(name): texts for name, texts in CHANNEL_NAMES.items()})


def active_locale() -> str:
    return normalize_locale(translation.get_language()) or "zh-CN"


def event_label(event_type: str, locale: str | None = None) -> str:
    """The event's name in ``locale`` (the active language), else as stored."""
    code = _code(event_type)
    if message_template(code, locale) is None:
        return event_type
    return translate(code, locale or active_locale())


def code_label(code: str, locale: str | None = None) -> str:
    """An error code's sentence in ``locale`` (the code itself when it has none)."""
    if not code or message_template(code, locale) is None:
        return code
    return translate(code, locale or active_locale())


def channel_label(channel: str, locale: str | None = None) -> str:
    """A write's channel in ``locale`` (the active language); "" for an event without one."""
    if not channel:
        return ""
    code = _channel_code(channel)
    if message_template(code, locale) is None:
        return channel
    return translate(code, locale or active_locale())
