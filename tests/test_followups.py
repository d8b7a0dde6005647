"""Issue 13 over HTTP: reads never card, unsure requests are asked about, answers complete them.

The examples of the issue, in Chinese and in English, through the messages endpoint; the
pending-request store (one sealed, expiring record per session); and the OpenAI path going
through the same follow-up code. The clock is Wednesday 2026-12-02 14:00 Asia/Shanghai.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.test import override_settings

from agent.conversation import pending
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from notes.models import Note
from tests.fake_openai import tool_call
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

NOW = "2026-12-02T14:00:00+08:00"
SESSIONS = "/api/v1/agent/sessions/"


def session_of(api: Any) -> str:
    return api.post(SESSIONS, {}, format="json").json()["id"]


@pytest.fixture(autouse=True)
def _frozen_clock() -> Iterator[None]:
    # The whole test at one instant: record lifetimes (TTLs) count from the same clock.
    with time_machine.travel(NOW, tick=False):
        yield


def say(api: Any, session_id: str, text: str) -> dict[str, Any]:
    response = api.post(f"{SESSIONS}{session_id}/messages/", {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def clarify_notice(body: dict[str, Any]) -> dict[str, Any]:
    [notice] = [notice for notice in body["notices"] if notice["status"] == "clarify"]
    assert body["cards"] == []
    assert notice["message"] in body["reply"]
    return notice


@pytest.fixture
def api(client_for, user):
    user.time_zone = "Asia/Shanghai"
    user.save()
    return client_for(user)


@pytest.fixture
def weekly_report(user):
    return todo_services.todo_create(owner=user, title="提交周报")


# --- reads never become cards --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("列出我的待办", {"query_todos"}),
        ("查看我的待办", {"query_todos"}),
        ("看看还有哪些没完成的任务", {"query_todos"}),
        ("搜索 周报", {"search_notes", "query_todos"}),
        ("list my todos", {"query_todos"}),
        ("show my open tasks", {"query_todos"}),
        ("search for report", {"search_notes", "query_todos"}),
        ("what are my completed tasks?", {"query_todos"}),
    ],
)
def test_a_read_request_reads_and_never_cards(api, weekly_report, text, tools) -> None:
    body = say(api, session_of(api), text)
    assert body["cards"] == []
    assert {fact["tool"] for fact in body["facts"]} == tools
    assert all(notice["status"] != "clarify" for notice in body["notices"])


def test_listing_todos_names_them_and_creates_nothing(api, weekly_report) -> None:
    body = say(api, session_of(api), "列出我的待办")
    assert "提交周报" in body["reply"]
    assert Todo.objects.count() == 1


@pytest.mark.parametrize("text", ["查看我的笔记", "show my notes"])
def test_notes_without_a_keyword_are_listed_not_asked_about(api, user, text) -> None:
    Note.objects.create(owner=user, title="周会", content="讨论计划")
    body = say(api, session_of(api), text)
    assert body["cards"] == []
    assert [fact["tool"] for fact in body["facts"]] == ["search_notes"]
    assert "周会" in body["reply"]
    assert all(notice["status"] != "clarify" for notice in body["notices"])


# --- writes only when asked; unsure requests are asked about -------------------------------


@pytest.mark.parametrize(
    ("text", "title", "due"),
    [
        ("下周一上午 10 点开会的待办", "开会", "2026-12-07T10:00:00+08:00"),
        ("remind me to call mom next Monday 10am", "Call mom", "2026-12-07T10:00:00+08:00"),
    ],
)
def test_a_named_todo_with_its_time_gets_its_card(api, text, title, due) -> None:
    [card] = say(api, session_of(api), text)["cards"]
    assert card["tool"] == "create_todo"
    assert (card["args"]["title"], card["args"]["due_at"]) == (title, due)


@pytest.mark.parametrize(
    ("first", "answer", "title"),
    [
        ("下周一上午开会", "好", "开会"),
        ("meeting with Anna next Monday morning", "yes", "Meeting with Anna"),
    ],
)
def test_a_bare_event_with_a_vague_time_is_asked_its_time_and_a_yes_asks_again(
    api, first, answer, title
) -> None:
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, first))
    # a complete request whose time ("上午" / "morning") is vague: the time is asked for
    assert (notice["capability"], notice["slot"]) == ("todo.create", "due_at")
    assert title in notice["message"]
    # "Yes" gives no time: the question stands
    notice = clarify_notice(say(api, session_id, answer))
    assert notice["slot"] == "due_at"
    [card] = say(api, session_id, "10点" if first.startswith("下") else "10am")["cards"]
    assert card["args"]["title"] == title
    assert card["args"]["due_at"] == "2026-12-07T10:00:00+08:00"


@pytest.mark.parametrize(
    ("first", "asked", "title"),
    [
        (
            "帮我记一下买菜",
            "要为你创建待办「买菜」吗？回复“好”确认，也可以告诉我截止时间。",
            "买菜",
        ),
        (
            "jot down buy milk",
            'Shall I create the todo "Buy milk"? Say "yes", or tell me when it is due.',
            "Buy milk",
        ),
    ],
)
def test_a_todo_without_a_time_is_asked_about_without_an_empty_time(api, first, asked, title):
    """The question names no time when none was said (it once read 「买菜」（）), and a yes
    gives a card without one."""
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, first))
    assert (notice["slot"], notice["message"]) == ("intent", asked)
    [card] = say(api, session_id, "好" if first.startswith("帮") else "yes")["cards"]
    assert (card["tool"], card["args"]["title"], card["args"]["due_at"]) == (
        "create_todo",
        title,
        None,
    )


@pytest.mark.parametrize(
    ("first", "answer", "title"),
    [
        ("明天上午十点牙医复诊", "待办", "牙医复诊"),
        ("dinner with Sam Friday 7pm", "todo", "Dinner with Sam"),
        ("明天上午十点牙医复诊", "就记成待办吧", "牙医复诊"),
    ],
)
def test_a_complete_event_is_its_todo_card_at_once_and_todo_after_it_adds_none(
    api, first, answer, title
):
    session_id = session_of(api)
    [card] = say(api, session_id, first)["cards"]
    assert (card["tool"], card["args"]["title"]) == ("create_todo", title)
    assert card["args"]["due_at"] is not None
    assert say(api, session_id, answer)["cards"] == []  # it is a todo already


@pytest.mark.parametrize(
    ("first", "answer", "title", "content"),
    [
        ("周五晚上七点和小李吃火锅", "记成笔记吧", "和小李吃火锅", "周五晚上七点"),
        ("team lunch next Tuesday at noon", "make it a note", "Team lunch", "next Tuesday at noon"),
    ],
)
def test_answering_with_note_makes_the_card_a_note_that_keeps_the_time(
    api, first, answer, title, content
) -> None:
    session_id = session_of(api)
    [todo_card] = say(api, session_id, first)["cards"]
    assert todo_card["tool"] == "create_todo"
    [card] = say(api, session_id, answer)["cards"]
    assert card["tool"] == "create_note"
    assert card["parent_id"] == todo_card["card_id"]  # the todo's card is withdrawn
    assert (card["args"]["title"], card["args"]["content"]) == (title, content)
    assert Note.objects.count() == 0  # a card, never a write


@pytest.mark.parametrize(
    ("first", "answer"),
    [("提醒我下周一上午开会", "10点"), ("remind me about the standup next Monday morning", "10am")],
)
def test_a_vague_time_is_asked_for_and_the_answer_keeps_the_day(api, first, answer) -> None:
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, first))
    assert (notice["slot"], notice["code"]) == ("due_at", "TODO_DUE_AT_INVALID")
    body = say(api, session_id, answer)
    [card] = body["cards"]
    assert card["args"]["due_at"] == "2026-12-07T10:00:00+08:00"
    assert body["notices"] == []
    assert Todo.objects.count() == 0  # a card, never a write


def test_an_answer_with_its_own_day_replaces_the_vague_time(api) -> None:
    session_id = session_of(api)
    say(api, session_id, "提醒我下周一上午开会")
    [card] = say(api, session_id, "明天下午3点")["cards"]
    assert card["args"]["due_at"] == "2026-12-03T15:00:00+08:00"


@pytest.mark.parametrize(
    ("text", "args"),
    [
        ("把 提交周报 的截止时间改为明天下午 5 点", {"due_at": "2026-12-03T17:00:00+08:00"}),
        ("把 提交周报 的优先级改为高", {"priority": 2}),
        (
            "change the due date of 提交周报 to tomorrow 5pm",
            {"due_at": "2026-12-03T17:00:00+08:00"},
        ),
        ("set the priority of 提交周报 to high", {"priority": 2}),
    ],
)
def test_chinese_and_english_edits_get_their_cards(api, weekly_report, text, args) -> None:
    [card] = say(api, session_of(api), text)["cards"]
    assert card["tool"] == "update_todo"
    assert card["args"]["todo_id"] == str(weekly_report.id)
    assert {key: card["args"][key] for key in args} == args


@pytest.mark.parametrize("text", ["完成 提交周报", "complete 提交周报", "提交周报做完了"])
def test_completing_by_title_gets_its_card(api, weekly_report, text) -> None:
    [card] = say(api, session_of(api), text)["cards"]
    assert (card["tool"], card["args"]["status"]) == ("set_todo_status", "done")


@pytest.mark.parametrize(
    ("text", "title", "content"),
    [
        ("记一条笔记：周会要点 — 讨论了预算和招聘", "周会要点", "讨论了预算和招聘"),
        ("new note: Standup notes — we agreed on the launch date", "Standup notes", "we agreed"),
    ],
)
def test_a_note_keeps_its_content_after_a_dash(api, text, title, content) -> None:
    [card] = say(api, session_of(api), text)["cards"]
    assert card["args"]["title"] == title
    assert content in card["args"]["content"]


# --- which item: "the second one" ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "answer"), [("完成 周报", "第二个"), ("finish 周报", "the second one")]
)
def test_a_vague_item_is_asked_about_and_a_position_picks_it(api, user, text, answer) -> None:
    first = todo_services.todo_create(owner=user, title="提交周报")
    second = todo_services.todo_create(owner=user, title="周报模板整理")
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, text))
    assert (notice["slot"], notice["code"]) == ("target", "TODO_NOT_FOUND")
    second_line = next(line for line in notice["message"].splitlines() if line.startswith("2. "))
    assert first.title in notice["message"]
    assert second.title in notice["message"]
    [card] = say(api, session_id, answer)["cards"]
    stored = card["args"]
    # "The second one" is the item on the question's second line.
    assert Todo.objects.get(id=stored["todo_id"]).title in second_line
    assert stored["status"] == "done"


def test_an_ambiguous_title_lists_only_the_users_own_items(api, user, other_user) -> None:
    for _ in range(2):
        todo_services.todo_create(owner=user, title="交报告")
    todo_services.todo_create(owner=other_user, title="交报告")
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, "完成待办「交报告」"))
    assert notice["code"] == "TODO_TITLE_AMBIGUOUS"
    assert "2. " in notice["message"]
    assert "3. " not in notice["message"]
    [card] = say(api, session_id, "1")["cards"]
    assert Todo.objects.get(id=card["args"]["todo_id"]).owner == user


# --- the pending request: cancel, replace, seal, expiry ------------------------------------


@pytest.mark.parametrize(
    ("first", "cancel"), [("帮我创建一个待办", "算了"), ("add a todo", "never mind")]
)
def test_a_cancel_ends_the_question_and_writes_nothing(api, first, cancel) -> None:
    session_id = session_of(api)
    clarify_notice(say(api, session_id, first))
    body = say(api, session_id, cancel)
    assert body["cards"] == []
    assert body["notices"] == []
    assert pending_record(session_id) is None
    # The next message is a new request, not the answer to a forgotten question.
    assert say(api, session_id, "10点")["cards"] == []


def test_a_new_request_replaces_the_question(api, weekly_report) -> None:
    session_id = session_of(api)
    clarify_notice(say(api, session_id, "提醒我下周一上午开会"))
    body = say(api, session_id, "列出我的待办")
    assert body["cards"] == []
    assert [fact["tool"] for fact in body["facts"]] == ["query_todos"]
    assert pending_record(session_id) is None


def pending_record(session_id: str) -> Any:
    keys = get_redis().keys("ln:pending:*")
    return keys[0] if keys else None


def test_the_pending_request_is_one_sealed_expiring_record_per_session(api, user) -> None:
    session_id = session_of(api)
    say(api, session_id, "提醒我下周一上午开会")
    say(api, session_id, "帮我创建一个待办")  # a second question replaces the first
    [key] = get_redis().keys("ln:pending:*")
    assert 0 < get_redis().pttl(key) <= 900_000
    stored = pending.pending_get(owner_id=user.pk, session_id=session_id)
    assert stored is not None
    assert (stored.tool, stored.slot) == ("create_todo", "title")
    # Another user (or session) never reads it.
    assert pending.pending_get(owner_id=user.pk + 1, session_id=session_id) is None


def test_an_altered_pending_record_is_ignored_and_dropped(api, user) -> None:
    session_id = session_of(api)
    say(api, session_id, "提醒我下周一上午开会")
    [key] = get_redis().keys("ln:pending:*")
    payload = json.loads(get_redis().get(key))
    payload["record"]["tool"] = "delete_todo"  # a party that can write Redis, not the secret
    get_redis().set(key, json.dumps(payload), px=60_000)
    body = say(api, session_id, "10点")
    assert body["cards"] == []
    assert get_redis().keys("ln:pending:*") == []


@override_settings(LIGHTNOTE_PENDING_TTL=10)
def test_an_expired_question_is_not_answered(api) -> None:
    session_id = session_of(api)
    say(api, session_id, "提醒我下周一上午开会")
    [key] = get_redis().keys("ln:pending:*")
    assert get_redis().pttl(key) <= 10_000
    get_redis().delete(key)  # what the TTL does
    assert say(api, session_id, "10点")["cards"] == []


def test_an_unreachable_store_only_loses_the_follow_up(api, weekly_report, monkeypatch) -> None:
    from lightnote.controlstore import store

    def down(*args: Any, **kwargs: Any) -> Any:
        raise store.StoreUnavailable("down")

    monkeypatch.setattr(store, "value_get", down)
    body = say(api, session_of(api), "列出我的待办")
    assert [fact["tool"] for fact in body["facts"]] == ["query_todos"]


# --- the OpenAI planner goes through the same follow-up code -------------------------------


def test_a_model_proposal_with_a_vague_time_is_asked_about_and_the_model_completes_it(
    api, fake_openai
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "开会", "due_at": "下周一上午"})
    )
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "开会", "due_at": "下周一上午10点"})
    )
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, "提醒我下周一上午开会"))
    assert (notice["slot"], notice["code"]) == ("due_at", "TODO_DUE_AT_INVALID")
    assert AuditEvent.objects.filter(event_type="card.refused").count() == 1
    # With a model every message is the model's (never the offline grammar's): it gets the
    # waiting question in its context and answers with the ordinary tool.
    [card] = say(api, session_id, "10点")["cards"]
    assert card["args"]["title"] == "开会"
    assert card["args"]["due_at"] == "2026-12-07T10:00:00+08:00"
    assert len(fake_openai.requests) == 2
    shown = [m["content"] for m in fake_openai.requests[1]["messages"] if m["role"] == "system"]
    assert any('"kind": "question"' in text and '"missing": "due_at"' in text for text in shown)


@pytest.mark.parametrize(
    ("first", "answer"),
    [("把 提交周报 的优先级改一下", "高优先级"), ("change the priority of 提交周报", "high")],
)
def test_a_missing_priority_is_asked_for_and_the_answer_fills_it(
    api, weekly_report, first, answer
) -> None:
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, first))
    assert (notice["capability"], notice["slot"]) == ("todo.update", "priority")
    [card] = say(api, session_id, answer)["cards"]
    assert (card["tool"], card["args"]["priority"]) == ("update_todo", 2)
    assert card["args"]["todo_id"] == str(weekly_report.id)


@pytest.mark.parametrize(
    ("text", "language", "word"),
    [
        ("add a todo", "zh-CN", "What should the todo say"),
        ("帮我创建一个待办", "en", "要创建什么待办"),
    ],
)
def test_a_question_speaks_the_language_of_the_sentence(client_for, user, text, language, word):
    api = client_for(user, **{"Accept-Language": language})
    notice = clarify_notice(say(api, session_of(api), text))
    assert word in notice["message"]


def test_the_session_row_says_when_a_question_may_be_pending(api, settings) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from agent.models import AgentSession

    session_id = session_of(api)
    clarify_notice(say(api, session_id, "提醒我下周一上午开会"))
    until = AgentSession.objects.get(id=session_id).pending_until
    assert until is not None
    expected = timezone.now() + timedelta(seconds=settings.LIGHTNOTE_PENDING_TTL)
    assert abs((until - expected).total_seconds()) < 5  # read right after the store's save
    [card] = say(api, session_id, "10点")["cards"]  # the answer found the question
    assert card["args"]["due_at"] == "2026-12-07T10:00:00+08:00"
    assert AgentSession.objects.get(id=session_id).pending_until is None  # answered


def test_a_hint_whose_question_the_store_lost_is_harmless(api) -> None:
    from agent.models import AgentSession

    session_id = session_of(api)
    clarify_notice(say(api, session_id, "提醒我下周一上午开会"))
    pending.pending_clear(session_id=session_id)  # e.g. expired, or the store restarted
    body = say(api, session_id, "10点")  # planned as a new request
    assert body["cards"] == []
    assert AgentSession.objects.get(id=session_id).pending_until is None


def test_a_question_whose_hint_has_passed_is_not_read(api, user) -> None:
    from agent.models import AgentSession

    session_id = session_of(api)
    clarify_notice(say(api, session_id, "提醒我下周一上午开会"))
    AgentSession.objects.filter(id=session_id).update(pending_until=None)
    body = say(api, session_id, "10点")  # the stored question is not looked for
    assert body["cards"] == []
    # Never looked at, so still stored (it expires on its own).
    assert pending.pending_get(owner_id=user.pk, session_id=session_id) is not None


def test_a_question_asked_in_traditional_characters_is_answered_in_them(api) -> None:
    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, "提醒我交報告"))
    assert notice["slot"] == "due_at"
    [card] = say(api, session_id, "週五晚上八點")["cards"]
    assert card["args"]["title"] == "交報告"
    assert card["args"]["due_at"] == "2026-12-04T20:00:00+08:00"
    assert card["args"]["due_at_said"] == "週五晚上八點"


@pytest.mark.parametrize(
    ("text", "new_title"),
    [
        ("把 Trip ideas 改名为旅行灵感", "旅行灵感"),
        ('Change the title of "Trip ideas" to "Travel bucket list"', "Travel bucket list"),
    ],
)
def test_a_rename_that_names_no_kind_is_the_notes_when_no_todo_has_that_title(
    api, user, text, new_title
) -> None:
    note = Note.objects.create(owner=user, title="Trip ideas", content="Kyoto")
    [card] = say(api, session_of(api), text)["cards"]
    assert card["tool"] == "update_note"
    assert (card["args"]["note_id"], card["args"]["title"]) == (str(note.id), new_title)
    # a todo with that title is what the sentence means first
    todo = todo_services.todo_create(owner=user, title="Trip ideas")
    [card] = say(api, session_of(api), text)["cards"]
    assert (card["tool"], card["args"]["todo_id"]) == ("update_todo", str(todo.id))


def test_a_rename_of_an_item_nobody_has_is_refused_as_the_todo_it_first_reads(api) -> None:
    body = say(api, session_of(api), "把不存在的东西改名为新名字")
    assert body["cards"] == []
    assert [notice["code"] for notice in body["notices"]] == ["TODO_NOT_FOUND"]


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("给预算笔记加标签：财务、2027", ["旧", "财务", "2027"]),
        ("tag my 预算 note with cooking and breakfast", ["旧", "cooking", "breakfast"]),
    ],
)
def test_tags_said_to_be_added_keep_the_notes_own(api, user, text, tags) -> None:
    Note.objects.create(owner=user, title="预算", content="年度", tags=["旧"])
    [card] = say(api, session_of(api), text)["cards"]
    assert (card["tool"], card["args"]["tags"]) == ("update_note", tags)


@pytest.mark.parametrize(
    ("turns", "tool", "expected"),
    [
        # a part of the day said first is kept for a bare clock answer (was 07:30 tomorrow)
        (
            ["Remind me tomorrow evening to pay the electricity bill", "7:30"],
            "create_todo",
            {"title": "Pay the electricity bill", "due_at": "2026-12-03T19:30:00+08:00"},
        ),
        (
            ["can you remind me to pick up the kids this afternoon", "4:15"],
            "create_todo",
            {"title": "Pick up the kids", "due_at": "2026-12-02T16:15:00+08:00"},
        ),
        # a complete request: its card at once, nothing asked (the old "shall I?" and its 加吧)
        (["明天上午10点牙医复诊"], "create_todo", {"title": "牙医复诊"}),
        # what should change on an item named alone: answered with a time, a priority, a
        # sentence about "it"
        (
            ["change Pay rent", "to Friday 5pm"],
            "update_todo",
            {"due_at": "2026-12-04T17:00:00+08:00"},
        ),
        (
            ["I need to update Renew passport", "make it high priority"],
            "update_todo",
            {"priority": 2},
        ),
        (
            ["edit Book dentist appointment", "move it to next Monday"],
            "update_todo",
            {"due_at": "2026-12-07T23:59:00+08:00"},
        ),
        (["修改一下体检预约", "优先级调高"], "update_todo", {"priority": 2}),
        (
            ["续签合同那个帮我改改", "改到下周一上午9点"],
            "update_todo",
            {"due_at": "2026-12-07T09:00:00+08:00"},
        ),
        # something jotted down and made a note keeps its text as the note's content
        (
            ["帮我记一下：周报模板在共享盘", "笔记吧"],
            "create_note",
            {"content": "周报模板在共享盘"},
        ),
        # the question dropped for a new request said after it
        (
            ["delete that one", "never mind that, remind me to feed the dog at 6pm today"],
            "create_todo",
            {"title": "Feed the dog", "due_at": "2026-12-02T18:00:00+08:00"},
        ),
        (["那个不要了，删掉", "买菜"], "delete_todo", {}),
    ],
)
def test_answers_to_a_question_complete_the_request(api, user, turns, tool, expected) -> None:
    for title in (
        "Pay rent",
        "Renew passport",
        "Book dentist appointment",
        "体检预约",
        "续签合同",
        "买菜",
    ):
        todo_services.todo_create(owner=user, title=title)
    session_id = session_of(api)
    for turn in turns[:-1]:
        clarify_notice(say(api, session_id, turn))
    [card] = say(api, session_id, turns[-1])["cards"]
    assert card["tool"] == tool
    assert {key: card["args"].get(key) for key in expected} == expected


@pytest.mark.parametrize("cancel", ["算了不用了", "不用了谢谢", "算了算了"])
def test_a_cancel_said_in_pieces_is_still_a_cancel(api, cancel) -> None:
    session_id = session_of(api)
    clarify_notice(say(api, session_id, "新建待办"))
    body = say(api, session_id, cancel)
    assert body["cards"] == []
    assert Todo.objects.count() == 0


def test_a_due_date_taken_off_is_a_card_that_clears_it(api, user) -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    due = datetime(2026, 12, 2, 21, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    todo_services.todo_create(owner=user, title="提交周报", due_at=due)
    [card] = say(api, session_of(api), "提交周报的截止时间去掉")["cards"]
    assert (card["tool"], card["args"]["due_at"]) == ("update_todo", None)
    # an item with no due date has nothing to take off: refused, no card
    todo_services.todo_create(owner=user, title="买菜")
    body = say(api, session_of(api), "把买菜的截止时间去掉")
    assert body["cards"] == []
    assert [notice["code"] for notice in body["notices"]] == ["TODO_UPDATE_NOOP"]


def test_a_title_that_opens_with_its_gei_is_found_with_it(api, user) -> None:
    # 给 read as "for" first; no todo 妈妈打电话: the reading with 给 is the one prepared
    todo = todo_services.todo_create(owner=user, title="给妈妈打电话")
    [card] = say(api, session_of(api), "给妈妈打电话这件事提高一下优先级")["cards"]
    assert (card["args"]["todo_id"], card["args"]["priority"]) == (str(todo.id), 2)


# The question about a vague time suggests an exact one; answering with that very example
# must give a card (a suggestion the due-time parser refuses, such as 下午10点 or
# "this afternoon 10am", would send the user round in circles).
_EXAMPLE = r"[“\"]([^”\"]+)[”\"][。.]?$"


@pytest.mark.parametrize(
    ("first", "example"),
    [
        ("今晚记得吃药", "今晚8点"),
        ("下午提醒我交房租", "下午3点"),
        ("明天中午提醒我吃饭", "明天中午12点"),
        ("凌晨提醒我看球", "凌晨5点"),
        ("明早提醒我跑步", "明早9点"),
        ("傍晚提醒我遛狗", "傍晚8点"),
        ("提醒我下周一上午开会", "下周一上午9点"),
        ("以后提醒我交房租", "明天下午3点"),
        ("remind me to call mom tonight", "tonight 8pm"),
        ("remind me to pay rent this afternoon", "this afternoon 3pm"),
        ("remind me to pay rent tomorrow morning", "tomorrow morning 9am"),
        ("remind me to run next monday evening", "next monday evening 8pm"),
        ("remind me to pay rent later", "tomorrow 3pm"),
    ],
)
def test_the_example_time_a_vague_time_question_offers_is_accepted(api, first, example) -> None:
    import re

    session_id = session_of(api)
    notice = clarify_notice(say(api, session_id, first))
    assert notice["code"] == "TODO_DUE_AT_INVALID"
    offered = re.search(_EXAMPLE, notice["message"])
    assert offered is not None, notice["message"]
    assert offered.group(1) == example
    body = say(api, session_id, example)
    [card] = body["cards"]
    assert card["tool"] == "create_todo"
    assert card["args"]["due_at"]
    assert Todo.objects.count() == 0  # a card, never a write


def test_every_part_of_the_day_gets_an_example_inside_its_hours() -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from agent.planners.questions import due_example
    from agent.timeparse import parse_time
    from agent.timeparse.words import DAY_AND_PART, PARTS_OF_DAY, PARTS_ZH

    zone = ZoneInfo("Asia/Shanghai")
    now = datetime(2026, 12, 2, 14, 0, tzinfo=zone)
    said = [*PARTS_ZH, *DAY_AND_PART, *(f"明天{part}" for part in PARTS_ZH if len(part) > 1)]
    english = [
        "tonight",
        "this morning",
        "this afternoon",
        "this evening",
        "tomorrow morning",
        "tomorrow afternoon",
        "tomorrow evening",
        "tomorrow night",
        "friday morning",
    ]
    for vague, chinese in [*((text, True) for text in said), *((text, False) for text in english)]:
        example = due_example(vague, chinese=chinese)
        value = parse_time(example, now=now, zone=zone)  # raises if the parser refused it
        # the user's own day and part, with a clock time inside that part
        assert example.startswith(vague), (vague, example)
        [part] = _parts_of(vague)
        assert value.hour in PARTS_OF_DAY[part], (vague, example)


def _parts_of(text: str) -> set[str]:
    from agent.timeparse.grammar import scan
    from agent.timeparse.normalise import normalise

    return set(scan(normalise(text)).parts)
