"""Per-user rate limits on new cards and new claims: one atomic round trip each.

Each limit is a fixed window per user (``LIGHTNOTE_RATE_LIMIT_CARDS`` / ``..._CONFIRMS``,
e.g. ``60/m``) counted by one Lua script that checks and counts together
(:func:`lightnote.controlstore.counters.counter_take`), so concurrent requests can never count past
the limit.

A message turn's card counts its unit in the round trip that stores the card
(``agent.cards.issue``, :class:`LimitTake`) when the limiter shares the records' connection
(not on Redis Cluster): still one unit per card, checked before the card is shown.

Callers place the check where docs/api.md's order puts it. A confirm counts only when it has won
the claim (``agent.cards.confirm.confirm``): a repeat of a running or settled card, and every
loser of a race for one card, are never counted and never refused. When the limiter shares
the cards' connection on a single Redis, the claim's own script counts the unit
(:attr:`LimitTake.counter`, ``agent.cards.transitions.card_claim(..., take=)``) and a refused
claim writes nothing; elsewhere the unit is counted after the claim, which is given back if
refused.
Both paths refuse through :meth:`LimitTake.refuse` (the same audit row, body and header).

Token misses (``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES``): an unknown or expired card or
continuation token costs a unit, counted only on the miss path (the request already knows
it missed), so a hit costs no extra round trip. Over the limit a miss answers 429 instead of
410, writes no audit row, and is tallied in Redis; ``flush_miss_tallies`` (run by
``reconcile_cards``) writes one ``rate.limited`` row per user, kind and action with the
count.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth import get_user_model

from agent.control import store_unavailable
from lightnote.audit import audit_entry, audit_event
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.tallies import tallies_flush, tally
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext

logger = logging.getLogger(__name__)

_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86_400}
_RATE = re.compile(r"^(\d+)/(\d*)(s|m|h|d|sec|min|hour|day)$")


def parse_rate(rate: str) -> tuple[int, int]:
    """Return ``(limit, window seconds)`` of a rate such as ``60/m``, ``10/5s`` or ``2/hour``."""
    match = _RATE.match(rate.strip())
    if match is None:
        raise ValueError(f"not a rate: {rate!r}")
    limit, multiplier, unit = match.groups()
    return int(limit), int(multiplier or 1) * _UNIT_SECONDS[unit[0]]


@dataclass(frozen=True)
class LimitTake:
    """One unit of a limit, not counted yet: ``call`` is its ``counter_take`` script, which
    :func:`take_now` sends alone and a caller may send in its own round trip instead
    (``agent.cards.issue``), then read the reply with :meth:`retry_after`."""

    group: str
    rate: str
    user_id: int
    alias: str
    limit: int
    ttl_ms: int
    call: store_scripts.ScriptCall

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
            actor=get_user_model().objects.filter(pk=self.user_id).first(),
            code="RATE_LIMITED",
            details={"group": self.group, "rate": self.rate, "retry_after": retry_after},
        )
        raise _limited(retry_after)


def retry_after_seconds(remaining_ms: int) -> int:
    """The ``Retry-After`` seconds of a window with ``remaining_ms`` left (at least 1)."""
    return max(1, math.ceil(remaining_ms / 1000))


def _unit(*, group: str, rate: str, user_id: int) -> LimitTake:
    """Return one unit of ``group`` for ``user_id`` in the current window, not counted yet."""
    limit, window_seconds = parse_rate(rate)
    window_ms = window_seconds * 1000
    now = store.now_ms()
    window = now // window_ms
    key = f"ln:rate:{group}:{user_id}:{window}"
    ttl_ms = (window + 1) * window_ms - now
    return LimitTake(
        group=group,
        rate=rate,
        user_id=user_id,
        alias=getattr(settings, "RATELIMIT_USE_CACHE", "default"),
        limit=limit,
        ttl_ms=ttl_ms,
        call=store_counters.counter_take_call(key, limit=limit, ttl_ms=ttl_ms),
    )


def _send(unit: LimitTake) -> int | None:
    """Count ``unit`` (one round trip): None when taken, else the seconds until the window
    ends (nothing counted). The store unreachable: 503."""
    try:
        (reply,) = store_scripts.scripts_run([unit.call], alias=unit.alias)
    except store.StoreUnavailable:
        raise store_unavailable() from None
    return unit.retry_after(reply)


def _take(*, group: str, rate: str, user_id: int) -> int | None:
    """Count one unit of ``group`` for ``user_id``: None when taken, else the seconds until
    the window ends (nothing counted). The store unreachable: 503."""
    return _send(_unit(group=group, rate=rate, user_id=user_id))


def _limited(retry_after: int) -> LightNoteError:
    return LightNoteError(
        "RATE_LIMITED",
        status=429,
        params={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


def take_now(unit: LimitTake) -> None:
    """Count ``unit`` now (one round trip); over the limit: audited, 429 ``RATE_LIMITED``."""
    retry_after = _send(unit)
    if retry_after is not None:
        unit.refuse(retry_after)


def new_card_unit(*, user_id: int) -> LimitTake:
    """Return one unit of the card limit for ``user_id``, not counted yet: counted by
    :func:`take_now`, or in the round trip that stores the card (``agent.cards.issue``)."""
    return _unit(group="agent.cards", rate=settings.LIGHTNOTE_RATE_LIMIT_CARDS, user_id=user_id)


def limit_new_card(request: Any, *, user_id: int) -> None:
    """Count one card about to be issued; 429 ``RATE_LIMITED`` over the limit."""
    take_now(new_card_unit(user_id=user_id))


def new_claim_unit(*, user_id: int) -> LimitTake:
    """Return one unit of the claims limit for ``user_id``, not counted yet: counted by
    :func:`take_now`, or by the claim's own script (:attr:`LimitTake.counter`)."""
    return _unit(group="agent.claims", rate=settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS, user_id=user_id)


def limit_new_claim(request: Any, *, user_id: int) -> None:
    """Count one new claim (a won confirm, or a reply generation); 429 over the limit."""
    take_now(new_claim_unit(user_id=user_id))


# --- Token misses ---------------------------------------------------------------------------

MISSES_GROUP = "agent.token_misses"
MISS_TALLIES_KEY = "ln:audit:{misses}"


def limit_token_miss(*, actor: ActorContext, kind: str, action: str) -> None:
    """Count one unknown or expired token (``kind`` ``card`` or ``continuation``) presented
    by ``actor`` to ``action``; call it on the miss path only.

    Under ``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES`` it returns, and the caller answers 410 (and
    audits the miss as before). Over it: 429 ``RATE_LIMITED`` with ``Retry-After``; the miss
    is tallied in Redis (one round trip, best effort) and written to the audit log later,
    aggregated, by :func:`flush_miss_tallies`.
    """
    retry_after = _take(
        group=MISSES_GROUP, rate=settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES, user_id=actor.actor.pk
    )
    if retry_after is None:
        return
    identity = {
        "actor_id": actor.actor.pk,
        "subject_id": actor.subject.pk,
        "kind": kind,
        "action": action,
    }
    tally(MISS_TALLIES_KEY, identity, what=f"throttled token miss of user {actor.actor.pk}")
    raise _limited(retry_after)


def flush_miss_tallies() -> int:
    """Write the throttled token misses to the audit log; return the number of rows.

    One ``rate.limited`` row (group ``agent.token_misses``) per user, kind and action, with
    ``details.count``. Taken and cleared atomically; put back if the database refuses.
    """
    return tallies_flush(MISS_TALLIES_KEY, _miss_entry, what="token-miss")


def _miss_entry(identity: dict[str, Any], count: int) -> Any:
    user = get_user_model()
    return audit_entry(
        "rate.limited",
        actor=user(pk=identity["actor_id"]),
        subject=user(pk=identity["subject_id"]),
        code="RATE_LIMITED",
        details={
            "group": MISSES_GROUP,
            "rate": settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES,
            "kind": str(identity.get("kind", "")),
            "action": str(identity.get("action", "")),
            "count": count,
        },
    )
