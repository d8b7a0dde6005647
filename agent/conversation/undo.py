"""An undo said in the chat (撤销刚才的操作, "undo that"): the conversation's last change.

:func:`undo_said` finds what the message asks to take back; :func:`offer_undo` issues the
compensating card in that message's turn, with the same per-card lease and checks as the
undo endpoint (``agent.cards.undo``); :func:`record_offer` writes what it withdrew.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent.cards import history as lifecycle
from agent.cards import transitions as card_transitions
from agent.cards.records import CardState, card_get_by_digest
from agent.cards.undo import compensation_for, prepared_compensation
from agent.control import one_at_a_time
from agent.conversation import sessions
from agent.models import ActionCard, AgentSession
from agent.planners.lexicon import normalise
from agent.planners.rules import grammar_for
from agent.tools import registry
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import ActorContext
from lightnote.texts.hanzi import simplified
from lightnote.texts.i18n import define_messages, translate

if TYPE_CHECKING:
    from agent.conversation.decisions import Turn

define_messages(
    {
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
    rows = sessions.recent_card_rows(session=session, owner=actor.subject, limit=_LOOK_BACK)
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
        prepared = prepared_compensation(compensation_for(row), turn.context)
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
