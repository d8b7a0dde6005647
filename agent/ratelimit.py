"""Per-user rate limits on new cards and new claims: one atomic round trip each.

Each limit is a fixed window per user (``LIGHTNOTE_RATE_LIMIT_CARDS`` / ``..._CONFIRMS``,
e.g. ``60/m``) counted by one Lua script that checks and counts together
(:func:`lightnote.store.counter_take`), so concurrent requests can never count past the limit.

Callers place the check where docs/api.md's order puts it. A confirm counts only when it has won
the claim (``agent.execution.confirm``): a repeat of a running or settled card, and every
loser of a race for one card, are never counted and never refused.
"""

from __future__ import annotations

import math
import re
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from agent.control import store_unavailable
from lightnote import store
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_RATE = re.compile(r"^(\d+)/(\d*)(s|m|h|d|sec|min|hour|day)$")


def parse_rate(rate: str) -> tuple[int, int]:
    """Return ``(limit, window seconds)`` of a rate such as ``60/m``, ``10/5s`` or ``2/hour``."""
    match = _RATE.match(rate.strip())
    if match is None:
        raise ValueError(f"not a rate: {rate!r}")
    limit, multiplier, unit = match.groups()
    return int(limit), int(multiplier or 1) * _UNIT_SECONDS[unit[0]]


def _limit(*, group: str, rate: str, user_id: int) -> None:
    """Count one unit of ``group`` for ``user_id``; 429 ``RATE_LIMITED`` over the limit."""
    limit, window_seconds = parse_rate(rate)
    window_ms = window_seconds * 1000
    now = store.now_ms()
    window = now // window_ms
    key = f"ln:rate:{group}:{user_id}:{window}"
    try:
        taken = store.counter_take(
            key,
            limit=limit,
            ttl_ms=(window + 1) * window_ms - now,
            alias=getattr(settings, "RATELIMIT_USE_CACHE", "default"),
        )
    except store.StoreUnavailable:
        raise store_unavailable() from None
    if taken.taken:
        return
    retry_after = max(1, math.ceil(taken.retry_after_ms / 1000))
    audit_event(
        "rate.limited",
        actor=get_user_model().objects.filter(pk=user_id).first(),
        code="RATE_LIMITED",
        details={"group": group, "rate": rate, "retry_after": retry_after},
    )
    raise LightNoteError(
        "RATE_LIMITED",
        status=429,
        params={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


def limit_new_card(request: Any, *, user_id: int) -> None:
    """Count one card about to be issued; 429 ``RATE_LIMITED`` over the limit."""
    _limit(group="agent.cards", rate=settings.LIGHTNOTE_RATE_LIMIT_CARDS, user_id=user_id)


def limit_new_claim(request: Any, *, user_id: int) -> None:
    """Count one new claim (a won confirm, or a reply generation); 429 over the limit."""
    _limit(group="agent.claims", rate=settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS, user_id=user_id)
