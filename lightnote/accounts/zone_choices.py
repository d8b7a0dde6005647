"""The zones the settings page offers: canonical names only, grouped by region.

Canonical means listed in tzdata's ``zone1970.tab`` (one zone per region of the world whose
clocks have agreed since 1970; aliases such as ``Asia/Chungking``, ``US/East-Indiana`` or
``W-SU`` are not in it), plus ``UTC``. The table is read from the ``tzdata`` package when it
is installed, else from the system's ``/usr/share/zoneinfo``. Every other valid name stays
accepted (a user who has one keeps it, and it is shown to them).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from lightnote.times import allowed_time_zones

SYSTEM_TABLE = Path("/usr/share/zoneinfo/zone1970.tab")


def _table_text() -> str:
    try:
        return (resources.files("tzdata.zoneinfo") / "zone1970.tab").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return SYSTEM_TABLE.read_text(encoding="utf-8")


@cache
def canonical_zones() -> tuple[str, ...]:
    """Every canonical zone name this machine knows, sorted."""
    names = {"UTC"}
    for line in _table_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        names.add(line.split("\t")[2])
    return tuple(sorted(names & allowed_time_zones()))


def zone_groups(current: str = "") -> list[tuple[str, list[str]]]:
    """``[(region, [zone, ...]), ...]``; ``current`` is included even when not canonical."""
    names = set(canonical_zones())
    if current in allowed_time_zones():
        names.add(current)
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        region = name.split("/", 1)[0] if "/" in name else "UTC"
        groups.setdefault(region, []).append(name)
    return sorted(groups.items())
