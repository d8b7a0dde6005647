"""The planner contract: what a planner receives, what it returns, and how one is chosen.

A planner turns one user message into text and *proposals*. It may run read-only tools
through the caller's ``run_read_tool`` (which applies the tool policy); it never executes a
write tool and never touches the database or Redis itself. Proposals (writes, and any call
of a tool that is not a known read tool) go back to the caller, whose policy turns them into
cards or notices.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from lightnote.errors import LightNoteError
from lightnote.texts.i18n import normalize_locale

# A turn calls the model at most this many times (read tools between the calls).
MAX_ROUNDS = 4

MALFORMED_ARGUMENTS = "MALFORMED_ARGUMENTS"
PLANNER_UNAVAILABLE = "PLANNER_UNAVAILABLE"
PLANNER_TIMEOUT = "PLANNER_TIMEOUT"

FACT_SUCCEEDED = "succeeded"
FACT_FAILED = "failed"


@dataclass(frozen=True)
class Proposal:
    """A tool call the model proposed (read or write), exactly as proposed."""

    tool: str  # may be unknown or invented: the caller's policy answers for it
    args: dict[str, Any]  # raw: aliases not yet normalised, extra properties kept
    call_id: str = ""
    error: str | None = None  # MALFORMED_ARGUMENTS when the model's JSON did not parse
    # The same request read as being about the other kind of item, for a sentence that did
    # not say which ("把读书笔记重命名为…"): tried only when the item named is not found.
    otherwise: Proposal | None = None
    # The request read as being about several items ("mark A and B done" when nothing is
    # titled "A and B"): tried, each its own card, only when the item named is not found.
    instead: tuple[Proposal, ...] = ()


@dataclass(frozen=True)
class Fact:
    """The result of a read tool run this turn through the caller's runner."""

    tool: str
    status: str  # "succeeded" | "failed"
    summary: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Clarification:
    """A request understood in part: ``tool`` with ``args`` so far, and the missing ``slot``.

    The caller asks the user for the slot (a ``clarify`` notice, no card) and keeps the
    request pending for the session, so the next message can complete it.
    """

    tool: str
    args: dict[str, Any]
    slot: str  # see agent.planners.lexicon SLOT_*: title, due_at, target, priority, ...


@dataclass
class PlanResult:
    """What one turn produced; the caller guards ``text`` and cards ``proposals``."""

    text: str
    proposals: list[Proposal] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    error: str | None = None  # PLANNER_UNAVAILABLE | PLANNER_TIMEOUT: nothing proposed
    clarify: Clarification | None = None  # set: ask this instead of proposing anything


ReadToolRunner = Callable[[str, dict[str, Any]], Fact]


class TurnCancelled(Exception):
    """The client went away: stop the model call and write nothing of the turn."""


class ReplyListener(Protocol):
    """Hears a model's reply as it is written (a streamed turn); each may raise TurnCancelled.

    A planner calls :meth:`reply_text` with each piece of a round's text while the round has
    called no tool, :meth:`reply_reset` when the text so far is not the reply (a new round
    begins, or the round calls a tool), and :meth:`reply_end` when a round ended with text
    only: that text is the reply.
    """

    def reply_text(self, piece: str) -> None: ...

    def reply_reset(self) -> None: ...

    def reply_end(self) -> None: ...


@dataclass(frozen=True)
class PlanRequest:
    """One user message and everything a planner may know about its turn."""

    text: str  # the current message; not repeated in ``history``
    history: list[dict[str, str]]  # [{"role": "user"|"assistant", "text": ...}], oldest first
    locale: str
    zone: ZoneInfo
    now: datetime  # aware
    tools: list[dict[str, Any]]  # OpenAI function specs the user may use (read + write)
    read_tools: frozenset[str]  # which of those names are read-only
    run_read_tool: ReadToolRunner  # the caller runs a read tool through its policy
    # What the last turn showed the user (cards with their states, a choice's candidates),
    # as data: a model maps "不对，是明天" or "undo that" to the tools on those items.
    in_front: list[dict[str, Any]] = field(default_factory=list)
    # A streamed turn hears the reply as the model writes it (None: nobody listens).
    listener: ReplyListener | None = None


class PlannerError(Exception):
    """The model could not produce a final reply (API error or timeout)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class Planner(Protocol):
    def plan(self, request: PlanRequest) -> PlanResult:
        """Return text and proposals for one message; run only read tools."""
        ...

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Describe a succeeded action from its receipt, with no tool available.

        ``snapshot`` is ``{"question", "locale", "facts": [...]}`` (optionally
        ``"time_zone"``); ``receipt`` is the API's Receipt dict plus ``"result"`` data.
        Raises :class:`PlannerError` when the model fails or times out.
        """
        ...


_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z]")


def reply_locale(text: str, locale: str | None) -> str:
    """Return the reply language: Chinese for a Chinese sentence, English for an English one.

    A sentence with neither (digits, emoji) falls back to the request's locale.
    """
    if _CJK.search(text or ""):
        return "zh-CN"
    if _LATIN.search(text or ""):
        return "en"
    return normalize_locale(locale) or "zh-CN"


def run_read(request: PlanRequest, tool: str, args: dict[str, Any]) -> Fact:
    """Run a read tool through the caller; a refusal by its policy becomes a failed fact."""
    try:
        return request.run_read_tool(tool, args)
    except LightNoteError as error:
        return Fact(tool=tool, status=FACT_FAILED, summary=error.message(request.locale))


def require_succeeded(receipt: dict[str, Any]) -> None:
    """Refuse to describe an action whose receipt is not a success (a caller bug)."""
    if receipt.get("status") != "succeeded":
        raise ValueError("a final reply needs a succeeded receipt")
