"""Lunar-calendar holidays (春节, 中秋节 ...), dated by jionlp; fixed ones are in words.py."""

from __future__ import annotations

import threading
from datetime import date, datetime
from functools import cache
from types import ModuleType

# Only a whole text that is one of these names is read here: jionlp's own reading of
# anything longer is not checked word by word, so it is not trusted.
LUNAR_HOLIDAYS = frozenset(
    {"春节", "除夕", "元宵节", "元宵", "清明节", "清明", "端午节", "端午", "七夕节", "七夕",
     "中秋节", "中秋", "重阳节", "重阳", "腊八节", "腊八"}
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
