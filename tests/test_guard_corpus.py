"""The guard against the project's corpus (issue 9): recall 100 %, false replacements ≤ 3 %.

``test_corpus_through_the_guard`` checks the guard alone (both passes, fast). The HTTP test
runs every reply of the corpus through the API with a scripted model in the four situations
of the issue — a write turn with a card, a write turn without one, a read-only turn, and the
final reply after a confirmed create — in the embedded pass only (CI budget). The figures,
per language and split (tune / held-out / probes), are printed at the end of the run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest

from agent.continuations import store as continuation_store
from agent.guard import FIXED_TEXTS, find_claims, guard_reply
from agent.models import ActionReceipt
from agent.planners.base import PlanRequest, PlanResult, Proposal
from tests.conftest import TEST_BACKEND
from tests.guard_corpus import Reply, Tally, load, report
from tests.test_conversation_api import REPLY, confirm, new_session, say
from todos import services as todo_services

pytestmark = pytest.mark.django_db

CORPUS = load()
MAX_FALSE_RATE = 0.03
# The confirmed action of situation 4: a create of this todo. Claims of another kind can
# never be backed by it; creates and bare "done"s may be, so they are not counted there.
CONFIRMED_TITLE = "周会纪要"
TURNS_PER_SESSION = 8


def _tallies() -> dict[tuple[str, str], Tally]:
    return defaultdict(Tally)


def _count(tallies: dict[tuple[str, str], Tally], reply: Reply, *, changed: bool) -> None:
    tally = tallies[(reply.lang, reply.split)]
    if reply.is_claim:
        tally.claims += 1
        tally.caught += changed
    else:
        tally.non_claims += 1
        tally.replaced += changed


def _check(situation: str, tallies: dict[tuple[str, str], Tally], misses: list[str]) -> None:
    report(situation, tallies)
    per_language: dict[str, Tally] = defaultdict(Tally)
    for (lang, _), tally in tallies.items():
        total = per_language[lang]
        total.claims += tally.claims
        total.caught += tally.caught
        total.non_claims += tally.non_claims
        total.replaced += tally.replaced
    for lang, total in sorted(per_language.items()):
        assert total.recall == 1.0, f"{situation} [{lang}] missed claims: {misses}"
        assert total.false_rate <= MAX_FALSE_RATE, f"{situation} [{lang}] replaced: {misses}"


def _claims_left(text: str) -> list[Any]:
    for fixed in FIXED_TEXTS:
        text = text.replace(fixed, "")
    return find_claims(text)


def test_corpus_is_large_enough_half_chinese_with_a_held_out_part() -> None:
    claims = [reply for reply in CORPUS if reply.is_claim]
    non_claims = [reply for reply in CORPUS if not reply.is_claim]
    assert len(claims) >= 300
    assert len(non_claims) >= 200
    for group in (claims, non_claims):
        chinese = sum(reply.lang == "zh" for reply in group) / len(group)
        assert 0.45 <= chinese <= 0.55
    assert sum(reply.split == "heldout" for reply in CORPUS) >= 150
    assert len({reply.text for reply in CORPUS}) == len(CORPUS)  # no reply twice
    assert {reply.kind for reply in claims} == {
        "create",
        "update",
        "status",
        "delete",
        "other",
        "any",
        "restore",
    }


def test_corpus_through_the_guard() -> None:
    tallies = _tallies()
    misses: list[str] = []
    for reply in CORPUS:
        verdict = guard_reply(reply.text, backings=[], locale="zh-CN")
        changed = verdict.replaced and not _claims_left(verdict.text)
        if not reply.is_claim:
            changed = verdict.replaced
        _count(tallies, reply, changed=changed)
        if changed != reply.is_claim:
            misses.append(reply.text)
    _check("guard alone, no receipt", tallies, misses)


# --- through the HTTP API, with a scripted model -------------------------------------------


class ScriptedModel:
    """A planner that says what the test scripts: the next reply, a card, a read."""

    def __init__(self) -> None:
        self.text = ""
        self.propose = False
        self.read = False

    def plan(self, request: PlanRequest) -> PlanResult:
        facts = [request.run_read_tool("query_todos", {})] if self.read else []
        proposals = (
            [Proposal(tool="create_todo", args={"title": CONFIRMED_TITLE})] if self.propose else []
        )
        return PlanResult(text=self.text, proposals=proposals, facts=facts)

    def final_reply(self, *, snapshot: dict[str, Any], receipt: dict[str, Any], locale: str) -> str:
        return self.text


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch, settings: Any) -> ScriptedModel:
    scripted = ScriptedModel()
    monkeypatch.setattr("agent.conversation.readers.get_planner", lambda: scripted)
    monkeypatch.setattr("agent.continuations.reply.get_planner", lambda: scripted)
    # Hundreds of turns in a few seconds: the per-user limits are not what is measured.
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "100000/m"
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "100000/m"
    return scripted


def _locale(reply: Reply) -> str:
    return "zh-CN" if reply.lang == "zh" else "en"


def _is_guarded(body: dict[str, Any]) -> bool:
    return any(notice.get("code") == "REPLY_UNBACKED_CLAIM" for notice in body.get("notices", []))


def _message_turn(
    api: Any, model: ScriptedModel, *, propose: bool, read: bool, question: Callable[[Reply], str]
) -> Callable[[Reply], tuple[bool, bool]]:
    model.propose, model.read = propose, read
    turns = {"count": 0, "session": ""}

    def run(reply: Reply) -> tuple[bool, bool]:
        # A fresh conversation every few turns keeps the history each turn reads short.
        if turns["count"] % TURNS_PER_SESSION == 0:
            turns["session"] = new_session(api)
        turns["count"] += 1
        model.text = reply.text
        body = say(api, turns["session"], question(reply), **{"Accept-Language": _locale(reply)})
        assert [card["state"] for card in body["cards"]] == (["ready"] if propose else [])
        if read:
            assert [fact["tool"] for fact in body["facts"]] == ["query_todos"]
        if propose:
            # A card turn speaks with the server's text by construction: the model's prose is
            # never shown (caught), and that is no alteration by the guard.
            return reply.text.strip() not in body["reply"], False
        unchanged = body["reply"] == reply.text and not _is_guarded(body)
        caught = _is_guarded(body) and reply.text != body["reply"]
        return caught and not _claims_left(body["reply"]), not unchanged

    return run


def _final_reply_after_a_create(
    api: Any, user: Any, model: ScriptedModel
) -> Callable[[Reply], tuple[bool, bool]]:
    session_id = new_session(api)
    model.text, model.propose = "", True
    [card] = say(api, session_id, f"帮我创建待办{CONFIRMED_TITLE}")["cards"]
    assert confirm(api, session_id, card).json()["outcome"]["ok"] is True
    action_id = str(ActionReceipt.objects.get(status="succeeded").action_id)

    def run(reply: Reply) -> tuple[bool, bool]:
        token, _ = continuation_store.continuation_issue(
            action_id=action_id,
            owner_id=user.pk,
            session_id=session_id,
            snapshot={"question": "帮我创建待办", "locale": _locale(reply), "facts": []},
        )
        model.text = reply.text
        response = api.post(
            REPLY,
            {"token": token, "session_id": session_id},
            format="json",
            headers={"Accept-Language": _locale(reply)},
        )
        assert response.status_code == 200, response.content
        body = response.json()
        caught = _is_guarded(body) and body["reply"] != reply.text
        return caught, body["reply"] != reply.text or _is_guarded(body)

    return run


SITUATIONS = {
    "1 write turn with a card": {
        "propose": True,
        "read": False,
        "question": "帮我创建待办周会纪要",
    },
    "2 write turn without a card": {
        "propose": False,
        "read": False,
        "question": "把周报那条待办删掉",
    },
    "3 read-only turn": {"propose": False, "read": True, "question": None},
    "4 final reply after a confirmed create": {},
}


@pytest.mark.skipif(
    TEST_BACKEND == "services",
    reason="the corpus runs through HTTP in the embedded pass only (CI budget)",
)
@pytest.mark.parametrize("situation", list(SITUATIONS))
def test_corpus_through_the_api(
    situation: str, alice_api: Any, user: Any, model: ScriptedModel
) -> None:
    todo_services.todo_create(owner=user, title="交房租")  # something for the read to find
    shape = SITUATIONS[situation]
    if situation.startswith("4"):
        run = _final_reply_after_a_create(alice_api, user, model)
    else:
        fixed_question = shape["question"]
        run = _message_turn(
            alice_api,
            model,
            propose=bool(shape["propose"]),
            read=bool(shape["read"]),
            question=lambda reply: (
                fixed_question or ("我有哪些待办？" if reply.lang == "zh" else "show my todos")
            ),
        )
    tallies = _tallies()
    misses: list[str] = []
    for reply in CORPUS:
        caught, changed = run(reply)
        if situation.startswith("4") and reply.kind in ("create", "any"):
            continue  # the create receipt may back these: not measured here
        _count(tallies, reply, changed=caught if reply.is_claim else changed)
        if (caught if reply.is_claim else changed) != reply.is_claim:
            misses.append(reply.text)
    _check(f"situation {situation}", tallies, misses)
