"""Taking back the last change, asked in the chat (agent.conversation.undo.undo_said / offer_undo).

撤销刚才的操作 / "undo that" right after a confirmed card: a card for the compensating
action, exactly as the undo endpoint issues it (same checks, same lease, one live undo card
per card), shown in the turn that asked. Nothing changes before that card is confirmed;
with nothing to take back the reply says why, and no message that merely mentions undoing
(or names another item) becomes one.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import ActionCard
from agent.planners import en, zh
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from todos import services as todo_services
from todos.models import Todo

from .agent_helpers import (
    UNDO_URL,
    card_key_of,
    chat_in,
    confirm,
    error_code,
    messages_url,
    open_session,
    reject,
    send_message,
)
from .test_conversation_api import final_reply


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("撤销", ""),
        ("撤销刚才的操作", ""),
        ("把刚才那个撤销", ""),
        ("刚才删错了，恢复一下", ""),
        ("恢复刚才删除的待办", ""),
        ("我点错了，撤回吧", ""),
        ("能帮我撤销一下吗？谢谢", ""),
        ("撤回吧 我点错了", ""),
        ("麻烦把那条待办加回来，刚刚误删了", ""),
        ("把截止时间恢复成之前的", ""),
        ("改回未完成吧", "open"),
        ("恢复买菜", None),  # a todo named: restored by the planner, not "the last change"
        ("提醒我明天撤销那个订单", None),
        ("不用撤销", None),
        ("别撤回，已经交了", None),
        ("撤销功能怎么用", None),
        ("删掉的东西能撤销吗？", None),
        ("撤销刚才的操作，再加一个待办：后天买菜", None),  # and a request besides
        ("把买菜标记为未完成", None),
    ],
)
def test_chinese_undo_requests(text: str, wanted: str | None) -> None:
    assert zh.undo_request(text) == wanted


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("undo", ""),
        ("undo that", ""),
        ("Undo!", ""),
        ("undo the last change", ""),
        ("oops, put it back", ""),
        ("restore the todo I just deleted", ""),
        ("take that back please", ""),
        ("Sorry, moved the wrong thing. Undo please", ""),
        ("can you reverse that? I haven't actually paid yet", ""),
        ("remove the todo you just added", ""),
        ("revert the due date to what it was", ""),
        ("wait no! undo undo", ""),
        ("mark it as not done again", "open"),
        ("undo Pay rent", None),  # a todo named: the planner reopens it
        ("restore the note Trip ideas", None),
        ("can I undo things here?", None),
        ("don't undo it", None),
        ("add a todo: revert the config change", None),
        ("lol I almost undid that", None),
        ("undo that and delete Buy milk", None),
    ],
)
def test_english_undo_requests(text: str, wanted: str | None) -> None:
    assert en.undo_request(text) == wanted


@pytest.mark.parametrize("text", ["刚刚误删了", "我误操作了", "刚才误点了！"])
def test_a_mishap_reported_alone_is_no_delete(text: str) -> None:
    assert zh.interpret(text).tool is None  # was a delete of a todo titled 刚刚误


def _confirmed(client: APIClient, session: str, text: str) -> dict[str, Any]:
    (card,) = send_message(client, session, text)["cards"]
    assert confirm(client, card["token"], session).json()["outcome"]["ok"] is True
    return card


def _codes(body: dict[str, Any]) -> list[str]:
    return [notice["code"] for notice in body["notices"]]


@pytest.mark.django_db
def test_undo_said_in_chinese_offers_the_compensating_card_and_it_runs_once(user: Any) -> None:
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    body = send_message(client, session, "撤销刚才的操作")
    (card,) = body["cards"]
    assert body["reply"] == (
        "这是撤销上一个操作的确认卡：只有你确认后才会执行，在此之前什么都不会改变。"
    )
    assert (card["tool"], card["compensates_id"]) == ("delete_todo", made["card_id"])
    assert Todo.objects.filter(owner=user).count() == 1  # nothing before the confirm

    assert confirm(client, card["token"], session).json()["outcome"]["ok"] is True
    assert confirm(client, card["token"], session).json()["outcome"]["ok"] is True  # a repeat
    assert Todo.objects.filter(owner=user).count() == 0
    row = ActionCard.objects.get(id=card["card_id"])
    assert (row.state, str(row.compensates_id)) == ("settled", made["card_id"])
    assert row.message is not None
    assert row.message.text == body["reply"]
    issued = AuditEvent.objects.get(event_type="card.undo_issued", action_id=card["card_id"])
    assert issued.details == {"compensates_id": made["card_id"], "said": True}
    # The endpoint now says it is done; asked again in the chat, the last change is the undo
    # (taken back as the endpoint would: the todo back from the trash).
    again = client.post(
        UNDO_URL, {"card_id": made["card_id"], "session_id": session}, format="json"
    )
    assert (again.status_code, error_code(again)) == (409, "UNDO_ALREADY_DONE")
    (redo,) = send_message(client, session, "撤销")["cards"]
    assert (redo["tool"], redo["compensates_id"]) == ("restore_todo", card["card_id"])
    assert confirm(client, redo["token"], session).json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 1
    body = send_message(client, session, "撤销")  # a restore has no undo of its own
    assert (body["cards"], _codes(body)) == ([], ["UNDO_NOT_AVAILABLE"])


@pytest.mark.django_db
def test_undo_said_in_english_restores_a_deleted_todo(user: Any) -> None:
    todo = todo_services.todo_create(owner=user, title="Buy milk", priority=2)
    client, session = chat_in(user, "en")
    made = _confirmed(client, session, "delete the todo Buy milk")
    body = send_message(client, session, "ugh I deleted the wrong one. restore it please")
    (card,) = body["cards"]
    assert body["reply"] == (
        "Here is a card that takes back the last change. Nothing changes until you confirm it."
    )
    assert (card["tool"], card["compensates_id"]) == ("restore_todo", made["card_id"])
    assert confirm(client, card["token"], session).json()["outcome"]["ok"] is True
    back = Todo.objects.get(id=todo.id)
    assert (back.title, back.priority, back.deleted_at) == ("Buy milk", 2, None)


@pytest.mark.django_db
def test_a_status_taken_back_by_its_state_is_an_undo_only_of_that_change(user: Any) -> None:
    todo_services.todo_create(owner=user, title="Pay rent")
    client, session = chat_in(user, "en")
    done = _confirmed(client, session, "mark Pay rent as done")
    (card,) = send_message(client, session, "mark it as not done again")["cards"]
    assert (card["tool"], card["args"]["status"]) == ("set_todo_status", "open")
    assert card["compensates_id"] == done["card_id"]

    # After a create, "not done again" is no undo (deleting the todo would be wrong).
    _confirmed(client, session, "add a todo: call the plumber tomorrow at 9am")
    body = send_message(client, session, "mark it as not done again")
    assert body["cards"] == []  # no delete of the plumber todo, and no reopen of Pay rent
    assert not [n for n in body["notices"] if str(n["code"]).startswith("UNDO_")]
    assert Todo.objects.filter(owner=user, title__icontains="plumber").exists()


@pytest.mark.django_db
def test_nothing_to_undo_is_said_and_a_waiting_card_is_left_alone(user: Any) -> None:
    client, session = chat_in(user)
    body = send_message(client, session, "撤销")  # the rules planner's answer
    assert (body["cards"], body["notices"]) == ([], [])
    assert body["reply"].startswith("这个对话里还没有执行过任何操作，没有可以撤销的。")

    (waiting,) = send_message(client, session, "帮我加个待办：明天上午10点开会")["cards"]
    body = send_message(client, session, "撤销刚才的操作")
    assert (body["cards"], _codes(body)) == ([], ["UNDO_NOT_RUN_YET"])
    assert ActionCard.objects.get(id=waiting["card_id"]).state == "ready"

    get_redis().hset(card_key_of(waiting["token"]), "state", "running")  # another tab's claim
    body = send_message(client, session, "撤销刚才的操作")
    assert (body["cards"], _codes(body)) == ([], ["UNDO_STILL_RUNNING"])
    assert Todo.objects.filter(owner=user).count() == 0


@pytest.mark.django_db
def test_a_rejected_card_is_passed_over_and_another_conversation_has_nothing(user: Any) -> None:
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    (later,) = send_message(client, session, "帮我加个待办：后天买菜")["cards"]
    assert reject(client, later["token"], session).status_code == 200
    (card,) = send_message(client, session, "撤销")["cards"]
    assert card["compensates_id"] == made["card_id"]

    other = open_session(client)
    body = send_message(client, other, "undo that")
    assert (body["cards"], body["notices"]) == ([], [])  # not replaced by the guard either
    assert body["reply"].startswith("Nothing has been changed in this conversation yet")


@pytest.mark.django_db
def test_asking_again_while_the_undo_card_waits_issues_no_second_one(user: Any) -> None:
    client, session = chat_in(user)
    _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    (first,) = send_message(client, session, "撤销")["cards"]
    body = send_message(client, session, "撤回吧")
    assert (body["cards"], _codes(body)) == ([], ["UNDO_NOT_RUN_YET"])
    assert confirm(client, first["token"], session).json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 0


@pytest.mark.django_db
def test_past_the_window_or_after_a_later_change_nothing_is_offered(user: Any) -> None:
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    settled = ActionCard.objects.get(id=made["card_id"]).settled_at
    window = timedelta(seconds=settings.LIGHTNOTE_UNDO_WINDOW + 5)
    ActionCard.objects.filter(id=made["card_id"]).update(settled_at=settled - window)
    body = send_message(client, session, "撤销")
    assert (body["cards"], _codes(body)) == ([], ["UNDO_WINDOW_PASSED"])
    ActionCard.objects.filter(id=made["card_id"]).update(settled_at=settled)

    todo = Todo.objects.get(owner=user)
    todo_services.todo_update(
        owner=user, todo_id=todo.id, title="开会（改过）", expected_version=todo.version
    )
    body = send_message(client, session, "undo that")
    assert (body["cards"], _codes(body)) == ([], ["UNDO_VERSION_CONFLICT"])
    assert Todo.objects.get(id=todo.id).title == "开会（改过）"


def _at_once(user: Any, session: str, *requests: tuple[str, dict[str, Any]]) -> list[Any]:
    """POST each ``(url, body)`` from a tab of its own (a thread with its own connection),
    released together."""
    key = Token.objects.get(user=user).key
    barrier = threading.Barrier(len(requests))

    def tab(request: tuple[str, dict[str, Any]]) -> Any:
        try:
            other = APIClient(headers={"Accept-Language": "zh-CN"})
            other.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            barrier.wait(timeout=30)
            return other.post(request[0], request[1], format="json")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(tab, requests))


def _one_live_undo_runs_once(
    client: APIClient, session: str, made: dict[str, Any], tokens: list[str]
) -> None:
    assert tokens  # at least one request offered the undo
    live = ActionCard.objects.filter(compensates_id=made["card_id"], state="ready")
    assert live.count() == 1  # the later one withdrew the earlier
    statuses = sorted(confirm(client, token, session).status_code for token in tokens)
    assert statuses == [200] + [410] * (len(tokens) - 1)  # the withdrawn one is gone
    assert Todo.objects.count() == 0
    assert ActionCard.objects.filter(compensates_id=made["card_id"], state="settled").count() == 1


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_number", range(6))
def test_undo_said_and_undo_endpoint_at_once_leave_one_live_card(
    user: Any, round_number: int
) -> None:
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    by_endpoint, by_chat = _at_once(
        user,
        session,
        (UNDO_URL, {"card_id": made["card_id"], "session_id": session}),
        (messages_url(session), {"text": "撤销刚才的操作"}),
    )
    tokens = []
    if by_endpoint.status_code == 200:
        tokens.append(by_endpoint.json()["card"]["token"])
    else:  # the other held the lease past the wait: refused, nothing issued
        assert (by_endpoint.status_code, error_code(by_endpoint)) == (409, "UNDO_BUSY")
    assert by_chat.status_code == 200
    tokens += [card["token"] for card in by_chat.json()["cards"]]
    _one_live_undo_runs_once(client, session, made, tokens)


@pytest.mark.django_db
def test_staff_viewing_as_the_user_get_a_notice_and_never_an_undo_card(
    client_for: Any, make_user: Any, user: Any
) -> None:
    staff = make_user("staff", is_staff=True)
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    started = client_for(staff).post(
        "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
    )
    assert started.status_code == 201
    admin_api = client_for(staff, **{"X-Admin-Context": started.json()["context_id"]})
    refused = admin_api.post(messages_url(session), {"text": "撤销刚才的操作"}, format="json")
    assert (refused.status_code, error_code(refused)) == (403, "ADMIN_READONLY")
    own = open_session(admin_api)  # a conversation of the context: nothing in it ran
    body = send_message(admin_api, own, "撤销刚才的操作")
    assert (body["cards"], body["notices"]) == ([], [])
    assert not ActionCard.objects.filter(compensates_id=made["card_id"]).exists()
    (card,) = send_message(client, session, "撤销")["cards"]  # the user's own, as usual
    assert card["compensates_id"] == made["card_id"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "first", "said", "reply"),
    [
        ("zh-CN", "删除待办「买菜」", "撤销", "已恢复待办「买菜」。"),
        ("en", "delete the todo Buy milk", "undo that", 'Restored the todo "Buy milk".'),
        ("zh-CN", "新建笔记：周末计划，内容是去爬山", "撤销", "已将笔记「周末计划」移入回收站。"),
    ],
)
def test_the_final_reply_after_an_undo_is_kept_by_the_guard(
    user: Any, language: str, first: str, said: str, reply: str
) -> None:
    """A restore's and a discard's receipts back what they did (the guard once replaced
    both with "not executed": their capabilities had no kind of write)."""
    todo_services.todo_create(owner=user, title="买菜")
    todo_services.todo_create(owner=user, title="Buy milk")
    client, session = chat_in(user, language)
    _confirmed(client, session, first)
    (card,) = send_message(client, session, said)["cards"]
    assert confirm(client, card["token"], session).json()["outcome"]["ok"] is True
    answer = final_reply(client, session, card).json()
    assert {k: v for k, v in answer.items() if k != "changes"} == {
        "state": "settled",
        "reply": reply,
    }


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_number", range(4))
def test_two_tabs_saying_undo_at_once_leave_one_live_card(user: Any, round_number: int) -> None:
    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    answers = _at_once(
        user,
        session,
        (messages_url(session), {"text": "撤销"}),
        (messages_url(session), {"text": "undo that"}),
    )
    assert [answer.status_code for answer in answers] == [200, 200]
    tokens = [card["token"] for answer in answers for card in answer.json()["cards"]]
    _one_live_undo_runs_once(client, session, made, tokens)


@pytest.mark.django_db
def test_the_chat_page_offers_no_undo_of_a_change_already_taken_back(user: Any) -> None:
    from zoneinfo import ZoneInfo

    from agent.models import AgentSession
    from agent.web.history import history_entries

    client, session = chat_in(user)
    made = _confirmed(client, session, "帮我加个待办：明天上午10点开会")
    conversation = AgentSession.objects.get(id=session)

    def offers_undo() -> dict[str, bool]:
        entries = history_entries(conversation, locale="zh-CN", zone=ZoneInfo("Asia/Shanghai"))
        return {
            card["card_id"]: bool(card.get("undo"))
            for entry in entries
            for card in entry.get("cards", [])
        }

    assert offers_undo()[made["card_id"]] is True
    (undo_card,) = send_message(client, session, "撤销")["cards"]
    assert offers_undo()[made["card_id"]] is True  # its undo card has not run yet
    assert confirm(client, undo_card["token"], session).json()["outcome"]["ok"] is True
    assert offers_undo() == {made["card_id"]: False, undo_card["card_id"]: False}
