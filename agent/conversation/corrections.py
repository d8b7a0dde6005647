"""A correction of the card just shown, said in the chat: 不对，是周五 / "actually make it 5pm".

When the conversation's last message is the assistant's with exactly one card, still ready,
and the user's next message reads as a correction (a grammar's ``correction``: a word that
corrects and nothing but the new value — a time, a title, a priority), the card is proposed
again with that value changed, prepared by the same policy as any proposal, and the old
card is voided as superseded. It is the edit endpoint's rule (``agent.cards.edit``), said in
words: the new card is issued first, then the old one voided with the store's
compare-and-set (``ready -> voided``). If a confirm (or reject) of the old card won, the new
card is destroyed before anyone saw it and the turn says the correction came too late: at
most one of the two ever executes. The old row is marked voided (``superseded``) and the
new row names it as its parent in the turn's own transaction, with a ``card.edited`` audit
row.

A time said alone (上午10点 / "10am") right after a card read with a time corrects that time:
a new request cannot be a time alone. A time is merged with the one the card was read from
(``明天上午10点`` corrected by ``下午5点`` is ``明天下午5点``). Anything else — no card,
several, a card no longer ready, a value the tool cannot edit — is an ordinary new request
for the planner.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent.cards import history as lifecycle
from agent.cards import transitions as card_transitions
from agent.cards.edit import editable_fields, edited_args
from agent.conversation import sessions
from agent.conversation.decisions import Turn
from agent.models import ActionCard, AgentSession
from agent.planners import requests, zh
from agent.planners.base import Proposal
from agent.planners.lexicon import STRIP, normalise
from agent.planners.rules import grammar_for, interpret
from agent.tools import registry
from lightnote.audit import audit_event
from lightnote.texts.hanzi import simplified
from lightnote.texts.i18n import define_messages, translate

define_messages(
    {
        "AGENT_CARD_CORRECTED": (
            "已按你的更正换成下面这张新的确认卡，上一张已作废；只有你确认后才会执行。",
            "Here is the card again with your correction; the previous one is withdrawn. "
            "Nothing happens until you confirm it.",
        ),
        "CARD_CORRECTION_TOO_LATE": (
            "上一张确认卡已经不能修改（已执行、正在执行或已拒绝），所以没有生成新的确认卡。",
            "The previous card can no longer be changed (it ran, is running or was rejected), "
            "so no new card was made.",
        ),
    }
)


@dataclass(frozen=True)
class Correction:
    """The old card a message corrects, and the proposal that replaces it."""

    proposal: Proposal
    card_id: str
    digest: str
    fields: tuple[str, ...]


def correction_for(*, session: AgentSession, text: str, now: datetime) -> Correction | None:
    """The correction ``text`` makes to the session's last card, or None (a new request)."""
    read = simplified(normalise(text))  # (不對，是週五 reads as Simplified, like the planner)
    grammar = grammar_for(read)
    said = grammar.correction(read)
    as_note = grammar.kind_answer(read) == "note"
    bare_time = not said and grammar.is_time(read.strip(STRIP))
    if not said and not as_note and not bare_time:
        return None
    rows = sessions.last_turn_cards(session=session, limit=2)
    if len(rows) != 1:
        return None
    row = rows[0]
    if bare_time:
        if not row.args.get("due_at_said"):
            return None  # a time alone corrects only a card that was read with a time
        said = {"due_at": read.strip(STRIP)}
    card_id, tool_name, args, digest = row.id, row.tool, row.args, row.token_digest
    state, expires_at = row.state, row.expires_at
    tool = registry.get(tool_name)
    if tool is None or state != ActionCard.State.READY or expires_at <= now:
        return None
    if _names_another_item(read, row):
        return None  # "Buy milk isn't urgent, set it to low": a request about Buy milk
    if not said:
        if tool_name != "create_todo":
            return None
        # 记成笔记吧 / "make it a note" to a new todo's card: the same words as a note, its
        # time what the note says
        note = {"title": args["title"], "content": str(args.get("due_at_said") or "")}
        proposal = Proposal(tool="create_note", args=note, call_id="correction-1")
        return Correction(proposal, str(card_id), digest, ("kind",))
    edits = _edits(said, args, grammar)
    if not edits or any(name not in editable_fields(tool) for name in edits):
        return None
    proposal = Proposal(tool=tool_name, args=edited_args(tool, args, edits), call_id="correction-1")
    return Correction(proposal, str(card_id), digest, tuple(sorted(edits)))


def _names_another_item(read: str, row: ActionCard) -> bool:
    """Whether the message is a request about an item of its own (said another way by the
    planner's ``reword`` rows: "Buy milk isn't urgent, set it to low"), not the card's."""
    language = "zh" if grammar_for(read) is zh else "en"
    if requests.reword(read, language) == read:
        return False
    named = interpret(read).args
    title = str(named.get("todo_title") or named.get("note_title") or "").strip().lower()
    if not title:
        return False
    about = {str(row.args.get("title") or ""), str((row.preview or {}).get("target") or "")}
    return title not in {name.strip().lower() for name in about if name}


def _edits(said: dict[str, str], args: dict[str, Any], grammar: Any) -> dict[str, Any]:
    edits: dict[str, Any] = dict(said)
    if "due_at" in said:
        prior = str(args.get("due_at_said") or "")
        # 改成4点 keeps the day; 不对，是后天 keeps the clock time (明天下午3点 -> 后天下午3点)
        merged = grammar.merge_time(prior, said["due_at"])
        edits["due_at"] = grammar.keep_clock(prior, merged)
    return edits


def supersede(turn: Turn, correction: Correction) -> bool:
    """Withdraw the old card once its replacement is issued; True when it was withdrawn.

    No new card (refused, or a question asked): the old card stands as it was. The old card
    no longer ready: the new one is destroyed (never shown) and the turn says why.
    """
    if not turn.cards or turn.cards[-1]["tool"] != correction.proposal.tool:
        return False
    new_card = turn.cards[-1]
    if not card_transitions.card_void(correction.digest):
        card_transitions.card_destroy(new_card["token"])
        turn.cards.pop()
        turn.card_rows.pop()
        code = "CARD_CORRECTION_TOO_LATE"
        turn.notices.append(
            {
                "capability": None,
                "status": "rejected",
                "code": code,
                "message": translate(code, turn.locale),
            }
        )
        return False
    turn.card_rows[-1].parent_id = uuid.UUID(correction.card_id)
    new_card["parent_id"] = correction.card_id  # as the edit endpoint's card says it
    return True


def record(turn: Turn, correction: Correction) -> None:
    """The old row voided (superseded) and the ``card.edited`` audit row. Needs: the turn's
    transaction."""
    lifecycle.record_voided([correction.card_id], reason=ActionCard.VoidReason.SUPERSEDED)
    audit_event(
        "card.edited",
        actor=turn.actor.actor,
        subject=turn.actor.subject,
        session_id=turn.session.id,
        capability=turn.cards[-1]["capability"],
        tool=correction.proposal.tool,
        action_id=turn.cards[-1]["card_id"],
        details={"parent_id": correction.card_id, "fields": list(correction.fields), "said": True},
    )


def corrected_reply(locale: str) -> str:
    return translate("AGENT_CARD_CORRECTED", locale)
