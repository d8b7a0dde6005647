"""The agent's rate limits on new cards, new claims and token misses.

Each is a fixed window per user (``LIGHTNOTE_RATE_LIMIT_CARDS`` / ``..._CONFIRMS`` /
``..._TOKEN_MISSES``, e.g. ``60/m``) counted by the base layer's limiter
(:mod:`lightnote.controlstore.limits`: one atomic script), which answers an unreachable
store with ``CONFIRMATION_STORE_UNAVAILABLE`` here.

A message turn's card counts its unit in the round trip that stores the card
(``agent.cards.issue``, :class:`LimitTake`) when the limiter shares the records' connection
(not on Redis Cluster): still one unit per card, checked before the card is shown.

Callers place the check where docs/api.md's order puts it. A confirm counts only when it has won
the claim (``agent.cards.confirm.confirm``): a repeat of a running or settled card, and every
loser of a race for one card, are never counted and never refused. When the limiter shares
the cards' connection on a single Redis, the claim's own script counts the unit
(:attr:`LimitTake.counter`, ``agent.cards.transitions.card_claim(..., take=)``) and a refused
claim writes nothing; elsewhere the unit is counted just before the claim, and given back
if the claim does not win.
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
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from lightnote.audit import audit_entry
from lightnote.controlstore.limits import (
    LimitTake,
    limit_unit,
    limited,
    send,
    take_now,
)
from lightnote.controlstore.tallies import tallies_flush, tally
from lightnote.impersonation.context import ActorContext

logger = logging.getLogger(__name__)

# The agent's limits answer an unreachable store with the confirmation machinery's 503.
STORE_UNAVAILABLE = "CONFIRMATION_STORE_UNAVAILABLE"


def _unit(*, group: str, rate: str, user_id: int) -> LimitTake:
    return limit_unit(group=group, rate=rate, user_id=user_id, unavailable_code=STORE_UNAVAILABLE)


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
    retry_after = send(
        _unit(
            group=MISSES_GROUP,
            rate=settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES,
            user_id=actor.actor.pk,
        )
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
    raise limited(retry_after)


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
