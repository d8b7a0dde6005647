"""Cards issued from an earlier card, outside a message turn: reissue, edit, undo, choice.

A derived card is issued in the context of its origin (:func:`derived_context`: the user's
question at or before the origin and the facts of the origin's message) through
:class:`agent.cards.issue.CardIssuer`, so it carries the same continuation snapshot and
provenance as a card proposed on a turn. :func:`issue_derived_card` stores it (Redis) and
returns a :class:`DerivedCard`: the caller first runs its own compare-and-set (voiding the
card it replaces, using a choice) and then either records it (:meth:`DerivedCard.record`,
in its transaction) or destroys it. :func:`reissue_card` ("ask again") lives here; the
edit, undo and choice flows are ``agent.cards.edit``, ``agent.cards.undo`` and
``agent.choices.choose``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone

from agent.cards import history as lifecycle
from agent.cards import transitions as card_transitions
from agent.cards.issue import CardIssuer
from agent.models import ActionCard, AgentSession, Message
from agent.planners.base import Fact
from agent.ratelimit import limit_new_card
from lightnote.audit import audit_event, audit_events
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.texts.i18n import define_messages

Row = TypeVar("Row", bound=models.Model)

define_messages(
    {
        "CARD_NOT_FOUND": ("确认卡不存在。", "The card does not exist."),
        "CARD_NOT_READY": (
            "这张确认卡已不在等待确认状态，不能再次发起。",
            "This card is no longer waiting for confirmation; it cannot be asked again.",
        ),
    }
)


def history_row(
    model: type[Row],
    *,
    card_id: Any,
    session: AgentSession,
    actor: ActorContext,
    related: tuple[str, ...] = ("message",),
) -> Row:
    """Return the card (or choice) row ``card_id`` of ``session``, the subject's, with its
    ``related`` rows; 404 ``CARD_NOT_FOUND`` for anything else (an id is no secret: the
    owner and the conversation are what let a client name it)."""
    try:
        row = (
            model._default_manager.select_related(*related)
            .filter(id=card_id, session=session, owner=actor.subject)
            .first()
        )
    except (ValueError, ValidationError):
        row = None
    if row is None:
        raise LightNoteError("CARD_NOT_FOUND", status=404)
    return row


def reissue_card(
    *, request: Any, actor: ActorContext, session: AgentSession, card_id: Any, locale: str
) -> dict[str, Any]:
    """Ask again: re-issue a still-ready card's prepared action as a new card; void the old.

    For a client that lost the token (a reload, a second tab, a phone restoring history):
    the new card carries the same prepared args and preview, ``parent_id`` = the old card,
    and a fresh token. The old card is voided first with one compare-and-set in the store,
    so at most one token is ever live for the action; a card claimed, rejected or expired
    meanwhile is refused and nothing new is issued. Execution re-runs the tool policy and
    version checks as for any card.

    Needs: ``session`` belongs to the caller. Raises 404 ``CARD_NOT_FOUND``, 410
    ``CONFIRMATION_EXPIRED`` (expired or gone), 409 ``CARD_NOT_READY``, 429, 503.
    """
    old = history_row(ActionCard, card_id=card_id, session=session, actor=actor)
    now = timezone.now()
    if old.state == ActionCard.State.READY and old.expires_at <= now:
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if old.state != ActionCard.State.READY:
        raise LightNoteError("CARD_NOT_READY", status=409, outer={"state": old.state})
    limit_new_card(request, user_id=actor.actor.pk)
    if not card_transitions.card_void(old.token_digest):
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)  # claimed, rejected or gone
    turn = turn_for(request=request, actor=actor, row=old, session=session, locale=locale)
    card: dict[str, Any] | None = None
    try:
        card = turn.issue_audited(
            tool=old.tool,
            capability=old.capability,
            risk=old.risk,
            args=old.args,
            preview=old.preview,
        )
    finally:
        # The old card is voided in the store either way; its row says so, and the new
        # card's row, its ``card.issued`` row and the ``card.reissued`` row are written
        # together with it.
        with transaction.atomic():
            lifecycle.record_voided([str(old.id)], reason=ActionCard.VoidReason.SUPERSEDED)
            for row in turn.card_rows:
                row.parent_id = old.id
            # A card proposed over MCP has no chat message: its successor still gets its
            # history row (message None, like its parent) so the execution path settles it.
            lifecycle.record_issued(turn.card_rows, message=old.message)
            turn.flush_audit()
            if card is not None:
                audit_event(
                    "card.reissued",
                    actor=actor.actor,
                    subject=actor.subject,
                    session_id=session.id,
                    capability=old.capability,
                    tool=old.tool,
                    action_id=card["card_id"],
                    details={"parent_id": str(old.id)},
                )
    return {**card, "parent_id": str(old.id)}


@dataclass
class DerivedCard:
    """A card issued from an earlier one (an edit, an undo, a choice), not yet recorded.

    ``card`` is the API card (with its token). :meth:`record` writes its history row, in the
    caller's transaction, on the origin's message — ``None`` for a card proposed over MCP,
    which has no chat message: the row is written all the same, so the execution path
    settles it (the fix of commit 420e3e8, for every derived card).
    """

    card: dict[str, Any]
    rows: list[ActionCard]
    message: Message | None
    extra: dict[str, Any] = field(default_factory=dict)
    audit_rows: list[Any] = field(default_factory=list)

    def record(self, *, parent_id: Any = None, compensates_id: Any = None) -> None:
        """Insert the history row, naming its ``parent`` / the card it ``compensates``, and
        its ``card.issued`` audit row (both in the caller's transaction)."""
        for row in self.rows:
            if parent_id is not None:
                row.parent_id = uuid.UUID(str(parent_id))
            if compensates_id is not None:
                row.compensates_id = uuid.UUID(str(compensates_id))
        lifecycle.record_issued(self.rows, message=self.message)
        if self.audit_rows:
            audit_events(self.audit_rows)
            self.audit_rows = []


def derived_context(
    *,
    request: Any,
    actor: ActorContext,
    session: AgentSession,
    locale: str,
    message: Message | None,
    asked_before: datetime | None,
) -> CardIssuer:
    """Return the turn a derived card is issued in: the origin's question and facts.

    ``message`` is the origin's assistant message (None over MCP); the question is the
    user's last message at or before ``asked_before``. The turn's ``context`` is what the
    tool policy prepares against.
    """
    question = ""
    if asked_before is not None:
        question = (
            session.messages.filter(role=Message.Role.USER, created_at__lte=asked_before)
            .order_by("-created_at", "-id")
            .values_list("text", flat=True)
            .first()
        ) or ""
    turn = CardIssuer(request=request, actor=actor, session=session, text=question, locale=locale)
    payload = (message.payload if message else None) or {}
    turn.facts = [
        Fact(
            tool=str(fact.get("tool", "")),
            status=str(fact.get("status", "")),
            summary=str(fact.get("summary", "")),
        )
        for fact in payload.get("facts") or []
        if isinstance(fact, dict)
    ]
    return turn


def turn_for(
    *, request: Any, actor: ActorContext, row: ActionCard | None, session: Any, locale: str
) -> CardIssuer:
    """Return the context a card derived from ``row`` is issued in (its question and facts)."""
    return derived_context(
        request=request,
        actor=actor,
        session=session,
        locale=locale,
        message=row.message if row is not None else None,
        asked_before=row.created_at if row is not None else None,
    )


def issue_derived_card(
    turn: CardIssuer,
    *,
    message: Message | None,
    tool: str,
    capability: str,
    risk: str,
    args: dict[str, Any],
    preview: dict[str, Any],
) -> DerivedCard:
    """Issue (store; ``card.issued`` queued) one derived card in ``turn``; record it later.

    The public way to issue a card outside a message turn: the caller decides (after its
    own compare-and-set, e.g. voiding the card it replaces) whether to :meth:`record` it or
    to destroy it.
    """
    card = turn.issue_audited(
        tool=tool, capability=capability, risk=risk, args=args, preview=preview
    )
    rows = [row for row in turn.card_rows if str(row.id) == card["card_id"]]
    # The card's audit row travels with it: written by :meth:`DerivedCard.record`, never for
    # a card destroyed instead.
    audit_rows, turn.audit_rows = turn.audit_rows, []
    return DerivedCard(card=card, rows=rows, message=message, audit_rows=audit_rows)


# --- Choices: a pick issues the ordinary card --------------------------------------------
