"""What the follow-on corpora share (the message right after a card, a list or a change:
``tests/test_correction_corpus.py``, ``tests/test_undo_corpus.py``): their rows, their
figures per language, and the bar they must clear."""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path
from typing import Any


def load_rows(path: Path) -> list[list[str]]:
    """The corpus's rows (tab-separated; ``#`` lines are comments)."""
    with path.open(encoding="utf-8") as handle:
        return [
            row
            for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            if row and not row[0].startswith("#")
        ]


def check_figures(
    title: str,
    results: dict[str, Counter[str]],
    failures: list[str],
    *,
    capsys: Any,
    min_correct: float,
) -> None:
    """Print the figures per language (every failure with ``LIGHTNOTE_CORPUS_VERBOSE``), then
    fail on any wrong outcome or below ``min_correct``."""
    with capsys.disabled():
        print(f"\n{title}, over HTTP:")
        for group, counts in results.items():
            total = sum(counts.values())
            print(
                f"  {group:<4}{total:>5} correct {counts['correct']:>3} "
                f"({counts['correct'] / total:.0%})  wrong {counts['wrong']}  "
                f"missed {counts['missed']}"
            )
        if os.environ.get("LIGHTNOTE_CORPUS_VERBOSE"):
            print("\n".join(failures))
    assert results["all"]["wrong"] == 0, "\n".join(line for line in failures if "[wrong]" in line)
    total = sum(results["all"].values())
    assert results["all"]["correct"] / total >= min_correct, "\n".join(failures)
