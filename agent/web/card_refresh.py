"""One card as it stands now: what "Ask again" on a stale page answers when the card is no
longer ready (confirmed, rejected or replaced in another tab or before a Back)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from agent.cards.derived import history_row
from agent.models import ActionCard, AgentSession
from agent.web.history import history_card_view
from agent.web.htmx import Fragment
from agent.web.presenters import zone_of
from lightnote.impersonation.context import ActorContext

# The refusals of a re-issue that mean "this card has moved on": show where it is instead.
MOVED_ON = frozenset({"CARD_NOT_READY", "CONFIRMATION_EXPIRED"})


def current_card_fragment(
    *, actor: ActorContext, session: AgentSession, card_id: Any, locale: str
) -> Fragment:
    """Return card ``card_id`` of ``session`` in its real state, as its history shows it."""
    row = history_row(ActionCard, card_id=card_id, session=session, actor=actor)
    undone_by = (
        ActionCard.objects.filter(
            compensates_id=row.id,
            state=ActionCard.State.SETTLED,
            outcome_kind=ActionCard.OutcomeKind.SUCCEEDED,
        )
        .values_list("tool", flat=True)
        .first()
    )
    view = history_card_view(
        row,
        dom_id=f"card-{row.id}",
        locale=locale,
        zone=zone_of(actor),
        now=timezone.now(),
        payload=(row.message.payload if row.message else None) or {},
        subject=actor.subject,
        undone_by=undone_by or "",
    )
    return Fragment("agent/card.html", {"card": view}, conversation=session)
