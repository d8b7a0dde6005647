"""Issue 15, choice cards: an ambiguous target answers a choice; a pick issues the card.

Over HTTP: the message response's ``choices``, ``POST /api/v1/agent/choices/choose/`` with
confirm's check order, history with the choice's state, follow-ups ("第一条", "删除今晚 9 点
的那条", "the first one", "the one due tonight") through the pending store, and the OpenAI
planner through the same path. The clock is Wednesday 2026-12-02 14:00 Asia/Shanghai.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connection

from agent.choices import store as choice_store
from agent.conversation import pending
from agent.models import ActionCard, Choice
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from notes import services as note_services
from tests.agent_helpers import confirm, error_code, store_down
from tests.fake_openai import tool_call
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

NOW = "2026-12-02T14:00:00+08:00"
SESSIONS = "/api/v1/agent/sessions/"
CHOOSE = "/api/v1/agent/choices/choose/"
ZONE = ZoneInfo("Asia/Shanghai")


@pytest.fixture(autouse=True)
def _frozen_clock() -> Iterator[None]:
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def api(client_for, user):
    user.time_zone = "Asia/Shanghai"
    user.save()
    return client_for(user)


@pytest.fixture
def reports(user) -> tuple[Todo, Todo]:
    """Two todos titled 提交周报: one due tomorrow 09:00, one due tonight 21:00."""
    tomorrow = todo_services.todo_create(
        owner=user,
        title="提交周报",
        description="给老板的版本",
        due_at=datetime(2026, 12, 3, 9, 0, tzinfo=ZONE),
    )
    tonight = todo_services.todo_create(
        owner=user,
        title="提交周报",
        description="团队内部版",
        due_at=datetime(2026, 12, 2, 21, 0, tzinfo=ZONE),
    )
    return tomorrow, tonight


def session_of(client: Any) -> str:
    return client.post(SESSIONS, {}, format="json").json()["id"]


def say(client: Any, session_id: str, text: str) -> dict[str, Any]:
    response = client.post(f"{SESSIONS}{session_id}/messages/", {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def choose(client: Any, token: str, session_id: str, candidate_id: str) -> Any:
    return client.post(
        CHOOSE,
        {"token": token, "session_id": session_id, "candidate_id": candidate_id},
        format="json",
    )


FROM_HISTORY = "/api/v1/agent/choices/choose-from-history/"


def choose_by_id(client: Any, card_id: str, session_id: str, candidate_id: str) -> Any:
    return client.post(
        FROM_HISTORY,
        {"card_id": card_id, "session_id": session_id, "candidate_id": candidate_id},
        format="json",
    )


def the_choice(body: dict[str, Any]) -> dict[str, Any]:
    assert body["cards"] == []
    [choice] = body["choices"]
    return choice


def history(client: Any, session_id: str) -> list[dict[str, Any]]:
    return client.get(f"{SESSIONS}{session_id}/messages/").json()["results"]


# --- the choice in the message response ------------------------------------------------------


def test_an_ambiguous_delete_answers_a_choice_listing_what_tells_the_items_apart(
    api, reports
) -> None:
    tomorrow, tonight = reports
    body = say(api, session_of(api), "删除待办「提交周报」")
    choice = the_choice(body)
    assert (choice["tool"], choice["capability"], choice["state"]) == (
        "delete_todo",
        "todo.delete",
        "ready",
    )
    assert choice["token"]
    assert choice["card_id"]
    assert choice["expires_at"]
    by_id = {item["id"]: item for item in choice["candidates"]}
    assert set(by_id) == {str(tomorrow.id), str(tonight.id)}
    assert by_id[str(tonight.id)]["due_at"] == "2026-12-02T21:00:00+08:00"
    assert by_id[str(tonight.id)]["status"] == "open"
    assert by_id[str(tonight.id)]["excerpt"] == "团队内部版"
    assert set(by_id[str(tomorrow.id)]) >= {"id", "title", "status", "due_at", "excerpt"}
    # The reply still asks in words (numbered the same way as the candidates).
    [notice] = [n for n in body["notices"] if n["status"] == "clarify"]
    assert notice["slot"] == "target"
    lines = [line for line in notice["message"].splitlines() if line[:2] in ("1.", "2.")]
    assert len(lines) == 2
    # Nothing else was issued or written; no raw token in the stored message.
    assert not ActionCard.objects.exists()
    assert Todo.objects.count() == 2
    assert choice["token"] not in json.dumps(
        [message for message in history(api, body_session(api))]
    )


def numbered_lines(body: dict[str, Any]) -> list[str]:
    [notice] = [n for n in body["notices"] if n["status"] == "clarify"]
    return [line for line in notice["message"].splitlines() if line[:1].isdigit()]


def test_the_question_tells_items_of_one_title_apart_as_the_choice_does(api, user) -> None:
    """Lines that would read the same say what differs: the description, else the creation
    time; items that differ by due time say only that; distinct titles add nothing."""
    todo_services.todo_create(owner=user, title="提交周报", description="给老板的版本")
    todo_services.todo_create(owner=user, title="提交周报", description="团队内部版")
    by_description = numbered_lines(say(api, session_of(api), "删除待办「提交周报」"))
    assert sorted(line[3:] for line in by_description) == [
        "「提交周报」（团队内部版）",
        "「提交周报」（给老板的版本）",
    ]

    with time_machine.travel("2026-12-02T15:30:00+08:00", tick=False):
        todo_services.todo_create(owner=user, title="Pay rent")
    todo_services.todo_create(owner=user, title="Pay rent")
    english = numbered_lines(say(api, session_of(api), 'delete the todo "Pay rent"'))
    assert sorted(line[3:] for line in english) == [
        '"Pay rent" (created 2026-12-02 14:00)',
        '"Pay rent" (created 2026-12-02 15:30)',
    ]
    todo_services.todo_create(
        owner=user, title="Pay rent", due_at=datetime(2026, 12, 5, 9, 0, tzinfo=ZONE)
    )
    with_due = numbered_lines(say(api, session_of(api), 'delete the todo "Pay rent"'))
    assert '"Pay rent" (due 2026-12-05 09:00)' in [line[3:] for line in with_due]


def body_session(api: Any) -> str:
    from agent.models import AgentSession

    return str(AgentSession.objects.get().id)


def test_an_ambiguous_delete_reaches_the_right_item_in_two_clicks(api, user, reports) -> None:
    tomorrow, tonight = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    picked = choose(api, choice["token"], session_id, str(tonight.id))
    assert picked.status_code == 200, picked.content
    card = picked.json()["card"]
    assert (card["tool"], card["state"], card["choice_id"]) == (
        "delete_todo",
        "ready",
        choice["card_id"],
    )
    assert card["args"]["todo_id"] == str(tonight.id)
    assert card["args"]["current"]["due_at"] == "2026-12-02T21:00:00+08:00"
    assert Todo.objects.count() == 2  # a pick never executes
    outcome = confirm(api, card["token"], session_id).json()["outcome"]
    assert outcome["ok"] is True
    assert list(Todo.objects.values_list("id", flat=True)) == [tomorrow.id]
    # The choice is used: a second pick (even of the other item) answers 410.
    again = choose(api, choice["token"], session_id, str(tomorrow.id))
    assert (again.status_code, error_code(again)) == (410, "CONFIRMATION_EXPIRED")
    assert ActionCard.objects.count() == 1
    # History: the choice is chosen, naming the pick and its card, on the same message.
    [reply] = [m for m in history(api, session_id) if m["role"] == "assistant"]
    [shown] = reply["choices"]
    assert (shown["state"], shown["chosen_id"], shown["chosen_card_id"]) == (
        "chosen",
        str(tonight.id),
        card["card_id"],
    )
    assert "token" not in shown
    [history_card] = reply["cards"]
    assert (history_card["card_id"], history_card["state"]) == (card["card_id"], "settled")
    assert AuditEvent.objects.filter(event_type="choice.chosen", action_id=card["card_id"]).exists()


def test_choose_runs_confirms_checks_in_order(api, user, other_user, client_for, reports) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    token = choice["token"]
    # body shape first
    missing = {"token": token, "session_id": session_id}
    assert api.post(CHOOSE, missing, format="json").status_code == 400
    bad_id = choose(api, token, session_id, "not-a-uuid")
    assert bad_id.status_code == 400
    from rest_framework.test import APIClient

    assert choose(APIClient(), token, session_id, str(tomorrow.id)).status_code == 401
    with store_down():
        down = choose(api, token, session_id, str(tomorrow.id))
    assert (down.status_code, error_code(down)) == (503, "CONFIRMATION_STORE_UNAVAILABLE")
    unknown = choose(api, "no-such-token", session_id, str(tomorrow.id))
    assert (unknown.status_code, error_code(unknown)) == (410, "CONFIRMATION_EXPIRED")
    other = client_for(other_user)
    stolen = choose(other, token, session_of(other), str(tomorrow.id))
    assert (stolen.status_code, error_code(stolen)) == (403, "CONFIRMATION_FORBIDDEN")
    elsewhere = choose(api, token, session_of(api), str(tomorrow.id))
    assert (elsewhere.status_code, error_code(elsewhere)) == (403, "CONFIRMATION_FORBIDDEN")
    stranger = todo_services.todo_create(owner=user, title="别的")
    not_offered = choose(api, token, session_id, str(stranger.id))
    assert (not_offered.status_code, error_code(not_offered)) == (400, "CHOICE_CANDIDATE_INVALID")
    # None of that used the choice.
    assert choose(api, token, session_id, str(tomorrow.id)).status_code == 200


@pytest.mark.parametrize("by", ["token", "id"])
def test_an_altered_choice_is_refused_and_destroyed(api, user, other_user, reports, by) -> None:
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    stranger = todo_services.todo_create(owner=other_user, title="提交周报")
    key = choice_store.choice_key(choice_store.store.token_digest(choice["token"]))
    record = json.loads(get_redis().hget(key, "record"))
    # Point a pick at another user's todo: the seal no longer matches.
    first = next(iter(record["picks"]))
    record["picks"][first]["args"]["todo_id"] = str(stranger.id)
    get_redis().hset(key, "record", json.dumps(record, ensure_ascii=False))

    def pick() -> Any:  # by the token the message carried, or from history by the choice's id
        if by == "token":
            return choose(api, choice["token"], session_id, first)
        return choose_by_id(api, choice["card_id"], session_id, first)

    refused = pick()
    assert (refused.status_code, error_code(refused)) == (409, "CONFIRMATION_INVALID")
    gone = pick()
    assert (gone.status_code, error_code(gone)) == (410, "CONFIRMATION_EXPIRED")
    assert not ActionCard.objects.exists()
    assert get_redis().exists(key) == 0


def test_a_choice_for_an_update_binds_each_pick_to_the_proposals_new_values(api, reports) -> None:
    _, tonight = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "把「提交周报」的优先级改成高"))
    assert choice["tool"] == "update_todo"
    card = choose(api, choice["token"], session_id, str(tonight.id)).json()["card"]
    assert (card["args"]["todo_id"], card["args"]["priority"]) == (str(tonight.id), 2)


def test_an_ambiguous_note_update_offers_a_choice_with_content_excerpts(api, user) -> None:
    first = note_services.note_create(owner=user, title="会议纪要", content="周一 产品评审")
    note_services.note_create(owner=user, title="会议纪要", content="周三 技术分享")
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "把笔记「会议纪要」的标签改成 工作"))
    assert choice["tool"] == "update_note"
    excerpts = {item["id"]: item["excerpt"] for item in choice["candidates"]}
    assert excerpts[str(first.id)] == "周一 产品评审"
    card = choose(api, choice["token"], session_id, str(first.id)).json()["card"]
    assert card["args"]["note_id"] == str(first.id)


# --- follow-ups resolve against the last choice -----------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer", "which"),
    [
        ("删除待办「提交周报」", "第一条", 0),
        ("删除待办「提交周报」", "第二个", 1),
        ("删除待办「提交周报」", "删除今晚 9 点的那条", "tonight"),
        ("删除待办「提交周报」", "明天的那条", "tomorrow"),
        ("delete the todo '提交周报'", "the first one", 0),
        ("delete the todo '提交周报'", "the one due tonight", "tonight"),
        # Other wordings of the same answers, in both languages.
        ("删除待办「提交周报」", "选最后一个", -1),
        ("删除待办「提交周报」", "删掉今晚的那个", "tonight"),
        ("删除待办「提交周报」", "就明天早上9点那个", "tomorrow"),
        ("delete the todo '提交周报'", "pick the last one", -1),
        ("delete the todo '提交周报'", "tomorrow's", "tomorrow"),
        ("delete the todo '提交周报'", "the 9pm one", "tonight"),
        ("delete the todo '提交周报'", "the tonight one", "tonight"),
    ],
)
def test_a_follow_up_picks_from_the_last_choice(api, reports, text, answer, which) -> None:
    tomorrow, tonight = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, text))
    if isinstance(which, int):
        wanted = choice["candidates"][which]["id"]
    else:
        wanted = str(tonight.id if which == "tonight" else tomorrow.id)
    body = say(api, session_id, answer)
    [card] = body["cards"]
    assert body["choices"] == []
    assert (card["tool"], card["args"]["todo_id"]) == ("delete_todo", wanted)
    # The pick used the choice: its button now answers 410, and history says chosen.
    used = choose(api, choice["token"], session_id, wanted)
    assert (used.status_code, error_code(used)) == (410, "CONFIRMATION_EXPIRED")
    assert Choice.objects.get().state == "chosen"
    assert str(Choice.objects.get().card_id) == card["card_id"]
    assert confirm(api, card["token"], session_id).json()["outcome"]["ok"] is True
    assert not Todo.objects.filter(id=wanted).exists()
    assert Todo.objects.count() == 1


def test_a_new_request_after_a_choice_is_not_read_as_a_pick(api, reports) -> None:
    session_id = session_of(api)
    the_choice(say(api, session_id, "删除待办「提交周报」"))
    body = say(api, session_id, "提醒我今晚9点开会")
    [card] = body["cards"]
    assert card["tool"] == "create_todo"


def test_a_pick_by_button_ends_the_wait_for_a_typed_one(api, user, reports) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    waiting = pending.pending_get(owner_id=user.pk, session_id=session_id)
    assert waiting is not None  # the turn waits for a typed pick ("第二个")
    assert waiting.choice
    assert choose(api, choice["token"], session_id, str(tomorrow.id)).status_code == 200
    assert pending.pending_get(owner_id=user.pk, session_id=session_id) is None
    assert get_redis().keys("ln:pending:*") == []


# --- the OpenAI planner -------------------------------------------------------------------


def test_a_model_proposal_with_an_ambiguous_title_answers_a_choice(
    api, reports, fake_openai
) -> None:
    _, tonight = reports
    fake_openai.reply_tool_calls(tool_call("delete_todo", {"todo_title": "提交周报"}))
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "把提交周报那条删了"))
    assert choice["tool"] == "delete_todo"
    assert len(choice["candidates"]) == 2
    # With a model the follow-up is the model's: it sees the candidates and answers with the
    # ordinary tool on one of them, which the server maps to the choice's pick.
    fake_openai.reply_tool_calls(tool_call("delete_todo", {"todo_id": str(tonight.id)}))
    [card] = say(api, session_id, "删除今晚 9 点的那条")["cards"]
    assert card["args"]["todo_id"] == str(tonight.id)
    assert len(fake_openai.requests) == 2
    shown = [m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "system"]
    assert any('"kind": "candidates"' in text for text in shown)


# --- concurrency: one choice, one card ------------------------------------------------------


def race_ten_picks(client_for: Any, user: Any, settings: Any, pick: Any) -> list[int]:
    """Ten threads pick from one fresh choice of two todos at once, each its own client:
    ``pick(client, choice, session_id, todo_id, index)``; return their statuses."""
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1000/min"
    user.time_zone = "Asia/Shanghai"
    user.save()
    api = client_for(user)
    first = todo_services.todo_create(owner=user, title="提交周报")
    second = todo_services.todo_create(owner=user, title="提交周报")
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    statuses: list[int] = []
    barrier = threading.Barrier(10)

    def run(index: int) -> None:
        client = client_for(user)
        try:
            barrier.wait()
            target = str((first if index % 2 else second).id)
            statuses.append(pick(client, choice, session_id, target, index).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_picks_of_one_choice_issue_exactly_one_card(client_for, user, settings) -> None:
    statuses = race_ten_picks(
        client_for,
        user,
        settings,
        lambda client, choice, session_id, target, _: choose(
            client, choice["token"], session_id, target
        ),
    )
    assert sorted(statuses) == [200] + [410] * 9
    assert ActionCard.objects.count() == 1
    assert Choice.objects.get().state == "chosen"


def test_a_pick_is_rate_limited_like_a_new_card(api, reports, settings) -> None:
    tomorrow, _ = reports
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/min"
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    [_] = say(api, session_id, "帮我创建一个明天上午10点开会的待办")["cards"]  # the one card
    limited = choose(api, choice["token"], session_id, str(tomorrow.id))
    assert (limited.status_code, error_code(limited)) == (429, "RATE_LIMITED")
    assert limited["Retry-After"]
    assert Choice.objects.get().state == "ready"  # not used by the refusal


def test_deleting_the_conversation_voids_its_ready_choice(api, reports) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    assert api.delete(f"{SESSIONS}{session_id}/").status_code == 204
    assert Choice.objects.get().state == "voided"
    gone = choose(api, choice["token"], session_id, str(tomorrow.id))
    assert (gone.status_code, error_code(gone)) == (410, "CONFIRMATION_EXPIRED")
    assert not ActionCard.objects.exists()


# --- a ready choice picked from history (no token: after a reload, on another device) --------


def the_history_choice(client: Any, session_id: str) -> dict[str, Any]:
    [reply] = [m for m in history(client, session_id) if m["role"] == "assistant"]
    [shown] = reply["choices"]
    return shown


def test_a_ready_choice_in_history_is_picked_by_its_id_and_then_only_once(
    api, user, reports
) -> None:
    tomorrow, tonight = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    shown = the_history_choice(api, session_id)  # the page reloaded: no token any more
    assert (shown["card_id"], shown["state"]) == (choice["card_id"], "ready")
    assert "token" not in shown
    picked = choose_by_id(api, shown["card_id"], session_id, str(tonight.id))
    assert picked.status_code == 200, picked.content
    card = picked.json()["card"]
    assert (card["tool"], card["state"], card["choice_id"]) == (
        "delete_todo",
        "ready",
        choice["card_id"],
    )
    assert card["args"]["todo_id"] == str(tonight.id)
    assert card["token"]
    assert Todo.objects.count() == 2  # a pick never executes
    assert confirm(api, card["token"], session_id).json()["outcome"]["ok"] is True
    assert list(Todo.objects.values_list("id", flat=True)) == [tomorrow.id]
    # Used: by id again, and by the token the first response carried, both 410.
    again = choose_by_id(api, shown["card_id"], session_id, str(tomorrow.id))
    assert (again.status_code, error_code(again)) == (410, "CONFIRMATION_EXPIRED")
    by_token = choose(api, choice["token"], session_id, str(tomorrow.id))
    assert (by_token.status_code, error_code(by_token)) == (410, "CONFIRMATION_EXPIRED")
    assert ActionCard.objects.count() == 1
    after = the_history_choice(api, session_id)
    assert (after["state"], after["chosen_id"], after["chosen_card_id"]) == (
        "chosen",
        str(tonight.id),
        card["card_id"],
    )
    chosen = AuditEvent.objects.get(event_type="choice.chosen")
    assert (str(chosen.action_id), chosen.details["via"]) == (card["card_id"], "history")


def test_a_pick_from_history_answers_in_order_and_nothing_refused_uses_the_choice(
    api, user, other_user, client_for, reports
) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    card_id = choice["card_id"]
    # body shape first
    missing = api.post(FROM_HISTORY, {"card_id": card_id, "session_id": session_id}, format="json")
    assert (missing.status_code, error_code(missing)) == (400, "VALIDATION_ERROR")
    bad = choose_by_id(api, "not-a-uuid", session_id, str(tomorrow.id))
    assert (bad.status_code, error_code(bad)) == (400, "VALIDATION_ERROR")
    from rest_framework.test import APIClient

    assert choose_by_id(APIClient(), card_id, session_id, str(tomorrow.id)).status_code == 401
    # Someone else's conversation, or this choice named in another conversation: 404.
    other = client_for(other_user)
    theirs = choose_by_id(other, card_id, session_id, str(tomorrow.id))
    assert (theirs.status_code, error_code(theirs)) == (404, "SESSION_NOT_FOUND")
    their_own = choose_by_id(other, card_id, session_of(other), str(tomorrow.id))
    assert (their_own.status_code, error_code(their_own)) == (404, "CARD_NOT_FOUND")
    elsewhere = choose_by_id(api, card_id, session_of(api), str(tomorrow.id))
    assert (elsewhere.status_code, error_code(elsewhere)) == (404, "CARD_NOT_FOUND")
    unknown = choose_by_id(
        api, "00000000-0000-4000-8000-000000000000", session_id, str(tomorrow.id)
    )
    assert (unknown.status_code, error_code(unknown)) == (404, "CARD_NOT_FOUND")
    with store_down():
        down = choose_by_id(api, card_id, session_id, str(tomorrow.id))
    assert (down.status_code, error_code(down)) == (503, "CONFIRMATION_STORE_UNAVAILABLE")
    stranger = todo_services.todo_create(owner=user, title="别的")
    not_offered = choose_by_id(api, card_id, session_id, str(stranger.id))
    assert (not_offered.status_code, error_code(not_offered)) == (400, "CHOICE_CANDIDATE_INVALID")
    # None of that used the choice, issued a card or wrote to the todos.
    assert (Choice.objects.get().state, ActionCard.objects.count(), Todo.objects.count()) == (
        "ready",
        0,
        3,
    )
    assert choose_by_id(api, card_id, session_id, str(tomorrow.id)).status_code == 200


def test_a_pick_from_history_is_refused_once_the_choice_expired(api, reports, settings) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    later = datetime.fromisoformat(choice["expires_at"])
    with time_machine.travel(later, tick=False):
        assert the_history_choice(api, session_id)["state"] == "expired"
        late = choose_by_id(api, choice["card_id"], session_id, str(tomorrow.id))
    assert (late.status_code, error_code(late)) == (410, "CONFIRMATION_EXPIRED")
    assert not ActionCard.objects.exists()


def test_a_pick_from_history_is_rate_limited_like_a_new_card(api, reports, settings) -> None:
    tomorrow, _ = reports
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/min"
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    [_] = say(api, session_id, "帮我创建一个明天上午10点开会的待办")["cards"]  # the one card
    limited = choose_by_id(api, choice["card_id"], session_id, str(tomorrow.id))
    assert (limited.status_code, error_code(limited)) == (429, "RATE_LIMITED")
    assert Choice.objects.get().state == "ready"


def test_a_pick_from_history_in_an_admin_context_is_refused(
    api, user, make_user, client_for, reports
) -> None:
    tomorrow, _ = reports
    session_id = session_of(api)
    choice = the_choice(say(api, session_id, "删除待办「提交周报」"))
    staff = make_user("staff", is_staff=True)
    started = client_for(staff).post(
        "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
    )
    admin = client_for(staff, **{"X-Admin-Context": started.json()["context_id"]})
    refused = choose_by_id(admin, choice["card_id"], session_id, str(tomorrow.id))
    assert (refused.status_code, error_code(refused)) == (403, "ADMIN_READONLY")
    assert (Choice.objects.get().state, ActionCard.objects.count()) == ("ready", 0)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_picks_by_id_and_by_token_racing_for_one_choice_issue_exactly_one_card(
    client_for, user, settings
) -> None:
    def pick(client: Any, choice: dict[str, Any], session_id: str, target: str, index: int) -> Any:
        if index % 3:
            return choose_by_id(client, choice["card_id"], session_id, target)
        return choose(client, choice["token"], session_id, target)

    statuses = race_ten_picks(client_for, user, settings, pick)
    assert sorted(statuses) == [200] + [410] * 9
    assert ActionCard.objects.count() == 1
    assert Choice.objects.get().state == "chosen"
