"""What a turn's readers work on (:class:`Said`) and what they make of it (:class:`Reading`)."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from agent.conversation import corrections as card_corrections
from agent.conversation import followups
from agent.conversation import undo as card_undo
from agent.conversation.decisions import Turn
from agent.conversation.pending import PendingRequest
from agent.planners.base import PlanResult, ReplyListener


@dataclass
class Said:
    """A message and what its turn knows before any reader runs."""

    turn: Turn
    text: str
    locale: str
    history: list[dict[str, str]]
    listed: list[dict[str, Any]]
    waiting: PendingRequest | None
    leases: ExitStack
    listener: ReplyListener | None = None  # a streamed turn hears the model's reply

    @cached_property
    def resumed(self) -> followups.Resumption | None:
        """The message read against the pending question (the rules grammar), once."""
        if self.waiting is None:
            return None
        context = self.turn.context
        return followups.resume(self.waiting, self.text, now=context.now, zone=context.zone)


@dataclass
class Reading:
    """What a reader made of the message."""

    plan: PlanResult
    corrected: card_corrections.Correction | None = None
    undoing: card_undo.SaidUndo | None = None
    notes: list[str] = field(default_factory=list)  # which reader, for logs and tests
