"""Planners: turn a user's sentence into text and tool proposals (see ``base``)."""

from __future__ import annotations

from agent.planners import prompts  # noqa: F401  (registers the planner texts)
from agent.planners.base import (
    MALFORMED_ARGUMENTS,
    MAX_ROUNDS,
    PLANNER_TIMEOUT,
    PLANNER_UNAVAILABLE,
    Fact,
    Planner,
    PlannerError,
    PlanRequest,
    PlanResult,
    Proposal,
    get_planner,
)

__all__ = [
    "MALFORMED_ARGUMENTS",
    "MAX_ROUNDS",
    "PLANNER_TIMEOUT",
    "PLANNER_UNAVAILABLE",
    "Fact",
    "PlanRequest",
    "PlanResult",
    "Planner",
    "PlannerError",
    "Proposal",
    "get_planner",
]
