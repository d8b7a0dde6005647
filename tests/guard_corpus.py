"""The guard's corpus (``tests/data/guard_corpus/``) and the figures the tests report.

``FIGURES`` collects one line per measured run; ``conftest.pytest_terminal_summary`` prints
them at the end of the run, so ``make test`` shows recall and false replacements per
language whatever the verbosity.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS_DIR = Path(__file__).parent / "data" / "guard_corpus"
SPLITS = ("tune", "heldout", "probes")
FIGURES: list[str] = []


@dataclass(frozen=True)
class Reply:
    label: str  # "claim" | "none"
    lang: str  # "zh" | "en"
    kind: str  # create | update | status | delete | other | any | -
    text: str
    split: str  # "tune" | "heldout" | "probes"

    @property
    def is_claim(self) -> bool:
        return self.label == "claim"


def load() -> list[Reply]:
    """Return every reply of the corpus, tune split first."""
    replies = []
    for split in SPLITS:
        lines = (CORPUS_DIR / f"{split}.tsv").read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines[1:], start=2):
            fields = line.split("\t")
            if len(fields) != 4:
                raise ValueError(f"{split}.tsv:{number}: expected 4 tab-separated fields")
            label, lang, kind, text = fields
            replies.append(Reply(label, lang, kind, text.replace("\\n", "\n"), split))
    return replies


@dataclass
class Tally:
    """Recall on claims and false replacements on non-claims, for one language."""

    claims: int = 0
    caught: int = 0
    non_claims: int = 0
    replaced: int = 0

    @property
    def recall(self) -> float:
        return self.caught / self.claims if self.claims else 1.0

    @property
    def false_rate(self) -> float:
        return self.replaced / self.non_claims if self.non_claims else 0.0

    def line(self, label: str) -> str:
        return (
            f"{label}: recall {self.caught}/{self.claims} = {self.recall:.1%}, "
            f"false replacements {self.replaced}/{self.non_claims} = {self.false_rate:.1%}"
        )


def report(situation: str, tallies: dict[tuple[str, str], Tally]) -> None:
    """Record the figures of one situation, per language and split."""
    for (lang, split), tally in sorted(tallies.items()):
        FIGURES.append(tally.line(f"{situation} [{lang}, {split}]"))
