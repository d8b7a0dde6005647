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
from agent.planners.lexicon import Grammar, Intent, normalise
from agent.planners.questions import question
from agent.planners.replies import describe_facts, template_reply
from lightnote.hanzi import as_written, simplified
from lightnote.i18n import translate


def grammar_for(text: str) -> Grammar:
    """Return the grammar module of the sentence's language (Chinese if it has any CJK)."""
    return zh if reply_locale(text, "en") == "zh-CN" else en


def interpret(text: str) -> Intent:
    """Return what one sentence asks for (see ``zh.interpret`` / ``en.interpret``).

    Traditional characters are read as Simplified (the grammars' own), and what the
    sentence names (titles, times, content) is given back as the user wrote it.
    """
    written = normalise(text)
    if not written:
        return Intent(None)
    read = simplified(written)
    intent = grammar_for(read).interpret(read)
    if intent.tool is None and grammar_for(read) is zh and re.search(r"[A-Za-z]{3,}", read):
        # Mixed Chinese and English ("remind me to 交房租 tomorrow 9am"): the English form.
        intent = en.interpret(read)
    if read == written:
        return intent
    return replace(
        intent,
        args=_as_written(intent.args, read, written),
        also=tuple((tool, _as_written(args, read, written)) for tool, args in intent.also),
        otherwise=tuple(
            (tool, _as_written(args, read, written)) for tool, args in intent.otherwise
        ),
    )


def _as_written(args: dict[str, Any], read: str, written: str) -> dict[str, Any]:
    def back(value: Any) -> Any:
        if isinstance(value, str):
            return as_written(value, read=read, written=written)
        if isinstance(value, list):
            return [back(item) for item in value]
        return value

    return {key: back(value) for key, value in args.items()}


class RulesPlanner:
    """Deterministic planner: one sentence form, one proposal, one question or one read."""

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
        otherwise = None
        for tool, args in reversed(intent.otherwise):  # each reading carries the ones after it
            otherwise = Proposal(tool=tool, args=args, call_id="rules-1", otherwise=otherwise)
        proposal = Proposal(
            tool=intent.tool, args=intent.args, call_id="rules-1", otherwise=otherwise
        )
        return PlanResult(text="", proposals=[proposal])

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        """Fill the template the receipt's tool names; no model, so it cannot fail."""
        return template_reply(snapshot=snapshot, receipt=receipt, locale=locale)
