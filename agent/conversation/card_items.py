"""把它改成明天 / "delete it" / 那条删掉 right after a card: the item that card is about.

The rules planner reads a pronoun as a request with no item named (a ``target``
clarification). When the conversation's last message is the assistant's with exactly one
card about an existing item (an update, a status change, a delete, or a create that ran),
that item is the one meant: the request is proposed for it, by id, like any proposal (the
policy, ``prepare`` and a card decide). A request of another kind of item than the card's,
or a card with no item yet, leaves the question as the planner asked it.
"""

from __future__ import annotations

from typing import Any

from agent.conversation import sessions
from agent.models import ActionCard, AgentSession
from agent.planners.base import PlanResult, Proposal
from agent.planners.lexicon import SLOT_TARGET

_ID_KEYS = {"todo": ("todo_id", "todo_title"), "note": ("note_id", "note_title")}


def _kind(tool: str) -> str | None:
    return "note" if "note" in tool else "todo" if "todo" in tool else None


def card_item(session: AgentSession) -> tuple[str, str] | None:
    """The (kind, id) of the item the one card of the last turn is about, or None."""
    rows = sessions.last_turn_cards(session=session, limit=2)
    if len(rows) != 1:
        return None
    row = rows[0]
    kind = _kind(row.tool)
    if kind is None:
        return None
    item_id = row.args.get(_ID_KEYS[kind][0])
    receipt = getattr(row, "receipt", None) if row.state == ActionCard.State.SETTLED else None
    if (
        not item_id
        and receipt is not None
        and receipt.resource_type == kind
        and receipt.resource_id
    ):
        item_id = receipt.resource_id  # a create that ran: the item it made
    return (kind, str(item_id)) if item_id else None


def aimed(plan: PlanResult, session: AgentSession) -> PlanResult:
    """``plan`` with a request that named no item proposed for the last card's item."""
    asked = plan.clarify
    if asked is None or asked.slot != SLOT_TARGET or plan.proposals:
        return plan
    kind = _kind(asked.tool)
    id_key, title_key = _ID_KEYS.get(kind or "", ("", ""))
    if not id_key or asked.args.get(title_key) or asked.args.get(id_key):
        return plan
    item = card_item(session)
    if item is None or item[0] != kind:
        return plan
    args: dict[str, Any] = {**asked.args, id_key: item[1]}
    return PlanResult(text="", proposals=[Proposal(tool=asked.tool, args=args, call_id="it-1")])
