"""The rules engines (planner, time reader, guard) hold mechanisms; the words they read live in
their data files (``agent/planners/data``, ``agent/guard/forms``, ``agent/timeparse`` tables).

A *language literal* is a string constant, other than a docstring or an exception's message
to a developer, with a Chinese character or with two or more English words in it (a pattern's
alternatives count: ``delete|remove``).
A module listed in ``CLEAN`` has none. The others still carry some, each at most its budget
in ``BUDGET``: adding one fails, and removing some fails too until the budget is lowered to
the new count, so the figures only go down.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("agent/planners", "agent/timeparse", "agent/guard")
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{3,}(?![A-Za-z0-9_])")

# Modules whose language still lives in code, with the number of literals they may keep.
BUDGET = {
    "agent/planners/en/__init__.py": 42,
    "agent/planners/en/corrections.py": 7,
    "agent/planners/en/reads.py": 22,
    "agent/planners/en/several.py": 31,
    "agent/planners/en/slots.py": 45,
    "agent/planners/en/undo.py": 30,
    "agent/planners/en/writes.py": 130,
    "agent/planners/lexicon.py": 3,
    "agent/planners/openai.py": 4,
    "agent/planners/phrases.py": 1,
    "agent/planners/prompts.py": 53,
    "agent/planners/questions.py": 58,
    "agent/planners/recurrence.py": 1,
    "agent/planners/replies.py": 10,
    "agent/planners/rules.py": 13,
    "agent/planners/zh/__init__.py": 68,
    "agent/planners/zh/corrections.py": 17,
    "agent/planners/zh/reads.py": 54,
    "agent/planners/zh/several.py": 68,
    "agent/planners/zh/slots.py": 62,
    "agent/planners/zh/undo.py": 32,
    "agent/planners/zh/writes.py": 228,
    "agent/timeparse/grammar.py": 65,
    "agent/timeparse/holidays.py": 77,
    "agent/timeparse/normalise.py": 80,
    "agent/timeparse/words.py": 102,
    "agent/guard/__init__.py": 7,
    "agent/guard/backing.py": 9,
    "agent/guard/forms/__init__.py": 1,
    "agent/guard/grammar_en.py": 13,
    "agent/guard/grammar_zh.py": 39,
    "agent/guard/model_check.py": 2,
    "agent/guard/provenance.py": 10,
    "agent/guard/records.py": 1,
    "agent/guard/text.py": 9,
}


def _not_read_by_users(tree: ast.AST) -> set[int]:
    """Docstrings and the constants of ``raise`` statements."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            found.update(id(inner) for inner in ast.walk(node))
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def is_language(text: str) -> bool:
    return bool(_CJK.search(text)) or len(_WORD.findall(text)) >= 2


def language_literals(path: Path) -> list[tuple[int, str]]:
    """Each language literal of one module: its line and its text."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _not_read_by_users(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and is_language(node.value)
    ]


def counts() -> dict[str, int]:
    found = {}
    for folder in ENGINES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            literals = language_literals(path)
            if literals:
                found[str(path.relative_to(ROOT))] = len(literals)
    return found


def test_the_scan_sees_words_in_patterns_and_sentences_but_not_names() -> None:
    assert is_language("删除")
    assert is_language(r"(?:delete|remove)\s+")
    assert is_language("Nothing was changed.")
    assert not is_language("PLANNER_HELP")
    assert not is_language(r"(?P<title>.+?)\s*$")
    assert not is_language("query_todos")


def test_no_engine_module_gains_language_literals_and_budgets_follow_every_removal() -> None:
    found = counts()
    over = {
        name: (count, BUDGET.get(name, 0))
        for name, count in found.items()
        if count > BUDGET.get(name, 0)
    }
    under = {
        name: (found.get(name, 0), budget)
        for name, budget in BUDGET.items()
        if found.get(name, 0) < budget
    }
    assert over == {}, "words belong in the data files: (found, budget) " + repr(over)
    assert under == {}, "lower these budgets to what is left: (found, budget) " + repr(under)
