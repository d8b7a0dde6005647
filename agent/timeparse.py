"""Turn a natural-language or ISO time (Chinese or English) into an aware datetime.

Generic: it knows nothing of todos. The pipeline is

    normalise -> read (ISO by hand | Chinese via jionlp | English via dateparser)
              -> apply the precision rules -> check plausibility

A reader returns a :class:`_Reading` that says how precise the text was: an explicit time of
day (``"minute"``), a single day with no time (``"day"``: the deadline is 23:59 that day), or
something vaguer (``"vague"``: a part of the day, a week, a month; the caller asks for a time).
The libraries get several inputs wrong on their own (the due-time table in
``tests/test_timeparse.py`` lists them); the steps here correct those, not re-implement them.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from types import ModuleType
from typing import Literal
from zoneinfo import ZoneInfo

Reason = Literal["invalid", "suspicious"]
Precision = Literal["minute", "day", "vague"]

# A due time is a short phrase; a long text is not one, and would only slow the parsers down.
MAX_TEXT_LENGTH = 100
# A date with no time of day is a deadline "by the end of that day".
END_OF_DAY = time(23, 59)
YEARS_BACK_ALLOWED = 1
YEARS_AHEAD_ALLOWED = 10


class TimeParseError(Exception):
    """A time the caller must not use: ``invalid`` (unreadable or vague) or ``suspicious``."""

    def __init__(self, reason: Reason, *, text: str, value: datetime | None = None) -> None:
        super().__init__(f"{reason} time: {text!r}")
        self.reason: Reason = reason
        self.text = text
        # Only for "suspicious": the datetime the text was read as, so a card can show it.
        self.value = value


@dataclass(frozen=True)
class _Reading:
    moment: datetime  # aware, in the user's zone
    precision: Precision


def parse_time(text: str, *, now: datetime, zone: ZoneInfo) -> datetime:
    """Turn a natural-language or ISO time (zh or en) into an aware datetime in ``zone``."""
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    normalised = _normalise(text)
    if not normalised or len(normalised) > MAX_TEXT_LENGTH:
        raise TimeParseError("invalid", text=text)
    local_now = now.astimezone(zone).replace(tzinfo=None)
    try:
        reading = _read(normalised, local_now=local_now, zone=zone)
        if reading is None:
            raise TimeParseError("invalid", text=text)
        value = _apply_precision(reading, normalised, text=text, zone=zone)
    except OverflowError:
        # A time at the edge of datetime's range ("0001-01-01") has no value to show.
        raise TimeParseError("invalid", text=text) from None
    _check_plausible(value, now=now, text=text)
    return value


def _read(text: str, *, local_now: datetime, zone: ZoneInfo) -> _Reading | None:
    """Read ISO by hand, Chinese with jionlp, anything else with dateparser."""
    reading = _read_iso(text, zone)
    if reading is not None:
        return reading
    reader = _read_chinese if _has_cjk(text) else _read_english
    return reader(text, local_now=local_now, zone=zone)


# --- normalise ---------------------------------------------------------------------------

_CJK = re.compile(r"[\u3400-\u9fff]")
_SPACE_NEXT_TO_WIDE_CHARACTER = re.compile(r" (?=[^\x00-\x7f])|(?<=[^\x00-\x7f]) ")
_CHINESE_DIGITS = dict(
    zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True)
)
# A Chinese number below 60 directly before 点/时/分 is an hour or a minute ("九点", "十五分");
# not after 周/期/拜, where "一" is the weekday ("下周一十点" is Monday 10:00).
_CHINESE_CLOCK_NUMBER = re.compile(
    r"(?<![周期拜])([一二三四五]?十[一二三四五六七八九]?|[零〇一二两三四五六七八九])(?=[点时分])"
)
_ENGLISH_MERIDIEM = re.compile(r"\b([ap])\.m\.?", re.IGNORECASE)


def _normalise(text: str) -> str:
    """Return the text with width, spacing and numerals in the forms the parsers read best."""
    # NFKC folds full-width digits and colons ("２１：００") to ASCII.
    folded = unicodedata.normalize("NFKC", text)
    collapsed = " ".join(folded.split())
    # jionlp reads "今晚 9 点" as a vague evening; "今晚9点" as 21:00.
    joined = _SPACE_NEXT_TO_WIDE_CHARACTER.sub("", collapsed)
    with_digits = _CHINESE_CLOCK_NUMBER.sub(lambda match: str(_chinese_number(match[1])), joined)
    return _ENGLISH_MERIDIEM.sub(lambda match: match[1] + "m", with_digits)


def _chinese_number(numeral: str) -> int:
    """Return the value of a Chinese number below 60 ("九" 9, "十二" 12, "二十五" 25)."""
    tens, ten, units = numeral.partition("十")
    if not ten:
        return _CHINESE_DIGITS[numeral]
    return _CHINESE_DIGITS.get(tens, 1) * 10 + _CHINESE_DIGITS.get(units, 0)


def _has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


# --- read ------------------------------------------------------------------------------


def _read_iso(text: str, zone: ZoneInfo) -> _Reading | None:
    """Read an ISO 8601 date or datetime; a naive one is local, an offset one is converted."""
    # Parsed by hand: dateparser drops a trailing "Z" under some settings, jionlp rejects "T".
    try:
        day = date.fromisoformat(text)
    except ValueError:
        pass
    else:
        return _Reading(_localise(datetime.combine(day, time()), zone), "day")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return _Reading(_localise(moment, zone), "minute")
    return _Reading(moment.astimezone(zone), "minute")


_jionlp_lock = threading.Lock()


@cache
def _jionlp() -> ModuleType:
    # Imported on first use: the import loads dictionaries and prints a banner.
    import jionlp

    return jionlp


def _read_chinese(text: str, *, local_now: datetime, zone: ZoneInfo) -> _Reading | None:
    """Read Chinese text with jionlp, classifying its answer range by precision."""
    jionlp = _jionlp()
    try:
        # jionlp.parse_time is one shared parser object that keeps the time base in an
        # attribute during a call, so concurrent calls from two threads would mix bases.
        with _jionlp_lock:
            result = jionlp.parse_time(text, time_base=local_now)
        if result["type"] != "time_point":  # a span ("明天之前"), a period ("每天9点")
            return None
        start, end = (datetime.fromisoformat(bound) for bound in result["time"])
    # jionlp raises assorted errors on text it cannot read; all of them mean "not a time".
    except Exception:
        return None
    return _Reading(_localise(start, zone), _jionlp_precision(start, end, result["definition"]))


def _jionlp_precision(start: datetime, end: datetime, definition: str) -> Precision:
    """Say how precise a jionlp range is: under a day, exactly one day, or wider or blurred."""
    # jionlp answers a range: "9点" is 09:00-09:59:59, "明天" is 00:00-23:59:59, "下午" is a
    # "blur" 13:00-17:59:59, "下周" a blurred week.
    if definition != "accurate":
        return "vague"
    whole_day = start.time() == time() and end == datetime.combine(start, time(23, 59, 59))
    if whole_day:
        return "day"
    if end - start < timedelta(days=1):
        return "minute"
    return "vague"


_ENGLISH_TIME_OF_DAY = re.compile(
    r"""\b\d{1,2}(?::\d{2})?\s*[ap]m\b     # 9pm, 9:30 am
      | \b\d{1,2}:\d{2}\b                  # 17:30
      | \bnoon\b
      | \b(?:\d+|an?)\s+(?:hours?|hrs?|minutes?|mins?)\b   # in 2 hours, 30 minutes later
    """,
    re.IGNORECASE | re.VERBOSE,
)
# "at 9" names an hour without saying morning or evening; dateparser silently ignores it.
_ENGLISH_BARE_HOUR = re.compile(r"\bat\s+(\d{1,2})\b(?!\s*(?::|[ap]m\b))", re.IGNORECASE)
_ENGLISH_EVENING = re.compile(r"\b(?:tonight|evening|afternoon)\b", re.IGNORECASE)
_ENGLISH_HALF_HOUR = re.compile(r"\bhalf an hour\b", re.IGNORECASE)
_DATEPARSER_SINGLE_DAY_PERIODS = {"day", "time"}


def _read_english(text: str, *, local_now: datetime, zone: ZoneInfo) -> _Reading | None:
    """Read English text with dateparser; the precision comes from the text itself."""
    from dateparser.date import DateDataParser  # type: ignore[import-untyped]

    text = _qualify_bare_hours(_ENGLISH_HALF_HOUR.sub("30 minutes", text))
    parser = DateDataParser(
        languages=["en"],
        # No TIMEZONE setting: with it, "5pm" at 14:00 lands on tomorrow. A naive answer is
        # wall-clock time in the user's zone; a zone named in the text gives an aware one.
        settings={"RELATIVE_BASE": local_now, "PREFER_DATES_FROM": "future"},
    )
    data = parser.get_date_data(text)
    if data.date_obj is None:
        return None
    if data.date_obj.tzinfo is None:
        moment = _localise(data.date_obj, zone)
    else:
        moment = data.date_obj.astimezone(zone)
    # dateparser fills a missing time with the current clock ("tomorrow" -> 14:00 tomorrow)
    # and reports no precision, so it is read off the text.
    if data.period not in _DATEPARSER_SINGLE_DAY_PERIODS or _ENGLISH_BARE_HOUR.search(text):
        return _Reading(moment, "vague")
    if _ENGLISH_TIME_OF_DAY.search(text):
        return _Reading(moment, "minute")
    return _Reading(moment, "day")


def _qualify_bare_hours(text: str) -> str:
    """Give "at 9" a meridiem when the text settles it ("tonight at 9", "at 17")."""

    def qualify(match: re.Match[str]) -> str:
        hour = int(match[1])
        if 13 <= hour <= 23:
            return f"at {hour}:00"
        if 1 <= hour <= 11 and _ENGLISH_EVENING.search(text):
            return f"at {hour}pm"
        return match[0]  # still ambiguous: left for the reader to call vague

    return _ENGLISH_BARE_HOUR.sub(qualify, text)


# --- rules -----------------------------------------------------------------------------

_PART_OF_DAY = re.compile(
    r"今晚|明晚|昨晚|晚上|夜里|夜间|半夜|傍晚|早上|早晨|清晨|上午|中午|午后|下午|凌晨|白天"
    r"|\b(?:tonight|morning|afternoon|evening|night|midnight)\b",
    re.IGNORECASE,
)


def _apply_precision(reading: _Reading, normalised: str, *, text: str, zone: ZoneInfo) -> datetime:
    """Return the concrete time a reading stands for, or refuse a vague one."""
    if reading.precision == "vague":
        raise TimeParseError("invalid", text=text)
    if reading.precision == "day":
        # jionlp reads "今晚" as the whole day: a part of the day with no hour is vague.
        if _PART_OF_DAY.search(normalised):
            raise TimeParseError("invalid", text=text)
        day = reading.moment.date()
        return _localise(datetime.combine(day, END_OF_DAY), zone)
    return reading.moment.replace(second=0, microsecond=0)


def _check_plausible(value: datetime, *, now: datetime, text: str) -> None:
    """Refuse a time over a year in the past or over ten years ahead (a misread year)."""
    earliest = _shift_years(now, -YEARS_BACK_ALLOWED)
    latest = _shift_years(now, YEARS_AHEAD_ALLOWED)
    if not earliest <= value <= latest:
        raise TimeParseError("suspicious", text=text, value=value)


def _shift_years(moment: datetime, years: int) -> datetime:
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February in a year without one
        return moment.replace(year=moment.year + years, day=28)


def _localise(wall_clock: datetime, zone: ZoneInfo) -> datetime:
    """Attach ``zone`` to a naive wall-clock time, moving a time in a DST gap forward."""
    # The round trip through UTC turns a nonexistent 02:30 (spring forward) into 03:30.
    return wall_clock.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)
