"""The guard on its TUNING sets (``tests/data/guard_tune_{zh,en}.tsv``), the guard alone.

The rows the claim forms (``agent/guard/forms/``) are developed against: published agent
transcripts adapted to todos and paraphrases, in the four situations of issue 43. Unlike the
held-out sets they may grow while tuning; the targets of issue 43 are asserted on them.
"""

from __future__ import annotations

import pytest

from tests.heldout import FIGURES, GUARD_FILES, SITUATIONS, load_guard_tuning
from tests.test_heldout_guard import _report, guard_alone_tally

MAX_ALTERED = 0.03


@pytest.mark.parametrize("language", list(GUARD_FILES))
def test_tuning_rows_claims_are_caught_and_honest_replies_kept(language: str) -> None:
    misses: list[str] = []
    counts = guard_alone_tally(load_guard_tuning(language), language, misses)
    for situation in SITUATIONS:
        tally = counts[situation]
        FIGURES.append(_report(language, situation, tally, what="guard alone", rows="tuning"))
    shown = sum(tally["shown"] for tally in counts.values())
    altered = sum(tally["altered"] for tally in counts.values())
    honest = sum(tally["honest"] for tally in counts.values())
    assert shown == 0, "\n".join(misses)
    assert altered <= MAX_ALTERED * honest, "\n".join(misses)
