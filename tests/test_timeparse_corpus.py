"""The due-time development corpus (tests/data/duckling-time.tsv): no confident wrong instant.

Every row has a reference "now", a zone and the instant a person means (or "refuse"). A row
is CORRECT when the parser gives that instant (or refuses a row that must be refused),
REFUSED when it refuses a row that has an instant, WRONG when it gives any other instant.
WRONG must stay 0; the figures per language are printed in the embedded pass.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent.timeparse import TimeParseError, parse_time
from tests.conftest import TEST_BACKEND

CORPUS = Path(__file__).parent / "data" / "duckling-time.tsv"

pytestmark = pytest.mark.skipif(
    TEST_BACKEND == "services", reason="a pure-parser corpus: the embedded pass runs it"
)


@dataclass(frozen=True)
class Row:
    lang: str
    text: str
    now: datetime
    zone: ZoneInfo
    expected: str


def corpus_rows() -> list[Row]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line and not line.startswith("#")]
    assert rows[0][:5] == ["lang", "text", "now", "zone", "expected"]
    return [
        Row(lang, text, datetime.fromisoformat(now), ZoneInfo(zone), expected)
        for lang, text, now, zone, expected, *_ in rows[1:]
    ]


def grade(row: Row) -> tuple[str, str]:
    """Return CORRECT / REFUSED / WRONG and what the parser said."""
    try:
        got = parse_time(row.text, now=row.now, zone=row.zone).isoformat()
    except TimeParseError as error:
        return ("CORRECT" if row.expected == "refuse" else "REFUSED"), error.reason
    return ("CORRECT" if got == row.expected else "WRONG"), got


def test_corpus_has_both_languages_and_valid_expectations() -> None:
    rows = corpus_rows()
    assert {row.lang for row in rows} == {"zh", "en"}
    assert len(rows) > 1000
    for row in rows:
        if row.expected != "refuse":
            assert datetime.fromisoformat(row.expected).tzinfo is not None, row


def test_corpus_gives_no_wrong_instant(capsys: pytest.CaptureFixture[str]) -> None:
    counts: Counter[tuple[str, str]] = Counter()
    wrong: list[str] = []
    for row in corpus_rows():
        verdict, got = grade(row)
        counts[row.lang, verdict] += 1
        if verdict == "WRONG":
            wrong.append(f"{row.lang} {row.text!r}: got {got}, expected {row.expected}")
    with capsys.disabled():
        for lang in ("zh", "en"):
            total = sum(counts[lang, verdict] for verdict in ("CORRECT", "REFUSED", "WRONG"))
            print(
                f"\ndue-time corpus {lang}: {total} rows, CORRECT {counts[lang, 'CORRECT']}, "
                f"REFUSED {counts[lang, 'REFUSED']}, WRONG {counts[lang, 'WRONG']}",
                end="",
            )
        print()
    assert wrong == []
