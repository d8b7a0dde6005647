"""Undo: a card for the compensating action of a succeeded card, within the undo window.

The compensation is the tool's own knowledge (``Tool.compensation``: delete what a create
made, put back an update's previous values, the opposite status). It is prepared through
the tool policy like any proposal and issued as an ordinary card (confirmed once, receipted,
version-checked at execution) whose row ``compensates`` the undone card.

Two ways to ask: the undo endpoint names the card (:func:`undo`), and a chat message asks
to take back the conversation's last change (``agent.conversation.undo``). Both take the
same per-card lease, run the same checks (:func:`compensation_for`,
:func:`prepared_compensation`) and withdraw the same earlier undo card, so one live undo
card per card holds whichever way (or both at once) it is asked.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agent.cards import history as lifecycle
from agent.cards import transitions as card_transitions
from agent.cards.derived import history_row, issue_derived_card, turn_for
from agent.cards.issue import prepared_fields
from agent.control import one_at_a_time
from agent.models import ActionCard, AgentSession
from agent.policy import PolicyResult, enforce_tool_policy
from agent.ratelimit import limit_new_card
from agent.tools import Compensation, ToolContext, registry
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.texts.i18n import define_messages

define_messages(
    {
        "CARD_NOT_FOUND": ("确认卡不存在。", "The card does not exist."),
        "UNDO_NOT_SUCCEEDED": (
            "这张确认卡没有成功执行，无需撤销。",
            "This card did not succeed; there is nothing to undo.",
        ),
        "UNDO_NOT_AVAILABLE": (
            "这个操作暂不支持撤销。",
            "This action cannot be undone yet.",
        ),
        "UNDO_ALREADY_DONE": ("这个操作已经撤销过了。", "This action was already undone."),
        "UNDO_BUSY": (
            "这个操作的撤销正在准备中，请稍后再试。",
            "An undo of this action is being prepared; try again in a moment.",
        ),
        "UNDO_VERSION_CONFLICT": (
            "该项目在操作之后又被修改过，不能撤销，以免覆盖新的修改。",
            "The item changed after this action; undoing it would overwrite that change.",
        ),
    }
)


def compensation_for(row: ActionCard) -> Compensation:
    """Return the card's compensation, or the 409/410 that says why there is none."""
    succeeded = (
        row.state == ActionCard.State.SETTLED
        and row.outcome_kind == ActionCard.OutcomeKind.SUCCEEDED
        and row.receipt is not None
    )
    if not succeeded or row.settled_at is None or row.receipt is None:
        raise LightNoteError("UNDO_NOT_SUCCEEDED", status=409, outer={"state": row.state})
    window = timedelta(seconds=settings.LIGHTNOTE_UNDO_WINDOW)
    if row.settled_at + window <= timezone.now():
        raise LightNoteError("CONFIRMATION_EXPIRED", status=410)
    if row.undos.filter(
        state=ActionCard.State.SETTLED, outcome_kind=ActionCard.OutcomeKind.SUCCEEDED
    ).exists():
        raise LightNoteError("UNDO_ALREADY_DONE", status=409)
    tool = registry.get(row.tool)
    compensation = tool.compensation(row.args, row.receipt.result or {}) if tool else None
    if compensation is None:
        raise LightNoteError("UNDO_NOT_AVAILABLE", status=409)
    return compensation


def prepared_compensation(compensation: Compensation, context: ToolContext) -> PolicyResult:
    """The compensation prepared through the tool policy; 409 ``UNDO_VERSION_CONFLICT`` when
    the item changed since the undone action (its version is no longer the one it left)."""
    prepared = enforce_tool_policy(
        tool_name=compensation.tool,
        args=compensation.args,
        context=context,
        phase="prepare",
        compensation=True,
    )
    if prepared.args.get("expected_version") != compensation.version:
        raise LightNoteError("UNDO_VERSION_CONFLICT", status=409)
    return prepared


def undo(
    *, request: Any, actor: ActorContext, session: AgentSession, card_id: Any, locale: str
) -> dict[str, Any]:
    """Issue the card that takes back the succeeded card ``card_id``; return it (API shape).

    Needs: ``session`` belongs to the caller, and the admin read-only check has run.
    Raises 404 ``CARD_NOT_FOUND``; 409 ``UNDO_NOT_SUCCEEDED`` (with ``state``),
    ``UNDO_ALREADY_DONE``, ``UNDO_NOT_AVAILABLE``, ``UNDO_VERSION_CONFLICT`` (the item
    changed since), ``UNDO_BUSY`` (another undo of it still being issued after 3 s); 410
    ``CONFIRMATION_EXPIRED`` after ``LIGHTNOTE_UNDO_WINDOW``; the tool's own codes (e.g. 404
    ``TODO_NOT_FOUND``); 429; 503.
    """
    row = history_row(
        ActionCard, card_id=card_id, session=session, actor=actor, related=("receipt", "message")
    )
    # Undos of one card are issued one at a time, so "one live undo per card" holds when
    # requests race too (a double click): each finds the one before it and withdraws it.
    with one_at_a_time(f"undo:{row.id}", busy_code="UNDO_BUSY"):
        return _issue_undo(request=request, actor=actor, session=session, row=row, locale=locale)


def _issue_undo(
    *, request: Any, actor: ActorContext, session: AgentSession, row: ActionCard, locale: str
) -> dict[str, Any]:
    compensation = compensation_for(row)
    turn = turn_for(request=request, actor=actor, row=row, session=session, locale=locale)
    prepared = prepared_compensation(compensation, turn.context)
    limit_new_card(request, user_id=actor.actor.pk)
    # One live undo per card: an undo card issued earlier and still ready is withdrawn.
    earlier = list(row.undos.filter(state=ActionCard.State.READY))
    withdrawn = [str(old.id) for old in earlier if card_transitions.card_void(old.token_digest)]
    derived = issue_derived_card(turn, message=row.message, **prepared_fields(prepared))
    new_card = derived.card
    with transaction.atomic():
        lifecycle.record_voided(withdrawn, reason=ActionCard.VoidReason.SUPERSEDED)
        # Always a history row, also for a card proposed over MCP (no message).
        derived.record(compensates_id=row.id)
        audit_event(
            "card.undo_issued",
            actor=actor.actor,
            subject=actor.subject,
            session_id=session.id,
            capability=new_card["capability"],
            tool=new_card["tool"],
            action_id=new_card["card_id"],
            details={"compensates_id": str(row.id)},
        )
    return {**new_card, "compensates_id": str(row.id)}
