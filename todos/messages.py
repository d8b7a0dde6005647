from __future__ import annotations

from lightnote.i18n import define_messages

define_messages(
    {
        "TODO_NOT_FOUND": ("待办不存在。", "The todo does not exist."),
        "TODO_VERSION_CONFLICT": (
            "待办已被修改（当前版本 {current_version}），请刷新后重试。",
            "The todo was changed meanwhile (now version {current_version}); reload and retry.",
        ),
        "TODO_TITLE_REQUIRED": ("待办标题不能为空。", "A todo needs a title."),
        "TODO_TITLE_TOO_LONG": (
            "待办标题最多 {max} 个字符。",
            "A todo title has at most {max} characters.",
        ),
        "TODO_DESCRIPTION_TOO_LONG": (
            "待办描述最多 {max} 个字符。",
            "A todo description has at most {max} characters.",
        ),
        "TODO_PRIORITY_INVALID": (
            "优先级只能是 {low}（低）、{normal}（普通）或 {high}（高）。",
            "Priority must be {low} (low), {normal} (normal) or {high} (high).",
        ),
        "TODO_STATUS_INVALID": ("状态只能是 open 或 done。", "Status must be 'open' or 'done'."),
        "TODO_DUE_AT_INVALID": (
            "无法识别截止时间，请给出具体的日期和时间，例如“明天下午 3 点”。",
            "The due time is not clear; give a concrete date and time, e.g. 'tomorrow 3pm'.",
        ),
        "TODO_RECURRENCE_UNSUPPORTED": (
            "不支持这个重复规则：{reason}。可用 FREQ=DAILY/WEEKLY/MONTHLY/YEARLY，以及 INTERVAL（1 到 {interval_max}）、BYDAY、BYMONTHDAY、BYSETPOS=-1、COUNT（最多 {count_max} 次）或 UNTIL（十年内），例如 FREQ=WEEKLY;BYDAY=MO。",
            "This repeat rule is not supported: {reason}. Use FREQ=DAILY/WEEKLY/MONTHLY/YEARLY with INTERVAL (1 to {interval_max}), BYDAY, BYMONTHDAY, BYSETPOS=-1, COUNT (at most {count_max}) or UNTIL (within ten years), e.g. FREQ=WEEKLY;BYDAY=MO.",
        ),
        "TODO_RECURRENCE_NEEDS_DUE_AT": (
            "重复的待办需要一个截止时间（第一次的时间）。",
            "A repeating todo needs a due time (its first occurrence).",
        ),
        "TODO_REMIND_AT_INVALID": (
            "无法识别提醒时间，请给出具体的日期和时间，例如“明天上午 9 点”。",
            "The reminder time is not clear; give a concrete date and time, e.g. 'tomorrow 9am'.",
        ),
        "TODO_DUE_AT_SUSPICIOUS": (
            "截止时间 {due_at} 不合理（超过一年前或十年后），请确认日期。",
            "The due time {due_at} looks wrong (over a year ago or over ten years ahead).",
        ),
    }
)
