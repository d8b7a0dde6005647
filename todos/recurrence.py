"""Recurrence rules: a closed subset of RFC 5545 RRULE, read, said in words and iterated.

One engine over tables: :data:`PARTS` says which rule parts exist and how each is read and
bounded; ``todos.recurrence_words`` holds the words per language. Occurrences are computed by
python-dateutil's ``rrule`` on the wall clock of the user's zone, so 09:00 stays 09:00 local
across a DST change, then turned back into instants.

Bounded: INTERVAL <= 365, COUNT <= :data:`COUNT_MAX`, UNTIL within ten years, at most
:data:`OCCURRENCES_MAX` occurrences asked at once, and a rule is accepted only once it is
known to occur (``rrule`` gives up at year 9999, so a rule that can never match, such as a
30th every twelve months from February, is refused instead of searched on every read).
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dateutil import rrule as dateutil_rrule

from lightnote.errors import LightNoteError
from lightnote.texts.i18n import translate
from lightnote.times import shift_years
from todos.models import RECURRENCE_MAX
from todos.recurrence_words import (
    FREQ_WORDS,
    ORDINAL_WORDS,
    PHRASES,
    WEEKDAY_WORDS,
    WEEKDAYS,
    WORKING_DAYS,
)

INTERVAL_MAX = 365
COUNT_MAX = 1000
UNTIL_YEARS_MAX = 10
OCCURRENCES_MAX = 3  # next_occurrences in the API and on cards


_FREQS: dict[str, Any] = {
    "DAILY": dateutil_rrule.DAILY,
    "WEEKLY": dateutil_rrule.WEEKLY,
    "MONTHLY": dateutil_rrule.MONTHLY,
    "YEARLY": dateutil_rrule.YEARLY,
}
_DATEUTIL_WEEKDAYS = dict(zip(WEEKDAYS, dateutil_rrule.weekdays, strict=True))
_BYDAY = re.compile(r"^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$")
_UNTIL = re.compile(r"^(\d{8})(T(\d{6})Z)?$")


class RecurrenceUnsupported(LightNoteError):
    """The 400 ``TODO_RECURRENCE_UNSUPPORTED``, its reason said in the request's language.

    ``reason`` names a ``TODO_RECURRENCE_WHY_<reason>`` text; ``expected`` (for a bad value)
    a ``TODO_RECURRENCE_EXPECT_<code>`` text with its parameters.
    """

    def __init__(self, reason: str, *, expected: Expected | None = None, **details: Any) -> None:
        super().__init__(
            "TODO_RECURRENCE_UNSUPPORTED",
            params={"interval_max": INTERVAL_MAX, "count_max": COUNT_MAX},
        )
        self.reason, self.expected, self.details = reason, expected, details

    def message(self, locale: str | None) -> str:
        details = dict(self.details)
        if self.expected is not None:
            code, params = self.expected.args
            details["expected"] = translate(f"TODO_RECURRENCE_EXPECT_{code}", locale, **params)
        reason = translate(f"TODO_RECURRENCE_WHY_{self.reason}", locale, **details)
        return translate(self.code, locale, reason=reason, **self.params)


class Expected(ValueError):
    """A rule part's value is not of its form: ``Expected(code, params)``."""


def unsupported(reason: str, **details: Any) -> RecurrenceUnsupported:
    """Return the 400 ``TODO_RECURRENCE_UNSUPPORTED`` naming what is wrong."""
    return RecurrenceUnsupported(reason, **details)


def _bounded_int(low: int, high: int) -> Callable[[str], int]:
    def read(raw: str) -> int:
        if not re.fullmatch(r"[+-]?\d{1,4}", raw) or not low <= int(raw) <= high:
            raise Expected("RANGE", {"low": low, "high": high})
        return int(raw)

    return read


def _freq(raw: str) -> str:
    if raw not in _FREQS:
        raise Expected("FREQ", {})
    return raw


def _byday(raw: str) -> tuple[tuple[int | None, str], ...]:
    days = []
    for token in raw.split(","):
        match = _BYDAY.match(token)
        if not match:
            raise Expected("DAY", {})
        ordinal = int(match.group(1)) if match.group(1) else None
        if ordinal is not None and ordinal not in ORDINAL_WORDS["en"]:
            raise Expected("DAY", {})
        days.append((ordinal, match.group(2)))
    return tuple(dict.fromkeys(days))


def _bymonthday(raw: str) -> tuple[int, ...]:
    days = [_bounded_int(-31, 31)(token) for token in raw.split(",")]
    if 0 in days:
        raise Expected("MONTHDAY", {})
    return tuple(dict.fromkeys(days))


def _bysetpos(raw: str) -> int:
    if raw != "-1":
        raise Expected("SETPOS", {})
    return -1


def _until(raw: str) -> dt.datetime:
    match = _UNTIL.match(raw)
    if not match:
        raise Expected("UNTIL", {})
    try:
        if match.group(3):
            stamp = match.group(1) + match.group(3) + "+0000"
            return dt.datetime.strptime(stamp, "%Y%m%d%H%M%S%z")
        # A date alone: the end of that day on the wall clock of the user's zone (naive).
        day = dt.date(int(raw[:4]), int(raw[4:6]), int(raw[6:8]))
        return dt.datetime.combine(day, dt.time(23, 59))
    except ValueError:
        raise Expected("DATE", {}) from None


# Each rule part: how it is read (raising ValueError with what it expects).
PARTS: dict[str, Callable[[str], Any]] = {
    "FREQ": _freq,
    "INTERVAL": _bounded_int(1, INTERVAL_MAX),
    "BYDAY": _byday,
    "BYMONTHDAY": _bymonthday,
    "BYSETPOS": _bysetpos,
    "COUNT": _bounded_int(1, COUNT_MAX),
    "UNTIL": _until,
}
# The order a rule is written back in (its canonical string).
PART_ORDER = tuple(PARTS)
# Pairs that may not appear together, with why.
CONFLICTS = {("COUNT", "UNTIL"): "COUNT_AND_UNTIL"}


@dataclass(frozen=True)
class Recurrence:
    """A checked rule: its parts as read, and its canonical RRULE string."""

    freq: str
    interval: int = 1
    byday: tuple[tuple[int | None, str], ...] = ()
    bymonthday: tuple[int, ...] = ()
    bysetpos: int | None = None
    count: int | None = None
    until: dt.datetime | None = None
    raw_parts: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def canonical(self) -> str:
        parts = self.raw_parts
        return ";".join(f"{name}={parts[name]}" for name in PART_ORDER if name in parts)


def parse_recurrence(value: Any) -> Recurrence:
    """Read ``value`` as a rule of the supported subset, else ``TODO_RECURRENCE_UNSUPPORTED``."""
    if not isinstance(value, str) or not value.strip():
        raise unsupported("NOT_A_RULE")
    text = value.strip()
    if len(text) > RECURRENCE_MAX:
        raise unsupported("TOO_LONG", max=RECURRENCE_MAX)
    if text.upper().startswith("RRULE:"):
        text = text[len("RRULE:") :]
    raw_parts: dict[str, str] = {}
    read: dict[str, Any] = {}
    for piece in text.split(";"):
        name, sep, raw = piece.partition("=")
        name, raw = name.strip().upper(), raw.strip().upper()
        if not sep or not raw:
            raise unsupported("NOT_NAME_VALUE", piece=piece)
        if name not in PARTS:
            raise unsupported("PART", name=name)
        if name in raw_parts:
            raise unsupported("TWICE", name=name)
        try:
            read[name] = PARTS[name](raw)
        except Expected as error:
            raise unsupported("VALUE", name=name, expected=error) from None
        raw_parts[name] = raw
    if "FREQ" not in read:
        raise unsupported("NO_FREQ")
    for pair, why in CONFLICTS.items():
        if set(pair) <= set(read):
            raise unsupported(why)
    if read.get("BYSETPOS") and not ({"BYDAY", "BYMONTHDAY"} & set(read)):
        raise unsupported("SETPOS_ALONE")
    if any(ordinal for ordinal, _ in read.get("BYDAY", ())) and read["FREQ"] not in (
        "MONTHLY",
        "YEARLY",
    ):
        raise unsupported("NUMBERED_DAY")
    return Recurrence(
        freq=read["FREQ"],
        interval=read.get("INTERVAL", 1),
        byday=read.get("BYDAY", ()),
        bymonthday=read.get("BYMONTHDAY", ()),
        bysetpos=read.get("BYSETPOS"),
        count=read.get("COUNT"),
        until=read.get("UNTIL"),
        raw_parts=raw_parts,
    )


def _local(moment: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    """The wall-clock time of ``moment`` in ``zone``, naive (what ``rrule`` steps over)."""
    return moment.astimezone(zone).replace(tzinfo=None, microsecond=0)


def _instant(wall: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    return wall.replace(tzinfo=zone).astimezone(dt.UTC)


def _rule(recurrence: Recurrence, start: dt.datetime, zone: dt.tzinfo) -> dateutil_rrule.rrule:
    until = recurrence.until
    if until is not None:
        until = _local(until, zone) if until.tzinfo else until
    weekdays = [
        _DATEUTIL_WEEKDAYS[day](ordinal) if ordinal else _DATEUTIL_WEEKDAYS[day]
        for ordinal, day in recurrence.byday
    ]
    return dateutil_rrule.rrule(
        _FREQS[recurrence.freq],
        dtstart=_local(start, zone),
        interval=recurrence.interval,
        byweekday=weekdays or None,
        bymonthday=recurrence.bymonthday or None,
        bysetpos=recurrence.bysetpos,
        count=recurrence.count,
        until=until,
    )


def check_recurrence(
    value: Any, *, start: dt.datetime | None, zone: dt.tzinfo, now: dt.datetime
) -> str:
    """Return the canonical rule for a series starting at ``start``, or raise.

    ``TODO_RECURRENCE_NEEDS_DUE_AT`` without a start; ``TODO_RECURRENCE_UNSUPPORTED`` for a
    rule outside the subset, an UNTIL over ten years ahead, or a rule that never occurs.
    """
    recurrence = parse_recurrence(value)
    if start is None:
        raise LightNoteError("TODO_RECURRENCE_NEEDS_DUE_AT")
    until = recurrence.until
    if until is not None and until.tzinfo is None:
        until = until.replace(tzinfo=zone)
    if until is not None and until > shift_years(now, UNTIL_YEARS_MAX):
        raise unsupported("UNTIL_FAR", years=UNTIL_YEARS_MAX)
    # The one unbounded walk rrule can take is over a rule that never matches; it is taken
    # here, once, and such a rule is refused, so stored rules always find their next date.
    if next(iter(_rule(recurrence, start, zone)), None) is None:
        raise unsupported("NEVER")
    return recurrence.canonical


def occurrences(
    value: str,
    *,
    start: dt.datetime,
    after: dt.datetime,
    zone: dt.tzinfo,
    limit: int = OCCURRENCES_MAX,
    inclusive: bool = False,
) -> list[dt.datetime]:
    """Return up to ``limit`` instants of the series from ``start`` after (or at) ``after``."""
    rule = _rule(parse_recurrence(value), start, zone)
    found: list[dt.datetime] = []
    wall: dt.datetime | None = _local(after, zone)
    while wall is not None and len(found) < min(limit, OCCURRENCES_MAX):
        wall = rule.after(wall, inc=inclusive and not found)
        if wall is not None:
            found.append(_instant(wall, zone))
    return found


def next_occurrence(
    value: str, *, start: dt.datetime, after: dt.datetime, zone: dt.tzinfo
) -> dt.datetime | None:
    """Return the series' first instant strictly after ``after``, or None when it has ended."""
    found = occurrences(value, start=start, after=after, zone=zone, limit=1)
    return found[0] if found else None


# --- in words ---------------------------------------------------------------------------


def _joined(words: list[str], phrases: dict[str, str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return phrases["join"].join(words[:-1]) + phrases["join_last"] + words[-1]


def _day_words(recurrence: Recurrence, locale: str) -> list[str]:
    names = WEEKDAY_WORDS[locale]
    phrases = PHRASES[locale]
    days = [day for _, day in recurrence.byday]
    if days == list(WORKING_DAYS) and not any(ordinal for ordinal, _ in recurrence.byday):
        return [phrases["weekdays"]]
    words = []
    for ordinal, day in recurrence.byday:
        if ordinal:
            ordinal_word = ORDINAL_WORDS[locale][ordinal]
            words.append(phrases["ordinal_day"].format(ordinal=ordinal_word, day=names[day]))
        else:
            words.append(names[day])
    return words


def _monthday_words(recurrence: Recurrence, locale: str) -> list[str]:
    phrases = PHRASES[locale]
    words = []
    for day in recurrence.bymonthday:
        if day == -1:
            words.append(phrases["last_monthday"])
        elif day < 0:
            words.append(phrases["nth_last_monthday"].format(n=-day))
        else:
            words.append(phrases["monthday"].format(day=day))
    return words


def recurrence_text(value: str | None, *, locale: str, zone: dt.tzinfo | None = None) -> str | None:
    """Say the rule in words in ``locale`` ("每周一" / "every Monday"); None for no rule."""
    if not value:
        return None
    locale = locale if locale in FREQ_WORDS else "zh-CN"
    recurrence = parse_recurrence(value)
    phrases = PHRASES[locale]
    single, many = FREQ_WORDS[locale][recurrence.freq]
    every = single if recurrence.interval == 1 else many.format(n=recurrence.interval)
    said = every
    if recurrence.byday:
        days = _joined(_day_words(recurrence, locale), phrases)
        if recurrence.bysetpos == -1:
            said = phrases["last_of_days"].format(every=every, days=days)
        elif recurrence.freq == "WEEKLY" and recurrence.interval == 1:
            weekdays = days == phrases["weekdays"]
            said = phrases["weekly_weekdays" if weekdays else "weekly_days"].format(days=days)
        else:
            said = phrases["on_days"].format(every=every, days=days)
    elif recurrence.bymonthday:
        said = phrases["on_monthdays"].format(
            every=every, days=_joined(_monthday_words(recurrence, locale), phrases)
        )
    if recurrence.count:
        said += phrases["count"].format(n=recurrence.count)
    if recurrence.until:
        until = recurrence.until
        if until.tzinfo and zone is not None:
            until = until.astimezone(zone)
        said += phrases["until"].format(date=f"{until:%Y-%m-%d}")
    return said


def user_zone(user: Any) -> zoneinfo.ZoneInfo:
    """The zone a user's series follow (their ``time_zone`` preference)."""
    from django.conf import settings

    return zoneinfo.ZoneInfo(getattr(user, "time_zone", None) or settings.LIGHTNOTE_TIME_ZONE)
