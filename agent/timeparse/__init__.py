"""Turn a natural-language or ISO time (Chinese, English or mixed) into an aware datetime.

Generic: it knows nothing of todos. The pipeline is

    normalise -> ISO by hand | the grammar (grammar.scan -> rules.resolve)
              | a lunar holiday via jionlp -> the plausible window

The grammar reads every word or refuses the whole text, and every fact it reads must agree
with the others (a clock time with am/pm and the part of the day, a weekday with the date,
a year with the date); so a text is read as the instant it states, or refused. It never
falls back to 23:59 or the current clock when a time was written, and never lets a library
guess the year or the week. The rules are in ``rules.py`` and docs/agent-tools.md; the
development corpus (tests/data/duckling-time.tsv) checks them on about 1,600 phrasings.

Public: :func:`parse_time` (the instant), :func:`read_time` (the instant and whether the text
was a plain ISO date-time, for the card), :class:`TimeParseError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal
from zoneinfo import ZoneInfo

from agent.timeparse.grammar import scan
from agent.timeparse.holidays import read_lunar_holiday
from agent.timeparse.normalise import normalise
from agent.timeparse.rules import END_OF_DAY, Unreadable, resolve
from lightnote.times import is_plausible

__all__ = [
    "END_OF_DAY",
    "MAX_TEXT_LENGTH",
    "TimeParseError",
    "TimeReading",
    "parse_time",
    "read_time",
]

Reason = Literal["invalid", "suspicious"]

# A due time is a short phrase; a long text is not one.
MAX_TEXT_LENGTH = 100


class TimeParseError(Exception):
    """A time the caller must not use: ``invalid`` (unreadable, vague, self-contradictory or
    ambiguous) or ``suspicious`` (outside the plausible window)."""

    def __init__(
        self, reason: Reason, *, text: str, value: datetime | None = None, why: str = ""
    ) -> None:
        super().__init__(f"{reason} time: {text!r}" + (f" ({why})" if why else ""))
        self.reason: Reason = reason
        self.text = text
        # Only for "suspicious": the datetime the text was read as, so a card can show it.
        self.value = value
        self.why = why  # for logs and tests, never shown to a user


@dataclass(frozen=True)
class TimeReading:
    value: datetime  # aware, in the user's zone, whole minutes
    plain: bool  # the text was an ISO date-time: nothing to explain on the card


def parse_time(text: str, *, now: datetime, zone: ZoneInfo) -> datetime:
    """Turn a natural-language or ISO time (zh or en) into an aware datetime in ``zone``."""
    return read_time(text, now=now, zone=zone).value


def read_time(text: str, *, now: datetime, zone: ZoneInfo, nearest: bool = False) -> TimeReading:
    """Read ``text`` like :func:`parse_time`, saying also whether it was a plain ISO time.

    ``nearest``: a calendar date without a year is the one nearest today, past or future
    (a bound of a search: "due before Dec 1" said on Dec 2 means this year's), instead of the
    next one (a due time).
    """
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    normalised = normalise(text)
    if not normalised or len(normalised) > MAX_TEXT_LENGTH:
        raise TimeParseError("invalid", text=text, why="empty or too long")
    try:
        iso = _read_iso(normalised, zone)
        if iso is not None:
            value, plain = iso, True
        else:
            value, plain = _read_natural(normalised, now=now, zone=zone, nearest=nearest), False
    except Unreadable as refusal:
        raise TimeParseError("invalid", text=text, why=str(refusal)) from None
    except OverflowError:
        # A time at the edge of datetime's range ("0001-01-01") has no value to show.
        raise TimeParseError("invalid", text=text, why="out of range") from None
    value = value.astimezone(zone).replace(second=0, microsecond=0)
    _check_plausible(value, now=now, text=text)
    return TimeReading(value, plain)


def _read_natural(text: str, *, now: datetime, zone: ZoneInfo, nearest: bool) -> datetime:
    facts = scan(text)
    if not facts.complete:
        holiday = read_lunar_holiday(text, today=now.astimezone(zone).date())
        if holiday is not None:
            return _on_day(holiday, zone)
    return resolve(facts, now=now, zone=zone, nearest=nearest)


def _on_day(day: date, zone: ZoneInfo) -> datetime:
    return _localise(datetime.combine(day, END_OF_DAY), zone)


def _read_iso(text: str, zone: ZoneInfo) -> datetime | None:
    """Read an ISO 8601 date or datetime; a naive one is local, an offset one is converted."""
    try:
        day = date.fromisoformat(text)
    except ValueError:
        pass
    else:
        # Localised at midnight first: a day at the edge of datetime's range overflows here.
        midnight = _localise(datetime.combine(day, datetime.min.time()), zone)
        return _localise(datetime.combine(midnight.date(), END_OF_DAY), zone)
    try:
        moment = datetime.fromisoformat(text.upper())
    except ValueError:
        return None
    if moment.tzinfo is None:
        return _localise(moment, zone)
    return moment.astimezone(zone)


def _check_plausible(value: datetime, *, now: datetime, text: str) -> None:
    """Refuse a time over a year in the past or over ten years ahead (a misread year).

    The window is the one the REST API applies to ``due_at`` (:mod:`lightnote.times`).
    """
    if not is_plausible(value, now=now):
        raise TimeParseError("suspicious", text=text, value=value, why="outside the window")


def _localise(wall_clock: datetime, zone: ZoneInfo) -> datetime:
    """Attach ``zone`` to a naive wall-clock time, moving a time in a DST gap forward."""
    # The round trip through UTC turns a nonexistent 02:30 (spring forward) into 03:30.
    return wall_clock.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)
