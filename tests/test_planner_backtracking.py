"""No message can hold the planner hostage: long and repetitive input is answered.

An unseen batch of long note contents found a message the rules planner never finished
(在 Recipes 笔记里加上：番茄炒蛋——…): a tag pattern with a repeated group of repeated
characters (``(?:[^\\s#，,、]+[\\s，,、]*)+?``) backtracked for minutes on a line that was
not a tag request, and the several-writes step read every clause of a long message again
and again; a fuzz run then found "已将截止日" repeated, which the bare-collection pattern
cut into qualifiers every possible way; the undo reading's probes then found "please "
repeated (the English polite tail let a space be taken two ways: 20 repeats took 4 s). All
are fixed (one bounded class; a clause read only where a request may start; an atomic
group; each polite word takes only the spaces before it). This test feeds the planner, the
guard and the undo reading (``agent.cards.undo``) those messages and generated ones — up to
the 4,000 characters a message may have —
and fails if any of them takes longer than ``HANG_SECONDS``: a liveness bound, far above a
normal reading (milliseconds), not a speed target. ``LIGHTNOTE_FUZZ_EXAMPLES`` sets how
many generated messages (``make reliability``: 300).
"""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent.guard import find_claims
from agent.models import MESSAGE_MAX
from agent.planners.lexicon import normalise
from agent.planners.rules import grammar_for, interpret
from lightnote.texts.hanzi import simplified

HANG_SECONDS = 15
EXAMPLES = int(os.environ.get("LIGHTNOTE_FUZZ_EXAMPLES", "40"))
CORPUS = Path(__file__).parent / "data" / "intent_corpus.tsv"

# What the batch and a fuzz run found (each hung the planner before its fix).
FOUND = [
    "在 Recipes 笔记里加上：番茄炒蛋——鸡蛋打散加少许盐，先炒蛋盛出；再炒番茄出汁，加一勺糖，"
    "然后倒回鸡蛋翻匀即可。",
    "在预算笔记里加一行：12月额外支出——体检800，年货2000。然后帮我新建一个待办：周五下午5点前报销发票。",
    "在读书笔记里追加：《三体》里“给岁月以文明，而不是给文明以岁月”这句很打动我。另外，帮我加一个待办："
    "还图书馆的书，明天下午6点前。",
    *(
        "给预算笔记加上" + unit * (3000 // len(unit))
        for unit in ("，", "a，", "：", "的", "把", "「")
    ),
    "，".join(["买菜"] * 1500),
    "已将截止日" * 60,  # every way of cutting it into qualifiers of a bare collection, tried
    "已将截止日" * 800,
    "—" * MESSAGE_MAX,
    # the undo reading (agent.cards.undo): verbs, particles and openings repeated, then a
    # character that fails the match
    *(
        (unit * (MESSAGE_MAX // len(unit) - 1))[: MESSAGE_MAX - 1] + "x"
        for unit in (
            "撤销",
            "恢复回来",
            "撤回一下吧",
            "哎呀，",
            "改回",
            "oh no ",
            "undo ",
            "please ",
        )
    ),
    "撤销，" + "我点错了，" * 790,
]


def _undo_reading(text: str) -> Any:
    read = simplified(normalise(text))
    return grammar_for(read).undo_request(read)


@contextmanager
def _bounded(seconds: int, what: str) -> Iterator[None]:
    def hung(*_: Any) -> None:
        raise AssertionError(f"no answer within {seconds} s: {what[:80]!r}…")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _generated(count: int) -> list[str]:
    """Corpus requests glued together, and with a piece of them repeated, up to the limit."""
    sentences = [
        line.split("\t")[2]
        for line in CORPUS.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#") and line.count("\t") == 3
    ]
    chooser = random.Random(20261204)
    made = []
    for _ in range(count):
        glue = chooser.choice(["，", "。", "; ", " ", "、", "：", ", then ", "然后"])
        made.append(glue.join(chooser.sample(sentences, chooser.randint(2, 25)))[:MESSAGE_MAX])
        text = chooser.choice(sentences)
        start = chooser.randint(0, len(text) // 2)
        end = chooser.randint(start + 1, len(text))
        piece = text[start:end] * chooser.randint(20, 200)
        made.append((text[:start] + piece + text[end:])[:MESSAGE_MAX])
    return made


@pytest.mark.parametrize(
    "reader", [interpret, find_claims, _undo_reading], ids=["planner", "guard", "undo"]
)
def test_long_and_repetitive_messages_are_answered(reader: Callable[[str], Any]) -> None:
    for text in [*FOUND, *_generated(EXAMPLES)]:
        with _bounded(HANG_SECONDS, text):
            reader(text)
