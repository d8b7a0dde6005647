"""The database lifecycle of confirmation cards: what history shows, independent of Redis.

Redis holds a card's live control record (claim, lease, the replayable outcome) for a day at
most; the ``ActionCard`` row keeps what happened to it for good. Each write here rides on a
transaction that already exists where there is one:

- issue: the rows are bulk-inserted in the message turn's transaction;
- a success: one UPDATE inside the durable execution transaction, beside the receipt, so
  the row and the receipt commit (or vanish) together;
- a failure, an unknown outcome, a rejection: one UPDATE after the fact (there is no
  receipt to share a transaction with); reconciliation settles unknown outcomes from the
  receipt table, and a void writes its fence receipt and the row together.

Rules for the UPDATEs: a final outcome (succeeded or failed) is never overwritten, so a late
or repeated writer cannot change history; ``unknown`` only replaces a row that has no
outcome yet. Expiry is never written: a ``ready`` row reads as expired once ``expires_at``
has passed.
"""

from __future__ import annotations

import logging
import string
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.models import ActionCard, ActionReceipt, AgentSession, Message
from lightnote.ops import metrics
from lightnote.texts.i18n import DEFAULT_LOCALE, message_template, translate

logger = logging.getLogger(__name__)

FINAL_KINDS = (ActionCard.OutcomeKind.SUCCEEDED, ActionCard.OutcomeKind.FAILED)

# The states history reports: the row's state, with ``ready`` read as ``expired`` once its
# expiry has passed.
HISTORY_STATES = ("ready", "expired", "rejected", "settled", "voided")


# --- Writes --------------------------------------------------------------------------------


def card_row(
    issued: cards.IssuedCard,
    *,
    session: AgentSession,
    actor_id: int,
    owner_id: int,
    continuation_digest: str = "",
    parent_id: str | None = None,
    compensates_id: str | None = None,
) -> ActionCard:
    """Return the unsaved row of a card just issued (saved with its message's turn)."""
    card = issued.card
    if card.expires_at is None or card.created_at is None:  # pragma: no cover - always set
        raise ValueError(f"card {card.id} has no issue or expiry time")
    return ActionCard(
        id=uuid.UUID(card.id),
        session=session,
        owner_id=owner_id,
        actor_id=actor_id,
        tool=card.tool,
        capability=card.capability,
        risk=card.risk,
        args=card.args,
        preview=card.preview,
        token_digest=card.digest,
        continuation_digest=continuation_digest,
        created_at=card.created_at,
        expires_at=card.expires_at,
        parent_id=parent_id,
        compensates_id=compensates_id,
    )


def record_issued(rows: list[ActionCard], *, message: Message | None) -> None:
    """Insert the turn's card rows (one INSERT). Needs: the caller's turn transaction.

    ``message`` is None for cards proposed without a chat turn (the MCP server's).
    """
    for row in rows:
        row.message = message
    if rows:
        ActionCard.objects.bulk_create(rows)


def _not_final() -> Q:
    return ~Q(state=ActionCard.State.SETTLED, outcome_kind__in=FINAL_KINDS)


def record_succeeded(card_id: str, *, receipt: ActionReceipt) -> None:
    """Settle the row as succeeded, linked to ``receipt``: one UPDATE, unless the row already
    holds a final outcome.

    Needs: the durable execution transaction that inserted ``receipt``, so both commit
    together (a lost COMMIT loses both; the receipt lookup then finds neither).
    """
    ActionCard.objects.filter(_not_final(), id=card_id).update(
        state=ActionCard.State.SETTLED,
        outcome_kind=ActionCard.OutcomeKind.SUCCEEDED,
        receipt=receipt,
        error=None,
        settled_at=receipt.settled_at,
    )


def record_outcome(
    card_id: str,
    *,
    kind: str,
    outcome: dict[str, Any],
    receipt: ActionReceipt | None = None,
    best_effort: bool = True,
) -> None:
    """Settle the row with an outcome reached outside the execution transaction.

    ``kind`` ``unknown`` only fills a row with no outcome yet; ``succeeded`` / ``failed``
    replace anything but another final outcome. Best effort: the database may be the very
    thing that failed (an unknown outcome); the row is then settled by reconciliation.
    Inside a transaction pass ``best_effort=False``: an error must roll the block back.
    """
    guard = (
        Q(state__in=[ActionCard.State.READY, ActionCard.State.VOIDED])
        if kind == ActionCard.OutcomeKind.UNKNOWN
        else _not_final()
    )
    if receipt is not None and receipt.status == ActionReceipt.Status.SUCCEEDED:
        settled_at = receipt.settled_at
    else:
        settled_at = timezone.now()
    settle = ActionCard.objects.filter(guard, id=card_id)
    changes = {
        "state": ActionCard.State.SETTLED,
        "outcome_kind": kind,
        "receipt": receipt,
        "error": outcome.get("error"),
        "settled_at": settled_at,
    }
    if not best_effort:
        settle.update(**changes)
        return
    try:
        settle.update(**changes)
    except DatabaseError:
        logger.exception("could not record the %s outcome of card %s", kind, card_id)
        if not connection.in_atomic_block:
            connection.close()


def record_rejected(card_id: str) -> None:
    """Mark a ready row rejected (after the store's atomic reject): one UPDATE."""
    ActionCard.objects.filter(id=card_id, state=ActionCard.State.READY).update(
        state=ActionCard.State.REJECTED, rejected_at=timezone.now()
    )


def record_voided(card_ids: list[str], *, reason: str) -> int:
    """Mark ready rows voided (withdrawn before any execution); return how many."""
    if not card_ids:
        return 0
    voided = ActionCard.objects.filter(id__in=card_ids, state=ActionCard.State.READY).update(
        state=ActionCard.State.VOIDED, void_reason=reason, voided_at=timezone.now()
    )
    metrics.cards_voided(reason=reason, count=voided)
    return voided


def void_session_cards(session: AgentSession) -> list[str]:
    """Void the session's ready rows; return the token digests whose live records to void.

    Needs: the caller's transaction that soft-deletes the session. A card claimed in the
    store meanwhile keeps running: its execution settles the row over the void.
    """
    ready = list(
        ActionCard.objects.filter(session=session, state=ActionCard.State.READY).values_list(
            "id", "token_digest"
        )
    )
    record_voided(
        [str(card_id) for card_id, _ in ready], reason=ActionCard.VoidReason.SESSION_DELETED
    )
    return [digest for _, digest in ready]


def void_live_records(digests: list[str]) -> None:
    """Void the live store records of withdrawn cards, so their tokens answer 410.

    Best effort after the commit: a store failure leaves the records to expire, and they
    cannot be confirmed meanwhile (their session is gone, so every check answers 404).
    """
    for digest in digests:
        try:
            card_transitions.card_void(digest)
        except Exception:  # the store is down: the session check still refuses them
            logger.warning("could not void the live card %s", digest[:12])


# --- Reconciliation from the receipt table --------------------------------------------------


# The reconciler's settlement outcomes (``lightnote_reconciler_settlements_total``): a
# receipt proves the action ran; a voided one, or a failure, that it did not.
SETTLEMENT_OUTCOMES: dict[str, str] = {ActionCard.OutcomeKind.SUCCEEDED: "succeeded"}


def settlement_outcome(kind: str) -> str:
    """The metrics word for a reconciled outcome kind (``succeeded`` | ``not_executed``)."""
    return SETTLEMENT_OUTCOMES.get(kind, "not_executed")


def reconcile_unknown_rows(*, limit: int = 500) -> int:
    """Settle rows whose outcome is unknown from the receipt table, without Redis.

    Once the execution lease has passed since the unknown settle: a receipt -> its outcome;
    none -> a voided receipt takes the action's slot (no late executor can commit any
    more) and the row says ``ACTION_NOT_EXECUTED``. Never executes. Returns how many rows
    were settled.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE)
    rows = list(
        ActionCard.objects.filter(
            state=ActionCard.State.SETTLED,
            outcome_kind=ActionCard.OutcomeKind.UNKNOWN,
            settled_at__lte=cutoff,
        ).order_by("settled_at")[:limit]
    )
    settled = 0
    for row in rows:
        receipt = ActionReceipt.objects.filter(action_id=row.id).first()
        if receipt is None:
            receipt = void_action(row)
        kind, outcome = outcome_of_receipt(receipt)
        record_outcome(str(row.id), kind=kind, outcome=outcome, receipt=receipt)
        metrics.reconciler_settled(outcome=settlement_outcome(kind))
        settled += 1
    return settled


def void_action(row: ActionCard) -> ActionReceipt:
    """Take the action's receipt slot with a voided receipt (or return the one holding it)."""
    return receipt_slot_void(
        action_id=row.id,
        tool=row.tool,
        capability=row.capability,
        args_hmac="",
        owner_id=row.owner_id,
        actor_id=row.actor_id,
        session_id=row.session_id,
    )


def receipt_slot_void(
    *,
    action_id: uuid.UUID | str,
    tool: str,
    capability: str,
    args_hmac: str,
    owner_id: Any,
    actor_id: Any,
    session_id: uuid.UUID | str,
) -> ActionReceipt:
    """Take the action's receipt slot with a voided receipt, or return the one holding it.

    After this no executor can commit the action any more: its receipt insert fails on the
    unique ``action_id``. The card's history row records the outcome in the same transaction.
    Race: a concurrent executor or voider that inserted first holds the slot; its receipt is
    returned. The owner is the subject (the user whose data the action names).
    """
    try:
        with transaction.atomic():
            voided = ActionReceipt.objects.create(
                action_id=action_id,
                tool=tool,
                capability=capability,
                args_hmac=args_hmac,
                owner_id=owner_id,
                subject_id=owner_id,
                actor_id=actor_id,
                session_id=session_id,
                resource_type="",
                resource_id="",
                status=ActionReceipt.Status.VOIDED,
                summary="not executed: lease passed without a receipt",
            )
            kind, outcome = outcome_of_receipt(voided)
            record_outcome(
                str(action_id), kind=kind, outcome=outcome, receipt=voided, best_effort=False
            )
            transaction.on_commit(
                lambda: metrics.receipt_committed(capability=capability, status="voided")
            )
            return voided
    except IntegrityError:
        receipt = ActionReceipt.objects.filter(action_id=action_id).first()
        if receipt is None:  # pragma: no cover - the unique slot was taken a moment ago
            raise
        return receipt


def outcome_of_receipt(receipt: ActionReceipt) -> tuple[str, dict[str, Any]]:
    """Return the row's outcome kind and error for a receipt (no locale: codes only)."""
    if receipt.status == ActionReceipt.Status.SUCCEEDED:
        return ActionCard.OutcomeKind.SUCCEEDED, {}
    return ActionCard.OutcomeKind.FAILED, {
        "error": {
            "code": "ACTION_NOT_EXECUTED",
            "message": translate("ACTION_NOT_EXECUTED", DEFAULT_LOCALE),
        }
    }


# --- Reads: the history body ------------------------------------------------------------


def receipt_body(receipt: ActionReceipt, *, zone: ZoneInfo | None = None) -> dict[str, Any]:
    """Return the API's Receipt object, its time in ``zone`` (default: the subject's)."""
    zone = zone or receipt.subject.zone
    return {
        "action_id": str(receipt.action_id),
        "tool": receipt.tool,
        "capability": receipt.capability,
        "status": receipt.status,
        "summary": receipt.summary,
        "resource": {"type": receipt.resource_type, "id": receipt.resource_id},
        "settled_at": receipt.settled_at.astimezone(zone).isoformat(),
    }


def history_state(row: ActionCard, *, now: datetime) -> str:
    """Return the state history reports for ``row`` (``ready`` past its expiry: expired)."""
    if row.state == ActionCard.State.READY and row.expires_at <= now:
        return "expired"
    return str(row.state)


def _error_in(error: dict[str, Any] | None, locale: str) -> dict[str, Any]:
    """Return the stored error with its message in ``locale`` when the code can be rendered."""
    error = dict(error or {})
    code = str(error.get("code", ""))
    template = message_template(code, locale)
    if template is not None and not _has_fields(template):
        error["message"] = template
    elif not error.get("message"):
        error["message"] = translate(code, locale)
    return error


def _has_fields(template: str) -> bool:
    return any(name is not None for _, name, _, _ in string.Formatter().parse(template))


def history_outcome(row: ActionCard, *, locale: str, zone: ZoneInfo) -> dict[str, Any] | None:
    """Return the API's Outcome for a settled row, else None."""
    if row.state != ActionCard.State.SETTLED:
        return None
    if row.outcome_kind == ActionCard.OutcomeKind.SUCCEEDED and row.receipt is not None:
        return {"ok": True, "receipt": receipt_body(row.receipt, zone=zone)}
    if row.outcome_kind == ActionCard.OutcomeKind.UNKNOWN:
        return {
            "ok": None,
            "error": _error_in(row.error or {"code": "ACTION_OUTCOME_UNKNOWN"}, locale),
        }
    return {"ok": False, "error": _error_in(row.error or {"code": "ACTION_NOT_EXECUTED"}, locale)}


def history_card(row: ActionCard, *, locale: str, zone: ZoneInfo, now: datetime) -> dict[str, Any]:
    """Return the API's HistoryCard: the card as issued and its current state, no token."""
    body: dict[str, Any] = {
        "card_id": str(row.id),
        "capability": row.capability,
        "tool": row.tool,
        "risk": row.risk,
        "state": history_state(row, now=now),
        "created_at": row.created_at.astimezone(zone).isoformat(),
        "expires_at": row.expires_at.astimezone(zone).isoformat(),
        "args": row.args,
        "preview": row.preview,
        "parent_id": str(row.parent_id) if row.parent_id else None,
        "compensates_id": str(row.compensates_id) if row.compensates_id else None,
    }
    if row.state == ActionCard.State.SETTLED:
        body["outcome"] = history_outcome(row, locale=locale, zone=zone)
        body["settled_at"] = row.settled_at.astimezone(zone).isoformat() if row.settled_at else None
    elif row.state == ActionCard.State.REJECTED:
        body["rejected_at"] = (
            row.rejected_at.astimezone(zone).isoformat() if row.rejected_at else None
        )
    elif row.state == ActionCard.State.VOIDED:
        body["void_reason"] = row.void_reason
    return body
