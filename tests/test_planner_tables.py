"""The rules planner's data-file loader: a ``piece`` row names a part several patterns share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.planners import tables


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "en").mkdir()
    monkeypatch.setattr(tables, "DATA", tmp_path)
    tables.rows.cache_clear()
    yield tmp_path
    tables.rows.cache_clear()


def test_a_piece_fills_every_pattern_that_names_it_and_is_no_row_of_its_own(data_dir: Path) -> None:
    (data_dir / "en" / "sample.tsv").write_text(
        "# a comment\n"
        "piece\tLIST\t(?:my\\s+)?list\n"
        "reword\t^take (?P<item>.+?) off {LIST}$\tdelete {item}\n"
        "rule\t\\d{1,2} on {LIST}\tFREQ=DAILY\n",
        encoding="utf-8",
    )
    found = tables.rows("en", "sample")
    assert found == {
        "reword": (("^take (?P<item>.+?) off (?:my\\s+)?list$", "delete {item}"),),
        "rule": (("\\d{1,2} on (?:my\\s+)?list", "FREQ=DAILY"),),
    }


def test_a_pattern_naming_an_unknown_piece_is_an_error_not_a_literal(data_dir: Path) -> None:
    (data_dir / "en" / "sample.tsv").write_text("reword\t^x {LIST}$\ty\n", encoding="utf-8")
    with pytest.raises(KeyError, match="LIST"):
        tables.rows("en", "sample")


def test_the_english_requests_table_uses_its_pieces() -> None:
    words = tables.rows("en", "requests")
    assert "piece" not in words
    assert not any("{LIST}" in row[0] or "{ASK}" in row[0] for row in words["reword"])
    assert any("to[\\s-]?do\\s+list" in row[0] for row in words["reword"])
