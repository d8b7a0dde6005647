"""Execute a claimed card once: tool policy again, the domain service and its receipt.

Contract: the caller holds the claim (state ``running`` with its attempt id). The tool policy
runs again with ``phase="execute", confirmed=True``; then the domain service, the receipt row,
the card's history row and the audit rows of the claim and the execution commit in one
``transaction.atomic(durable=True)`` block (services open no savepoint inside it), with no
Redis call inside.

Outcomes: a business error or a crash raised inside the block rolled back: ``failed``. An
``IntegrityError`` on the receipt means the slot is taken (an earlier execution after Redis
lost the claim, or a reconciler's void): that receipt is the outcome. An error raised by
COMMIT itself is ``unknown``: the receipt is looked up on a fresh connection and the action
is never re-run; what stays unknown is settled later by ``agent.cards.reconcile``.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, IntegrityError, transaction

from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards.answers import (
    failed_outcome,
    outcome_from_receipt,
    succeeded_outcome,
    unknown_outcome,
)
from agent.cards.audit import audit_card, audit_claim_and, card_entry
from agent.cards.receipts import drop_connection, find_receipt, receipt_row
from agent.models import ActionReceipt
from lightnote.audit import CHANNEL_AGENT, CHANNEL_MCP, audit_events, audit_writes_collected
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.ops import metrics, tracing
from lightnote.transactions import durable_atomic

logger = logging.getLogger(__name__)


# The audit channel of a card's write, by the channel the card was issued on.
AUDIT_CHANNELS = {cards.CHANNEL_CHAT: CHANNEL_AGENT, cards.CHANNEL_MCP: CHANNEL_MCP}


def _tool_context(card: cards.Card, actor: ActorContext, locale: str) -> Any:
    from agent.tools import ToolContext

    return ToolContext.from_actor_context(
        actor,
        session_id=str(card.session_id),
        locale=locale,
        channel=AUDIT_CHANNELS[card.channel],
    )


def execute_claimed(
    card: cards.Card, *, actor: ActorContext, locale: str
) -> tuple[str, dict[str, Any]]:
    """Execute a card this request has claimed; return ``(outcome_kind, outcome)``.

    Needs: the caller holds the claim (state ``running`` with its attempt id). Runs the tool
    policy again with ``phase="execute", confirmed=True``, then the tool's domain service,
    the receipt row, the card's history row and the audit rows of the claim and the
    execution in one durable transaction. No Redis call happens inside it. Any other outcome
    is written to the history row afterwards, and every path records ``confirm.claimed``
    with what became of the claim.
    """
    try:
        kind, outcome = _execute(card, actor=actor, locale=locale)
        if kind != cards.OutcomeKind.SUCCEEDED:
            lifecycle.record_outcome(card.id, kind=kind, outcome=outcome)
    except DatabaseError:
        # The database went away after the claim (the failure's own audit or history row
        # could not be written): leave the outcome open, ok:null, like a lost COMMIT. The
        # receipt table settles it later (``resolve``); nothing runs twice.
        logger.exception("database lost while executing %s: outcome left open", card.id)
        drop_connection()
        return unknown_outcome(locale)
    return kind, outcome


def _commit_change(card: cards.Card, *, actor: ActorContext, policy: Any, context: Any) -> Any:
    """Run the service and write its receipt, the card's history row and the audit rows of
    the claim and the execution. Needs: the caller's durable transaction.

    The service's own write events join the same INSERT as the claim's and the execution's
    rows, so auditing the write costs the confirm no statement."""
    with audit_writes_collected() as written:
        result = policy.tool.execute(policy.args, context)
    metrics.execution_done(capability=card.capability)
    receipt = receipt_row(
        card,
        status=ActionReceipt.Status.SUCCEEDED,
        subject=actor.subject,
        actor=actor.actor,
        summary=result.summary,
        resource_type=result.resource_type,
        resource_id=str(result.resource_id),
        result=result.data or {},
    )
    with tracing.span("confirm.receipt", capability=card.capability, card_id=card.id):
        receipt.save(force_insert=True)  # the unique action_id fences a second execution
        lifecycle.record_succeeded(card.id, receipt=receipt)
        audit_events(
            [
                card_entry("confirm.claimed", card, actor),
                card_entry("action.executed", card, actor, details={"summary": result.summary}),
                *written,
            ]
        )
    transaction.on_commit(
        lambda: metrics.receipt_committed(capability=card.capability, status="succeeded")
    )
    return receipt


def _execute(card: cards.Card, *, actor: ActorContext, locale: str) -> tuple[str, dict[str, Any]]:
    from agent.policy import enforce_tool_policy

    context = _tool_context(card, actor, locale)
    try:
        policy = enforce_tool_policy(
            tool_name=card.tool, args=card.args, context=context, phase="execute", confirmed=True
        )
    except LightNoteError as error:
        audit_claim_and("action.failed", card, actor, code=error.code)
        return failed_outcome(error, locale)
    except Exception:  # a bug in a tool's schema: nothing ran; settle, never leave it running
        logger.exception("tool policy crashed for %s", card.id)
        audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
        return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)

    committing = False
    try:
        with durable_atomic():
            receipt = _commit_change(card, actor=actor, policy=policy, context=context)
            committing = True  # the block's exit sends COMMIT: an error from here on is unknown
    except LightNoteError as error:  # a business failure: rolled back, nothing changed
        return _business_failure(card, error, actor=actor, locale=locale)
    except IntegrityError:
        if committing:
            logger.exception("COMMIT of %s raised: outcome unknown", card.id)
            return _after_unknown_commit(card, actor=actor, locale=locale)
        # The receipt slot is taken: an earlier execution (Redis lost the claim) or a void.
        existing = find_receipt(card.id)
        if existing is None:
            logger.exception("integrity error executing %s", card.id)
            audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
            return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
        audit_claim_and("confirm.duplicate_execution_fenced", card, actor)
        return outcome_from_receipt(existing, locale)
    except Exception:
        if committing:
            logger.exception("COMMIT of %s raised: outcome unknown", card.id)
            return _after_unknown_commit(card, actor=actor, locale=locale)
        # A bug in a tool or service, or the database failing mid-way: raised inside the
        # block, it rolled the change back, so the outcome is known: failed. (Only COMMIT
        # itself can leave it unknown.) Settling it keeps the card from hanging in
        # ``running`` behind a 500 until its lease passes.
        logger.exception("executing %s failed (rolled back)", card.id)
        audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
        return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
    return succeeded_outcome(receipt)


def _business_failure(
    card: cards.Card, error: LightNoteError, *, actor: ActorContext, locale: str
) -> tuple[str, dict[str, Any]]:
    """The outcome of a service's refusal (rolled back): failed, unless a receipt holds the
    slot already.

    Race: Redis lost the claim (failover) after an earlier execution committed; its version
    bump or delete makes this run fail before the receipt's unique key could fence it. The
    receipt, not this conflict, is the action's outcome.
    """
    try:
        existing = find_receipt(card.id)
    except DatabaseError:
        logger.exception("receipt lookup for %s failed after %s", card.id, error.code)
        drop_connection()
        return unknown_outcome(locale)  # re-checked against the receipt table later
    if existing is not None:
        audit_claim_and("confirm.duplicate_execution_fenced", card, actor, code=error.code)
        return outcome_from_receipt(existing, locale)
    audit_claim_and("action.failed", card, actor, code=error.code)
    return failed_outcome(error, locale)


def _after_unknown_commit(
    card: cards.Card, *, actor: ActorContext, locale: str
) -> tuple[str, dict[str, Any]]:
    """Look the receipt up on a fresh connection; never re-run the action.

    A receipt means the COMMIT happened, and with it the claim's audit rows; without one,
    the claim is recorded here with the unknown outcome.
    """
    try:
        drop_connection()
        existing = find_receipt(card.id)
    except DatabaseError:
        logger.exception("receipt lookup for %s failed", card.id)
        existing = None
    if existing is not None:
        metrics.receipt_committed(capability=card.capability, status=existing.status)
        audit_card("action.executed", card, actor, code="COMMIT_CONFIRMED_BY_RECEIPT")
        return outcome_from_receipt(existing, locale)
    audit_claim_and("action.outcome_unknown", card, actor, code="ACTION_OUTCOME_UNKNOWN")
    return unknown_outcome(locale)
