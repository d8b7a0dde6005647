"""The protocol's audit rows about a card: its id, tool and capability, never its token.

``audit_claim_and`` writes the claim and what became of it in one INSERT; on success both
rows are written inside the execution's transaction instead (``agent.cards.execute``), so a
rolled-back execution leaves no "executed" row behind.
"""

from __future__ import annotations

from typing import Any

from agent.cards import records as cards
from lightnote.audit import audit_entry, audit_events
from lightnote.impersonation.context import ActorContext


def card_entry(event_type: str, card: cards.Card, actor: ActorContext | None, **fields: Any) -> Any:
    """Build a protocol event about ``card``: its id, tool and capability, never its token."""
    return audit_entry(
        event_type,
        actor=actor.actor if actor else None,
        subject=actor.subject if actor else None,
        session_id=card.session_id,
        capability=card.capability,
        tool=card.tool,
        action_id=card.id,
        **fields,
    )


def audit_card(
    event_type: str, card: cards.Card, actor: ActorContext | None, **fields: Any
) -> None:
    """Record a protocol event about ``card``."""
    audit_events([card_entry(event_type, card, actor, **fields)])


def audit_claim_and(event_type: str, card: cards.Card, actor: ActorContext, **fields: Any) -> None:
    """Record the claim together with what became of it (one INSERT).

    On success both rows are written inside the execution's transaction instead; every other
    path lands here, after that transaction rolled back (or never began).
    """
    audit_events(
        [
            card_entry("confirm.claimed", card, actor),
            card_entry(event_type, card, actor, **fields),
        ]
    )
