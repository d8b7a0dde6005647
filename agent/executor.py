"""Execute a claimed card once: tool policy again, the domain service and its receipt.

Contract: the caller holds the claim (state ``running`` with its attempt id). The tool policy
runs again with ``phase="execute", confirmed=True``; then the domain service, the receipt row,
the card's history row and the audit rows of the claim and the execution commit in one
durable transaction (services open no savepoint inside it), with no Redis call inside.

Outcomes: a business error or a crash raised inside the block rolled back: ``failed``. An
``IntegrityError`` on the receipt means the slot is taken (an earlier execution after Redis
lost the claim, or a reconciler's void): that receipt is the outcome. An error raised by
COMMIT itself (on MariaDB the COMMIT travels with the bookkeeping batch: an error there that
may have come after it, ``CommitUnknown``) is ``unknown``: the receipt is looked up on a
fresh connection and the action is never re-run; what stays unknown is settled later by
``agent.reconcile``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, IntegrityError

from agent import cards, lifecycle
from agent.card_audit import audit_card, audit_claim_and, card_entry
from agent.confirm_answers import (
    failed_outcome,
    outcome_from_receipt,
    succeeded_outcome,
    unknown_outcome,
)
from agent.models import ActionReceipt
from agent.receipts import drop_connection, find_receipt, receipt_row, remember_succeeded
from lightnote.audit import audit_statement
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.overlap import Prepared, during_next_query
from lightnote.transactions import durable_atomic
from lightnote.write_statements import (
    CommitUnknown,
    Statement,
    insert_statement,
    run_statements,
)

logger = logging.getLogger(__name__)


def _tool_context(card: cards.Card, actor: ActorContext, locale: str) -> Any:
    from agent.tools import ToolContext

    return ToolContext.from_actor_context(actor, session_id=str(card.session_id), locale=locale)


def execute_claimed(
    card: cards.Card,
    *,
    actor: ActorContext,
    locale: str,
    while_committing: Callable[[str, dict[str, Any]], None] | None = None,
) -> tuple[str, dict[str, Any]]:
    """Execute a card this request has claimed; return ``(outcome_kind, outcome)``.

    Needs: the caller holds the claim (state ``running`` with its attempt id). Runs the tool
    policy again with ``phase="execute", confirmed=True``, then the tool's domain service,
    the receipt row, the card's history row and the audit rows of the claim and the
    execution in one durable transaction (services open no savepoint inside it). No Redis
    call happens inside it. Any other outcome is written to the history row afterwards, and
    every path records ``confirm.claimed`` with what became of the claim.

    ``while_committing(kind, outcome)`` gets the success's outcome (the very object then
    returned) as soon as it is built: on MariaDB while the COMMIT is with the database,
    elsewhere once it succeeded; never for another outcome. It prepares what follows the
    COMMIT (the confirm builds its settle: ``card_transitions.CardSettle``), so it must
    not touch the database or the store; what it raises is logged and ignored.
    """
    try:
        kind, outcome = _execute(
            card, actor=actor, locale=locale, while_committing=while_committing
        )
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


def _bookkeeping(card: cards.Card, actor: ActorContext) -> tuple[ActionReceipt, Statement, Any]:
    """A success's receipt row (its result not filled in yet), the UPDATE settling the card's
    history row with it, and the claim's audit row: none needs the service's result."""
    receipt = receipt_row(
        card,
        status=ActionReceipt.Status.SUCCEEDED,
        subject=actor.subject,
        actor=actor.actor,
        summary="",
    )
    return (
        receipt,
        lifecycle.succeeded_statement(card.id, receipt=receipt),
        card_entry("confirm.claimed", card, actor),
    )


def _succeeded(
    receipt: ActionReceipt, then: Callable[[str, dict[str, Any]], None] | None
) -> tuple[str, dict[str, Any]]:
    kind, outcome = succeeded_outcome(receipt)
    if then is not None:
        try:
            then(kind, outcome)
        except Exception:  # only a preparation: what follows the COMMIT does it again
            logger.exception("preparing what follows the COMMIT failed")
    return kind, outcome


def _execute(
    card: cards.Card,
    *,
    actor: ActorContext,
    locale: str,
    while_committing: Callable[[str, dict[str, Any]], None] | None,
) -> tuple[str, dict[str, Any]]:
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

    commit_sent = False
    try:
        with durable_atomic():
            # While the service's first statement is with the database, what does not
            # depend on its result is built: the receipt row (its result filled in below),
            # the card's history row and the claim's audit row.
            ahead = Prepared(lambda: _bookkeeping(card, actor))
            with during_next_query(ahead):
                result = policy.tool.execute(policy.args, context)
            receipt, history_row, claimed = ahead.value()
            receipt.summary = result.summary
            receipt.resource_type = result.resource_type
            receipt.resource_id = str(result.resource_id)
            receipt.result = result.data or {}
            # The receipt, the card's history row and the audit rows of the claim and the
            # execution: three statements in one round trip, which on MariaDB also carries
            # the COMMIT (lightnote.write_statements). Nothing may run in the block after it.
            # While the database works, the success's outcome is built (and, through
            # ``while_committing``, the settle that follows); used only if it committed.
            success = Prepared(lambda: _succeeded(receipt, while_committing))
            run_statements(
                [
                    insert_statement([receipt]),
                    history_row,
                    audit_statement(
                        [
                            claimed,
                            card_entry(
                                "action.executed", card, actor, details={"summary": result.summary}
                            ),
                        ]
                    ),
                ],
                end_transaction=True,
                while_waiting=success,
            )
            # Committed by the batch, or (elsewhere) in the block's exit: an error from here
            # on may come after the database made the change durable.
            commit_sent = True
    except LightNoteError as error:  # a business failure: rolled back, nothing changed
        # Race: Redis lost the claim (failover) after an earlier execution committed; its
        # version bump or delete makes this run fail before the receipt's unique key could
        # fence it. The receipt, not this conflict, is the action's outcome.
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
    except IntegrityError:
        # The receipt slot is taken: an earlier execution (Redis lost the claim) or a void.
        existing = find_receipt(card.id)
        if existing is None:
            logger.exception("integrity error executing %s", card.id)
            audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
            return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
        audit_claim_and("confirm.duplicate_execution_fenced", card, actor)
        return outcome_from_receipt(existing, locale)
    except CommitUnknown:
        logger.exception("the batch with the COMMIT of %s failed: outcome unknown", card.id)
        return _after_unknown_commit(card, actor=actor, locale=locale)
    except DatabaseError:
        if not commit_sent:
            logger.exception("database error executing %s (rolled back)", card.id)
            audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
            return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
        logger.exception("COMMIT of %s raised: outcome unknown, looking the receipt up", card.id)
        return _after_unknown_commit(card, actor=actor, locale=locale)
    except Exception:
        # A bug in a tool or service. Raised inside the block it rolled the change back, so
        # the outcome is known: failed. (Only COMMIT itself can leave it unknown.) Settling
        # it keeps the card from hanging in ``running`` behind a 500 until its lease passes.
        if commit_sent:
            logger.exception("COMMIT of %s raised: outcome unknown", card.id)
            return _after_unknown_commit(card, actor=actor, locale=locale)
        logger.exception("executing %s crashed (rolled back)", card.id)
        audit_claim_and("action.failed", card, actor, code="ACTION_EXECUTION_FAILED")
        return failed_outcome(LightNoteError("ACTION_EXECUTION_FAILED"), locale)
    remember_succeeded(card.id)  # committed: its repeats need not ask the database
    return success.value()


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
        audit_card("action.executed", card, actor, code="COMMIT_CONFIRMED_BY_RECEIPT")
        return outcome_from_receipt(existing, locale)
    audit_claim_and("action.outcome_unknown", card, actor, code="ACTION_OUTCOME_UNKNOWN")
    return unknown_outcome(locale)
