"""把它改成明天 / "delete it" / 那条删掉 right after a card: the item that card is about.

The rules planner reads a pronoun as a request with no item named (a ``target``
clarification). When the conversation's last message is the assistant's with exactly one
card about an existing item (an update, a status change, a delete, or a create that ran),
that item is the one meant: the request is proposed for it, by id, like any proposal (the
policy, ``prepare`` and a card decide). A request of another kind of item than the card's
leaves the question as the planner asked it. A card with no item yet — a create still
waiting for its confirmation — is :func:`unmade`: there is nothing to change or delete, and
the caller says so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent.conversation import card_questions, sessions
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


def _pointed_kind(plan: PlanResult) -> str | None:
    """The kind of item a request that named none ("delete it") is about, or None."""
    asked = plan.clarify
    if asked is None or asked.slot != SLOT_TARGET or plan.proposals:
        return None
    kind = _kind(asked.tool)
    id_key, title_key = _ID_KEYS.get(kind or "", ("", ""))
    if not id_key or asked.args.get(title_key) or asked.args.get(id_key):
        return None
    return kind


def unmade(plan: PlanResult, session: AgentSession, *, now: datetime) -> ActionCard | None:
    """The waiting create card of the last turn whose item ``plan``'s request points at
    ("delete that one" right after "add a todo …"): that item does not exist yet."""
    kind = _pointed_kind(plan)
    rows = sessions.last_turn_cards(session=session, limit=2) if kind else []
    if len(rows) != 1 or rows[0].tool != f"create_{kind}":
        return None
    return rows[0] if card_questions.is_waiting(rows[0], now=now) else None


def aimed(plan: PlanResult, session: AgentSession) -> PlanResult:
    """``plan`` with a request that named no item proposed for the last card's item."""
    kind = _pointed_kind(plan)
    if kind is None or plan.clarify is None:
        return plan
    asked = plan.clarify
    id_key = _ID_KEYS[kind][0]
    item = card_item(session)
    if item is None or item[0] != kind:
        return plan
    args: dict[str, Any] = {**asked.args, id_key: item[1]}
    return PlanResult(text="", proposals=[Proposal(tool=asked.tool, args=args, call_id="it-1")])
