"""Holidays: the day of a named holiday in a given year.

Fixed-day ones come from ``words.FIXED_HOLIDAYS``; US holidays on the n-th weekday of a month
and the Western Easter cycle are computed here; lunar-calendar ones (春节, 中秋节 ...) are
dated by jionlp, only for a text that is exactly one holiday name.
"""

from __future__ import annotations

import calendar
import threading
from collections.abc import Callable
from datetime import date, datetime, timedelta
from functools import cache
from types import ModuleType

from agent.timeparse.words import FIXED_HOLIDAYS


def nth_weekday(year: int, month: int, weekday: int, nth: int) -> date | None:
    """Return the ``nth`` ``weekday`` (Monday 0) of a month (-1: the last), None if none."""
    days = [
        day
        for day in range(1, calendar.monthrange(year, month)[1] + 1)
        if date(year, month, day).weekday() == weekday
    ]
    if not (1 <= nth <= len(days) or nth == -1):
        return None
    return date(year, month, days[nth - 1 if nth > 0 else nth])


def _nth_weekday(month: int, weekday: int, nth: int) -> Callable[[int], date]:
    """Return year -> the ``nth`` ``weekday`` of ``month`` (a holiday that always has one)."""
    return lambda year: nth_weekday(year, month, weekday, nth) or date(year, month, 1)


def easter(year: int) -> date:
    """Return Western Easter Sunday (the Gregorian computus of Meeus, Jones and Butcher)."""
    golden = year % 19
    century, in_century = divmod(year, 100)
    leap_centuries, century_rest = divmod(century, 4)
    correction = (century + 8) // 25
    moon = (century - correction + 1) // 3
    epact = (19 * golden + century - leap_centuries - moon + 15) % 30
    quarter, quarter_rest = divmod(in_century, 4)
    weekday = (32 + 2 * century_rest + 2 * quarter - epact - quarter_rest) % 7
    shift = (golden + 11 * epact + 22 * weekday) // 451
    month, day = divmod(epact + weekday - 7 * shift + 114, 31)
    return date(year, month, day + 1)


def _fixed_day(month: int, day: int) -> Callable[[int], date]:
    return lambda year: date(year, month, day)


def _after_easter(days: int) -> Callable[[int], date]:
    return lambda year: easter(year) + timedelta(days=days)


_THANKSGIVING = _nth_weekday(11, 3, 4)
COMPUTED_HOLIDAYS: dict[str, Callable[[int], date]] = {
    **dict.fromkeys(("thanksgiving day", "thanksgiving", "感恩节"), _THANKSGIVING),
    "black friday": lambda year: _THANKSGIVING(year) + timedelta(days=1),
    **dict.fromkeys(
        (
            "martin luther king day",
            "martin luther king's day",
            "martin luther kings day",
            "martin luther king jr. day",
            "mlk day",
            "mlk jr. day",
            "mlk jr day",
        ),
        _nth_weekday(1, 0, 3),
    ),
    **dict.fromkeys(
        ("presidents' day", "presidents day", "president's day", "washington's birthday"),
        _nth_weekday(2, 0, 3),
    ),
    "memorial day": _nth_weekday(5, 0, -1),
    "labor day": _nth_weekday(9, 0, 1),
    **dict.fromkeys(("mother's day", "mothers day", "母亲节"), _nth_weekday(5, 6, 2)),
    **dict.fromkeys(("father's day", "fathers day", "父亲节"), _nth_weekday(6, 6, 3)),
    **dict.fromkeys(("easter sunday", "easter", "复活节"), easter),
    **dict.fromkeys(("easter monday", "easter mon", "复活节星期一"), _after_easter(1)),
    **dict.fromkeys(("holy saturday", "圣周六", "神圣周六"), _after_easter(-1)),
    **dict.fromkeys(
        ("good friday", "耶稣受难日", "耶穌受难日", "主受难日", "主受难节", "圣周五"),
        _after_easter(-2),
    ),
    **dict.fromkeys(
        ("maundy thursday", "holy thursday", "圣周四", "圣周星期四", "濯足节"), _after_easter(-3)
    ),
    **dict.fromkeys(("palm sunday", "棕枝主日", "圣枝主日"), _after_easter(-7)),
    **dict.fromkeys(
        ("pentecost", "whit sunday", "whitsunday", "五旬节", "圣灵降临节"), _after_easter(49)
    ),
    "whit monday": _after_easter(50),
    **dict.fromkeys(("ash wednesday", "圣灰星期三", "圣灰日", "大斋首日"), _after_easter(-46)),
    **dict.fromkeys(("shrove tuesday", "mardi gras", "pancake day"), _after_easter(-47)),
    **{name: _fixed_day(month, day) for name, (month, day) in FIXED_HOLIDAYS.items()},
}


def holiday_in(name: str, year: int) -> date | None:
    """Return the day of holiday ``name`` in ``year``, None when it has none (29 Feb)."""
    try:
        return COMPUTED_HOLIDAYS[name](year)
    except ValueError:
        return None


# Only a whole text that is one of these names is read here: jionlp's own reading of
# anything longer is not checked word by word, so it is not trusted.
LUNAR_HOLIDAYS = frozenset(
    {
        "春节",
        "除夕",
        "元宵节",
        "元宵",
        "清明节",
        "清明",
        "端午节",
        "端午",
        "七夕节",
        "七夕",
        "中秋节",
        "中秋",
        "重阳节",
        "重阳",
        "腊八节",
        "腊八",
    }
)

_jionlp_lock = threading.Lock()


@cache
def _jionlp() -> ModuleType:
    # Imported on first use: the import loads dictionaries and prints a banner.
    import jionlp

    return jionlp


def read_lunar_holiday(text: str, *, today: date) -> date | None:
    """Return the next day (today counts) of the lunar holiday ``text`` names, else None."""
    name = text.removesuffix("那天").removesuffix("当天")
    name = {"农历新年": "春节", "新春": "春节"}.get(name, name)
    if name not in LUNAR_HOLIDAYS:
        return None
    # jionlp dates a holiday in the year of its time base, and the eve of the lunar new year
    # by the lunar year; of the candidates from three bases, the earliest from today on.
    bases = (today, date(today.year, 1, 1), date(today.year + 1, 1, 1))
    found = [day for base in bases if (day := _jionlp_day(name, base)) and day >= today]
    return min(found, default=None)


def _jionlp_day(name: str, base: date) -> date | None:
    jionlp = _jionlp()
    try:
        # jionlp.parse_time is one shared parser object that keeps the time base in an
        # attribute during a call, so concurrent calls from two threads would mix bases.
        with _jionlp_lock:
            result = jionlp.parse_time(name, time_base=datetime.combine(base, datetime.min.time()))
        start, end = (datetime.fromisoformat(bound) for bound in result["time"])
    # jionlp raises assorted errors on text it cannot read; all of them mean "not a day".
    except Exception:
        return None
    if result["type"] != "time_point" or start.date() != end.date():
        return None
    return start.date()
