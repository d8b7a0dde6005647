"""The protocol packages, the entry points and the base layer keep functions short enough to
read in one screen: none longer than 80 lines (the planner, guard and time engines are
data-driven engines of their own, and are not held to it here)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELD = (
    "agent/cards",
    "agent/choices",
    "agent/continuations",
    "agent/conversation",
    "agent/api",
    "agent/web",
    "lightnote",
)
MAX_LINES = 80


def long_functions() -> list[str]:
    found = []
    for folder in HELD:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > MAX_LINES:
                        relative = path.relative_to(ROOT)
                        found.append(f"{relative}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_in_the_protocol_entry_points_or_base_is_longer_than_80_lines() -> None:
    assert long_functions() == []
