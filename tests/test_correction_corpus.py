"""The correction corpus: the message right after a card, a correction of it or not.

``tests/data/correction_corpus.tsv``: a first message that makes one todo card, then the
user's next message, as typed, and what must happen (docs/conversation.md, "Corrections of
the card just shown"):

- ``fix; title=…; due=YYYY-MM-DD HH:MM|none; priority=0|1|2`` — the second message
  corrects the card: its response carries one new card naming the first as ``parent_id``,
  with exactly these values, and the first card is voided (superseded);
- ``keep`` — it is not a correction: the first card stays ready, and no card of the second
  response replaces it (a new request may make a card of its own).

Each row runs over HTTP in a fresh conversation, with the clock frozen on Wednesday
2026-12-02 14:00 in Asia/Shanghai and the intent corpus's items. Outcomes per language:
correct; **wrong** (a card replaced that should stay, or replaced with other values — must
be 0); missed (a correction not understood: the card stays, and the user can still reject
it or use its edit form). The figures are printed in the embedded pass of ``make test``.
"""

from __future__ import annotations

import csv
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import time_machine

from agent.models import ActionCard
from agent.sessions import session_create

from .conftest import TEST_BACKEND
from .test_intent_corpus import FROZEN_NOW, corpus_user  # noqa: F401 - the fixture

CORPUS = Path(__file__).parent / "data" / "correction_corpus.tsv"
MIN_CORRECT = 0.90


def load_rows() -> list[list[str]]:
    with CORPUS.open(encoding="utf-8") as handle:
        return [
            row
            for row in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            if row and not row[0].startswith("#")
        ]


def _wanted(expect: str) -> dict[str, str]:
    return dict(part.strip().split("=", 1) for part in expect.split(";")[1:])


def _outcome(expect: str, first: dict[str, Any], second: dict[str, Any]) -> str:
    state = ActionCard.objects.get(id=first["card_id"]).state
    replacing = [card for card in second["cards"] if card.get("parent_id") == first["card_id"]]
    if expect == "keep":
        return "correct" if state == "ready" and not replacing else "wrong"
    if not replacing:
        return "missed" if state == "ready" else "wrong"
    args = replacing[0]["args"]
    wanted = _wanted(expect)
    due = args.get("due_at")
    values = {
        "title": args.get("title"),
        "due": due[:16].replace("T", " ") if due else "none",
        "priority": str(args.get("priority")),
    }
    fixed = state == "voided" and all(
        str(values[key]).casefold() == value.casefold() for key, value in wanted.items()
    )
    return "correct" if fixed else "wrong"


@pytest.mark.skipif(TEST_BACKEND == "services", reason="the corpus runs in the embedded pass")
@pytest.mark.django_db
def test_correction_corpus_over_http(corpus_user, client_for, settings, capsys) -> None:  # noqa: F811
    settings.LIGHTNOTE_PLANNER = "rules"
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "100000/m"
    results: dict[str, Counter[str]] = {}
    failures: list[str] = []
    with time_machine.travel(FROZEN_NOW, tick=False):
        for case_id, first_text, second_text, expect in load_rows():
            language = "zh-CN" if case_id.startswith("z") else "en"
            api = client_for(corpus_user, **{"Accept-Language": language})
            session = str(session_create(owner=corpus_user).id)
            url = f"/api/v1/agent/sessions/{session}/messages/"
            first = api.post(url, {"text": first_text}, format="json").json()
            assert len(first["cards"]) == 1, (case_id, first)  # the row's premise
            second = api.post(url, {"text": second_text}, format="json")
            assert second.status_code == 200, (case_id, second.content)
            outcome = _outcome(expect.strip(), first["cards"][0], second.json())
            for group in (language[:2], "all"):
                results.setdefault(group, Counter())[outcome] += 1
            if outcome != "correct":
                cards = [(card["tool"], card["args"]) for card in second.json()["cards"]]
                failures.append(f"{case_id} [{outcome}] {second_text} -> {expect}; {cards}")
    with capsys.disabled():
        print("\nCorrection corpus (tests/data/correction_corpus.tsv), over HTTP:")
        for group, counts in results.items():
            total = sum(counts.values())
            print(
                f"  {group:<4}{total:>5} correct {counts['correct']:>3} "
                f"({counts['correct'] / total:.0%})  wrong {counts['wrong']}  "
                f"missed {counts['missed']}"
            )
        if os.environ.get("LIGHTNOTE_CORPUS_VERBOSE"):
            print("\n".join(failures))
    assert results["all"]["wrong"] == 0, "\n".join(line for line in failures if "[wrong]" in line)
    total = sum(results["all"].values())
    assert results["all"]["correct"] / total >= MIN_CORRECT, "\n".join(failures)
