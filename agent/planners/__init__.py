"""Planners: turn a user's sentence into text and tool proposals (the contract: ``base``).

Layout: ``base`` (the contract), ``prompts`` (the model's prompts and planner texts),
``replies`` (templates that describe facts and receipts), ``lexicon`` + ``zh`` + ``en`` (the
offline grammar: what both languages share, then one package per language, each split into
``slots``, ``reads``, ``writes`` and ``answers`` under its ``interpret`` order), ``rules`` and
``openai`` (the two engines), and
:func:`get_planner` here, the factory. Nothing in the package imports this module's factory,
so there is no cycle between the engines and the contract.
"""

from __future__ import annotations

from django.conf import settings

from agent.planners import prompts  # noqa: F401  (registers the planner texts)
from agent.planners.base import (
    MALFORMED_ARGUMENTS,
    MAX_ROUNDS,
    PLANNER_TIMEOUT,
    PLANNER_UNAVAILABLE,
    Clarification,
    Fact,
    Planner,
    PlannerError,
    PlanRequest,
    PlanResult,
    Proposal,
)


def get_planner() -> Planner:
    """Return the planner that ``settings.LIGHTNOTE_PLANNER`` selects."""
    if settings.LIGHTNOTE_PLANNER == "openai":
        from agent.planners.openai import OpenAIPlanner

        return OpenAIPlanner()
    from agent.planners.rules import RulesPlanner

    return RulesPlanner()


__all__ = [
    "MALFORMED_ARGUMENTS",
    "MAX_ROUNDS",
    "PLANNER_TIMEOUT",
    "PLANNER_UNAVAILABLE",
    "Clarification",
    "Fact",
    "PlanRequest",
    "PlanResult",
    "Planner",
    "PlannerError",
    "Proposal",
    "get_planner",
]
