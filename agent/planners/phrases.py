"""Phrase tables of the reads: the words of paging, time windows, "all notes", questions
about the card in front of the user and the pronouns naming its item, one file per language.

``agent/planners/data/<language>/reads.tsv`` holds rows ``kind <TAB> pattern <TAB> value``:
each pattern a regular expression (case-insensitive), the value what the row means (a
window's name, a number) or empty. One engine reads every kind the same way: a message is
folded (:func:`fold`: the ``lead`` and ``trail`` rows — politeness, particles, punctuation —
peeled off its ends), then :func:`whole` finds the first row of a kind matching all of it and
:func:`search` the first matching anywhere in it. A ``bound`` row holds ``{time}``, the time
said, so that it says whether that time is an upper bound (明天之前, "by tomorrow").
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_DATA = Path(__file__).resolve().parent / "data"
_CJK = re.compile(r"[\u3400-\u9fff]")


@dataclass(frozen=True)
class Row:
    kind: str
    pattern: str
    value: str


@dataclass(frozen=True)
class Found:
    """A row that matched: its value and what its named groups caught."""

    value: str
    groups: dict[str, str]


def language_of(text: str) -> str:
    """``zh`` for a text with Chinese characters, else ``en`` (the grammars' own choice)."""
    return "zh" if _CJK.search(text) else "en"


@cache
def _rows(language: str) -> tuple[Row, ...]:
    path = _DATA / language / "reads.tsv"
    with path.open(encoding="utf-8") as handle:
        rows = [
            Row(line[0], line[1], line[2] if len(line) > 2 else "")
            for line in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            if line and not line[0].startswith("#")
        ]
    return tuple(rows)


@cache
def compiled(language: str, kind: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple(
        (re.compile(row.pattern, re.IGNORECASE), row.value)
        for row in _rows(language)
        if row.kind == kind
    )


def fold(text: str, language: str | None = None) -> str:
    """``text`` with its ``lead`` and ``trail`` rows peeled off its ends, spaces single."""
    language = language or language_of(text)
    folded = " ".join(text.split())
    ends = compiled(language, "lead") + compiled(language, "trail")
    changed = True
    while changed and folded:
        changed = False
        for pattern, _ in ends:
            peeled = pattern.sub("", folded, count=1).strip()
            if peeled != folded:
                folded, changed = peeled, True
    return folded


def whole(kind: str, text: str, language: str | None = None) -> Found | None:
    """The first ``kind`` row matching all of the folded ``text``, or None."""
    language = language or language_of(text)
    folded = fold(text, language)
    for pattern, value in compiled(language, kind):
        match = pattern.fullmatch(folded)
        if match:
            return Found(value, {k: v for k, v in match.groupdict().items() if v})
    return None


def search(kind: str, text: str, language: str | None = None) -> Found | None:
    """The first ``kind`` row matching somewhere in ``text``, or None."""
    language = language or language_of(text)
    for pattern, value in compiled(language, kind):
        match = pattern.search(text)
        if match:
            return Found(value, {k: v for k, v in match.groupdict().items() if v})
    return None


def number(word: str, language: str) -> int | None:
    """The number a word says (二, 3, "third"), from the ``number`` rows, or None."""
    if word.isdigit():
        return int(word)
    found = whole("number", word, language)
    return int(found.value) if found else None


def window(said: str, text: str, language: str) -> str | None:
    """The window (``today``, ``this_week``…) a time said names in ``text``, unless ``text``
    makes it an upper bound (a ``bound`` row: 明天之前, "by tomorrow"), or None."""
    found = whole("window", said, language)
    if found is None:
        return None
    for row in _rows(language):
        if row.kind == "bound" and re.search(
            row.pattern.replace("{time}", re.escape(said)), text, re.IGNORECASE
        ):
            return None
    return found.value


def page_asked(text: str) -> tuple[str, int | None] | None:
    """Whether ``text`` asks for a page of a list: ``(the read it names, the page number)``.

    The read is "" for a page of the last list ("下一页", "more": number None; "第二页",
    "page 2": that number); "列出我的待办，第二页" names its read and then the page.
    """
    language = language_of(text)
    asked = _page_of(text, language)
    if asked is not None:
        return "", asked[0]
    head, _, tail = re.sub(r"[，,;；]\s*(?=[^，,;；]+$)", "\n", text.strip()).partition("\n")
    asked = _page_of(tail, language) if tail else None
    if asked is None or not head.strip():
        return None
    return head.strip(), asked[0]


def _page_of(text: str, language: str) -> tuple[int | None] | None:
    if whole("page_next", text, language):
        return (None,)
    at = whole("page_at", text, language)
    if at is None:
        return None
    page = number(at.groups.get("n", ""), language)
    return (page,) if page else None
