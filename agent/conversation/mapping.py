"""A model's answer that names a card in front of the user, mapped to what it means.

With a model configured every message is the model's (``agent.conversation.readers``). It
sees what the last turn showed (:func:`in_front`: the cards and their states, the question
waiting for an answer, the candidates of a waiting choice) and answers with the ordinary
tools; the server maps (:func:`mapped`):

- a write with the ready card's tool on the same item (or, for a create, a create again)
  corrects that card: the new card replaces it, as the edit endpoint would;
- a write on a candidate of the waiting choice, with the choice's tool, picks it: the
  choice's own prepared card, used once;
- the compensation of the last succeeded card (its tool, its item) is its undo: the
  compensating card, with the undo endpoint's checks and lease.

Anything else is a new proposal, decided by the policy as always.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.conversation import corrections as card_corrections
from agent.conversation import sessions
from agent.conversation import undo as card_undo
from agent.conversation.pending import KIND_CHOICE, PendingRequest
from agent.conversation.reading import Reading, Said
from agent.models import ActionCard
from agent.planners.base import PlanResult, Proposal
from agent.tools import registry
from lightnote.errors import LightNoteError

if TYPE_CHECKING:
    from agent.conversation.decisions import Turn

# The argument that names a proposal's item, per kind of item.
TARGET_ARGS = ("todo_id", "note_id")


@dataclass
class Front:
    """What the last turn put in front of the user."""

    cards: list[ActionCard] = field(default_factory=list)
    waiting: PendingRequest | None = None

    def described(self) -> list[dict[str, Any]]:
        """The cards, a waiting question and a choice's candidates, as data for the model."""
        shown: list[dict[str, Any]] = [
            {
                "kind": "card",
                "card_id": str(row.id),
                "tool": row.tool,
                "state": row.state,
                "outcome": row.outcome_kind or None,
                "args": row.args,
            }
            for row in self.cards
        ]
        if self.waiting is not None and self.waiting.kind != KIND_CHOICE:
            shown.append(
                {
                    "kind": "question",
                    "tool": self.waiting.tool,
                    "args": self.waiting.args,
                    "missing": self.waiting.slot,
                }
            )
        if self.waiting is not None and self.waiting.kind == KIND_CHOICE:
            shown.append(
                {
                    "kind": "candidates",
                    "tool": self.waiting.tool,
                    "candidates": [
                        {"id": item.get("id"), "title": item.get("title")}
                        for item in self.waiting.candidates
                    ],
                }
            )
        return shown


def in_front(turn: Turn, waiting: PendingRequest | None) -> Front:
    """The last assistant message's cards (at most a few) and the waiting choice."""
    rows = sessions.last_turn_cards(session=turn.session)
    return Front(cards=rows, waiting=waiting)


def _target(args: dict[str, Any]) -> str | None:
    for name in TARGET_ARGS:
        if args.get(name):
            return str(args[name])
    return None


def _correction(turn: Turn, front: Front, proposal: Proposal) -> card_corrections.Correction | None:
    ready = [
        row
        for row in front.cards
        if row.state == ActionCard.State.READY and row.expires_at > turn.context.now
    ]
    if len(ready) != 1 or ready[0].tool != proposal.tool:
        return None
    row = ready[0]
    target = _target(proposal.args)
    tool = registry.get(row.tool)
    if tool is None or (target is not None and target != _target(row.args)):
        return None
    if target is None and _target(row.args) is not None:
        return None  # an update without its item named is a new request
    changed = tuple(sorted(k for k, v in proposal.args.items() if row.args.get(k) != v))
    return card_corrections.Correction(proposal, str(row.id), row.token_digest, changed)


def _undo(front: Front, proposal: Proposal) -> card_undo.SaidUndo | None:
    settled = [
        row
        for row in front.cards
        if row.state == ActionCard.State.SETTLED
        and row.outcome_kind == ActionCard.OutcomeKind.SUCCEEDED
        and row.receipt is not None
    ]
    if len(settled) != 1:
        return None
    row = settled[0]
    tool = registry.get(row.tool)
    result = row.receipt.result if row.receipt is not None else {}
    compensation = tool.compensation(row.args, result or {}) if tool else None
    if compensation is None or compensation.tool != proposal.tool:
        return None
    if _target(compensation.args) != _target(proposal.args):
        return None
    return card_undo.SaidUndo(row=row)


def _picks(turn: Turn, front: Front, proposal: Proposal) -> bool:
    """Use the waiting choice when ``proposal`` names one of its candidates; True if it did."""
    waiting = front.waiting
    if waiting is None or waiting.kind != KIND_CHOICE or waiting.tool != proposal.tool:
        return False
    target = _target(proposal.args)
    ids = {str(item.get("id")) for item in waiting.candidates}
    if target is None or target not in ids:
        return False
    try:
        turn.take_choice(waiting.choice, target)
    except LightNoteError as error:
        if error.status >= 500:
            raise
        return False
    return True


def mapped(said: Said, plan: PlanResult, front: Front) -> Reading:
    """The model's plan with each proposal that names a card in front of the user mapped."""
    turn = said.turn
    reading = Reading(plan, notes=["model"])
    kept: list[Proposal] = []
    for proposal in plan.proposals:
        if proposal.error is None and _picks(turn, front, proposal):
            reading.notes.append("model: choice pick")
            continue
        corrected = None if reading.corrected else _correction(turn, front, proposal)
        if corrected is not None:
            reading.corrected = corrected
            reading.notes.append("model: correction")
            kept.append(proposal)
            continue
        undoing = None if reading.undoing else _undo(front, proposal)
        if undoing is not None:
            card_undo.offer_undo(turn, undoing, said.leases)
            reading.undoing = undoing
            reading.notes.append("model: undo")
            continue
        kept.append(proposal)
    plan.proposals = kept
    return reading
