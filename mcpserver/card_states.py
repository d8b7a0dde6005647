"""The state of an MCP card, as its owner and the MCP client may be told it.

Read in a fixed order of trust: the receipt table, then the card's lifecycle row, then the
confirmation store. Nothing here writes.
"""

from __future__ import annotations

import logging
from typing import Any

from django.utils import timezone

from agent.cards import history as lifecycle
from agent.cards import records as cards
from agent.cards.history import receipt_body
from agent.models import ActionCard, ActionReceipt
from lightnote.texts.i18n import translate
from mcpserver import sealing
from mcpserver.callers import CHANNEL
from mcpserver.models import McpCard

logger = logging.getLogger(__name__)


def stored_card(row: McpCard) -> cards.Card | None:
    """Return the store's card for ``row`` (None when it expired or its seal is broken)."""
    token = sealing.unseal(row.sealed_token, card_id=str(row.card_id))
    if token is None:
        return None
    return cards.card_get(token)


def _unverifiable(row: McpCard, why: str, locale: str) -> dict[str, Any]:
    """A card this process cannot check: a configuration fault, told to the operator."""
    logger.error("mcp card %s cannot be verified: %s", row.card_id, why)
    return {"state": "unverifiable", "message": translate("MCP_STATUS_UNVERIFIABLE", locale)}


def card_state(row: McpCard, *, locale: str) -> dict[str, Any]:
    """Return a card's state: the receipt table first, then its lifecycle row, then the store.

    Never writes. ``confirmed`` only with a succeeded receipt for this very card: neither
    the lifecycle row nor the store's cached outcome alone makes a claim of success.
    """
    card_id = str(row.card_id)
    receipt = ActionReceipt.objects.select_related("subject").filter(action_id=card_id).first()
    if receipt is not None and receipt.status == ActionReceipt.Status.SUCCEEDED:
        body = receipt_body(receipt)
        return {
            "state": "confirmed",
            "receipt": body,
            "message": translate("MCP_STATUS_CONFIRMED", locale, summary=body["summary"]),
        }
    if receipt is not None:  # voided: the lease passed and nothing ran
        return _failed_state({"code": "ACTION_NOT_EXECUTED"}, locale)
    history = ActionCard.objects.filter(id=card_id).first()
    if history is not None and history.state != ActionCard.State.READY:
        return _state_of_history(history, locale)
    token = sealing.unseal(row.sealed_token, card_id=str(row.card_id))
    if token is None:
        return _unverifiable(
            row, "its seal does not open (was LIGHTNOTE_SECRET_KEY changed?)", locale
        )
    card = cards.card_get(token)
    if card is None and row.expires_at > timezone.now():
        # Still ready in its lifecycle row and not yet expired, yet the store has no such
        # card: this process does not share the store the card was issued in (an in-process
        # store in two processes), or the store lost its data.
        return _unverifiable(
            row,
            "the control store does not hold it before its expiry (is the store shared?)",
            locale,
        )
    if card is None:  # gone from the store (its TTL) and no receipt
        return {"state": "expired", "message": translate("MCP_STATUS_EXPIRED", locale)}
    if not cards.card_binding_valid(card) or card.id != card_id or card.channel != CHANNEL:
        return {"state": "invalid", "message": translate("MCP_STATUS_INVALID", locale)}
    if card.state == cards.CardState.READY:
        if card.expires_at is not None and card.expires_at <= timezone.now():
            return {"state": "expired", "message": translate("MCP_STATUS_EXPIRED", locale)}
        return {"state": "pending", "message": translate("MCP_STATUS_PENDING", locale)}
    if card.state == cards.CardState.REJECTED:
        return {"state": "rejected", "message": translate("MCP_STATUS_REJECTED", locale)}
    if card.state == cards.CardState.SETTLED and card.outcome_kind == cards.OutcomeKind.FAILED:
        return _failed_state((card.outcome or {}).get("error") or {}, locale)
    if card.state == cards.CardState.RUNNING:
        return {"state": "running", "message": translate("MCP_STATUS_RUNNING", locale)}
    # Settled "succeeded" without a receipt, or "unknown": not verified, so not claimed.
    return {"state": "unknown", "message": translate("MCP_STATUS_UNKNOWN", locale)}


def _failed_state(error: dict[str, Any], locale: str) -> dict[str, Any]:
    code = str(error.get("code") or "ACTION_EXECUTION_FAILED")
    message = str(error.get("message") or translate(code, locale))
    return {
        "state": "failed",
        "error": {**error, "code": code, "message": message},
        "message": translate("MCP_STATUS_FAILED", locale, reason=message),
    }


def _state_of_history(history: ActionCard, locale: str) -> dict[str, Any]:
    """Answer from a lifecycle row that left ``ready`` (a success has its receipt: above)."""
    if history.state == ActionCard.State.REJECTED:
        return {"state": "rejected", "message": translate("MCP_STATUS_REJECTED", locale)}
    if history.state == ActionCard.State.VOIDED:
        return {
            "state": "voided",
            "reason": history.void_reason,
            "message": translate("MCP_STATUS_VOIDED", locale),
        }
    if history.outcome_kind == ActionCard.OutcomeKind.FAILED:
        outcome = lifecycle.history_outcome(history, locale=locale, zone=history.owner.zone)
        return _failed_state((outcome or {}).get("error") or {}, locale)
    return {"state": "unknown", "message": translate("MCP_STATUS_UNKNOWN", locale)}
