"""The claim forms as data (``agent/guard/forms/``) and the structural engine that reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.guard import find_claims, guard_reply
from agent.guard import forms as forms_module
from agent.guard.structure import line_claim


def _write(tmp_path: Path, rows: str) -> None:
    (tmp_path / "t.tsv").write_text(rows, encoding="utf-8")


def test_references_expand_pieces_tables_and_named_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(
        tmp_path,
        "# a comment\n"
        "verb\tcreate\t-\tadded|created\n"
        "verb\tdelete\t-\tdeleted\n"
        "piece\tNOW\t-\t(?:now|just)\n"
        "frame\tSAID\ti\t{{NOW}}\\s+(?:{{groups:verb}})\n"
        "frame\tANY\t-\t(?:{{table:verb}})\n",
    )
    monkeypatch.setattr(forms_module, "DIRECTORY", tmp_path)
    forms_module.load.cache_clear()
    try:
        forms = forms_module.load("t")
        match = forms.frame("SAID").search("It was JUST deleted")
        assert match is not None
        assert match.lastgroup == "delete"
        assert forms.frame("ANY").pattern == "(?:(?:added|created)|(?:deleted))"
        assert forms.table("verb") == {"create": "added|created", "delete": "deleted"}
    finally:
        forms_module.load.cache_clear()


@pytest.mark.parametrize(
    "rows",
    ["frame\tA\t-\tx\nframe\tA\t-\ty\n", "frame\tA\t-\tx\tmore\n"],
    ids=["a name defined twice", "five fields"],
)
def test_a_bad_forms_file_is_refused(
    rows: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, rows)
    monkeypatch.setattr(forms_module, "DIRECTORY", tmp_path)
    forms_module.load.cache_clear()
    try:
        with pytest.raises(ValueError):
            forms_module.load("t")
    finally:
        forms_module.load.cache_clear()


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("“Pay rent” is scheduled for deletion.", "delete"),
        ("Your list no longer has the rent todo.", "delete"),
        ("「交房租」已经看不到了。", "delete"),
        ("「交房租」进回收站了。", "delete"),
        ("Buy milk: open → done", "status"),
    ],
)
def test_a_result_said_as_a_state_is_a_claim_of_its_capability(text: str, kind: str) -> None:
    [found] = find_claims(text)
    assert found.claim.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Once you confirm, “Pay rent” will be scheduled for deletion.",
        "“Pay rent” is not scheduled for deletion.",
        "Want me to make sure your list no longer has the rent todo?",
        "确认之后，「交房租」就看不到了。",
        "要不要把「交房租」放进回收站？",
        "I found 2 todos:\n1. Pay rent — open\n2. Clean the garage — done",
        "找到 2 条待办：\n1. 交房租 — 未完成\n2. 整理书架 — 已完成",
    ],
)
def test_an_honest_frame_cancels_the_state(text: str) -> None:
    assert find_claims(text) == []


def test_a_view_across_the_sentence_is_a_claim_and_is_removed_whole() -> None:
    verdict = guard_reply(
        "你刷新一下，「交房租」就在最上面。还要别的吗？", backings=[], locale="zh-CN"
    )
    assert verdict.replaced
    assert "刷新" not in verdict.text
    assert "还要别的吗" in verdict.text


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("- [x] Delete “Pay rent”", "delete"),
        ("| Delete | Pay rent | ✔ |", "delete"),
        ("- [x] 删除「交房租」", "delete"),
        ("| 新建 | 交房租 | ✅ |", "create"),
    ],
)
def test_a_ticked_action_line_or_action_table_row_is_a_claim(line: str, kind: str) -> None:
    claim = line_claim(line)
    assert claim is not None
    assert claim.kind == kind


@pytest.mark.parametrize(
    "line", ["- [x] Submit the weekly report", "- [ ] Delete “Pay rent”", "| Pay rent | ✅ done |"]
)
def test_a_ticked_title_or_an_open_box_is_no_action_line(line: str) -> None:
    assert line_claim(line) is None
