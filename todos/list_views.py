"""The todo list's views (Today / Upcoming / Overdue / Done), windows and sorts, as data.

A view is a filter built from the owner's day (in their zone) and now; a window is a span of
due times from the same day (``?within=tomorrow``, what the assistant's "due tomorrow" read
links to); a sort is an ordering. Open items come by due time, the ones with no due time
last.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import BooleanField, Case, F, Q, Value, When
from django.utils import timezone

from todos.models import Todo

OPEN, DONE = Todo.Status.OPEN, Todo.Status.DONE


@dataclass(frozen=True)
class Bounds:
    now: datetime
    today: datetime  # the owner's midnight today
    tomorrow: datetime  # ... and tomorrow


def bounds_for(zone: Any, now: datetime | None = None) -> Bounds:
    now = now or timezone.now()
    local = timezone.localtime(now, zone)
    today = local.replace(hour=0, minute=0, second=0, microsecond=0)
    tomorrow = (today + timedelta(days=1)).replace(tzinfo=zone)
    return Bounds(now=now, today=today, tomorrow=tomorrow)


def _week_start(bounds: Bounds) -> datetime:
    """The owner's Monday 00:00 of this ISO week."""
    return bounds.today - timedelta(days=bounds.today.weekday())


def _days(start: datetime, days: int) -> tuple[datetime, datetime]:
    """``[start, start + days)`` by the wall clock of ``start``'s zone."""
    return start, (start + timedelta(days=days)).replace(tzinfo=start.tzinfo)


# A window of due times: [start, end) in the owner's zone, from their day; a week is the ISO
# week, Monday 00:00 to Sunday 24:00.
WINDOWS: dict[str, Callable[[Bounds], tuple[datetime, datetime]]] = {
    "today": lambda b: _days(b.today, 1),
    "tomorrow": lambda b: _days(b.tomorrow, 1),
    "this_week": lambda b: _days(_week_start(b), 7),
    "next_week": lambda b: _days(_days(_week_start(b), 7)[1], 7),
}


def priority_filter(raw: str) -> int | None:
    """The priority level a ``?priority=`` asks for (0, 1, 2), or None (no filter)."""
    levels = {str(level): level for level in Todo.Priority.values}
    return levels.get(raw)


VIEWS: dict[str, Callable[[Bounds], Q]] = {
    "open": lambda b: Q(status=OPEN),
    "today": lambda b: Q(status=OPEN, due_at__gte=b.today, due_at__lt=b.tomorrow),
    "upcoming": lambda b: Q(status=OPEN, due_at__gte=b.tomorrow),
    "overdue": lambda b: Q(status=OPEN, due_at__lt=b.now),
    "done": lambda b: Q(status=DONE),
    "all": lambda b: Q(),
}
DEFAULT_VIEW = "open"

_DUE = F("due_at").asc(nulls_last=True)
SORTS: dict[str, list[Any]] = {
    "due": [_DUE, "-created_at", "id"],
    "priority": ["-priority", _DUE, "-created_at", "id"],
    "created": ["-created_at", "id"],
}
DEFAULT_SORT = "due"


def view_name(raw: str, status: str) -> str:
    """The view a query asks for; the older ``?status=open|done`` still reads as its view."""
    if raw in VIEWS:
        return raw
    if status in (OPEN, DONE):
        return str(status)
    return DEFAULT_VIEW


def sort_name(raw: str) -> str:
    return raw if raw in SORTS else DEFAULT_SORT


def overdue_flag(now: datetime) -> Case:
    """``overdue`` for each row: open and due before ``now``."""
    return Case(
        When(status=OPEN, due_at__lt=now, then=Value(True)),
        default=Value(False),
        output_field=BooleanField(),
    )
