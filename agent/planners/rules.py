"""The offline rules planner: the Chinese and English grammars behind the planner contract.

It is the default without an API key and the engine of ``LIGHTNOTE_PLANNER=rules``. Like
the model, it only *proposes*: times stay the user's words (``due_at: "今晚 9 点"``) for the
tool's ``prepare`` to parse, titles are named, never resolved, and read tools run through
the caller's runner. A request understood in part becomes a :class:`Clarification` (the
caller asks and keeps it pending); its final reply is a template filled from the receipt.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from agent.planners import en, zh
from agent.planners.base import (
    Clarification,
    PlanRequest,
    PlanResult,
    Proposal,
    reply_locale,
    run_read,
)
from agent.planners.en import several as en_several
from agent.planners.lexicon import SLOT_INTENT, Grammar, Intent, normalise
from agent.planners.questions import question
from agent.planners.replies import describe_facts, template_reply
from agent.planners.several import READ_TOOLS, several
from agent.planners.zh import several as zh_several
from lightnote.hanzi import as_written, simplified
from lightnote.i18n import translate


def grammar_for(text: str) -> Grammar:
    """Return the grammar module of the sentence's language (Chinese if it has any CJK)."""
    return zh if reply_locale(text, "en") == "zh-CN" else en


def interpret(text: str) -> Intent:
    """Return what one message asks for (see ``zh.interpret`` / ``en.interpret``).

    A message asking for several writes gives the first with the others in ``more`` (or,
    for two items that may be one title, ``instead``: :mod:`agent.planners.several`).
    Traditional characters are read as Simplified (the grammars' own), and what the
    message names (titles, times, content) is given back as the user wrote it.
    """
    written = normalise(text)
    if not written:
        return Intent(None)
    pieces = zh_several if grammar_for(simplified(written)) is zh else en_several
    written = pieces.reword(written)  # (before reading: as_written maps the same spans)
    read = simplified(written)
    pointed = pieces.plural_pronoun(read)
    intent = (
        _one(pointed)
        if pointed is not None
        else several(
            read,
            split=pieces.split,
            clauses=pieces.clauses,
            opens_request=pieces.opens_request,
            asks_anew=pieces.asks_anew,
            interpret=_one,
            read_tools=READ_TOOLS,
        )
        or _one(read)
    )
    if (intent.tool is None or intent.slot == SLOT_INTENT) and grammar_for(read).correction(read):
        # 不对，是周五 with no card shown (a shown card is corrected before any planner
        # runs: agent.card_corrections): nothing to act on, and no todo titled 不对，是
        return Intent(None, message="PLANNER_NOTHING_TO_CORRECT")
    if grammar_for(read).undo_request(read) == "":
        # 撤销 / "undo that" with nothing run in the conversation (a change that ran is taken
        # back before any planner runs: agent.card_undo): nothing to take back, and no todo
        # titled "last change" to reopen
        return Intent(None, message="PLANNER_NOTHING_TO_UNDO")
    return intent if read == written else _written_back(intent, read, written)


def _one(read: str) -> Intent:
    """What one sentence asks for, in its grammar."""
    intent = grammar_for(read).interpret(read)
    if intent.tool is None and grammar_for(read) is zh and re.search(r"[A-Za-z]{3,}", read):
        # Mixed Chinese and English ("remind me to 交房租 tomorrow 9am"): the English form.
        intent = en.interpret(read)
    return intent


def _as_written(args: dict[str, Any], read: str, written: str) -> dict[str, Any]:
    def back(value: Any) -> Any:
        if isinstance(value, str):
            return as_written(value, read=read, written=written)
        if isinstance(value, list):
            return [back(item) for item in value]
        return value

    return {key: back(value) for key, value in args.items()}


def _written_back(intent: Intent, read: str, written: str) -> Intent:
    def back(
        pairs: tuple[tuple[str, dict[str, Any]], ...],
    ) -> tuple[tuple[str, dict[str, Any]], ...]:
        return tuple((tool, _as_written(args, read, written)) for tool, args in pairs)

    return replace(
        intent,
        args=_as_written(intent.args, read, written),
        also=back(intent.also),
        otherwise=back(intent.otherwise),
        more=tuple(_written_back(one, read, written) for one in intent.more),
        instead=tuple(_written_back(one, read, written) for one in intent.instead),
    )


class RulesPlanner:
    """Deterministic planner: a proposal per write the message asks for, one question or
    one read."""

    def plan(self, request: PlanRequest) -> PlanResult:
        """Interpret the sentence; run reads through the caller, propose or ask for the rest."""
        locale = reply_locale(request.text, request.locale)
        intent = interpret(request.text)
        if intent.tool is None:
            return PlanResult(text=translate(intent.message, locale))
        if intent.slot is not None:
            clarification = Clarification(tool=intent.tool, args=intent.args, slot=intent.slot)
            return PlanResult(text=question(clarification, locale), clarify=clarification)
        reads = [(intent.tool, intent.args), *intent.also]
        if all(tool in request.read_tools for tool, _ in reads):
            facts = [run_read(request, tool, args) for tool, args in reads]
            return PlanResult(text=describe_facts(facts, locale), facts=facts)
        # The reply is left to the caller: a card gets its fixed "please confirm" sentence,
        # a planned or forbidden capability its registry guidance.
        writes = (intent, *intent.more)
        return PlanResult(
            text="",
            proposals=[_proposal(one, f"rules-{n}") for n, one in enumerate(writes, start=1)],
        )

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Fill the template the receipt's tool names; no model, so it cannot fail."""
        return template_reply(snapshot=snapshot, receipt=receipt, locale=locale)


def _proposal(intent: Intent, call_id: str) -> Proposal:
    """The write of ``intent`` with its other readings: another kind of item (``otherwise``,
    each reading carrying the ones after it) and several items (``instead``)."""
    otherwise = None
    for tool, args in reversed(intent.otherwise):
        otherwise = Proposal(tool=tool, args=args, call_id=call_id, otherwise=otherwise)
    instead = tuple(
        _proposal(one, f"{call_id}.{n}") for n, one in enumerate(intent.instead, start=1)
    )
    return Proposal(
        tool=intent.tool or "",
        args=intent.args,
        call_id=call_id,
        otherwise=otherwise,
        instead=instead,
    )
