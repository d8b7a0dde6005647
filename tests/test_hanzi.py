"""Traditional characters read as Simplified, one for one, and given back as written."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightnote.texts.hanzi import as_written, simplified


def test_the_table_reads_traditional_characters_as_simplified() -> None:
    assert simplified("幫我新增待辦：明天下午三點開會") == "帮我新增待办：明天下午三点开会"
    assert simplified("把繳房租標記為完成") == "把缴房租标记为完成"
    # beyond the words of any grammar: the whole OpenCC character table
    assert simplified("鬱悶的龜兔賽跑") == "郁闷的龟兔赛跑"


def test_cantonese_particles_and_the_account_reading_take_precedence() -> None:
    assert simplified("已經幫你剷走咗") == "已经帮你铲走了"
    assert simplified("係咪") == "是咪"  # OpenCC alone reads 係 as 系
    assert simplified("刪除帳號") == "删除账号"  # an account, not a tent (帐)


def test_simplified_text_and_other_scripts_are_left_alone() -> None:
    text = "提交周报 Pay rent ✅ 2026-12-02 著名"
    assert simplified(text) == text


@given(st.text(max_size=60))
def test_every_character_stays_where_it_was(text: str) -> None:
    read = simplified(text)
    assert len(read) == len(text)
    assert all((a == b) or (len(a) == 1 and len(b) == 1) for a, b in zip(read, text, strict=True))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("缴房租", "繳房租"),  # a span of the text: the same span as written
        ("完成报告", "完成報告"),  # put together from pieces: each character as written
        ("Pay rent", "Pay rent"),
        ("", ""),
    ],
)
def test_values_are_given_back_as_the_user_wrote_them(value: str, expected: str) -> None:
    written = "把繳房租標記為完成，報告週五前 Pay rent"
    assert as_written(value, read=simplified(written), written=written) == expected


def test_a_character_written_two_ways_is_left_as_read() -> None:
    written = "報告 报告"  # 报 stands for 報 once and for itself once: no single way back
    assert as_written("报", read=simplified(written), written=written) == "報"  # the first span
    assert as_written("报x", read=simplified(written), written=written) == "报x"
