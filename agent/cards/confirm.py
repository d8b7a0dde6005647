"""Confirm, reject and status: the one order of a confirmation's checks, claim and settle.

Every entry point (the API, the chat page, the MCP confirmation page) calls these functions;
they differ only in how they show the answer. The confirm's order, as docs/api.md fixes it
(the admin read-only gate ran before, in authentication or the page's own gate):

1. the record (``cards.card_get``: 503 when the store cannot answer, 410 unknown or expired);
2. the owner and the session (403; the caller's own deleted session 404);
3. the args binding (409 ``CONFIRMATION_INVALID``, the card destroyed);
4. the state (rejected 409; running 202, or resolved from the receipt after its lease;
   settled: the stored outcome) -- a repeat never reaches the rate limit;
5. the rate limit for a new claim (429);
6. the atomic claim (Lua: re-checks owner, session and binding on the stored record, refuses
   a claim that arrives after its deadline);
7. the execution: tool policy again, the domain service, its receipt and audit rows in one
   durable transaction (``agent.cards.execute``);
8. the settle (its best-effort riders, e.g. list counts, in the same round trip).

Why nothing runs twice:
- the Lua claim lets exactly one attempt move a card ``ready -> running``;
- the receipt's unique ``action_id`` (the card id) makes a second commit impossible even if
  Redis lost the claim (failover), and a voided receipt written by reconciliation takes the
  same slot, so a late executor cannot commit after "not executed" was answered;
- an error raised by COMMIT is "outcome unknown": the receipt is looked up on a fresh
  connection, never re-run;
- a claim that reaches Redis after its deadline (a stalled store: the request answered 503)
  writes nothing, so the card the 503 invites to retry is still ready.

Races here: two confirms read the same ready card, one wins the claim, the other answers
with the winner's state (202 running, or its settled outcome); a winner whose lease passed
mid-run may find the card settled by a reconciler: it answers the stored outcome, which the
receipt fence makes agree with its own. Repeats of a running or settled card are tallied in
the store (no database write) and flushed to the audit log later.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.answers import Answer, running_answer, settled_answer
from agent.cards.audit import audit_card
from agent.cards.checks import check_claimed_record, give_back_unit, load_card_for
from agent.cards.execute import execute_claimed
from agent.cards.reconcile import answer_for_state
from agent.cards.records import CardState, OutcomeKind
from agent.control import store_unavailable
from agent.ratelimit import new_claim_unit
from lightnote.audit import audit_entry, audit_events
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore.limits import LimitTake, retry_after_seconds, take_now
from lightnote.controlstore.tallies import tallies_flush, tally
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.ops import metrics, tracing
from lightnote.ops.logs import bind_log_context

logger = logging.getLogger(__name__)


# --- The three endpoints' logic ----------------------------------------------------------


@store_scripts.riding  # a best-effort script after the commit (list counts) rides with the settle
def confirm(
    *, request: Any, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Confirm a card: claim it and execute it once, or report what happened to it.

    Redis round trips on the way to an execution, on a single Redis: three (read the card,
    claim it with its unit of the claims limit counted by the same script, settle it). A
    repeat costs two (the read, and its tally); only a request that won the claim is
    counted against the limit, and one the limit refuses answers 429 with the card still
    ready.
    """
    card = load_card_for(
        request=request, actor=actor, token=token, session_id=session_id, action="confirm"
    )
    bind_log_context(card_id=card.id, action_id=card.id)
    answer = answer_for_state(card, locale=locale)
    if answer is not None:
        metrics.claim_refused(reason="not_ready")
        _tally_repeat(card, actor)
        return answer
    return _claim_and_execute(card, actor=actor, token=token, session_id=session_id, locale=locale)


def _claim_and_execute(
    card: cards.Card, *, actor: ActorContext, token: str, session_id: uuid.UUID, locale: str
) -> Answer:
    """Steps 5-8 for a card read ``ready``: limit, claim, execute, settle."""
    attempt_id = uuid.uuid4().hex
    unit = new_claim_unit(user_id=actor.actor.pk)
    in_claim = store_counters.counter_in_script(unit.alias)
    if not in_claim:  # the limiter lives elsewhere (Cluster): counted before the claim
        try:
            take_now(unit)
        except LightNoteError:
            metrics.claim_refused(reason="rate_limited")
            raise
    with tracing.span("confirm.claim", capability=card.capability, card_id=card.id):
        claim = card_transitions.card_claim(
            token,
            attempt_id=attempt_id,
            card=card,
            owner_id=actor.subject.pk,
            session_id=session_id,
            take=unit.counter if in_claim else None,
        )
    if claim.status is not card_transitions.ClaimStatus.CLAIMED:
        if not in_claim:
            give_back_unit(unit)
        metrics.claim_refused(reason=_REFUSALS.get(claim.status, "not_ready"))
        return _claim_lost(claim, unit=unit, actor=actor, token=token, locale=locale)
    metrics.card_confirmed(capability=card.capability)
    with tracing.span("confirm.execute", capability=card.capability, card_id=card.id):
        kind, outcome = execute_claimed(card, actor=actor, locale=locale)
    try:
        with tracing.span("confirm.settle", capability=card.capability, card_id=card.id):
            settled = card_transitions.card_settle(
                token, attempt_id=attempt_id, outcome_kind=kind, outcome=outcome
            )
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


# Why a claim did not win, as the claims-refused metric names it.
_REFUSALS = {
    card_transitions.ClaimStatus.LIMITED: "rate_limited",
    card_transitions.ClaimStatus.LATE: "late",
    card_transitions.ClaimStatus.GONE: "expired",
    card_transitions.ClaimStatus.READY: "invalid",
}


def _claim_lost(
    claim: card_transitions.ClaimResult,
    *,
    unit: LimitTake,
    actor: ActorContext,
    token: str,
    locale: str,
) -> Answer:
    """Answer a claim that did not win: the limit (429), a late arrival (503, the card still
    ready), a record changed since it was checked, or another request's state."""
    status = card_transitions.ClaimStatus
    if claim.status is status.LIMITED:
        unit.refuse(retry_after_seconds(claim.retry_after_ms))  # nothing was written
    if claim.status is status.LATE:
        logger.warning("a claim reached the store after its deadline: nothing claimed")
        raise store_unavailable()
    if claim.card is None:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if claim.status is status.READY:
        # Still ready, but its record no longer names what this request checked: altered
        # after issue. The checks on the stored record answer (and destroy it).
        check_claimed_record(claim.card, token=token, actor=actor)
        raise LightNoteError("CONFIRMATION_INVALID", status=409)
    # Another request won the race between our read and our claim.
    return answer_for_state(claim.card, locale=locale) or running_answer()


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
        metrics.card_rejected(capability=card.capability)
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
    (``lightnote.controlstore.tallies``).
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
    "Answer",
    "confirm",
    "execute_claimed",
    "flush_repeat_tallies",
    "reject",
    "status",
]
