"""Read a normalised time phrase (Chinese, English or both mixed) into the facts it states.

The scanner walks the text once and recognises tokens: a day word (``明天``, ``tomorrow``), a
weekday with its week (``下周五``, ``next friday``), a calendar date (``12月25日``, ``dec 25``,
``25/12``), a day of the month (``5号``, ``the 5th``), a year (``2027年``, ``明年``), a clock time
(``9点半``, ``8:30pm``, ``at 9``), a part of the day (``下午``, ``tonight``), an offset (``3天后``,
``in 2 hours``, ``two days from today``), a holiday (``元旦``, ``next christmas``), the n-th
weekday of a month (``the first monday of march``) and a zone (``utc``). Anything else is left
over, and a text with leftovers is not read at all (:class:`Facts` ``.complete`` is False): a
word the scanner does not know might change the meaning ("before", "every", "after next"),
so it is refused rather than guessed. ``rules.resolve`` turns the facts into one instant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta, timezone

from agent.timeparse.holidays import COMPUTED_HOLIDAYS as HOLIDAY_NAMES
from agent.timeparse.words import (
    DAY_AND_PART,
    DAY_WORDS,
    MINUTE_WORDS,
    MONTHS,
    NUMBER_WORDS,
    OFFSET_UNITS,
    ORDINAL_WORDS,
    PARTS_ZH,
    WEEK_QUALIFIERS_EN,
    WEEK_QUALIFIERS_ZH,
    WEEKDAYS_EN,
    WEEKDAYS_ZH,
    ZONES,
)


@dataclass(frozen=True)
class Clock:
    hour: int
    minute: int
    meridiem: str | None = None  # "am" / "pm" as written
    twenty_four_hour: bool = False  # "17:30", "9点": read as a 24-hour clock without a part
    lone: bool = False  # a number alone ("8 tonight"): an hour only beside a part of the day
    explicit: bool = False  # "07:01", "20:00": no other reading than the 24-hour one


@dataclass(frozen=True)
class Weekday:
    weekday: int  # Monday 0
    week: int | None  # None: the next one; 0 this week; 1 next week; -1 last week ...
    most_recent_too: bool = False  # English "last friday" may also mean the most recent one


@dataclass(frozen=True)
class CalendarDate:
    month: int
    day: int
    year: int | None = None
    years_from_now: int | None = None  # 明年 / next year


@dataclass(frozen=True)
class Holiday:
    name: str  # a key of holidays.COMPUTED_HOLIDAYS
    which: int | None  # None or 0 (this/next): the next one; -1 (last): the previous one


@dataclass(frozen=True)
class NthWeekday:
    weekday: int  # Monday 0
    nth: int  # 1-5, or -1 for the last
    month: int | None = None  # a named month: the next one, or in ``year``
    year: int | None = None
    months_from_now: int | None = None  # "of next month", "下个月的"


@dataclass(frozen=True)
class Offset:
    amount: float
    unit: str  # minutes, hours, days, weeks, fortnights
    base_days: int = 0  # "two days from tomorrow": counted from tomorrow


@dataclass
class Facts:
    """What a time phrase states, token by token; lists hold every occurrence."""

    day_offsets: list[int] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    weekdays: list[Weekday] = field(default_factory=list)
    dates: list[CalendarDate] = field(default_factory=list)
    holidays: list[Holiday] = field(default_factory=list)
    nth_weekdays: list[NthWeekday] = field(default_factory=list)
    month_days: list[tuple[int, int]] = field(default_factory=list)  # (months from now, day)
    days_of_month: list[int] = field(default_factory=list)
    years: list[int] = field(default_factory=list)
    years_from_now: list[int] = field(default_factory=list)
    clocks: list[Clock] = field(default_factory=list)
    offsets: list[Offset] = field(default_factory=list)
    zones: list[timezone] = field(default_factory=list)
    ambiguous: list[str] = field(default_factory=list)  # why the text cannot be one instant
    leftover: str = ""

    @property
    def complete(self) -> bool:
        return not self.leftover.strip()


def _alternatives(words: Iterable[str]) -> str:
    """Return a regex alternation of ``words``, the longest first ("sunday" before "sun")."""
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


_MONTH = rf"(?P<month>{_alternatives(MONTHS)})\.?"
_ORDINAL = rf"(?:(?P<dnum>\d{{1,2}})(?:st|nd|rd|th)?|(?P<dword>{_alternatives(ORDINAL_WORDS)}))"
_YEAR_TAIL = r"(?:,?\s*(?P<year>\d{4}|\d{2})(?![\d:a-z]))?"
_NUMBER_PATTERN = rf"\d+(?:\.\d+)?|an?|{_alternatives(NUMBER_WORDS)}"
_NUMBER = rf"(?P<count>{_NUMBER_PATTERN})"
_END = r"(?![a-z0-9])"

# (name, pattern): tried in this order at each position; the first match wins.
_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(pattern))
    for name, pattern in [
        ("now", r"(?:right |just )?now" + _END + r"|现在|此时|此刻|当前|马上|立刻|立即"),
        (
            "vague",
            r"(?:in )?(?:a )?(?:couple|few)(?: of)?"
            + _END
            + r"|几|半夜|深夜|午夜|midnight"
            + _END
            + r"|周末|weekend"
            + _END
            + r"|end of|beginning of|eod|eom|asap",
        ),
        (
            "offset_from",
            rf"{_NUMBER}\s*(?P<unit>minute|min|hour|hr|day|week|fortnight|month|year)s?"
            r"\s+(?:from|after)\s+(?P<base>(?:right )?now|today|tomorrow)" + _END,
        ),
        (
            "offset_en",
            rf"(?:(?:in|within(?:\s+the\s+next)?)\s+(?:about\s+)?{_NUMBER}\s*(?P<unit>minute|min|hour|hr|h"
            r"|day|week|wk|fortnight|month|year|yr)s?"
            + _END
            + rf"|(?P<count2>{_NUMBER_PATTERN})\s*(?P<unit2>minute|min|hour|hr|day"
            r"|week|wk|fortnight|month|year|yr)s?\s+(?P<direction>later|hence|ago|back)"
            + _END
            + ")",
        ),
        (
            "part_hour_en",
            r"in\s+(?:about\s+)?(?P<part>half an?|a quarter of an?|three-quarters of an?|1/2|1/4"
            r"|3/4)\s*(?:hour|h)" + _END,
        ),
        (
            "offset_zh",
            r"(?P<count>\d+(?:\.\d+)?|半)(?:个)?(?P<half>半)?(?P<unit>分钟|刻钟|小时|钟头|天|日"
            r"|周|星期|礼拜|个月|年)(?P<direction>以后|之后|过后|后|以前|之前|前|以内|之内|内)",
        ),
        (
            "nth_weekday_en",  # the first monday of march, last friday of this month
            r"(?:the\s+)?(?P<nth>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+"
            rf"(?P<day>{_alternatives(WEEKDAYS_EN)})\.?\s+(?:of|in)\s+(?:{_MONTH}"
            r"|(?:the\s+)?(?P<which>this|current|next|coming|following|last|previous)?\s*month)"
            r"(?:,?\s*(?P<year>\d{4}))?" + _END,
        ),
        (
            "nth_weekday_zh",  # 10月第一个星期一, 下个月的最后一个周五
            r"(?:(?P<month>\d{1,2})月|(?P<which>下个|下|这个|这|本|上个|上)月)(?:的)?"
            r"(?:第(?P<nth>[1-5])个|(?P<last>最后1个))(?:周|星期|礼拜)(?P<day>[一二三四五六日天])",
        ),
        (
            "holiday",
            r"(?:(?P<which>this|next|last|coming|upcoming)\s+)?(?P<name>"
            + _alternatives(HOLIDAY_NAMES)
            + r")(?![a-z])",
        ),
        ("day_and_part", _alternatives(DAY_AND_PART) + r"(?![a-z])"),
        ("day", _alternatives(DAY_WORDS) + r"(?![a-z])"),
        ("year_relative", r"(?P<word>明年|去年|今年|后年|前年|(?:next|last|this) year)" + _END),
        (
            "date_zh",
            r"(?:(?P<year>\d{4})年|(?P<yword>明年|去年|今年|后年|前年))?(?P<month>\d{1,2})"
            r"月(?:份)?(?P<day>\d{1,2})(?:日|号)",
        ),
        ("month_day_zh", r"(?P<which>下个|下|这个|这|本|上个|上)月(?P<day>\d{1,2})(?:日|号)"),
        (
            "month_day_en",
            r"(?P<day>\d{1,2})(?:st|nd|rd|th)?(?: day)? of (?:the )?(?P<which>next"
            r"|this|current|previous|last|coming|following) month" + _END,
        ),
        ("day_zh", r"(?P<day>\d{1,2})(?:日|号)"),
        (
            "weekday_zh",
            r"(?P<which>下下|下|上上|上|这|本|今)?(?:个)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天七1-7])",
        ),
        (
            "weekday_week_en",  # wednesday of next week, monday this week, last week's sunday
            rf"(?P<day>{_alternatives(WEEKDAYS_EN)})\.?\s+(?:of\s+|from\s+)?(?P<which>next|this"
            r"|last|the previous|previous) week"
            + _END
            + r"|(?P<which2>next|this|last|previous) week's\s+"
            + rf"(?P<day2>{_alternatives(WEEKDAYS_EN)})"
            + _END,
        ),
        (
            "weekday_en",
            rf"(?:(?P<which>next|last|previous|this|coming|upcoming|on)\s+)?"
            rf"(?P<day>{_alternatives(WEEKDAYS_EN)})\.?" + _END,
        ),
        ("iso_like", r"(?P<year>\d{4})[-/.](?P<a>\d{1,2})[-/.](?P<b>\d{1,2})(?![\d:])"),
        (
            "numeric_date",
            r"(?P<a>\d{1,2})\s?[-/.]\s?(?P<b>\d{1,2})(?:[-/.](?P<year>\d{4}|\d{2}))?"
            r"(?![\d:.])",
        ),
        ("month_year", r"\d{1,2}/\d{4}|\d{4}[-/]\d{1,2}(?![\d/-])"),
        ("date_en", rf"{_MONTH}\s*(?:the\s+)?{_ORDINAL}{_END}{_YEAR_TAIL}"),
        (
            "date_en_reversed",
            rf"(?:the\s+)?{_ORDINAL}(?:\s+of|\s*[-/])?\s*{_MONTH}{_END}"
            r"(?:[-/,]?\s*(?P<year>\d{4}|\d{2})(?![\d:a-z]))?",
        ),
        (
            "day_of_month_en",
            r"(?:the\s+)?(?:(?P<dnum>\d{1,2})(?:st|nd|rd|th)|(?P<dword>"
            + _alternatives(ORDINAL_WORDS)
            + "))"
            + _END,
        ),
        (
            "clock_zh",
            r"(?P<hour>\d{1,2})(?:点|时)(?:钟)?(?:(?P<half>半)|(?P<quarter>[13])刻|(?P<whole>整)"
            r"|(?P<minute>\d{1,2})(?:分)?)?",
        ),
        (
            "clock_meridiem",
            r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2})(?::\d{2})?)?\s*(?:o'?clock\s*)?"
            r"(?P<meridiem>am|pm)"
            + _END
            + r"|(?P<hour2>\d{1,2}):(?P<minute2>\d{2})(?P<meridiem2>a|p)"
            + _END
            + r"|(?P<hour3>\d{1,2})(?P<minute3>[0-5]\d)\s*(?P<meridiem3>am|pm)"  # 330 pm
            + _END,
        ),
        (
            "clock_word_meridiem",
            rf"(?P<hour>{_alternatives(NUMBER_WORDS)})\s*(?:o'?clock\s*)?"
            r"(?P<meridiem>am|pm)" + _END,
        ),
        ("clock", r"(?P<hour>\d{1,2}):(?P<minute>\d{2})(?::\d{2})?(?![\d])"),
        (
            "minutes_past",  # half past 3, a quarter to noon, 20 minutes past 3pm, twenty after 3
            r"(?:at |@ ?|for )?(?P<minutes>half|(?:a )?quarter|\d{1,2}|"
            + _alternatives(MINUTE_WORDS)
            + r")(?: minutes?)? (?P<relation>past|after|to) (?P<hour>\d{1,2}|noon|"
            + _alternatives(NUMBER_WORDS)
            + r")(?:\s*(?P<meridiem>am|pm))?"
            + _END,
        ),
        ("noon", r"(?:12\s*)?(?:noon|midday|mid day)" + _END),
        (
            "part_en",
            r"(?:in the |this |at )?(?:early )?(?P<part>morning|afternoon|evening|night)" + _END,
        ),
        ("part_zh", _alternatives(PARTS_ZH)),
        ("year", r"(?P<year>(?:19|20)\d{2})(?:年)?(?![\d:])"),
        (
            "bare_hour",
            r"(?P<at>at |@ ?)?(?P<hour>\d{1,2}|"
            + _alternatives(NUMBER_WORDS)
            + r")(?P<oclock>\s*o'?clock)?(?![\d:./a-z])(?!\s*(?:am|pm)\b)",
        ),
        ("zone", r"(?P<zone>" + _alternatives(ZONES) + ")" + _END),
        (
            "filler",
            r"(?:at|on|by|the|of|in|due|around|about|approximately|approx)"
            + _END
            + r"|@|的|在|[,.，、。:()\s]",
        ),
    ]
]


_WORD = re.compile(r"[a-z0-9']+")


def scan(text: str) -> Facts:
    """Return the facts ``text`` (normalised) states, and what was left over."""
    facts = Facts()
    leftover: list[str] = []
    position = 0
    while position < len(text):
        for name, pattern in _TOKENS:
            match = pattern.match(text, position)
            if match and match.end() > position:
                _record(name, match, facts)
                position = match.end()
                break
        else:
            # An unknown word is left over whole, so "9pmish" is not read as "9pm".
            word = _WORD.match(text, position)
            end = word.end() if word else position + 1
            leftover.append(text[position:end])
            position = end
    facts.leftover = " ".join(leftover)
    return facts


def _number(word: str) -> float:
    if word in ("a", "an"):
        return 1
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    return float(word)


def _ordinal(match: re.Match[str]) -> int:
    return int(match["dnum"]) if match["dnum"] else ORDINAL_WORDS[match["dword"]]


def _record(name: str, match: re.Match[str], facts: Facts) -> None:
    """Add what one token states to ``facts``."""
    groups = match.groupdict()
    if name == "now":
        facts.ambiguous.append("now is not a due time")
    elif name == "vague":
        facts.ambiguous.append(f"vague: {match[0]}")
    elif name == "offset_from":
        facts.offsets.append(
            Offset(
                _number(groups["count"]),
                OFFSET_UNITS[groups["unit"]],
                base_days=1 if groups["base"] == "tomorrow" else 0,
            )
        )
    elif name == "offset_en":
        unit = groups["unit"] or groups["unit2"]
        sign = -1 if groups.get("direction") in ("ago", "back") else 1
        count = groups["count"] or groups["count2"]
        facts.offsets.append(Offset(sign * _number(count), OFFSET_UNITS[unit]))
    elif name == "part_hour_en":
        part = groups["part"].split()[0]
        minutes = {"half": 30, "1/2": 30, "a": 15, "1/4": 15, "three-quarters": 45, "3/4": 45}
        facts.offsets.append(Offset(minutes[part], "minutes"))
    elif name == "offset_zh":
        count = 0.5 if groups["count"] == "半" else float(groups["count"])
        count += 0.5 if groups["half"] else 0
        sign = -1 if groups["direction"] in ("以前", "之前", "前") else 1
        if groups["unit"] == "刻钟":  # 一刻钟后: a quarter of an hour
            count, groups["unit"] = count * 15, "分钟"
        facts.offsets.append(Offset(sign * count, OFFSET_UNITS[groups["unit"]]))
    elif name in ("nth_weekday_en", "nth_weekday_zh"):
        facts.nth_weekdays.append(_nth_weekday(name, groups))
    elif name == "holiday":
        qualifier = groups["which"]
        facts.holidays.append(
            Holiday(groups["name"], -1 if qualifier == "last" else 0 if qualifier else None)
        )
    elif name == "day_and_part":
        offset, part = DAY_AND_PART[match[0]]
        facts.day_offsets.append(offset)
        facts.parts.append(part)
    elif name == "day":
        facts.day_offsets.append(DAY_WORDS[match[0]])
    elif name == "year_relative":
        facts.years_from_now.append(_relative_year(groups["word"]))
    elif name == "date_zh":
        facts.dates.append(
            CalendarDate(
                int(groups["month"]),
                int(groups["day"]),
                year=int(groups["year"]) if groups["year"] else None,
                years_from_now=_relative_year(groups["yword"]) if groups["yword"] else None,
            )
        )
    elif name == "month_day_zh":
        months = {"下个": 1, "下": 1, "上个": -1, "上": -1}.get(groups["which"], 0)
        facts.month_days.append((months, int(groups["day"])))
    elif name == "month_day_en":
        relative = {"next": 1, "coming": 1, "following": 1, "previous": -1, "last": -1}
        months = relative.get(groups["which"], 0)
        facts.month_days.append((months, int(groups["day"])))
    elif name in ("day_zh", "day_of_month_en"):
        facts.days_of_month.append(int(groups["day"]) if "day" in groups else _ordinal(match))
    elif name == "weekday_zh":
        name_of_day = groups["day"]
        weekday = int(name_of_day) - 1 if name_of_day.isdigit() else WEEKDAYS_ZH[name_of_day]
        week = WEEK_QUALIFIERS_ZH[groups["which"]] if groups["which"] else None
        facts.weekdays.append(Weekday(weekday, week))
    elif name == "weekday_week_en":
        which = (groups["which"] or groups["which2"]).removeprefix("the ")
        week = {"next": 1, "this": 0, "last": -1, "previous": -1}[which]
        facts.weekdays.append(Weekday(WEEKDAYS_EN[groups["day"] or groups["day2"]], week))
    elif name == "weekday_en":
        week = WEEK_QUALIFIERS_EN.get(groups["which"] or "")
        facts.weekdays.append(Weekday(WEEKDAYS_EN[groups["day"]], week, most_recent_too=week == -1))
    elif name == "iso_like":
        facts.dates.append(CalendarDate(int(groups["a"]), int(groups["b"]), int(groups["year"])))
    elif name == "numeric_date":
        _record_numeric_date(int(groups["a"]), int(groups["b"]), groups["year"], facts)
    elif name == "month_year":
        facts.ambiguous.append("a month, not a day")
    elif name in ("date_en", "date_en_reversed"):
        year = groups.get("year")
        if year is not None and len(year) == 2:
            facts.ambiguous.append("two-digit year")
        facts.dates.append(
            CalendarDate(MONTHS[groups["month"]], _ordinal(match), int(year) if year else None)
        )
    elif name == "clock_zh":
        minute = 30 if groups["half"] else 15 * int(groups["quarter"]) if groups["quarter"] else 0
        if groups["minute"]:
            minute = int(groups["minute"])
        facts.clocks.append(Clock(int(groups["hour"]), minute, twenty_four_hour=True))
    elif name in ("clock_meridiem", "clock_word_meridiem"):
        hour_text = groups["hour"] or groups.get("hour2") or groups.get("hour3") or ""
        minute_text = groups.get("minute") or groups.get("minute2") or groups.get("minute3") or "0"
        written = groups["meridiem"] or groups.get("meridiem2") or groups.get("meridiem3") or ""
        meridiem = written[0] + "m"
        facts.clocks.append(Clock(int(_number(hour_text)), int(minute_text), meridiem=meridiem))
    elif name == "clock":
        hour = groups["hour"]
        facts.clocks.append(
            Clock(
                int(hour),
                int(groups["minute"]),
                twenty_four_hour=True,
                explicit=hour.startswith("0") or int(hour) >= 13,
            )
        )
    elif name == "minutes_past":
        facts.clocks.append(_minutes_past(groups))
    elif name == "noon":
        facts.clocks.append(Clock(12, 0, twenty_four_hour=True))
    elif name == "part_en":
        part = groups["part"]
        facts.parts.append("evening" if part == "night" else part)
    elif name == "part_zh":
        facts.parts.append(PARTS_ZH[match[0]])
    elif name == "year":
        facts.years.append(int(groups["year"]))
    elif name == "bare_hour":
        lone = not (groups["at"] or groups["oclock"])
        facts.clocks.append(Clock(int(_number(groups["hour"])), 0, lone=lone))
    elif name == "zone":
        facts.zones.append(timezone(timedelta(minutes=ZONES[groups["zone"]])))


_NTH = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "fifth": 5,
    "5th": 5,
    "last": -1,
}
_MONTHS_FROM_NOW = {
    "next": 1,
    "coming": 1,
    "following": 1,
    "last": -1,
    "previous": -1,
    "下个": 1,
    "下": 1,
    "上个": -1,
    "上": -1,
}


def _nth_weekday(name: str, groups: dict[str, str]) -> NthWeekday:
    """Return "the first monday of march" / "10月第1个星期一" as facts."""
    if name == "nth_weekday_en":
        weekday, nth = WEEKDAYS_EN[groups["day"]], _NTH[groups["nth"]]
        month = MONTHS[groups["month"]] if groups["month"] else None
    else:
        weekday = WEEKDAYS_ZH[groups["day"]]
        nth = -1 if groups["last"] else int(groups["nth"])
        month = int(groups["month"]) if groups["month"] else None
    year = int(groups["year"]) if groups.get("year") else None
    relative = None if month else _MONTHS_FROM_NOW.get(groups["which"] or "", 0)
    return NthWeekday(weekday, nth, month=month, year=year, months_from_now=relative)


def _minutes_past(groups: dict[str, str]) -> Clock:
    """Return the clock of "half past 3", "a quarter to noon", "20 minutes past 3pm"."""
    words = groups["minutes"].removeprefix("a ")
    minutes = {"half": 30, "quarter": 15}.get(words) or MINUTE_WORDS.get(words) or int(words)
    noon = groups["hour"] == "noon"
    hour = 12 if noon else int(_number(groups["hour"]))
    if groups["relation"] == "to":
        hour, minutes = (hour - 1) or 12, 60 - minutes
    if not 0 < minutes < 60:
        minutes = 60  # no such clock time: refused by the rules
    return Clock(hour, minutes, meridiem=groups["meridiem"], twenty_four_hour=noon, explicit=noon)


def _relative_year(word: str) -> int:
    return {"明年": 1, "next year": 1, "后年": 2, "去年": -1, "last year": -1, "前年": -2}.get(
        word, 0
    )


def _record_numeric_date(first: int, second: int, year: str | None, facts: Facts) -> None:
    """Read ``12/25``, ``25.12``, ``4.22``: only when month and day cannot swap."""
    if year is not None and len(year) == 2:
        facts.ambiguous.append("two-digit year")
    if first <= 12 and second <= 12 and first != second:
        facts.ambiguous.append("day and month could swap")
        return
    month, day = (first, second) if first <= 12 else (second, first)
    facts.dates.append(CalendarDate(month, day, int(year) if year else None))
