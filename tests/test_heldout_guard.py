"""The truthfulness guard on the frozen held-out claim sets (issue 43, Deliver 3).

``tests/data/heldout/guard_{zh,en}.tsv`` hold model replies — result sentences of published
tool-use transcripts (tau-bench) adapted to todos, and paraphrases written before any tuning —
each labelled ``claim`` (states an outcome no receipt of its turn backs) or ``honest``, in the
four situations of the issue. Each row runs through the HTTP API with a scripted model in its
own situation, as ``tests/test_guard_corpus.py`` does for the project's corpus:

1. a write turn with a card (the model proposes a create and says the text);
2. a write request the model answered without a tool call;
3. a read-only turn (the model reads the todos and says the text);
4. the final reply of the continuation after a confirmed create.

Per language and situation the figures are printed at the end of the run (embedded pass):
claims shown (a claim row whose text reached the screen, or whose replacement still claims)
and honest replies altered. ``test_guard_alone_heldout_figures_are_reported`` prints the same
figures for the guard's verdict alone (situation 4 backed by the confirmed create), in both
passes. A card turn shows the server's own text, never the model's prose (issue 43, Deliver
1): over HTTP situation 1 says so ("model prose withheld on card turns (by design)") rather
than counting every honest reply as altered; its guard-alone line is the filter's own figure.
Issue 43's targets (0 claims shown, ≤ 3 % honest altered) are reported, never asserted here:
the rows are never tuned on (``tests/test_guard_tune.py`` asserts them on the tuning sets).
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from agent.continuations import store as continuation_store
from agent.guard import FIXED_TEXTS, find_claims, guard_reply
from agent.guard.backing import backing_for
from agent.models import ActionReceipt
from agent.planners.base import PlanRequest, PlanResult, Proposal
from tests.conftest import TEST_BACKEND
from tests.heldout import FIGURES, GUARD_FILES, LABELS, SITUATIONS, GuardRow, load_guard
from tests.test_conversation_api import REPLY, confirm, new_session, say
from todos import services as todo_services

pytestmark = pytest.mark.django_db

MIN_ROWS = 150  # per language and situation (issue 43)
TURNS_PER_SESSION = 8
# What the user says and owns in each language (the files' headers say the same).
SETUP = {
    "zh": {
        "title": "周会纪要",
        "create": "帮我创建待办周会纪要",
        "delete": "把周报那条待办删掉",
        "read": "我有哪些待办？",
        "todos": [("交房租", False), ("买牛奶", False), ("整理书架", True), ("提交周报", False)],
    },
    "en": {
        "title": "Weekly meeting notes",
        "create": "create a todo Weekly meeting notes",
        "delete": "delete the weekly report todo",
        "read": "show my todos",
        "todos": [
            ("Pay rent", False),
            ("Buy milk", False),
            ("Clean the garage", True),
            ("Submit the weekly report", False),
        ],
    },
}


def test_each_language_and_situation_has_at_least_150_labelled_rows() -> None:
    for language in GUARD_FILES:
        rows = load_guard(language)
        assert len({row.id for row in rows}) == len(rows)
        assert all(row.language == language for row in rows)
        assert {row.label for row in rows} == set(LABELS)
        assert all(row.origin == "paraphrase" or row.origin.startswith("source:") for row in rows)
        per_situation = Counter(row.situation for row in rows)
        assert set(per_situation) == set(SITUATIONS)
        assert min(per_situation.values()) >= MIN_ROWS, per_situation
        for situation in SITUATIONS:
            labels = Counter(row.label for row in rows if row.situation == situation)
            assert labels["claim"], (language, situation)
            assert labels["honest"], (language, situation)


class ScriptedModel:
    """A planner that says the scripted text, and proposes a create or reads when told."""

    def __init__(self) -> None:
        self.text = ""
        self.title = ""
        self.propose = False
        self.read = False

    def plan(self, request: PlanRequest) -> PlanResult:
        facts = [request.run_read_tool("query_todos", {})] if self.read else []
        proposals = [Proposal(tool="create_todo", args={"title": self.title})]
        return PlanResult(text=self.text, proposals=proposals if self.propose else [], facts=facts)

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        return self.text


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, settings: Any) -> ScriptedModel:
    scripted = ScriptedModel()
    monkeypatch.setattr("agent.conversation.readers.get_planner", lambda: scripted)
    monkeypatch.setattr("agent.continuations.reply.get_planner", lambda: scripted)
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "100000/m"
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "100000/m"
    return scripted


def test_guard_alone_heldout_figures_are_reported() -> None:
    """The guard's verdict on each row without the API (both passes, fast)."""
    for language in GUARD_FILES:
        counts = guard_alone_tally(load_guard(language), language)
        for situation, tally in counts.items():
            FIGURES.append(_report(language, situation, tally, what="guard alone"))


def guard_alone_tally(
    rows: list[GuardRow], language: str, misses: list[str] | None = None
) -> dict[str, Counter[str]]:
    """Per situation: claims, claims shown, honest replies, honest replies altered."""
    locale = "zh-CN" if language == "zh" else "en"
    created = backing_for(
        action_id=uuid.uuid4(),
        capability="todo.create",
        resource_type="todo",
        result={"title": SETUP[language]["title"]},
    )
    assert created is not None
    counts: dict[str, Counter[str]] = {situation: Counter() for situation in SITUATIONS}
    for row in rows:
        backed = row.situation == "4"
        verdict = guard_reply(
            row.text,
            backings=[created] if backed else [],
            locale=locale,
            focus=created if backed else None,
        )
        tally = counts[row.situation]
        if row.is_claim:
            shown = not verdict.replaced or (not backed and _claims_left(verdict.text))
            tally["claims"] += 1
            tally["shown"] += shown
        else:
            shown = verdict.replaced
            tally["honest"] += 1
            tally["altered"] += shown
        if shown and misses is not None:
            misses.append(f"  {row.id} [{row.label}] {row.text!r}")
    return counts


def _guarded(body: dict[str, Any]) -> bool:
    return any(notice.get("code") == "REPLY_UNBACKED_CLAIM" for notice in body.get("notices", []))


def _claims_left(text: str) -> bool:
    for fixed in FIXED_TEXTS:
        text = text.replace(fixed, "")
    return bool(find_claims(text))


# A runner says one row's text in its situation and returns (claim shown, text altered).
Runner = Callable[[GuardRow], tuple[bool, bool]]


def _message_turn(api: Any, model: ScriptedModel, situation: str, language: str) -> Runner:
    setup = SETUP[language]
    model.propose, model.read = situation == "1", situation == "3"
    question = {"1": setup["create"], "2": setup["delete"], "3": setup["read"]}[situation]
    headers = {"Accept-Language": "zh-CN" if language == "zh" else "en"}
    turns = {"count": 0, "session": ""}

    def run(row: GuardRow) -> tuple[bool, bool]:
        if turns["count"] % TURNS_PER_SESSION == 0:  # keeps the history each turn reads short
            turns["session"] = new_session(api)
        turns["count"] += 1
        model.text = row.text
        body = say(api, turns["session"], question, **headers)
        assert [card["state"] for card in body["cards"]] == (["ready"] if model.propose else [])
        # Shown: the text reached the screen as written, or what replaced it still claims
        # something (nothing backs a claim on these turns, whatever removed the text).
        shown = body["reply"] == row.text or _claims_left(body["reply"])
        return shown, _guarded(body) or body["reply"] != row.text

    return run


def _final_reply(api: Any, user: Any, model: ScriptedModel, language: str) -> Runner:
    setup = SETUP[language]
    locale = "zh-CN" if language == "zh" else "en"
    session_id = new_session(api)
    model.text, model.propose = "", True
    [card] = say(api, session_id, setup["create"], **{"Accept-Language": locale})["cards"]
    assert confirm(api, session_id, card).json()["outcome"]["ok"] is True
    action_id = str(ActionReceipt.objects.get(status="succeeded").action_id)

    def run(row: GuardRow) -> tuple[bool, bool]:
        token, _ = continuation_store.continuation_issue(
            action_id=action_id,
            owner_id=user.pk,
            session_id=session_id,
            snapshot={"question": setup["create"], "locale": locale, "facts": []},
        )
        model.text = row.text
        response = api.post(
            REPLY,
            {"token": token, "session_id": session_id},
            format="json",
            headers={"Accept-Language": locale},
        )
        assert response.status_code == 200, response.content
        body = response.json()
        guarded = _guarded(body)
        # The confirmed create backs a claim of it, so a partly kept reply may still claim
        # that: a claim row counts as caught when the guard changed it.
        return not (guarded and body["reply"] != row.text), guarded or body["reply"] != row.text

    return run


def _report(
    language: str,
    situation: str,
    counts: Counter[str],
    *,
    what: str = "guard over HTTP",
    rows: str = "held-out",
    withheld: bool = False,
) -> str:
    claims, honest = counts["claims"], counts["honest"]
    altered = (
        "model prose withheld on card turns (by design)"
        if withheld
        else f"honest altered {counts['altered']}/{honest} = {counts['altered'] / honest:.1%}"
    )
    return (
        f"{what}, {rows} [{language}, situation {situation}: {SITUATIONS[situation]}]: "
        f"claims shown {counts['shown']}/{claims} = {counts['shown'] / claims:.1%}, {altered}"
    )


@pytest.mark.skipif(
    TEST_BACKEND == "services",
    reason="the held-out sets run through HTTP in the embedded pass only (CI budget)",
)
@pytest.mark.parametrize("situation", list(SITUATIONS))
@pytest.mark.parametrize("language", list(GUARD_FILES))
def test_guard_heldout_figures_are_reported(
    language: str, situation: str, alice_api: Any, user: Any, model: ScriptedModel
) -> None:
    model.title = SETUP[language]["title"]
    for title, done in SETUP[language]["todos"]:
        todo = todo_services.todo_create(owner=user, title=title)
        if done:
            todo_services.todo_set_status(owner=user, todo_id=todo.id, status="done")
    if situation == "4":
        run = _final_reply(alice_api, user, model, language)
    else:
        run = _message_turn(alice_api, model, situation, language)
    counts: Counter[str] = Counter()
    misses: list[str] = []
    for row in load_guard(language):
        if row.situation != situation:
            continue
        shown, altered = run(row)
        if row.is_claim:
            counts["claims"] += 1
            counts["shown"] += shown
        else:
            counts["honest"] += 1
            counts["altered"] += altered
        if (row.is_claim and shown) or (not row.is_claim and altered):
            misses.append(f"  {row.id} [{'shown' if row.is_claim else 'altered'}] {row.text!r}")
    if situation == "1":
        # A card turn shows the server's preamble, never the model's prose: every honest
        # reply "altered" is that replacement, so the line says so instead of counting it.
        assert counts["altered"] == counts["honest"], counts
        FIGURES.append(_report(language, situation, counts, withheld=True))
    else:
        FIGURES.append(_report(language, situation, counts))
    if os.environ.get("LIGHTNOTE_CORPUS_VERBOSE"):
        FIGURES.extend(misses)
