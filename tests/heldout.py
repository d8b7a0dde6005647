"""The frozen held-out sets (``tests/data/heldout/``) and the figures their tests report.

Issues 43 and 44 ask for evaluation rows drawn from public sources and written before the
engine work, scored on their first run and never tuned on. Each file names its sources and
licences in its header; ``tests/test_heldout_freeze.py`` pins every file's sha256, so a row
cannot be edited to pass. Later work is measured on a NEW batch file, added beside these.

``FIGURES`` collects the lines the scoring tests print; ``conftest.pytest_terminal_summary``
writes them at the end of the run.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

HELDOUT_DIR = Path(__file__).parent / "data" / "heldout"
# Every planner batch, oldest first; a batch is scored and reported on its own.
PLANNER_FILES = ("planner_zh.tsv", "planner_en.tsv", "planner_zh_b2.tsv", "planner_en_b2.tsv")
PLANNER_LANGUAGES = ("zh", "en")
GUARD_FILES = {"zh": "guard_zh.tsv", "en": "guard_en.tsv"}
ITEMS_FILE = "planner_items.tsv"
SITUATIONS = {
    "1": "write turn with a card",
    "2": "write request, no tool call",
    "3": "read-only turn",
    "4": "final reply after a confirmed create",
}
LABELS = ("claim", "honest")
FIGURES: list[str] = []


@dataclass(frozen=True)
class PlannerRow:
    id: str
    source: str
    source_text: str
    message: str
    expect: str

    @property
    def language(self) -> str:
        return self.id.split("-")[0]


@dataclass(frozen=True)
class GuardRow:
    id: str
    situation: str
    label: str  # "claim" | "honest"
    origin: str  # "source:<repo>/<path>#<pointer>" | "paraphrase"
    text: str

    @property
    def language(self) -> str:
        return self.id.split("-")[0]

    @property
    def is_claim(self) -> bool:
        return self.label == "claim"


def _rows(name: str, width: int, directory: Path = HELDOUT_DIR) -> list[list[str]]:
    rows = []
    with (directory / name).open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        for number, row in enumerate(reader, start=1):
            if not row or row[0].startswith("#"):
                continue
            if len(row) != width:
                raise ValueError(f"{name}:{number}: expected {width} tab-separated fields")
            rows.append(row)
    return rows[1:]  # the first non-comment line names the columns


def planner_language(name: str) -> str:
    """Return the language (``zh`` or ``en``) of a planner batch file."""
    return name.split("_")[1].split(".")[0]


def load_planner(name: str) -> list[PlannerRow]:
    """Return the rows of one planner batch file."""
    return [PlannerRow(*row) for row in _rows(name, 5)]


def load_guard(language: str) -> list[GuardRow]:
    """Return the guard rows of one language; ``\\n`` in a text is a line break."""
    return [
        GuardRow(row_id, situation, label, origin, text.replace("\\n", "\n"))
        for row_id, situation, label, origin, text in _rows(GUARD_FILES[language], 5)
    ]


def load_guard_tuning(language: str) -> list[GuardRow]:
    """Return the guard TUNING rows of one language (``tests/data/guard_tune_*.tsv``)."""
    return [
        GuardRow(row_id, situation, label, origin, text.replace("\\n", "\n"))
        for row_id, situation, label, origin, text in _rows(
            f"guard_tune_{language}.tsv", 5, HELDOUT_DIR.parent
        )
    ]


@dataclass(frozen=True)
class Item:
    kind: str  # "todo" | "note"
    title: str
    status: str  # todos: open | done; notes: -
    due: datetime | None
    content: str


def load_items() -> list[Item]:
    """Return the items the planner rows refer to, beside the intent corpus's own."""
    zone = ZoneInfo("Asia/Shanghai")
    items = []
    for kind, title, status, due, content in _rows(ITEMS_FILE, 5):
        when = None if due == "-" else datetime.fromisoformat(due).replace(tzinfo=zone)
        items.append(Item(kind, title, status, when, "" if content == "-" else content))
    return items
