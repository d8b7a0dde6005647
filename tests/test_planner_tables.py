"""The rules planner's data-file loader: a ``piece`` row names a part several patterns share;
``pattern`` and ``words`` rows are read by name."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.planners import tables


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "en").mkdir()
    monkeypatch.setattr(tables, "DATA", tmp_path)
    tables.rows.cache_clear()
    tables._named_rows.cache_clear()
    yield tmp_path
    tables.rows.cache_clear()
    tables._named_rows.cache_clear()


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


def test_named_patterns_fill_pieces_in_order_and_the_shared_quoted_title(data_dir: Path) -> None:
    (data_dir / "en" / "sample.tsv").write_text(
        "piece\tKIND\t(?:todo|task)\n"
        "piece\tTITLE\t(?P<title>{QUOTED}|.+?)\n"
        "pattern\tDELETE\t^delete (?:the )?{KIND} {TITLE}$\n"
        "words\tPOINTERS\tit|that one|this\n",
        encoding="utf-8",
    )
    delete = re.compile(tables.pattern("en", "sample", "DELETE"))
    assert delete.match('delete the task "Buy milk"')["title"] == '"Buy milk"'
    assert delete.match("delete todo water plants")["title"] == "water plants"
    assert tables.words("en", "sample", "POINTERS") == {"it", "that one", "this"}
    with pytest.raises(KeyError):
        tables.pattern("en", "sample", "KIND")  # a piece is no pattern of its own


def test_a_name_given_twice_is_an_error(data_dir: Path) -> None:
    (data_dir / "en" / "sample.tsv").write_text(
        "pattern\tDELETE\t^delete$\nwords\tDELETE\tdelete|remove\n", encoding="utf-8"
    )
    with pytest.raises(ValueError, match="DELETE is named twice"):
        tables.pattern("en", "sample", "DELETE")
