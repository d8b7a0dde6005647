"""Confirm, reject and status: the order of a confirmation's checks, its claim and settle.

The confirm path, in the order docs/api.md fixes: admin read-only -> store reachable -> token known
-> owner and session -> args binding (``agent.confirm_checks``) -> state (rejected / running /
settled, ``agent.reconcile.answer_for_state``) -> rate limit for the *new* claim -> atomic
claim -> tool policy again and the domain service with its receipt in ONE durable
transaction (``agent.executor``) -> settle. The read and the claim are one script when the
token query says the session is the caller's own (``confirm_checks.claim_card_for``): it
claims only a ready card whose record names this owner and session, and the checks are
then made on the record it returns, in the same order, before anything executes. On a single
Redis whose limiter shares the cards' connection the same script counts the claims limit's
unit, only when it wins, and writes nothing when the limit refuses (the 429 then follows the
checks); elsewhere the unit is counted after the claim, and a refused claim is given back.

Why nothing runs twice:
- the Lua claim lets exactly one attempt move a card ``ready -> running``;
- the receipt's unique ``action_id`` (the card id) makes a second commit impossible even if
  Redis lost the claim (failover), and a voided receipt written by reconciliation takes the
  same slot, so a late executor cannot commit after "not executed" was answered;
- an error raised by COMMIT is "outcome unknown": the receipt is looked up on a fresh
  connection, never re-run.

Races here: two confirms read the same ready card, one wins the claim, the other answers
with the winner's state (202 running, or its settled outcome); a winner whose lease passed
mid-run may find the card settled by a reconciler: it answers the stored outcome, which the
receipt fence makes agree with its own. Repeats of a running or settled card are tallied in
the store (no database write) and flushed to the audit log later.

``Answer``, ``session_check_annotation`` and the ``SESSION_*`` annotation keys stay
importable from here (the REST views and the chat page use them); ``execute_claimed`` is
called through this module's name, so a test can stand in for it.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, replace
from typing import Any

from agent import card_transitions, cards, lifecycle
from agent.card_audit import audit_card
from agent.cards import CardState, OutcomeKind
from agent.confirm_answers import Answer, running_answer, settled_answer
from agent.confirm_checks import (
    SESSION_ID_ANNOTATION,
    SESSION_LIVE_ANNOTATION,
    claim_card_for,
    give_back,
    load_card_for,
    session_check_annotation,
)
from agent.executor import execute_claimed
from agent.ratelimit import LimitTake, new_claim_unit, retry_after_seconds, take_now
from agent.reconcile import answer_for_state
from lightnote import store_counters, store_scripts
from lightnote.audit import audit_entry, audit_events
from lightnote.audit_tallies import tallies_flush, tally
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError

logger = logging.getLogger(__name__)


# --- The three endpoints' logic ----------------------------------------------------------


@dataclass(frozen=True)
class ClaimAhead:
    """What a confirm sends first, built before it is sent: its attempt id, its unit of the
    claims limit (counted by the claim's script when ``in_claim``) and, when built ahead,
    the claim's script call (``claim``; else ``card_claim`` builds it when it is sent), for
    one actor, owner (the card's subject), token and session."""

    actor_id: Any
    owner_id: Any
    attempt_id: str
    unit: LimitTake
    in_claim: bool
    claim: card_transitions.ClaimCall | None = None

    def fits(self, actor: ActorContext) -> bool:
        return (self.actor_id, self.owner_id) == (actor.actor.pk, actor.subject.pk)


def claim_start(*, actor_id: Any, owner_id: Any) -> ClaimAhead:
    """A confirm's attempt id and unit of the claims limit (no claim call yet)."""
    attempt_id = uuid.uuid4().hex
    unit = new_claim_unit(user_id=actor_id)
    in_claim = store_counters.counter_in_script(unit.alias)
    return ClaimAhead(actor_id, owner_id, attempt_id, unit, in_claim)


def guessed_claim(*, token: str, session_id: uuid.UUID, user_id: Any) -> ClaimAhead | None:
    """A confirm's :class:`ClaimAhead` with its claim call, for ``user_id`` (a guess: the
    user this request's token key named before), built while the token query runs. Nothing
    is sent and nothing touches the store; None when it cannot be built (the confirm then
    builds its own, and meets the error there)."""
    try:
        start = claim_start(actor_id=user_id, owner_id=user_id)
        claim = card_transitions.claim_call(
            token,
            attempt_id=start.attempt_id,
            owner_id=user_id,
            session_id=session_id,
            take=start.unit.counter if start.in_claim else None,
        )
    except Exception:  # only a head start: the confirm builds it again and raises where it did
        return None
    return replace(start, claim=claim)


@store_scripts.riding  # a best-effort script after the commit (list counts) rides with the settle
@store_scripts.on_one_connection  # the claim and the settle share one pooled connection
def confirm(
    *,
    request: Any,
    actor: ActorContext,
    token: str,
    session_id: uuid.UUID,
    locale: str,
    ahead: ClaimAhead | None = None,
) -> Answer:
    """Confirm a card: claim it and execute it once, or report what happened to it.

    Round trips to the control store on the way to an execution, on a single Redis whose
    limiter shares the cards' connection (2): one script reads the card, claims it when its
    record names this owner and this session, adds its running-index entry and counts the
    claim against the rate limit, all only when the claim wins; settle it (and leave the
    index). Elsewhere (3; Cluster: plus the index commands): the claims limit is counted
    after the claim, which a refusal gives back untouched (running -> ready). A repeat costs
    2: the same script, which claims and counts nothing on a running or settled card, and
    the repeat's tally. When the token query has not already said the session is the
    caller's own, the card is read first and claimed after its checks (one more).
    Only a request that won the claim is counted; one the limit refuses answers 429 and the
    card stays ready, confirmable.

    ``ahead``: the claim built while the request's token query ran (:func:`guessed_claim`),
    used only when it was built for this request's actor and owner; else built here.
    """
    if ahead is None or not ahead.fits(actor):
        ahead = claim_start(actor_id=actor.actor.pk, owner_id=actor.subject.pk)
    attempt_id, unit, in_claim = ahead.attempt_id, ahead.unit, ahead.in_claim
    card, claimed = claim_card_for(
        request=request,
        actor=actor,
        token=token,
        session_id=session_id,
        attempt_id=attempt_id,
        limit=unit if in_claim else None,
        prepared=ahead.claim,
    )
    if not claimed:
        answer = answer_for_state(card, locale=locale)
        if answer is not None:
            _tally_repeat(card, actor)
            return answer
        claim = card_transitions.card_claim(
            token, attempt_id=attempt_id, take=unit.counter if in_claim else None
        )
        if claim.status == card_transitions.ClaimStatus.LIMITED:
            unit.refuse(retry_after_seconds(claim.retry_after_ms))  # nothing was written
        if claim.status != card_transitions.ClaimStatus.CLAIMED:
            # Another request won the race between our read and our claim.
            if claim.card is None:
                raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
            answer = answer_for_state(claim.card, locale=locale)
            return answer or running_answer()
    if not in_claim:
        try:
            take_now(unit)
        except LightNoteError:
            give_back(token, attempt_id=attempt_id, card=card)
            raise
    # The settle's script call is built while the execution's COMMIT is with the database,
    # and sent only once it is known (``CardSettle``).
    settle = card_transitions.CardSettle(token, attempt_id=attempt_id)
    kind, outcome = execute_claimed(
        card, actor=actor, locale=locale, while_committing=settle.prepare
    )
    if kind == cards.OutcomeKind.SUCCEEDED and settle.send_later(kind, outcome):
        # A success answers its receipt, whoever settles the card: a reconciler that did it
        # first (this attempt's lease passed mid-run) read the same receipt, so the stored
        # outcome is these very bytes. So within a request the settle is sent now and its
        # reply read at the request's end, while the answer is built (Redis runs the settle
        # as it arrives; only the reply waits): ``store_scripts.replies_at_end``.
        return settled_answer(outcome)
    try:
        settled = settle(kind, outcome)
    except LightNoteError:
        settled = False  # store down after the fact: the receipt stays the truth
    if not settled:
        # Our lease passed mid-run and a reconciler settled the card first (the receipt
        # fence makes both outcomes agree), or the store is down. Answer with the stored
        # outcome when there is one, so this answer and every replay are the same bytes.
        logger.warning("card %s executed but could not be settled by its executor", card.id)
        stored = _stored_final_outcome(card.digest)
        if stored is not None:
            return settled_answer(stored)
    return settled_answer(outcome)


def _stored_final_outcome(digest: str) -> dict[str, Any] | None:
    """Return the card's stored settled outcome unless it is still unknown (or unreadable)."""
    try:
        current = cards.card_get_by_digest(digest)
    except LightNoteError:
        return None
    if (
        current is None
        or current.state != CardState.SETTLED
        or current.outcome_kind == OutcomeKind.UNKNOWN
    ):
        return None
    return current.outcome


def reject(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Reject a ready card; a running or settled one answers 409 with its state."""
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="reject"
    )
    result = card_transitions.card_reject(token)
    if result.status == card_transitions.RejectStatus.REJECTED:
        lifecycle.record_rejected(card.id)
        audit_card("confirm.rejected", card, actor)
        return Answer(200, {"state": "rejected"})
    if result.status == card_transitions.RejectStatus.GONE:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    raise LightNoteError("CONFIRMATION_ALREADY_CLAIMED", status=409, outer={"state": result.state})


def status(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Report a card's state (and its outcome when settled)."""
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="status"
    )
    if card.state == CardState.READY:
        return Answer(200, {"state": "ready"})
    if card.state == CardState.REJECTED:
        return Answer(200, {"state": "rejected"})
    answer = answer_for_state(card, locale=locale)
    return answer if answer and answer.status == 200 else Answer(200, {"state": "running"})


# --- Repeated confirms ----------------------------------------------------------------------

# Repeated confirms of a running or settled card write nothing to the database: they are
# tallied in the control store and moved into the audit log by ``flush_repeat_tallies``
# (the ``reconcile_cards`` command runs it), one ``confirm.duplicate`` row per card, actor
# and state with ``details.count``.
REPEAT_TALLIES_KEY = "ln:audit:{repeats}"


def _tally_repeat(card: cards.Card, actor: ActorContext) -> None:
    """Count one repeated confirm of ``card`` (best effort: the answer never depends on it)."""
    identity = {
        "action_id": card.id,
        "actor_id": actor.actor.pk,
        "subject_id": actor.subject.pk,
        "session_id": card.session_id,
        "capability": card.capability,
        "tool": card.tool,
        "state": card.state,
    }
    tally(REPEAT_TALLIES_KEY, identity, what=f"repeat confirm of {card.id}")


def _repeat_entry(identity: dict[str, Any], count: int) -> Any:
    return audit_entry(
        "confirm.duplicate",
        actor=_user_ref(identity.get("actor_id")),
        subject=_user_ref(identity.get("subject_id")),
        session_id=identity.get("session_id") or None,
        capability=str(identity.get("capability", "")),
        tool=str(identity.get("tool", "")),
        action_id=identity.get("action_id") or None,
        details={"state": identity.get("state"), "count": count},
    )


def flush_repeat_tallies() -> int:
    """Move the repeated-confirm tallies into the audit log; return the number of rows.

    The tallies are taken and cleared atomically, so each repeat is recorded once; if the
    database refuses the rows, they are put back for the next run
    (``lightnote.audit_tallies``).
    """
    return tallies_flush(REPEAT_TALLIES_KEY, _repeat_entry, what="repeat", write=audit_events)


def _user_ref(user_id: Any) -> Any:
    """A user reference for an audit row, without a query (None when there is no id)."""
    if user_id in (None, ""):
        return None
    from django.contrib.auth import get_user_model

    return get_user_model()(pk=user_id)


__all__ = [
    "REPEAT_TALLIES_KEY",
    "SESSION_ID_ANNOTATION",
    "SESSION_LIVE_ANNOTATION",
    "Answer",
    "ClaimAhead",
    "claim_start",
    "confirm",
    "execute_claimed",
    "flush_repeat_tallies",
    "guessed_claim",
    "reject",
    "session_check_annotation",
    "status",
]
