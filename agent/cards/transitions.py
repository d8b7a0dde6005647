"""A card's moves through its state machine: claim, settle, release, resolve, reject, void,
destroy; and the running cards whose lease has passed, for reconciliation.

The moves are compare-and-sets on the card's record
(:func:`lightnote.controlstore.store.record_transition`; destroy deletes it); the card itself, its
issue
and its reads are :mod:`agent.cards.records`.

State machine::

    ready --claim--> running --settle--> settled{succeeded|failed|unknown}
      |                 |                    unknown --resolve--> succeeded | failed
      |                 '--resolve (lease passed)--> settled{succeeded|failed}
      |--reject--> rejected          (ready also expires: Redis drops the key)
      '--void----> voided            (withdrawn: its session was deleted, or a newer card
                                      supersedes it; answers like an unknown token)

    running --release--> ready       (a claim that executed nothing gives the card back)

Claiming extends the key to ``LIGHTNOTE_SETTLED_TTL`` so running, settled and rejected
records are kept 24 h. A running card is listed in the running-cards index
(``RUNNING_INDEX_KEY``, a hint the reconcile command re-checks) while it runs.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.conf import settings

from agent.cards.records import Card, CardState, OutcomeKind, card_from_fields, card_get
from agent.control import card_key, confirmation_store
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json, owner_hash

logger = logging.getLogger(__name__)

RUNNING_INDEX_KEY = "ln:cards:running"


class ClaimStatus(StrEnum):
    CLAIMED = "claimed"  # this attempt holds the card: execute it
    RUNNING = "running"  # another attempt holds it (see ClaimResult.lease_expired)
    SETTLED = "settled"
    REJECTED = "rejected"
    GONE = "gone"  # unknown or expired
    # Still ready, nothing claimed: the record does not name the owner, session and args
    # binding the claim expected (the copy the caller checked), or cannot be read.
    READY = "ready"
    # Still ready, nothing claimed and nothing counted: the claim would have won, but the
    # rate limit it was to count against (``card_claim(..., take=)``) is reached.
    LIMITED = "limited"
    # Still ready, nothing claimed: the claim reached the store after its deadline (its
    # request may have given up on a stalled store already).
    LATE = "late"


class RejectStatus(StrEnum):
    REJECTED = "rejected"  # now rejected (or was already)
    REFUSED = "refused"  # running or settled: see RejectResult.state
    GONE = "gone"


@dataclass(frozen=True)
class ClaimResult:
    status: ClaimStatus
    card: Card | None
    # For RUNNING: the holder's lease has passed, so the caller should reconcile the card
    # from the receipt table (card_resolve), never execute it again.
    lease_expired: bool = False
    # For LIMITED: the milliseconds until the limit's window ends.
    retry_after_ms: int = 0


@dataclass(frozen=True)
class RejectResult:
    status: RejectStatus
    state: str | None


def _index_remove_best_effort(digest: str) -> None:
    """Drop the card from the running-cards index; a failure only delays the reconcile
    command. (A claim adds its entry in its own script: ``IndexUpdate``.)"""
    try:
        store.index_remove(RUNNING_INDEX_KEY, digest)
    except store.StoreUnavailable:
        logger.warning("running-cards index not updated (remove %s)", digest[:12])


def claim_deadline_ms(card: Card) -> int:
    """The latest moment (the store's clock, ms) a claim of ``card`` read at
    ``card.read_at_ms`` may still apply: ``LIGHTNOTE_CLAIM_DEADLINE_MS`` after the read,
    well inside the Redis socket timeout, so a claim that applies has its answer back before
    its request can give up on it (and a re-sent one is recognised as ALREADY)."""
    return card.read_at_ms + settings.LIGHTNOTE_CLAIM_DEADLINE_MS


@confirmation_store()
def card_claim(
    token: str,
    *,
    attempt_id: str,
    card: Card | None = None,
    owner_id: int | str | None = None,
    session_id: uuid.UUID | str | None = None,
    take: store_counters.CounterUnit | None = None,
) -> ClaimResult:
    """Claim the ready ``card`` for ``attempt_id``: ready -> running, with a lease. One winner.

    Only a CLAIMED result lets the caller execute. The claim is one Lua compare-and-set, so
    of any number of concurrent claims exactly one wins; a claim re-sent with the same
    ``attempt_id`` (e.g. by redis-py after a lost reply) is recognised and answers CLAIMED
    again without a second claimer. The lease is ``LIGHTNOTE_EXECUTION_LEASE``; the key's
    TTL becomes ``LIGHTNOTE_SETTLED_TTL``.

    The script re-checks what the caller checked on the copy it read (``card``): the record
    still carries the same ``args_hmac`` and, when given (both or neither), names
    ``owner_id`` (its owner hash) and ``session_id``; otherwise READY, nothing claimed. It
    refuses a claim that reaches Redis after :func:`claim_deadline_ms` (LATE, nothing
    written: the card stays confirmable), so a request that gave up on a stalled store
    leaves no claim behind. Without ``card`` (or with one not read from the store, such as a
    card just issued) the card is read first (one more round trip).

    With ``take`` (a single Redis whose limiter shares the cards' connection:
    ``store_counters.counter_in_script``) the same script counts one unit of the claims
    limit, only when the claim wins: LIMITED (the card untouched, no index entry, nothing
    counted, with ``retry_after_ms``) when the limit is reached.
    """
    if (owner_id is None) != (session_id is None):
        raise ValueError("name both the expected owner and the expected session, or neither")
    if card is None or not card.read_at_ms:  # its deadline counts from a read of the store
        card = card_get(token)
        if card is None:
            return ClaimResult(status=ClaimStatus.GONE, card=None)
    expected = {"args_hmac": card.args_hmac}
    if owner_id is not None:
        expected |= {"owner_hash": owner_hash(owner_id), "session_id": str(session_id)}
    digest = store.token_digest(token)
    now = store.now_ms()
    lease_ms = settings.LIGHTNOTE_EXECUTION_LEASE * 1000
    # The running-cards index entry is added by the claim itself, only when it wins (one
    # round trip on a single Redis; on Cluster the entry follows the won claim as its own
    # command): a loser, a repeat or a refused owner leaves no entry behind.
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.READY,),
        to_state=CardState.RUNNING,
        attempt=attempt_id,
        lease_ms=lease_ms,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=now,
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest, score_ms=now + lease_ms),
        expect_record=expected,
        take=take,
        deadline_ms=claim_deadline_ms(card),
    )
    return _claim_result(digest, result, now_ms=now)


def _claim_result(digest: str, result: store.TransitionResult, *, now_ms: int) -> ClaimResult:
    """Read a claim's reply: who holds the card now, and in which state."""
    now = now_ms
    if result.fields is None:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    stored = card_from_fields(digest, result.fields)
    if result.status is store.TransitionStatus.LIMITED:
        return ClaimResult(
            status=ClaimStatus.LIMITED, card=stored, retry_after_ms=result.retry_after_ms
        )
    if result.status is store.TransitionStatus.LATE:
        return ClaimResult(status=ClaimStatus.LATE, card=stored)
    if result.applied:
        return ClaimResult(status=ClaimStatus.CLAIMED, card=stored)
    if stored.state == CardState.RUNNING:
        lease_until = int(result.fields.get("lease_until") or 0)
        return ClaimResult(
            status=ClaimStatus.RUNNING, card=stored, lease_expired=0 < lease_until <= now
        )
    if stored.state == CardState.SETTLED:
        return ClaimResult(status=ClaimStatus.SETTLED, card=stored)
    if stored.state == CardState.REJECTED:
        return ClaimResult(status=ClaimStatus.REJECTED, card=stored)
    if stored.state == CardState.VOIDED:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    if stored.state == CardState.READY:
        return ClaimResult(status=ClaimStatus.READY, card=stored)
    logger.error("card %s is in an unknown state %r", digest[:12], stored.state)
    return ClaimResult(status=ClaimStatus.GONE, card=None)


def _outcome_json(outcome_kind: str, outcome: Mapping[str, Any], allowed: tuple[str, ...]) -> str:
    if outcome_kind not in allowed:
        raise ValueError(f"outcome_kind must be one of {allowed}, got {outcome_kind!r}")
    return canonical_json(dict(outcome))


@confirmation_store()
def card_settle(
    token: str, *, attempt_id: str, outcome_kind: str, outcome: Mapping[str, Any]
) -> bool:
    """Record the outcome of the execution ``attempt_id`` holds: running -> settled.

    Compare-and-set on the attempt: False when another attempt holds the card or it was
    already settled or resolved (the stored outcome then stands). A repeat by the same
    attempt with the same outcome answers True. The settled record is kept
    ``LIGHTNOTE_SETTLED_TTL`` from now. Best-effort scripts waiting to ride
    (``store_scripts.riding_context``) travel in the same round trip.
    """
    digest = store.token_digest(token)
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.RUNNING,),
        to_state=CardState.SETTLED,
        attempt=attempt_id,
        require_attempt=True,
        outcome=_outcome_json(outcome_kind, outcome, tuple(OutcomeKind)),
        outcome_kind=outcome_kind,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=store.now_ms(),
        # Leaves the running-cards index in the same round trip. Should this attempt not
        # hold the card any more, its holder's own settle or reconciliation settles it
        # (and removes the entry).
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest),
        with_fields=False,  # only whether it applied is read
    )
    return result.applied


@confirmation_store()
def card_release(token: str, *, attempt_id: str, expires_at: datetime | None) -> bool:
    """Give back a claim that executed nothing: running -> ready, for ``attempt_id`` only.

    For a claim that may not proceed after all (the claims rate limit refused it, or its
    store failed): the card is confirmable again until its original ``expires_at``. True
    when this call released it; False when the attempt no longer holds it.
    """
    digest = store.token_digest(token)
    now = store.now_ms()
    left_ms = int(expires_at.timestamp() * 1000) - now if expires_at else 0
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.RUNNING,),
        to_state=CardState.READY,
        attempt=attempt_id,
        require_attempt=True,
        lease_ms=0,
        ttl_ms=max(1, left_ms),
        now_ms=now,
        index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


def _digest_of(token: str | None, digest: str | None) -> str:
    """Return the card's digest from exactly one of its token or its digest."""
    if token is not None and digest is None:
        return store.token_digest(token)
    if digest is not None and token is None:
        return digest
    raise ValueError("name the card by exactly one of token or digest")


@confirmation_store()
def card_resolve(
    token: str | None = None,
    *,
    digest: str | None = None,
    outcome_kind: str,
    outcome: Mapping[str, Any],
) -> bool:
    """Settle a card whose outcome reconciliation established; never re-executes it.

    Name the card by ``token`` or, from the reconcile command, by ``digest``. Allowed:
    settled-unknown -> succeeded (any time: a receipt exists) or -> failed (only once the
    execution lease has passed), and running -> succeeded|failed once its lease has passed.
    Returns True when this call resolved it; False when it was not in such a state (e.g.
    already resolved: that result stands).
    """
    allowed = (OutcomeKind.SUCCEEDED, OutcomeKind.FAILED)
    outcome_json = _outcome_json(outcome_kind, outcome, tuple(allowed))
    digest = _digest_of(token, digest)
    key = card_key(digest)
    common: dict[str, Any] = {
        "to_state": CardState.SETTLED,
        "outcome": outcome_json,
        "outcome_kind": outcome_kind,
        "ttl_ms": settings.LIGHTNOTE_SETTLED_TTL * 1000,
        "now_ms": store.now_ms(),
    }
    # Two compare-and-sets, each atomic: whichever matches the card's current state applies.
    result = store.record_transition(
        key,
        from_states=(CardState.SETTLED,),
        expect_outcome_kind=OutcomeKind.UNKNOWN,
        takeover_expired_lease=outcome_kind == OutcomeKind.FAILED,
        **common,
    )
    if result.status is store.TransitionStatus.REFUSED and result.state == CardState.RUNNING:
        result = store.record_transition(
            key, from_states=(CardState.RUNNING,), takeover_expired_lease=True, **common
        )
    if result.status is store.TransitionStatus.TRANSITIONED:
        _index_remove_best_effort(digest)
        return True
    return False


@confirmation_store()
def card_reject(token: str) -> RejectResult:
    """Reject a ready card: ready -> rejected, atomically; a repeat answers REJECTED again.

    A running or settled card is refused with its state; the rejected record is kept
    ``LIGHTNOTE_SETTLED_TTL`` so later confirms answer "rejected", not "expired".
    """
    result = store.record_transition(
        card_key(store.token_digest(token)),
        from_states=(CardState.READY,),
        to_state=CardState.REJECTED,
        ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
        now_ms=store.now_ms(),
    )
    if result.fields is None or result.state == CardState.VOIDED:
        return RejectResult(status=RejectStatus.GONE, state=None)
    if result.applied or result.state == CardState.REJECTED:
        return RejectResult(status=RejectStatus.REJECTED, state=CardState.REJECTED)
    return RejectResult(status=RejectStatus.REFUSED, state=result.state)


@confirmation_store()
def card_void(digest: str) -> bool:
    """Withdraw a ready card: ready -> voided, atomically; True when this call voided it.

    A voided card answers like an unknown token (410) until its key expires at the card's
    original expiry. A card already claimed, settled or rejected is left as it is (False):
    a claim that won the race stands, and its execution settles it as usual.
    """
    result = store.record_transition(
        card_key(digest),
        from_states=(CardState.READY,),
        to_state=CardState.VOIDED,
        now_ms=store.now_ms(),
    )
    return result.status is store.TransitionStatus.TRANSITIONED


@confirmation_store()
def card_destroy(token: str | None = None, *, digest: str | None = None) -> bool:
    """Delete a card (e.g. one whose binding check failed); True when it existed."""
    digest = _digest_of(token, digest)
    existed = store.record_delete(card_key(digest))
    _index_remove_best_effort(digest)
    return existed


@confirmation_store()
def cards_running_with_expired_lease(*, limit: int = 100) -> list[Card]:
    """Return running cards whose lease has passed, for the reconcile command.

    The index is a hint (changed by the claim's and the settle's scripts when they apply, on
    Cluster right after them, and possibly stale); every entry is re-read, and entries whose
    card is gone or no longer running are dropped from it.
    """
    now = store.now_ms()
    cards: list[Card] = []
    for digest in store.index_due(RUNNING_INDEX_KEY, now_ms=now, limit=limit):
        fields = store.record_get(card_key(digest))
        if fields is None or fields.get("state") != CardState.RUNNING:
            store.index_remove(RUNNING_INDEX_KEY, digest)
            continue
        card = card_from_fields(digest, fields)
        if card.lease_passed(now=store.ms_to_datetime(now)):
            cards.append(card)
    return cards
