"""The words a recurrence rule is said in, per language: rows read by ``todos.recurrence``.

One row per FREQ (the unit, once and with a count), one per weekday, and the few phrases that
join them. ``{n}`` is the interval or count, ``{day}`` a day, ``{days}`` a joined day list.
"""

from __future__ import annotations

# FREQ -> (every single unit, every n units), per language.
FREQ_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "zh-CN": {
        "DAILY": ("每天", "每 {n} 天"),
        "WEEKLY": ("每周", "每 {n} 周"),
        "MONTHLY": ("每月", "每 {n} 个月"),
        "YEARLY": ("每年", "每 {n} 年"),
    },
    "en": {
        "DAILY": ("every day", "every {n} days"),
        "WEEKLY": ("every week", "every {n} weeks"),
        "MONTHLY": ("every month", "every {n} months"),
        "YEARLY": ("every year", "every {n} years"),
    },
}

# BYDAY weekday -> its name, per language (zh: the name without 周, joined after 每周).
WEEKDAY_WORDS: dict[str, dict[str, str]] = {
    "zh-CN": {
        "MO": "周一",
        "TU": "周二",
        "WE": "周三",
        "TH": "周四",
        "FR": "周五",
        "SA": "周六",
        "SU": "周日",
    },
    "en": {
        "MO": "Monday",
        "TU": "Tuesday",
        "WE": "Wednesday",
        "TH": "Thursday",
        "FR": "Friday",
        "SA": "Saturday",
        "SU": "Sunday",
    },
}

# Ordinal of a weekday in its month (BYDAY=1MO, -1FR; BYSETPOS=-1 is "last").
ORDINAL_WORDS: dict[str, dict[int, str]] = {
    "zh-CN": {1: "第一个", 2: "第二个", 3: "第三个", 4: "第四个", 5: "第五个", -1: "最后一个"},
    "en": {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", -1: "last"},
}

# The phrases that join the parts, per language.
PHRASES: dict[str, dict[str, str]] = {
    "zh-CN": {
        "weekly_days": "每{days}",  # 每周一、周三
        "weekly_weekdays": "每个工作日",
        "on_days": "{every}的{days}",
        "monthday": "{day}日",
        "last_monthday": "最后一天",
        "nth_last_monthday": "倒数第 {n} 天",
        "on_monthdays": "{every}{days}",
        "ordinal_day": "{ordinal}{day}",
        "last_of_days": "{every}的最后一个{days}",
        "join": "、",
        "join_last": "、",
        "weekdays": "工作日",
        "count": "，共 {n} 次",
        "until": "，直到 {date}",
    },
    "en": {
        "weekly_days": "every {days}",
        "weekly_weekdays": "every weekday",
        "on_days": "{every} on {days}",
        "monthday": "day {day}",
        "last_monthday": "the last day",
        "nth_last_monthday": "the {n}th day from the end",
        "on_monthdays": "{every} on {days}",
        "ordinal_day": "the {ordinal} {day}",
        "last_of_days": "{every} on the last {days}",
        "join": ", ",
        "join_last": " and ",
        "weekdays": "weekday",
        "count": ", {n} times",
        "until": ", until {date}",
    },
}

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
WORKING_DAYS = ("MO", "TU", "WE", "TH", "FR")
