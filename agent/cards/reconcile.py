"""Reconciliation: settle unknown outcomes and expired leases from the receipt table.

Never executes. A running card whose lease passed, or a settled card whose outcome is
``unknown``, is answered from its receipt: a succeeded receipt is its success; no receipt
after the lease takes the slot with a ``voided`` row first (so a late executor's COMMIT fails
on the unique ``action_id``) and answers "not executed". A stored success that the receipt
table does not back is destroyed (409 ``CONFIRMATION_INVALID``): the database has the last
word over Redis.

Races: a reconciler and the card's own executor (whose lease passed mid-run) agree through
the receipt slot; two reconcilers race on ``card_resolve`` and the loser answers the
winner's stored outcome. A database that cannot answer leaves the outcome open (None), to
be looked at again; never a guess.
"""

from __future__ import annotations

import logging
import uuid

from django.db import DatabaseError

from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.answers import Answer, outcome_from_receipt, running_answer, settled_answer
from agent.cards.audit import audit_card
from agent.cards.checks import record_invalid
from agent.cards.receipts import drop_connection, find_receipt
from agent.cards.records import CardState, OutcomeKind
from agent.models import ActionReceipt
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.ops import metrics

logger = logging.getLogger(__name__)


def _void(card: cards.Card) -> ActionReceipt:
    """Take the action's receipt slot with a voided row, or return the receipt that holds it.

    After this, no executor can commit the action any more: its receipt insert would fail on
    the unique ``action_id``.
    """
    if card.subject_id is None or card.actor_id is None:  # an intact card always has both
        raise ValueError(f"card {card.id} names no subject or actor")
    return lifecycle.receipt_slot_void(
        action_id=card.id,
        tool=card.tool,
        capability=card.capability,
        args_hmac=card.args_hmac,
        owner_id=card.subject_id,
        actor_id=card.actor_id,
        session_id=card.session_id,
    )


def resolve(card: cards.Card, *, locale: str) -> Answer | None:
    """Settle an unknown outcome or an expired running card from the receipt table.

    Never executes. Returns the settled answer, or None while the outcome is still open
    (unknown and within the lease, or running within the lease).
    """
    try:
        receipt = find_receipt(card.id)
        if receipt is None:
            if not card.lease_passed():
                return None
            receipt = _void(card)
    except DatabaseError:
        # The database could not answer (e.g. the void's own COMMIT reply was lost): the
        # outcome stays open and the next call looks again. Never a guess, never a 500.
        logger.exception("could not resolve %s from the receipt table", card.id)
        drop_connection()
        return None
    kind, outcome = outcome_from_receipt(receipt, locale)
    lifecycle.record_outcome(card.id, kind=kind, outcome=outcome, receipt=receipt)
    if not card_transitions.card_resolve(digest=card.digest, outcome_kind=kind, outcome=outcome):
        # Someone else resolved it first (or it settled meanwhile): their answer stands.
        current = cards.card_get_by_digest(card.digest)
        if (
            current is not None
            and current.state == CardState.SETTLED
            and current.outcome_kind != OutcomeKind.UNKNOWN
        ):
            return settled_answer(current.outcome or {})
    metrics.reconciler_settled(outcome=lifecycle.settlement_outcome(kind))
    audit_card(
        "confirm.reconciled",
        card,
        None,
        code="" if kind == OutcomeKind.SUCCEEDED else "ACTION_NOT_EXECUTED",
        details={"outcome": kind, "subject_id": card.subject_id},
    )
    return settled_answer(outcome)


def answer_for_state(card: cards.Card, *, locale: str) -> Answer | None:
    """Answer a card that is not ``ready``: rejected 409, running 202, settled its outcome."""
    if card.state == CardState.REJECTED:
        raise LightNoteError("CONFIRMATION_REJECTED", status=409)
    if card.state == CardState.RUNNING:
        resolved = resolve(card, locale=locale) if card.lease_passed() else None
        return resolved or running_answer()
    if card.state == CardState.SETTLED:
        if card.outcome_kind == OutcomeKind.UNKNOWN:
            resolved = resolve(card, locale=locale)
            if resolved is not None:
                return resolved
        if card.outcome_kind == OutcomeKind.SUCCEEDED:
            _check_success_has_receipt(card)
        return settled_answer(card.outcome or {})
    return None


def _has_succeeded_receipt(action_id: str) -> bool:
    """Whether a succeeded receipt holds the slot of ``action_id`` (one query)."""
    try:
        key = uuid.UUID(action_id)
    except ValueError:
        return False
    return ActionReceipt.objects.filter(
        action_id=key, status=ActionReceipt.Status.SUCCEEDED
    ).exists()


def _check_success_has_receipt(card: cards.Card) -> None:
    """Refuse to repeat a stored success that the receipt table does not back.

    The outcome in Redis is a cache of the receipt; it is not covered by the card's HMAC. A
    party able to write Redis could plant ``ok: true`` on a card that never ran: the database
    has the last word, so such a card is destroyed and answers 409 ``CONFIRMATION_INVALID``.
    """
    receipt = (card.outcome or {}).get("receipt") or {}
    backed = receipt.get("action_id") == card.id and _has_succeeded_receipt(card.id)
    if not backed:
        card_transitions.card_destroy(digest=card.digest)
        record_invalid(card)
        metrics.reconciler_settled(outcome="invalid")
        audit_card(
            "confirm.invalid",
            card,
            None,
            code="CONFIRMATION_INVALID",
            details={"reason": "stored success without a receipt"},
        )
        raise LightNoteError("CONFIRMATION_INVALID", status=409)


def reconcile_expired(*, locale: str = "zh-CN") -> int:
    """Resolve every running card whose lease passed, from the receipt table. Never executes.

    A card whose record fails its binding check is destroyed, as a confirm would, and never
    resolved: its ids could name another action's receipt slot, or another user.
    """
    resolved = 0
    for card in card_transitions.cards_running_with_expired_lease():
        if not cards.card_binding_valid(card):
            metrics.reconciler_settled(outcome="invalid")
            card_transitions.card_destroy(digest=card.digest)
            audit_event(
                "confirm.invalid",
                code="CONFIRMATION_INVALID",
                details={"by": "reconcile", "digest_prefix": card.digest[:12]},
            )
            continue
        if resolve(card, locale=locale) is not None:
            resolved += 1
    return resolved
