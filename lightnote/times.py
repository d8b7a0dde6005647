"""Time rules every layer shares: which zone names a user may pick, which instants are
plausible, and how an instant is written out (RFC 3339, whole-minute offsets).

Plain Python (no models): the settings, the REST serializers, the pages and the agent's
time parser all use these, so a zone or a due time accepted in one place is accepted in
every other, and refused everywhere else too.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from functools import cache
from typing import Any

# Names in the zone database that are not places a person lives in: the "right/" (leap
# second) and "posix/" copies, the machine's own zone and the build placeholders.
_EXCLUDED_PREFIXES = ("posix/", "right/")
_EXCLUDED_NAMES = frozenset({"localtime", "posixrules", "Factory"})

# The plausible window for a due time, relative to now: more than a year ago or more than
# ten years ahead is a misread or mistyped year (the agent's TODO_DUE_AT_SUSPICIOUS, the
# API's VALIDATION_ERROR on due_at).
YEARS_BACK_ALLOWED = 1
YEARS_AHEAD_ALLOWED = 10


@cache
def allowed_time_zones() -> frozenset[str]:
    """Every zone name a user (or ``LIGHTNOTE_TIME_ZONE``) may choose.

    ``zoneinfo.available_timezones()`` without ``posix/*``, ``right/*``, ``localtime``,
    ``posixrules`` and ``Factory``; links such as ``Asia/Calcutta`` and ``UTC`` stay valid.
    """
    return frozenset(
        name
        for name in zoneinfo.available_timezones()
        if not name.startswith(_EXCLUDED_PREFIXES) and name not in _EXCLUDED_NAMES
    )


def is_allowed_time_zone(name: object) -> bool:
    """True when ``name`` is one of :func:`allowed_time_zones` (exact spelling)."""
    return isinstance(name, str) and name in allowed_time_zones()


def shift_years(moment: dt.datetime, years: int) -> dt.datetime:
    """``moment`` the same day and time ``years`` later (28 February for a lost 29th)."""
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February in a year without one
        return moment.replace(year=moment.year + years, day=28)


def plausible_window(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """The earliest and latest plausible due time around ``now`` (both inclusive)."""
    return shift_years(now, -YEARS_BACK_ALLOWED), shift_years(now, YEARS_AHEAD_ALLOWED)


def is_plausible(value: dt.datetime, *, now: dt.datetime) -> bool:
    """True when the aware ``value`` lies in :func:`plausible_window` around ``now``."""
    earliest, latest = plausible_window(now)
    return earliest <= value <= latest


def whole_minute_offset(value: dt.datetime) -> dt.datetime:
    """The same instant, with its offset rounded to whole minutes when it has seconds.

    A zone's local mean time before standard time (Shanghai's +08:05:43 before 1901) has
    an offset in seconds, which RFC 3339 cannot write; the instant is kept exactly and the
    offset becomes the nearest whole minute (the wall-clock reading moves by those seconds).
    """
    offset = value.utcoffset()
    if offset is None or offset.total_seconds() % 60 == 0:
        return value
    minutes = round(offset.total_seconds() / 60)
    return value.astimezone(dt.timezone(dt.timedelta(minutes=minutes)))


def rfc3339(value: dt.datetime, zone: dt.tzinfo) -> str:
    """``value`` in ``zone`` as ISO 8601 / RFC 3339, always with a whole-minute offset."""
    return whole_minute_offset(value.astimezone(zone)).isoformat()


def times_in_zone(data: Any, zone: dt.tzinfo) -> Any:
    """``data`` (JSON-safe) with every time under a ``*_at`` key written in ``zone``.

    The same instants on another wall clock: a stored result read in the zone its card was
    read in. A value that is not an aware RFC 3339 time is kept as it is.
    """
    if isinstance(data, list):
        return [times_in_zone(item, zone) for item in data]
    if not isinstance(data, dict):
        return data
    shown: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, str) and key.endswith("_at"):
            shown[key] = _time_in_zone(value, zone)
        else:
            shown[key] = times_in_zone(value, zone)
    return shown


def _time_in_zone(value: str, zone: dt.tzinfo) -> str:
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        return value
    return rfc3339(moment, zone) if moment.tzinfo is not None else value
