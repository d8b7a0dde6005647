"""The undo corpus: the message right after a confirmed change — take it back, or not.

``tests/data/undo_corpus.tsv``: a first message that makes one card (confirmed here), then
the user's next message as typed, and ``undo`` (the response offers one card that takes the
change back, ``compensates_id`` naming the first card, and no other card) or ``noundo`` (no
card takes it back). Each row runs over HTTP with a user of its own holding the intent
corpus's items (a confirmed delete must not leak into the next row). Outcomes per language:
correct; **wrong** (a change taken back that was not asked for, or another write offered
instead of the undo — must be 0); missed (an undo not understood: the card's own undo
button still offers it). The figures are printed in the embedded pass of ``make test``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import time_machine

from agent.conversation.sessions import session_create

from .conftest import TEST_BACKEND
from .follow_on_corpus import check_figures, load_rows
from .test_intent_corpus import FROZEN_NOW, add_corpus_items

CORPUS = Path(__file__).parent / "data" / "undo_corpus.tsv"
MIN_CORRECT = 0.95


def _user(make_user: Any, number: int) -> Any:
    user = make_user(f"undo{number}", time_zone="Asia/Shanghai")
    add_corpus_items(user)
    return user


def _outcome(expect: str, first_card_id: str, second: dict[str, Any]) -> str:
    cards = second["cards"]
    undoing = [card for card in cards if card.get("compensates_id") == first_card_id]
    if expect == "noundo":
        return "wrong" if undoing else "correct"
    if undoing and len(cards) == 1:
        return "correct"
    return "wrong" if cards else "missed"


@pytest.mark.skipif(TEST_BACKEND == "services", reason="the corpus runs in the embedded pass")
@pytest.mark.django_db
def test_undo_corpus_over_http(make_user, client_for, settings, capsys) -> None:
    settings.LIGHTNOTE_PLANNER = "rules"
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "100000/m"
    results: dict[str, Counter[str]] = {}
    failures: list[str] = []
    with time_machine.travel(FROZEN_NOW, tick=False):
        for number, (case_id, first_text, second_text, expect) in enumerate(load_rows(CORPUS)):
            language = "zh-CN" if case_id.startswith("z") else "en"
            user = _user(make_user, number)
            api = client_for(user, **{"Accept-Language": language})
            session = str(session_create(owner=user).id)
            url = f"/api/v1/agent/sessions/{session}/messages/"
            first = api.post(url, {"text": first_text}, format="json").json()
            assert len(first["cards"]) == 1, (case_id, first)  # the row's premise
            (card,) = first["cards"]
            confirmed = api.post(
                "/api/v1/agent/confirmations/confirm/",
                {"token": card["token"], "session_id": session},
                format="json",
            )
            assert confirmed.json()["outcome"]["ok"] is True, (case_id, confirmed.content)
            second = api.post(url, {"text": second_text}, format="json")
            assert second.status_code == 200, (case_id, second.content)
            outcome = _outcome(expect.strip(), card["card_id"], second.json())
            for group in (language[:2], "all"):
                results.setdefault(group, Counter())[outcome] += 1
            if outcome != "correct":
                cards = [(c["tool"], c["args"]) for c in second.json()["cards"]]
                failures.append(f"{case_id} [{outcome}] {second_text} -> {expect}; {cards}")
    check_figures(
        "Undo corpus (tests/data/undo_corpus.tsv)",
        results,
        failures,
        capsys=capsys,
        min_correct=MIN_CORRECT,
    )
