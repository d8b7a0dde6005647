from __future__ import annotations

from lightnote.texts.i18n import define_messages

define_messages(
    {
        "NOTIFICATION_NOT_FOUND": ("通知不存在。", "The notification does not exist."),
        "REMINDER_TEXT": ("提醒：{title}", "Reminder: {title}"),
        "REMINDER_TEXT_DUE": ("提醒：{title}（截止 {due}）", "Reminder: {title} (due {due})"),
        "REMINDER_EMAIL_SUBJECT": ("LightNote 提醒：{title}", "LightNote reminder: {title}"),
        "REMINDER_EMAIL_BODY": (
            "{text}\n\n在 LightNote 中查看：{url}\n\n不想再收到提醒邮件？在设置中关闭：{settings_url}",
            "{text}\n\nOpen it in LightNote: {url}\n\nNo more reminder emails? Turn them off in the settings: {settings_url}",
        ),
        "CALENDAR_NAME": ("LightNote 待办", "LightNote todos"),
        "CALENDAR_ALARM": ("提醒：{title}", "Reminder: {title}"),
    }
)
