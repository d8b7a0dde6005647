"""A card's moves through its state machine: claim, settle, release, resolve, reject, void,
destroy; and the running cards whose lease has passed, for reconciliation.

The moves are compare-and-sets on the card's record
(:func:`lightnote.store.record_transition`; destroy deletes it); the card itself, its issue
and its reads are :mod:`agent.cards`.

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

from agent.cards import Card, CardState, OutcomeKind, card_from_fields
from agent.control import card_key, confirmation_store
from lightnote import store, store_counters, store_scripts
from lightnote.binding import canonical_json, owner_hash

logger = logging.getLogger(__name__)

RUNNING_INDEX_KEY = "ln:cards:running"


class ClaimStatus(StrEnum):
    CLAIMED = "claimed"  # this attempt holds the card: execute it
    RUNNING = "running"  # another attempt holds it (see ClaimResult.lease_expired)
    SETTLED = "settled"
    REJECTED = "rejected"
    GONE = "gone"  # unknown or expired
    # Still ready, nothing claimed: the record does not name the owner and session the claim
    # expected (``card_claim(..., owner_id=, session_id=)``), or cannot be read.
    READY = "ready"
    # Still ready, nothing claimed and nothing counted: the claim would have won, but the
    # rate limit it was to count against (``card_claim(..., take=)``) is reached.
    LIMITED = "limited"


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


@confirmation_store()
def card_claim(
    token: str,
    *,
    attempt_id: str,
    owner_id: int | str | None = None,
    session_id: uuid.UUID | str | None = None,
    take: store_counters.CounterUnit | None = None,
    prepared: ClaimCall | None = None,
) -> ClaimResult:
    """Claim a ready card for ``attempt_id``: ready -> running, with a lease. One winner.

    Only a CLAIMED result lets the caller execute. The claim is one Lua compare-and-set, so
    of any number of concurrent claims exactly one wins; a claim re-sent with the same
    ``attempt_id`` (e.g. by redis-py after a lost reply) is recognised and answers CLAIMED
    again without a second claimer. The lease is ``LIGHTNOTE_EXECUTION_LEASE``; the key's
    TTL becomes ``LIGHTNOTE_SETTLED_TTL``.

    With ``owner_id`` and ``session_id`` the same script first checks that the record names
    that owner (its owner hash) and that session, so a confirm reads and claims its card in
    one round trip: READY (and nothing claimed) when they do not match. Every result except
    GONE carries the card as stored after the call, for the caller's own checks (the owner
    and session in constant time, the binding) in the API's order.

    With ``take`` (a single Redis whose limiter shares the cards' connection:
    ``store_counters.counter_in_script``) the same script counts one unit of the claims
    limit, only when the claim wins: LIMITED (the card untouched, no index entry, nothing
    counted, with ``retry_after_ms``) when the limit is reached. A repeat, a loser or a
    refused owner is neither counted nor refused.

    ``prepared``: this very claim, built ahead by :func:`claim_call` with the same arguments
    (the confirm builds it while its token query runs), sent as it is.
    """
    claim = prepared or claim_call(
        token, attempt_id=attempt_id, owner_id=owner_id, session_id=session_id, take=take
    )
    digest, now = claim.digest, claim.now_ms
    result = store.run_transition(claim.call)
    if result.fields is None:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    card = card_from_fields(digest, result.fields)
    if result.status is store.TransitionStatus.LIMITED:
        return ClaimResult(
            status=ClaimStatus.LIMITED, card=card, retry_after_ms=result.retry_after_ms
        )
    if result.applied:
        return ClaimResult(status=ClaimStatus.CLAIMED, card=card)
    if card.state == CardState.RUNNING:
        lease_until = int(result.fields.get("lease_until") or 0)
        return ClaimResult(
            status=ClaimStatus.RUNNING, card=card, lease_expired=0 < lease_until <= now
        )
    if card.state == CardState.SETTLED:
        return ClaimResult(status=ClaimStatus.SETTLED, card=card)
    if card.state == CardState.REJECTED:
        return ClaimResult(status=ClaimStatus.REJECTED, card=card)
    if card.state == CardState.VOIDED:
        return ClaimResult(status=ClaimStatus.GONE, card=None)
    if card.state == CardState.READY and claim.expected:
        return ClaimResult(status=ClaimStatus.READY, card=card)
    logger.error("card %s is in an unknown state %r", digest[:12], card.state)
    return ClaimResult(status=ClaimStatus.GONE, card=None)


@dataclass(frozen=True)
class ClaimCall:
    """A claim (:func:`card_claim`) built but not sent."""

    digest: str
    now_ms: int
    expected: bool  # the script checks the record's owner and session
    call: store.TransitionCall


def claim_call(
    token: str,
    *,
    attempt_id: str,
    owner_id: int | str | None = None,
    session_id: uuid.UUID | str | None = None,
    take: store_counters.CounterUnit | None = None,
) -> ClaimCall:
    """:func:`card_claim`'s script call for these arguments, built (``ValueError`` for a bad
    one) but not sent: nothing touches the store."""
    digest = store.token_digest(token)
    now = store.now_ms()
    lease_ms = settings.LIGHTNOTE_EXECUTION_LEASE * 1000
    expected: dict[str, str] | None = None
    if owner_id is not None or session_id is not None:
        if owner_id is None or session_id is None:
            raise ValueError("name both the expected owner and the expected session, or neither")
        expected = {"owner_hash": owner_hash(owner_id), "session_id": str(session_id)}
    # The running-cards index entry is added by the claim itself, only when it wins (one
    # round trip on a single Redis; on Cluster the entry follows the won claim as its own
    # command): a loser, a repeat or a refused owner leaves no entry behind.
    call = store.transition_call(
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
    )
    return ClaimCall(digest=digest, now_ms=now, expected=expected is not None, call=call)


def _outcome_json(outcome_kind: str, outcome: Mapping[str, Any], allowed: tuple[str, ...]) -> str:
    if outcome_kind not in allowed:
        raise ValueError(f"outcome_kind must be one of {allowed}, got {outcome_kind!r}")
    return canonical_json(dict(outcome))


def card_settle(
    token: str, *, attempt_id: str, outcome_kind: str, outcome: Mapping[str, Any]
) -> bool:
    """Record the outcome of the execution ``attempt_id`` holds: running -> settled.

    Compare-and-set on the attempt: False when another attempt holds the card or it was
    already settled or resolved (the stored outcome then stands). A repeat by the same
    attempt with the same outcome answers True. The settled record is kept
    ``LIGHTNOTE_SETTLED_TTL`` from now. (:class:`CardSettle` builds the call ahead.)
    """
    return CardSettle(token, attempt_id=attempt_id)(outcome_kind, outcome)


class CardSettle:
    """The settle (:func:`card_settle`) of the card ``attempt_id`` holds, whose script call
    can be built ahead and sent later.

    The confirm builds it (:meth:`prepare`) while its execution's COMMIT is with the database
    (``agent.executor``), and sends it (calling the instance) once the COMMIT is known:
    nothing reaches the store before then. A call prepared for another outcome (the
    execution ended otherwise), or whose building failed, is built again when sent, where
    its error is raised as :func:`card_settle`'s would be. The record's ``settled_at`` is
    then the time the call was built, not the time it was sent.
    """

    __slots__ = ("_prepared", "attempt_id", "token")

    def __init__(self, token: str, *, attempt_id: str) -> None:
        self.token = token
        self.attempt_id = attempt_id
        self._prepared: tuple[str, Mapping[str, Any], store.TransitionCall] | None = None

    def prepare(self, outcome_kind: str, outcome: Mapping[str, Any]) -> None:
        """Build the call for ``outcome`` (this very object, unchanged until sent); never
        raises, sends nothing."""
        try:
            self._prepared = (outcome_kind, outcome, self._call(outcome_kind, outcome))
        except Exception:  # built again when sent, which raises it where a settle would
            self._prepared = None

    @confirmation_store()
    def __call__(self, outcome_kind: str, outcome: Mapping[str, Any]) -> bool:
        """Send the settle for ``outcome``: True when it applied (see :func:`card_settle`)."""
        return store.run_transition(self._call_for(outcome_kind, outcome)).applied

    def send_later(self, outcome_kind: str, outcome: Mapping[str, Any]) -> bool:
        """Send the settle for ``outcome`` now and learn whether it applied at the end of the
        request (``store_scripts.replies_at_end``, where one that did not is logged): True
        when sent so. False, with nothing sent, where that cannot be done; the caller then
        calls the instance. Only for an answer that does not depend on whether it applied
        (``agent.execution.confirm``: a success)."""
        try:
            call = self._call_for(outcome_kind, outcome)
            key = call.key

            def checked(result: store.TransitionResult) -> None:
                if not result.applied:  # see ``agent.execution.confirm``: the receipt stands
                    logger.warning("card %s executed but its executor could not settle it", key)

            return store.send_transition_later(call, checked)
        except Exception:  # never after a COMMIT: the caller's own call raises it instead
            logger.exception("the settle could not be sent ahead; sent as usual")
            return False

    def _call_for(self, outcome_kind: str, outcome: Mapping[str, Any]) -> store.TransitionCall:
        prepared = self._prepared
        if prepared is not None and prepared[0] == outcome_kind and prepared[1] is outcome:
            return prepared[2]
        return self._call(outcome_kind, outcome)

    def _call(self, outcome_kind: str, outcome: Mapping[str, Any]) -> store.TransitionCall:
        digest = store.token_digest(self.token)
        return store.transition_call(
            card_key(digest),
            from_states=(CardState.RUNNING,),
            to_state=CardState.SETTLED,
            attempt=self.attempt_id,
            require_attempt=True,
            outcome=_outcome_json(outcome_kind, outcome, tuple(OutcomeKind)),
            outcome_kind=outcome_kind,
            ttl_ms=settings.LIGHTNOTE_SETTLED_TTL * 1000,
            now_ms=store.now_ms(),
            # Leaves the running-cards index in the same round trip. Should this attempt
            # not hold the card any more, its holder's own settle or reconciliation settles
            # it (and removes the entry).
            index=store_scripts.IndexUpdate(RUNNING_INDEX_KEY, digest),
            with_fields=False,  # only whether it applied is read
        )


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
