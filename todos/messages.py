from __future__ import annotations

from lightnote.texts.i18n import define_messages

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
        "TODO_RECURRENCE_WHY_NOT_A_RULE": ("这不是一个重复规则", "it is not a rule"),
        "TODO_RECURRENCE_WHY_TOO_LONG": ("超过 {max} 个字符", "it is longer than {max} characters"),
        "TODO_RECURRENCE_WHY_NOT_NAME_VALUE": (
            "“{piece}”不是 名称=值 的形式",
            "“{piece}” is not NAME=VALUE",
        ),
        "TODO_RECURRENCE_WHY_PART": ("不支持 {name}", "{name} is not supported"),
        "TODO_RECURRENCE_WHY_TWICE": ("{name} 出现了两次", "{name} is given twice"),
        "TODO_RECURRENCE_WHY_VALUE": ("{name} 应为{expected}", "{name} must be {expected}"),
        "TODO_RECURRENCE_WHY_NO_FREQ": ("缺少 FREQ", "FREQ is missing"),
        "TODO_RECURRENCE_WHY_COUNT_AND_UNTIL": (
            "COUNT 和 UNTIL 不能同时使用",
            "COUNT and UNTIL cannot be used together",
        ),
        "TODO_RECURRENCE_WHY_SETPOS_ALONE": (
            "BYSETPOS 需要与 BYDAY 或 BYMONTHDAY 一起使用",
            "BYSETPOS needs BYDAY or BYMONTHDAY",
        ),
        "TODO_RECURRENCE_WHY_NUMBERED_DAY": (
            "带序号的 BYDAY（如 1MO）需要 FREQ=MONTHLY 或 YEARLY",
            "a numbered BYDAY (e.g. 1MO) needs FREQ=MONTHLY or YEARLY",
        ),
        "TODO_RECURRENCE_WHY_UNTIL_FAR": (
            "UNTIL 必须在 {years} 年之内",
            "UNTIL must be within {years} years",
        ),
        "TODO_RECURRENCE_WHY_NEVER": ("按这个规则永远不会发生", "it never occurs"),
        "TODO_RECURRENCE_EXPECT_RANGE": (
            " {low} 到 {high} 之间的整数",
            "a whole number from {low} to {high}",
        ),
        "TODO_RECURRENCE_EXPECT_FREQ": (
            " DAILY、WEEKLY、MONTHLY 或 YEARLY",
            "DAILY, WEEKLY, MONTHLY or YEARLY",
        ),
        "TODO_RECURRENCE_EXPECT_DAY": (
            " MO 到 SU，可在前面加 1 到 5 或 -1 的序号",
            "MO..SU, optionally numbered 1..5 or -1",
        ),
        "TODO_RECURRENCE_EXPECT_MONTHDAY": (" -31 到 -1 或 1 到 31", "-31..-1 or 1..31"),
        "TODO_RECURRENCE_EXPECT_SETPOS": (" -1（最后一个）", "-1 (the last)"),
        "TODO_RECURRENCE_EXPECT_UNTIL": (
            " YYYYMMDD 或 YYYYMMDDTHHMMSSZ",
            "YYYYMMDD or YYYYMMDDTHHMMSSZ",
        ),
        "TODO_RECURRENCE_EXPECT_DATE": ("真实存在的日期", "a real date"),
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
