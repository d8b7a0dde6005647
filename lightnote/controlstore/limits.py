"""Per-user rate limits: fixed windows counted by one atomic script each.

A limit is a group (``agent.cards``, ``accounts.signup``, ...), a rate (``60/m``, ``10/5s``,
``2/hour``) and whom it counts: a user, or a ``subject`` string for requests that come before
any login (a client address's digest). :func:`limit_unit` names one unit
of it in the current window, not counted yet; :func:`take_now` counts it in one round trip
(:func:`lightnote.controlstore.counters.counter_take`: check and count together, so
concurrent requests never count past the limit), and over the limit audits the refusal
(``rate.limited``) and raises 429 ``RATE_LIMITED`` with ``Retry-After``. A caller may send
the unit's script in its own round trip instead (:attr:`LimitTake.call`) or let a record's
transition count it (:attr:`LimitTake.counter`). The store unreachable: 503 with the
caller's own code (``unavailable_code``), never "not limited".

The counters live in the Redis of ``LIGHTNOTE_RATE_LIMIT_CACHE`` (default: the control
store's own, so a transition can count a unit in its script).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth import get_user_model

from lightnote.audit import audit_event
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

define_messages(
    {
        "RATE_LIMIT_UNAVAILABLE": (
            "服务暂时不可用，请稍后重试；未做任何修改。",
            "The service is unavailable; please retry later. Nothing was changed.",
        ),
    }
)

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_RATE = re.compile(r"^(\d+)/(\d*)(s|m|h|d|sec|min|hour|day)$")


def parse_rate(rate: str) -> tuple[int, int]:
    """Return ``(limit, window seconds)`` of a rate such as ``60/m``, ``10/5s`` or ``2/hour``."""
    match = _RATE.match(rate.strip())
    if match is None:
        raise ValueError(f"not a rate: {rate!r}")
    limit, multiplier, unit = match.groups()
    return int(limit), int(multiplier or 1) * _UNIT_SECONDS[unit[0]]


def retry_after_seconds(remaining_ms: int) -> int:
    """The ``Retry-After`` seconds of a window with ``remaining_ms`` left (at least 1)."""
    return max(1, math.ceil(remaining_ms / 1000))


def limited(retry_after: int) -> LightNoteError:
    """The 429 ``RATE_LIMITED`` answer, with its ``Retry-After``."""
    return LightNoteError(
        "RATE_LIMITED",
        status=429,
        params={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


@dataclass(frozen=True)
class LimitTake:
    """One unit of a limit, not counted yet: ``call`` is its ``counter_take`` script, which
    :func:`take_now` sends alone and a caller may send in its own round trip instead, then
    read the reply with :meth:`retry_after`."""

    group: str
    rate: str
    user_id: int | None  # None: the unit counts a subject that is no user
    alias: str
    limit: int
    ttl_ms: int
    call: store_scripts.ScriptCall
    unavailable_code: str = "RATE_LIMIT_UNAVAILABLE"

    @property
    def counter(self) -> store_counters.CounterUnit:
        """This unit for a record's transition to count in its own script
        (``store.record_transition(..., take=)``), where
        ``store_counters.counter_in_script(alias)``."""
        return store_counters.CounterUnit(key=self.call.key, limit=self.limit, ttl_ms=self.ttl_ms)

    def retry_after(self, reply: Any) -> int | None:
        """None when the script's ``reply`` took the unit, else the seconds until the window
        ends (nothing counted)."""
        taken = store_counters.counter_take_result(reply, limit=self.limit, ttl_ms=self.ttl_ms)
        if taken.taken:
            return None
        return retry_after_seconds(taken.retry_after_ms)

    def refuse(self, retry_after: int) -> NoReturn:
        """Audit the refusal (``rate.limited``) and raise 429 ``RATE_LIMITED``."""
        audit_event(
            "rate.limited",
            actor=(
                get_user_model().objects.filter(pk=self.user_id).first()
                if self.user_id is not None
                else None
            ),
            code="RATE_LIMITED",
            details={"group": self.group, "rate": self.rate, "retry_after": retry_after},
        )
        raise limited(retry_after)


def limit_unit(
    *,
    group: str,
    rate: str,
    user_id: int | None = None,
    subject: str | None = None,
    unavailable_code: str = "RATE_LIMIT_UNAVAILABLE",
) -> LimitTake:
    """Return one unit of ``group`` for ``user_id`` (or ``subject``, exactly one) in the
    current window, not counted yet."""
    if (user_id is None) == (subject is None):
        raise ValueError("a limit counts a user or a subject")
    limit, window_seconds = parse_rate(rate)
    window_ms = window_seconds * 1000
    now = store.now_ms()
    window = now // window_ms
    key = f"ln:rate:{group}:{subject if subject is not None else user_id}:{window}"
    ttl_ms = (window + 1) * window_ms - now
    return LimitTake(
        group=group,
        rate=rate,
        user_id=user_id,
        alias=getattr(settings, "LIGHTNOTE_RATE_LIMIT_CACHE", "default"),
        limit=limit,
        ttl_ms=ttl_ms,
        call=store_counters.counter_take_call(key, limit=limit, ttl_ms=ttl_ms),
        unavailable_code=unavailable_code,
    )


def send(unit: LimitTake) -> int | None:
    """Count ``unit`` (one round trip): None when taken, else the seconds until the window
    ends (nothing counted). The store unreachable: 503 with the unit's code."""
    try:
        (reply,) = store_scripts.scripts_run([unit.call], alias=unit.alias)
    except store.StoreUnavailable:
        raise LightNoteError(unit.unavailable_code, status=503) from None
    return unit.retry_after(reply)


def take_now(unit: LimitTake) -> None:
    """Count ``unit`` now (one round trip); over the limit: audited, 429 ``RATE_LIMITED``."""
    retry_after = send(unit)
    if retry_after is not None:
        unit.refuse(retry_after)
