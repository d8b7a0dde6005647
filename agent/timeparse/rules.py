"""Turn the facts of a phrase into one instant, or refuse: the rules of docs/agent-tools.md.

- Every fact must agree with every other: a weekday with the date, a year with the date, a
  part of the day or am/pm with the hour. Two readings of one kind ("明天 后天") disagree.
- A date without a year, a fixed holiday, a plain weekday, a day of the month: the next one
  (today counts). ``next <weekday>`` = ``下周X``: that weekday in the next Monday-start week.
- A day without a clock time is due 23:59 that day; a part of the day without one is vague.
- A clock time without a day: its next occurrence (today, or tomorrow when it has passed).
- An hour of 1-11 with no am/pm or part of the day is ambiguous (9 a.m. or 9 p.m.?) unless
  a day is named and its morning reading is not already past while the evening one is not
  (``明天9点`` is 09:00 tomorrow; ``今天8点`` said at 14:00 is refused, not read as 08:00).
  In English ("tomorrow at 10") only the hours of ``HOURS_READ_WITH_A_DAY`` are read so.
"""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from agent.timeparse.grammar import Clock, Facts, Holiday, NthWeekday, Offset, Weekday
from agent.timeparse.holidays import holiday_in, nth_weekday
from agent.timeparse.words import HOURS_READ_WITH_A_DAY, PARTS_OF_DAY

END_OF_DAY = time(23, 59)


class Unreadable(Exception):
    """The facts do not make one instant; the message says why (for logs and tests)."""


def resolve(facts: Facts, *, now: datetime, zone: tzinfo, nearest: bool = False) -> datetime:
    """Return the aware instant ``facts`` state, in ``zone`` unless a zone was written.

    ``nearest``: a calendar date without a year is the one nearest today (see ``read_time``).
    """
    if not facts.complete:
        raise Unreadable(f"unknown words: {facts.leftover}")
    if facts.ambiguous:
        raise Unreadable("; ".join(facts.ambiguous))
    if len(facts.zones) > 1:
        raise Unreadable("two zones")
    clock_zone = facts.zones[0] if facts.zones else zone
    local_now = now.astimezone(clock_zone).replace(tzinfo=None)

    span = _span_offset(facts)
    if span is not None:
        if _any_day_fact(facts) or facts.clocks or facts.parts:
            raise Unreadable("an offset in hours or minutes with another time")
        return (now.astimezone(UTC) + span).astimezone(clock_zone)  # elapsed time, not wall

    day = _day(facts, today=local_now.date(), nearest=nearest)
    part = _part(facts)
    if not facts.clocks:
        if day is None:
            raise Unreadable("no day and no time")
        if part is not None:
            raise Unreadable("a part of the day without a clock time")
        return _localise(datetime.combine(day, END_OF_DAY), clock_zone)
    if len(facts.clocks) > 1:
        raise Unreadable("two clock times")
    clock = facts.clocks[0]
    clock_time = _clock_time(
        clock, part=part, has_day=day is not None, day_named=day is not None and _day_named(facts)
    )
    minute_now = local_now.replace(second=0, microsecond=0)
    if day is None:
        day = local_now.date()
        if clock_time < minute_now.time():
            day += timedelta(days=1)
    elif _morning_or_evening(clock, part) and (
        datetime.combine(day, clock_time)
        < minute_now
        <= datetime.combine(day, clock_time.replace(hour=clock_time.hour + 12))
    ):
        raise Unreadable("a bare hour whose morning has passed: a.m. or p.m.?")  # 今天8点 at 14:00
    return _localise(datetime.combine(day, clock_time), clock_zone)


def _morning_or_evening(clock: Clock, part: str | None) -> bool:
    """Say whether a clock reading could be a.m. or p.m. (``9点``, ``9:30``, not ``09:30``)."""
    return clock.meridiem is None and part is None and not clock.explicit and 1 <= clock.hour <= 11


def _any_day_fact(facts: Facts) -> bool:
    return bool(
        facts.day_offsets
        or facts.weekdays
        or facts.dates
        or facts.month_days
        or facts.days_of_month
        or facts.years
        or facts.years_from_now
        or facts.holidays
        or facts.nth_weekdays
    )


def _span_offset(facts: Facts) -> timedelta | None:
    """Return an offset in minutes or hours ("in 2 hours"), which is an instant by itself."""
    spans = [offset for offset in facts.offsets if offset.unit in ("minutes", "hours")]
    if not spans:
        return None
    if len(facts.offsets) > 1:
        raise Unreadable("two offsets")
    offset = spans[0]
    minutes = offset.amount * (60 if offset.unit == "hours" else 1)
    if minutes != int(minutes):
        raise Unreadable("an offset of a fraction of a minute")
    return timedelta(minutes=int(minutes))


def _day(facts: Facts, *, today: date, nearest: bool = False) -> date | None:
    """Return the one day the facts name, or None when they name no day."""
    candidates: list[date] = []
    candidates += [today + timedelta(days=offset) for offset in facts.day_offsets]
    for offset in facts.offsets:  # only days, weeks, months and years are left here
        candidates.append(_offset_day(offset, today))
    candidates += [_month_day(months, day, today) for months, day in facts.month_days]
    candidates += [_next_day_of_month(day, today) for day in facts.days_of_month]
    candidates += _dates(facts, today, nearest=nearest)
    candidates += [_holiday_date(holiday, facts, today) for holiday in facts.holidays]
    candidates += [_nth_weekday_date(stated, today) for stated in facts.nth_weekdays]
    if len(set(candidates)) > 1:
        raise Unreadable("two different days")  # "明天 12月5日" said on Dec 2
    if (facts.years or facts.years_from_now) and not (facts.dates or facts.holidays):
        raise Unreadable("a year without a calendar date")
    if len(facts.weekdays) > 1:
        raise Unreadable("two weekdays")
    if facts.weekdays:
        weekday = facts.weekdays[0]
        if not candidates:
            return _weekday_date(weekday, today)
        if candidates[0].weekday() != weekday.weekday:
            raise Unreadable("the weekday does not match the date")
        if weekday.week is not None and candidates[0] != _weekday_date(weekday, today):
            raise Unreadable("the week does not match the date")
    return candidates[0] if candidates else None


def _offset_day(offset: Offset, today: date) -> date:
    """Return the day an offset names ("3天后", "in 2 weeks", "3个月后", "a year from today")."""
    base = today + timedelta(days=offset.base_days)
    if offset.amount != int(offset.amount):
        raise Unreadable("a fraction of a day, month or year")
    if offset.unit in ("months", "years"):
        months = int(offset.amount) * (12 if offset.unit == "years" else 1)
        return _month_day(months, base.day, base)  # 31 March + 1 month: no such day, refused
    days = int(offset.amount) * {"days": 1, "weeks": 7, "fortnights": 14}[offset.unit]
    return base + timedelta(days=days)


def _dates(facts: Facts, today: date, *, nearest: bool = False) -> list[date]:
    """Return the calendar dates stated, each in its year (stated, else the next occurrence,
    or with ``nearest`` the occurrence nearest ``today``, past or future)."""
    if len(facts.years) + len(facts.years_from_now) > 1:
        raise Unreadable("two years")
    result = []
    for stated in facts.dates:
        years = [year for year in (stated.year, *facts.years) if year is not None] + [
            today.year + n for n in (stated.years_from_now, *facts.years_from_now) if n is not None
        ]
        if len(years) > 1:
            raise Unreadable("two years")
        if years:
            result.append(_valid_date(years[0], stated.month, stated.day))
            continue
        this_year = _valid_date_or_none(today.year, stated.month, stated.day)
        if nearest:
            around = [
                found
                for found in (
                    _valid_date_or_none(today.year + shift, stated.month, stated.day)
                    for shift in (-1, 0, 1)
                )
                if found is not None
            ]
            if around:
                result.append(min(around, key=lambda found: abs((found - today).days)))
                continue
        if this_year is not None and this_year >= today:
            result.append(this_year)
        else:
            following = _valid_date_or_none(today.year + 1, stated.month, stated.day)
            if following is None:  # 29 February: the next one is years away
                raise Unreadable("no such day next year")
            result.append(following)
    return result


def _holiday_date(holiday: Holiday, facts: Facts, today: date) -> date:
    """Return a holiday's day: in the stated year, else the next one (or the last one)."""
    years = [*facts.years, *(today.year + n for n in facts.years_from_now)]
    if len(years) > 1:
        raise Unreadable("two years")
    if years:
        if holiday.which is not None:
            raise Unreadable("a year and this/next/last on one holiday")
        found = holiday_in(holiday.name, years[0])
    elif holiday.which == -1:
        found = holiday_in(holiday.name, today.year)
        if found is None or found >= today:
            found = holiday_in(holiday.name, today.year - 1)
    else:
        found = holiday_in(holiday.name, today.year)
        if found is None or found < today:
            found = holiday_in(holiday.name, today.year + 1)
    if found is None:
        raise Unreadable("no such holiday that year")
    return found


def _nth_weekday_date(stated: NthWeekday, today: date) -> date:
    """Return "the first monday of march": in the stated year or month, else the next one."""
    if stated.months_from_now is not None:
        index = today.year * 12 + today.month - 1 + stated.months_from_now
        found = nth_weekday(index // 12, index % 12 + 1, stated.weekday, stated.nth)
    elif stated.month is None or not 1 <= stated.month <= 12:
        raise Unreadable("no such month")
    elif stated.year is not None:
        found = nth_weekday(stated.year, stated.month, stated.weekday, stated.nth)
    else:
        found = nth_weekday(today.year, stated.month, stated.weekday, stated.nth)
        if found is None or found < today:
            found = nth_weekday(today.year + 1, stated.month, stated.weekday, stated.nth)
    if found is None:
        raise Unreadable("no such weekday in that month")
    return found


def _valid_date(year: int, month: int, day: int) -> date:
    found = _valid_date_or_none(year, month, day)
    if found is None:
        raise Unreadable(f"no such date: {year}-{month}-{day}")
    return found


def _valid_date_or_none(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_day(months: int, day: int, today: date) -> date:
    """Return day ``day`` of the month ``months`` after this one ("下个月1号")."""
    index = today.year * 12 + today.month - 1 + months
    return _valid_date(index // 12, index % 12 + 1, day)


def _next_day_of_month(day: int, today: date) -> date:
    """Return the next ``day`` of a month ("5号", "the 5th"): this month's, or next month's."""
    if not 1 <= day <= 31:
        raise Unreadable(f"no day {day} in a month")
    if day >= today.day and day <= calendar.monthrange(today.year, today.month)[1]:
        return today.replace(day=day)
    return _month_day(1, day, today)


def _weekday_date(weekday: Weekday, today: date) -> date:
    """Return the day of a weekday: the next one, or the one in a Monday-start week."""
    if weekday.week is None:
        if weekday.weekday == today.weekday():
            raise Unreadable("today's weekday: today or in a week?")
        return today + timedelta(days=(weekday.weekday - today.weekday()) % 7)
    monday = today - timedelta(days=today.weekday())
    in_week = monday + timedelta(weeks=weekday.week, days=weekday.weekday)
    if weekday.most_recent_too:
        most_recent = today - timedelta(days=(today.weekday() - weekday.weekday - 1) % 7 + 1)
        if most_recent != in_week:
            raise Unreadable("last <weekday>: the most recent one or last week's?")
    return in_week


def _part(facts: Facts) -> str | None:
    parts = set(facts.parts)
    if len(parts) > 1:
        raise Unreadable("two parts of the day")
    return parts.pop() if parts else None


def _day_named(facts: Facts) -> bool:
    """Say whether the day is one day, not a span counted in months or years ("in 3 years")."""
    return not any(offset.unit in ("months", "years") for offset in facts.offsets)


def _clock_time(clock: Clock, *, part: str | None, has_day: bool, day_named: bool) -> time:
    """Return the 24-hour time of a clock reading, checked against am/pm and the part of day."""
    hour, minute = clock.hour, clock.minute
    if not (0 <= hour <= 24 and 0 <= minute <= 59):
        raise Unreadable("no such clock time")
    if clock.lone and part is None and clock.meridiem is None:
        raise Unreadable("a number alone is not an hour")  # "in 15", "25"
    if hour == 12 and clock.meridiem is None and part not in (None, "noon", "afternoon"):
        raise Unreadable("12 in the morning or evening: noon or midnight?")
    if clock.meridiem is not None:
        if not 1 <= hour <= 12 or (hour == 12 and clock.meridiem == "am"):
            raise Unreadable("an hour that does not go with am/pm")  # 17pm, 12am
        hour = hour % 12 + (12 if clock.meridiem == "pm" else 0)
    elif part is not None:
        hours = PARTS_OF_DAY[part]
        if hour not in hours and hour + 12 in hours and hour != 0:
            hour += 12  # 下午3点, tonight 9:00
    elif hour == 24:
        raise Unreadable("24:00 is the next day")
    elif 1 <= hour <= 12 and not clock.twenty_four_hour:
        if not (day_named and hour in HOURS_READ_WITH_A_DAY):
            raise Unreadable("an hour without am/pm or a part of the day")  # at 9, tomorrow at 3
    elif 1 <= hour <= 11 and not has_day and not clock.explicit:
        raise Unreadable("an hour of 1-11 with no day")  # 9点, 9:30 alone: a.m. or p.m.?
    if part is not None and hour not in PARTS_OF_DAY[part]:
        raise Unreadable("the hour does not go with the part of the day")  # 早上8pm
    return time(hour, minute)


def _localise(wall_clock: datetime, zone: tzinfo) -> datetime:
    """Attach ``zone`` to a naive wall-clock time, moving a time in a DST gap forward."""
    return wall_clock.replace(tzinfo=zone).astimezone(UTC).astimezone(zone)
