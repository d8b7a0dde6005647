"""Undo: a card for the compensating action of a succeeded card, within the undo window.

The compensation is the tool's own knowledge (``Tool.compensation``: delete what a create
made, put back an update's previous values, the opposite status). It is prepared through
the tool policy like any proposal and issued as an ordinary card (confirmed once, receipted,
version-checked at execution) whose row ``compensates`` the undone card.

Two ways to ask: the undo endpoint names the card (:func:`undo`), and a chat message asks
to take back the conversation's last change (撤销刚才的操作, "undo that": :func:`undo_said`,
then :func:`offer_undo` in that message's turn). Both take the same per-card lease, run the
same checks and withdraw the same earlier undo card, so one live undo card per card holds
whichever way (or both at once) it is asked.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from agent import card_transitions, lifecycle
from agent.card_issuing import prepared_fields
from agent.cards import CardState, card_get_by_digest
from agent.control import one_at_a_time
from agent.derived_cards import history_row, issue_derived_card, turn_for
from agent.models import ActionCard, AgentSession
from agent.planners.lexicon import normalise
from agent.planners.rules import grammar_for
from agent.policy import PolicyResult, enforce_tool_policy
from agent.ratelimit import limit_new_card
from agent.tools import Compensation, ToolContext, registry
from lightnote.audit import audit_event
from lightnote.context import ActorContext
from lightnote.errors import LightNoteError
from lightnote.hanzi import simplified
from lightnote.i18n import define_messages, translate

if TYPE_CHECKING:
    from agent.turns import Turn

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
        # Said in the chat (撤销刚才的操作 / "undo that"):
        "AGENT_UNDO_OFFERED": (
            "这是撤销上一个操作的确认卡：只有你确认后才会执行，在此之前什么都不会改变。",
            "Here is a card that takes back the last change. Nothing changes until you confirm it.",
        ),
        "UNDO_NOT_RUN_YET": (
            "上一张确认卡还没有执行：不确认它就什么都不会改变，也可以点“拒绝”。",
            "The last card has not run: nothing changes unless you confirm it, and you can "
            "reject it.",
        ),
        "UNDO_STILL_RUNNING": (
            "上一张确认卡正在执行，请等它完成后再撤销。",
            "The last card is still running; ask again to undo it once it has finished.",
        ),
        "UNDO_LAST_NOT_SUCCEEDED": (
            "上一个操作没有成功执行，没有需要撤销的改动。",
            "The last change did not succeed, so there is nothing to undo.",
        ),
        "UNDO_WINDOW_PASSED": (
            "上一个操作已经超过可撤销的时间，请直接说要怎么改。",
            "The last change is past the time it can be undone; say what to change instead.",
        ),
    }
)

# A refusal of the undo endpoint as a chat reply says it of "the last change".
_SAID_AS = {
    "CONFIRMATION_EXPIRED": "UNDO_WINDOW_PASSED",
    "UNDO_NOT_SUCCEEDED": "UNDO_LAST_NOT_SUCCEEDED",
}
# The conversation's cards read, newest first, to find its last change (a ready card newer
# than it answers first; rejected and voided cards never ran and are passed over).
_LOOK_BACK = 20


def _compensation_for(row: ActionCard) -> Compensation:
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


def _prepared(compensation: Compensation, context: ToolContext) -> PolicyResult:
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
    compensation = _compensation_for(row)
    turn = turn_for(request=request, actor=actor, row=row, session=session, locale=locale)
    prepared = _prepared(compensation, turn.context)
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


@dataclass
class SaidUndo:
    """A chat message's request to take back the conversation's last change.

    ``row``: the card to take back (settled, its receipt loaded); None when ``refusal`` (a
    message code) says why there is nothing to take back. Filled by :func:`offer_undo`:
    ``card``, the undo card issued (API shape), and ``withdrawn``, the earlier undo cards
    it replaces.
    """

    row: ActionCard | None
    refusal: str = ""
    card: dict[str, Any] | None = None
    withdrawn: list[str] = field(default_factory=list)


def undo_said(
    *, session: AgentSession, actor: ActorContext, text: str, now: datetime
) -> SaidUndo | None:
    """What ``text`` asks to take back, or None: it asks no undo, or nothing in the
    conversation ran or waits (then the planner answers, as for any message: the rules
    planner says there is nothing to undo).

    A message that takes a status change back by its state ("mark it as not done again",
    改回未完成) is an undo only when the last change's compensation sets that state;
    otherwise it is the planner's (it names an item, or asks which).
    """
    read = simplified(normalise(text))
    wanted = grammar_for(read).undo_request(read)
    if wanted is None:
        return None
    rows = (
        ActionCard.objects.filter(session=session, owner=actor.subject)
        .exclude(state__in=(ActionCard.State.REJECTED, ActionCard.State.VOIDED))
        .select_related("receipt")
        .order_by("-created_at", "-id")[:_LOOK_BACK]
    )
    said = None
    for row in rows:
        if row.state == ActionCard.State.SETTLED:
            said = SaidUndo(row=row)
            break
        live = card_get_by_digest(row.token_digest) if row.expires_at > now else None
        if live is not None and live.state == CardState.READY:
            said = SaidUndo(row=None, refusal="UNDO_NOT_RUN_YET")
            break
        if live is not None and live.state in (CardState.RUNNING, CardState.SETTLED):
            said = SaidUndo(row=None, refusal="UNDO_STILL_RUNNING")  # its row not yet settled
            break
    if said is None or (wanted and not _sets_state(said.row, wanted)):
        return None  # nothing ran here: the planner's (the rules planner says so)
    return said


def _sets_state(row: ActionCard | None, state: str) -> bool:
    tool = registry.get(row.tool) if row is not None else None
    if row is None or tool is None or row.receipt is None:
        return False
    compensation = tool.compensation(row.args, row.receipt.result or {})
    return compensation is not None and compensation.args.get("status") == state


def offer_undo(turn: Turn, said: SaidUndo, leases: ExitStack) -> None:
    """Issue, in ``turn``, the card that takes back ``said.row``, or a notice saying why not.

    Takes the card's undo lease into ``leases`` (the caller holds it until its turn has
    committed, so an undo asked meanwhile by the endpoint or another tab finds this one and
    withdraws it). The checks are the endpoint's. The store down, or the user over the card
    limit: raised (the whole turn fails, as for any card).
    """
    row = said.row
    if row is None:
        _refuse(turn, said.refusal)
        return
    try:
        leases.enter_context(one_at_a_time(f"undo:{row.id}", busy_code="UNDO_BUSY"))
        prepared = _prepared(_compensation_for(row), turn.context)
        earlier = list(row.undos.filter(state=ActionCard.State.READY))
        card = turn.issue(prepared, limited=True)
    except LightNoteError as error:
        if error.status >= 500 or error.status == 429:
            raise
        _refuse(turn, _SAID_AS.get(error.code, error.code), error)
        return
    turn.card_rows[-1].compensates_id = row.id
    card["compensates_id"] = str(row.id)
    said.card = card
    said.withdrawn = [
        str(old.id) for old in earlier if card_transitions.card_void(old.token_digest)
    ]


def _refuse(turn: Turn, code: str, error: LightNoteError | None = None) -> None:
    message = (
        error.message(turn.reply_locale)
        if error is not None and code == error.code
        else translate(code, turn.reply_locale)
    )
    turn.notices.append(
        {"capability": None, "status": "rejected", "code": code, "message": message}
    )


def record_offer(turn: Turn, said: SaidUndo) -> None:
    """The undo cards it replaces voided, and its ``card.undo_issued`` audit row. Needs: the
    turn's transaction, after its card rows."""
    if said.card is None or said.row is None:
        return
    lifecycle.record_voided(said.withdrawn, reason=ActionCard.VoidReason.SUPERSEDED)
    audit_event(
        "card.undo_issued",
        actor=turn.actor.actor,
        subject=turn.actor.subject,
        session_id=turn.session.id,
        capability=said.card["capability"],
        tool=said.card["tool"],
        action_id=said.card["card_id"],
        details={"compensates_id": str(said.row.id), "said": True},
    )


def offered_reply(locale: str) -> str:
    return translate("AGENT_UNDO_OFFERED", locale)
