"""Sign-up and password-reset requests per client address, counted like the card limits.

The same fixed-window counter as ``agent.ratelimit`` (one atomic Redis script per request,
``lightnote.controlstore.counters.counter_take``, rates written the same way), keyed by the client
address instead of a user: these requests come before any login. The address is
``REMOTE_ADDR``, as for the failed-login lockout (a forwarded header is never trusted).
"""

from __future__ import annotations

import hashlib
import math
import re

from django.conf import settings
from django.http import HttpRequest

from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import store
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_RATE = re.compile(r"^(\d+)/(\d*)(s|m|h|d|sec|min|hour|day)$")

GROUPS = {
    "signup": "LIGHTNOTE_RATE_LIMIT_SIGNUPS",
    "password_reset": "LIGHTNOTE_RATE_LIMIT_PASSWORD_RESETS",
}


def parse_rate(rate: str) -> tuple[int, int]:
    """``(limit, window seconds)`` of a rate such as ``5/h`` (settings checked its form)."""
    match = _RATE.match(rate.strip())
    if match is None:
        raise ValueError(f"not a rate: {rate!r}")
    limit, multiplier, unit = match.groups()
    return int(limit), int(multiplier or 1) * _UNIT_SECONDS[unit[0]]


def limit_by_address(request: HttpRequest, group: str) -> None:
    """Count one ``group`` request from this address; 429 ``RATE_LIMITED`` over its rate."""
    limit, window_seconds = parse_rate(getattr(settings, GROUPS[group]))
    window_ms = window_seconds * 1000
    now = store.now_ms()
    window = now // window_ms
    address = hashlib.sha256(request.META.get("REMOTE_ADDR", "").encode()).hexdigest()[:32]
    key = f"ln:rate:{group}:{address}:{window}"
    try:
        taken = store_counters.counter_take(
            key,
            limit=limit,
            ttl_ms=(window + 1) * window_ms - now,
            alias=getattr(settings, "RATELIMIT_USE_CACHE", "default"),
        )
    except store.StoreUnavailable:
        raise LightNoteError("ACCOUNT_LIMITER_UNAVAILABLE", status=503) from None
    if not taken.taken:
        retry_after = max(1, math.ceil(taken.retry_after_ms / 1000))
        raise LightNoteError(
            "RATE_LIMITED",
            status=429,
            params={"retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )


define_messages(
    {
        "ACCOUNT_LIMITER_UNAVAILABLE": (
            "服务暂时不可用，请稍后再试。",
            "The service is unavailable for a moment; try again shortly.",
        ),
    }
)
