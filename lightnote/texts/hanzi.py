"""Traditional Chinese characters and Cantonese particles, read as Simplified, one for one.

People write to LightNote in Traditional characters (幫我新增待辦), and so may a model that
answers them; the planner's grammar, the time parser and the guard's lexicon are written in
Simplified. :func:`simplified` maps every character on its own to one character, so a span
found in the simplified text is the same span of the text as written: a title the planner
cuts out can be given back in the user's own characters (:func:`as_written`).

The table is OpenCC's (``lightnote/texts/data/ts_characters.tsv``: its source, commit and licence
are in the file's header), plus the Cantonese words that have a one-character Mandarin
counterpart (咗 → 了 for a completed action, 嘅 → 的, 嗰 → 那, 冇 → 没, 係 → 是, 喺 → 在, 晒 → 完
"all of it", 啲 → 些, 睇 → 看, 揀 → 选, 剷 → 铲 as in 铲走 "get rid of", 哋 → 们, 佢 → 他) and
帳 → 账 (帳號, an account), which take precedence (OpenCC reads 係 as 系, 帳 as 帐).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_TABLE = Path(__file__).resolve().parent / "data" / "ts_characters.tsv"
# Cantonese words, and 帳 as in 帳號 / 帳戶 (an account; OpenCC's first reading is 帐, a tent).
_OVERRIDES = "咗了嘅的嗰那冇没係是喺在晒完啲些睇看揀选剷铲哋们佢他帳账"


@cache
def _translation() -> dict[int, str]:
    pairs: dict[int, str] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            traditional, simple = line.split("\t")
            pairs[ord(traditional)] = simple
    for traditional, simple in zip(_OVERRIDES[0::2], _OVERRIDES[1::2], strict=True):
        pairs[ord(traditional)] = simple
    return pairs


def simplified(text: str) -> str:
    """``text`` with each Traditional character (and Cantonese particle) read as Simplified;
    the same length, every character where it was."""
    return text.translate(_translation())


def as_written(value: str, *, read: str, written: str) -> str:
    """Give ``value``, cut out of ``read`` (the simplified form of ``written``), back in the
    characters of ``written``.

    A span of ``read`` is the same span of ``written``. A value that is not one span (put
    together from pieces, "完成" + "報告") takes each of its characters back as the text
    wrote it where that is unambiguous; anything else stays as it is.
    """
    if not value or read == written:
        return value
    start = read.find(value)
    if start >= 0:
        return written[start : start + len(value)]
    ways: dict[str, set[str]] = {}
    for simple, original in zip(read, written, strict=True):
        ways.setdefault(simple, set()).add(original)
    back = {simple: originals.pop() for simple, originals in ways.items() if len(originals) == 1}
    return "".join(back.get(char, char) for char in value)
