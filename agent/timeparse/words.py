"""The words of time phrases, in Chinese and English, with what each one means."""

from __future__ import annotations

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS_EN = {
    name: number
    for number, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tues", "tue"),
            ("wednesday", "wed"),
            ("thursday", "thurs", "thur", "thu"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}
WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "七": 6}
NUMBER_WORDS = {
    word: number
    for number, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}
ORDINAL_UNITS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]
# Minutes said in words before "past" / "to" ("twenty past 3", "twenty-five to 4").
MINUTE_WORDS = {
    "five": 5,
    "ten": 10,
    "twenty": 20,
    "twenty-five": 25,
    "twenty five": 25,
}
ORDINAL_WORDS = {word: number for number, word in enumerate(ORDINAL_UNITS, start=1)}
ORDINAL_WORDS |= {"twentieth": 20, "thirtieth": 30}
ORDINAL_WORDS |= {f"twenty-{word}": 20 + n for word, n in list(ORDINAL_WORDS.items())[:9]}
ORDINAL_WORDS |= {f"twenty {word}": 20 + n for word, n in list(ORDINAL_WORDS.items())[:9]}
ORDINAL_WORDS |= {"thirty-first": 31, "thirty first": 31}
# Holidays on a fixed calendar day (lunar ones: holidays.py).
FIXED_HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "xmas": (12, 25),
    "new year's eve": (12, 31),
    "new years eve": (12, 31),
    "new year's day": (1, 1),
    "new years day": (1, 1),
    "valentine's day": (2, 14),
    "valentines day": (2, 14),
    "valentine day": (2, 14),
    "halloween": (10, 31),
    "independence day": (7, 4),
    "4th of july": (7, 4),
    "fourth of july": (7, 4),
    "st patrick's day": (3, 17),
    "st paddy's day": (3, 17),
    "saint paddy's day": (3, 17),
    "saint patricks day": (3, 17),
    "st patricks day": (3, 17),
    "st. patrick's day": (3, 17),
    "saint patrick's day": (3, 17),
    "元旦节": (1, 1),
    "元旦": (1, 1),
    "情人节": (2, 14),
    "妇女节": (3, 8),
    "植树节": (3, 12),
    "愚人节": (4, 1),
    "劳动节": (5, 1),
    "青年节": (5, 4),
    "儿童节": (6, 1),
    "建党节": (7, 1),
    "建军节": (8, 1),
    "教师节": (9, 10),
    "国庆节": (10, 1),
    "国庆": (10, 1),
    "平安夜": (12, 24),
    "圣诞节": (12, 25),
    "万圣节": (10, 31),
    "圣诞": (12, 25),
}
ZONES = {
    "utc": 0,
    "gmt": 0,
    "z": 0,
    "cet": 60,
    "cest": 120,
    "bst": 60,
    "pst": -480,
    "pdt": -420,
    "mst": -420,
    "mdt": -360,
    "est": -300,
    "edt": -240,
}
# An hour said with a named day but without am/pm or a part of the day ("tomorrow at 10"):
# 7-12 read as the day's working hours (10:00, noon); 1-6 could as well be morning or
# afternoon and stay a question. Without a named day every such hour is a question.
HOURS_READ_WITH_A_DAY = range(7, 13)

# Part-of-day names, each with the hours (24 h) a clock in it may have.
PARTS_OF_DAY = {
    "early": range(0, 6),
    "morning": range(0, 12),
    "noon": range(11, 15),
    "afternoon": range(12, 20),
    "evening": range(17, 24),
}
PARTS_ZH = {
    "凌晨": "early",
    "清晨": "morning",
    "早上": "morning",
    "早晨": "morning",
    "上午": "morning",
    "中午": "noon",
    "正午": "noon",
    "午后": "afternoon",
    "下午": "afternoon",
    "傍晚": "evening",
    "晚上": "evening",
    "晚间": "evening",
    "夜里": "evening",
    "夜间": "evening",
    # the short forms, as in 周三晚8点, 早7点半 (alone they are as vague as 晚上)
    "晚": "evening",
    "夜": "evening",
    "早": "morning",
}
DAY_WORDS = {
    "大后天": 3,
    "后天": 2,
    "明天": 1,
    "今天": 0,
    "昨天": -1,
    "前天": -2,
    "大前天": -3,
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
    "the day before yesterday": -2,
    "day before yesterday": -2,
    "tomorrows": 1,
    "tomorrow": 1,
    "tmrw": 1,
    "tmr": 1,
    "today": 0,
    "yesterday": -1,
}
# A day word that also names a part of it: 今晚 is today + evening.
DAY_AND_PART = {
    "今晚": (0, "evening"),
    "今夜": (0, "evening"),
    "明晚": (1, "evening"),
    "明夜": (1, "evening"),
    "昨晚": (-1, "evening"),
    "今早": (0, "morning"),
    "明早": (1, "morning"),
    "tonight": (0, "evening"),
    "tonite": (0, "evening"),
}
WEEK_QUALIFIERS_ZH = {"下下": 2, "下": 1, "上上": -2, "上": -1, "这": 0, "本": 0, "今": 0}
WEEK_QUALIFIERS_EN = {"next": 1, "last": -1, "previous": -1}
OFFSET_UNITS = {
    "分钟": "minutes",
    "分": "minutes",
    "小时": "hours",
    "钟头": "hours",
    "天": "days",
    "日": "days",
    "周": "weeks",
    "星期": "weeks",
    "礼拜": "weeks",
    "minute": "minutes",
    "min": "minutes",
    "hour": "hours",
    "hr": "hours",
    "h": "hours",
    "day": "days",
    "week": "weeks",
    "wk": "weeks",
    "fortnight": "fortnights",
    "个月": "months",
    "年": "years",
    "month": "months",
    "year": "years",
    "yr": "years",
}
