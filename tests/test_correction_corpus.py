"""The follow-on corpus: the message right after a card or a list — a correction of the card,
a position in the list, or neither.

``tests/data/correction_corpus.tsv``: a first message that makes one todo card, then the
user's next message, as typed, and what must happen (docs/conversation.md, "Corrections of
the card just shown"):

- ``fix; title=…; due=YYYY-MM-DD HH:MM|none; priority=0|1|2`` — the second message
  corrects the card: its response carries one new card naming the first as ``parent_id``,
  with exactly these values, and the first card is voided (superseded);
- ``keep`` — it is not a correction: the first card stays ready, and no card of the second
  response replaces it (a new request may make a card of its own);
- ``pick; tool=…; nth=N`` — the first message is a read that lists items and the second
  names one by its position (N, or -1 for the last): one card of that tool, for exactly the
  item the first response listed there (agent.conversation.list_references);
- ``nopick`` — an ordinal-looking word that is no position ("第二天", "the first draft"): no
  card for a listed item it does not name by title.

Each row runs over HTTP in a fresh conversation, with the clock frozen on Wednesday
2026-12-02 14:00 in Asia/Shanghai and the intent corpus's items. Outcomes per language:
correct; **wrong** (a card replaced that should stay, or replaced with other values — must
be 0); missed (a correction not understood: the card stays, and the user can still reject
it or use its edit form). The figures are printed in the embedded pass of ``make test``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import time_machine

from agent.conversation.sessions import session_create
from agent.models import ActionCard
from notes import services as note_services

from .conftest import TEST_BACKEND
from .follow_on_corpus import check_figures, load_rows
from .test_intent_corpus import FROZEN_NOW, corpus_user  # noqa: F401 - the fixture

# Notes besides the intent corpus's, so a search for each word lists several to pick from.
MORE_NOTES = [
    ("周会 6/5", "周会：讨论排期"),
    ("周会 6/12", "周会：复盘"),
    ("周会纪要", "周会要点"),
    ("预算 Q2", "二季度预算"),
    ("预算调整", "预算变更记录"),
    ("预算审批", "预算流程"),
    ("Standup 6/5", "standup notes"),
    ("Standup retro", "standup retro"),
    ("Standup blockers", "standup blockers list"),
    ("Soup recipes", "recipes for soups"),
    ("Dessert recipes", "recipes for desserts"),
    ("Recipes to try", "recipes from friends"),
]

CORPUS = Path(__file__).parent / "data" / "correction_corpus.tsv"
MIN_CORRECT = 0.90


def _wanted(expect: str) -> dict[str, str]:
    return dict(part.strip().split("=", 1) for part in expect.split(";")[1:])


def _listed(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [item for fact in body["facts"] for item in fact.get("items", [])]


def _picked(expect: str, first: dict[str, Any], second: dict[str, Any]) -> str:
    """A position in the list the first message showed: the card for the item listed there."""
    listed = _listed(first)
    cards = second["cards"]
    targets = [str(card["args"].get("todo_id") or card["args"].get("note_id")) for card in cards]
    if expect == "nopick":
        named = {str(item["id"]) for item in listed if item["title"] in second.get("text", "")}
        by_position = [t for t in targets if t in {str(i["id"]) for i in listed} - named]
        return "wrong" if by_position else "correct"
    wanted = _wanted(expect)
    if wanted["tool"] == "delete_note":  # a planned capability: its notice, no card
        planned = any(notice["status"] == "planned" for notice in second["notices"])
        return "correct" if planned and not cards else "wrong" if cards else "missed"
    nth = int(wanted["nth"])
    assert abs(nth) <= len(listed), f"the list shows {len(listed)} items, not {nth}"  # premise
    item = listed[nth - 1 if nth > 0 else nth]
    if len(cards) == 1 and cards[0]["tool"] == wanted["tool"] and targets == [str(item["id"])]:
        return "correct"
    return "wrong" if cards else "missed"


def _outcome(expect: str, first: dict[str, Any], second: dict[str, Any]) -> str:
    if expect.split(";")[0].strip() in ("pick", "nopick"):
        return _picked(expect, first, second)
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
    for title, content in MORE_NOTES:
        note_services.note_create(owner=corpus_user, title=title, content=content)
    results: dict[str, Counter[str]] = {}
    failures: list[str] = []
    with time_machine.travel(FROZEN_NOW, tick=False):
        for case_id, first_text, second_text, expect in load_rows(CORPUS):
            language = "zh-CN" if case_id.startswith("z") else "en"
            api = client_for(corpus_user, **{"Accept-Language": language})
            session = str(session_create(owner=corpus_user).id)
            url = f"/api/v1/agent/sessions/{session}/messages/"
            first = api.post(url, {"text": first_text}, format="json").json()
            picking = expect.startswith(("pick", "nopick"))
            # the row's premise: a card to correct, or a list to pick from
            assert picking or len(first["cards"]) == 1, (case_id, first)
            assert not picking or _listed(first), (case_id, first)
            second = api.post(url, {"text": second_text}, format="json")
            assert second.status_code == 200, (case_id, second.content)
            shown = first if picking else first["cards"][0]
            outcome = _outcome(expect.strip(), shown, {**second.json(), "text": second_text})
            for group in (language[:2], "all"):
                results.setdefault(group, Counter())[outcome] += 1
            if outcome != "correct":
                cards = [(card["tool"], card["args"]) for card in second.json()["cards"]]
                failures.append(f"{case_id} [{outcome}] {second_text} -> {expect}; {cards}")
    check_figures(
        "Follow-on corpus (tests/data/correction_corpus.tsv)",
        results,
        failures,
        capsys=capsys,
        min_correct=MIN_CORRECT,
    )
