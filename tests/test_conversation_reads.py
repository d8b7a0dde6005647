"""What the rules planner's reads say, through the messages endpoint (docs/conversation.md
"Reads"): counts, pages, time windows, notes without a keyword, the waiting card, "it".

Each list is the user's data as created here, so every assertion names the exact items a
reply shows and the counts it states. The clock is frozen near midnight in a zone that is
not UTC (New York, UTC-5), so a window computed in UTC would show other items.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from agent.cards import transitions as card_transitions
from agent.models import Message
from agent.tools.adapters import listing
from agent.web.conversations import CONVERSATION_SESSION_KEY
from notes import services as note_services
from todos import services as todo_services
from todos.models import Todo

from .test_conversation_api import confirm, new_session, say

pytestmark = pytest.mark.django_db

NEW_YORK = ZoneInfo("America/New_York")
# Wednesday 2026-12-02 23:30 in New York (Thursday 04:30 UTC): "tomorrow" is Thursday there.
NOW = datetime(2026, 12, 2, 23, 30, tzinfo=NEW_YORK)
CREATED = datetime(2026, 11, 1, 9, 0, tzinfo=NEW_YORK)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    """A time in December 2026, New York."""
    return datetime(2026, 12, day, hour, minute, tzinfo=NEW_YORK)


def shown(body: dict[str, Any]) -> list[str]:
    """The titles the reply lists, in order (a line: "- <title>（…）" or "- <title> (…)")."""
    return re.findall(r"^- (.+?)(?:（| \()", body["reply"], re.M)


def items(body: dict[str, Any]) -> list[str]:
    """The titles of the facts' items, in order."""
    return [item["title"] for fact in body["facts"] for item in fact.get("items", [])]


@pytest.fixture
def new_yorker(make_user: Any) -> Any:
    return make_user("nyc", time_zone="America/New_York")


@pytest.fixture
def api(client_for: Any, new_yorker: Any) -> Any:
    return client_for(new_yorker)


def make_todos(owner: Any, rows: list[tuple[str, datetime | None]]) -> None:
    """Create ``rows`` oldest first, a minute apart (the lists show the newest first)."""
    for index, (title, due) in enumerate(rows):
        with time_machine.travel(CREATED + timedelta(minutes=index), tick=False):
            todo_services.todo_create(owner=owner, title=title, due_at=due)


@pytest.fixture
def fourteen(new_yorker: Any) -> list[str]:
    """Fourteen open todos, titled T01 (oldest) … T14 (newest); return them newest first."""
    make_todos(new_yorker, [(f"T{n:02d}", None) for n in range(1, 15)])
    return [f"T{n:02d}" for n in range(14, 0, -1)]


@pytest.fixture
def frozen() -> Any:
    """The clock at ``NOW``, ticking (so each turn's messages keep their order)."""
    with time_machine.travel(NOW, tick=True):
        yield


# --- 1. a list says what it shows ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "head"),
    [("列出我的待办", "显示 10 条，共 14 条："), ("list my todos", "Showing 10 of 14:")],
)
def test_a_list_longer_than_a_page_says_how_many_it_shows_of_how_many(
    api, fourteen, frozen, text, head
) -> None:
    body = say(api, new_session(api), text)

    assert body["reply"].splitlines()[0] == head
    assert "14 条待办" not in body["reply"]
    assert "Found 14" not in body["reply"]
    assert shown(body) == fourteen[:10]
    [fact] = body["facts"]
    assert fact["count"] == 14
    assert items(body) == fourteen[:10]
    assert body["cards"] == []


def test_a_list_that_fits_says_it_found_them_all(api, new_yorker, frozen) -> None:
    make_todos(new_yorker, [("Buy milk", None), ("Call mom", None)])

    body = say(api, new_session(api), "list my todos")

    assert body["reply"].splitlines()[0] == "Found 2 todos:"
    assert shown(body) == ["Call mom", "Buy milk"]


# --- 2. the next page, by words --------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "more", "head", "last"),
    [
        ("列出我的待办", "下一页", "接下来的 4 条，共 14 条：", "以上是最后几条。"),
        ("列出我的待办", "还有吗？", "接下来的 4 条，共 14 条：", "以上是最后几条。"),
        ("列出我的待办", "更多", "接下来的 4 条，共 14 条：", "以上是最后几条。"),
        ("列出我的待办", "第二页", "接下来的 4 条，共 14 条：", "以上是最后几条。"),
        ("list my todos", "more", "The next 4 of 14:", "That is the last of them."),
        ("list my todos", "show more", "The next 4 of 14:", "That is the last of them."),
        ("list my todos", "show the rest", "The next 4 of 14:", "That is the last of them."),
        ("list my todos", "next page", "The next 4 of 14:", "That is the last of them."),
    ],
)
def test_the_next_page_continues_the_last_list_of_the_session(
    api, fourteen, frozen, first, more, head, last
) -> None:
    session = new_session(api)
    page_one = say(api, session, first)
    assert shown(page_one) == fourteen[:10]

    page_two = say(api, session, more)

    assert page_two["reply"].splitlines()[0] == head
    assert shown(page_two) == fourteen[10:]
    assert page_two["reply"].splitlines()[-1] == last
    assert [fact["count"] for fact in page_two["facts"]] == [14]
    assert page_two["cards"] == []
    assert page_two["notices"] == []


@pytest.mark.parametrize(
    ("first", "more", "answer"),
    [
        ("列出我的待办", "下一页", "上一个列表已经全部显示了（共 14 条）。"),
        ("list my todos", "more", "The last list was shown in full (14 in all)."),
    ],
)
def test_more_after_the_last_page_says_the_list_was_shown_in_full(
    api, fourteen, frozen, first, more, answer
) -> None:
    session = new_session(api)
    say(api, session, first)
    say(api, session, more)

    body = say(api, session, more)

    assert body["reply"] == answer
    assert body["facts"] == []


def test_the_next_page_keeps_the_filters_of_the_read(api, new_yorker, frozen) -> None:
    make_todos(new_yorker, [(f"report {n:02d}", None) for n in range(1, 13)] + [("milk", None)])
    session = new_session(api)
    first = say(api, session, "todos about report")
    assert first["reply"].splitlines()[0] == "Showing 10 of 12:"

    body = say(api, session, "show the rest")

    assert shown(body) == ["report 02", "report 01"]
    assert body["reply"].splitlines()[0] == "The next 2 of 12:"


def test_a_read_said_with_its_page_shows_that_page(api, fourteen, frozen) -> None:
    body = say(api, new_session(api), "列出我的待办，第二页")

    assert body["reply"].splitlines()[0] == "接下来的 4 条，共 14 条："
    assert shown(body) == fourteen[10:]


def test_a_page_past_the_end_says_how_many_pages_there_are(api, fourteen, frozen) -> None:
    session = new_session(api)
    say(api, session, "list my todos")

    body = say(api, session, "page 3")

    assert body["reply"] == "The last list has only 2 pages."
    assert body["facts"] == []


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("下一页", "这个对话里还没有可以继续的列表。"),
        ("show more", "There is no list in this conversation to continue."),
        ("more", "There is no list in this conversation to continue."),
    ],
)
def test_more_with_no_list_in_the_session_says_there_is_nothing_to_continue(
    api, fourteen, frozen, text, answer
) -> None:
    body = say(api, new_session(api), text)

    assert body["reply"].startswith(answer)
    assert "No note matches" not in body["reply"]
    assert "No todo matches" not in body["reply"]
    assert body["facts"] == []
    assert body["cards"] == []


def test_the_cursor_stays_on_the_server(api, fourteen, frozen) -> None:
    session = new_session(api)
    body = say(api, session, "list my todos")

    [fact] = body["facts"]
    assert "next" not in fact
    assert "cursor" not in str(body)
    stored = Message.objects.filter(role="assistant").latest("created_at").payload
    assert stored["paging"][0]["next"]  # kept with the turn, read back by the next page


def test_a_list_links_to_the_item_page_with_the_same_filter(
    api, client, new_yorker, frozen
) -> None:
    make_todos(new_yorker, [("Pay rent", at(1, 9)), ("Pay rent later", at(9, 9))])

    body = say(api, new_session(api), "overdue todos about rent")

    [fact] = body["facts"]
    assert items(body) == ["Pay rent"]
    assert fact["link"] == "/todos/?view=overdue&q=rent"
    client.force_login(new_yorker)
    page = client.get(fact["link"])
    assert page.status_code == 200
    assert "Pay rent" in page.content.decode()
    assert "Pay rent later" not in page.content.decode()


# --- 3. windows in the user's zone -----------------------------------------------------------


@pytest.fixture
def timed(new_yorker: Any) -> None:
    make_todos(
        new_yorker,
        [
            ("Overdue report", at(1, 18)),  # yesterday
            ("Tonight laundry", at(2, 23, 45)),  # today, after now
            ("Tomorrow dentist", at(3, 9)),  # tomorrow morning (UTC: Thursday 14:00)
            ("Tomorrow late call", at(3, 23, 30)),  # tomorrow night (UTC: Friday 04:30)
            ("Saturday gym", at(5, 10)),  # this week
            ("Sunday plan", at(6, 22)),  # this week's last day
            ("Next Monday review", at(7, 8)),  # next week
            ("No time", None),
        ],
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("明天到期的待办", ["Tomorrow late call", "Tomorrow dentist"]),
        ("what's due tomorrow?", ["Tomorrow late call", "Tomorrow dentist"]),
        ("今天到期的待办", ["Tonight laundry"]),
        ("what's due today?", ["Tonight laundry"]),
        ("过期的", ["Overdue report"]),
        ("overdue", ["Overdue report"]),
        (
            "这周到期的待办",
            [
                "Sunday plan",
                "Saturday gym",
                "Tomorrow late call",
                "Tomorrow dentist",
                "Tonight laundry",
                "Overdue report",
            ],
        ),
        (
            "what's due this week?",
            [
                "Sunday plan",
                "Saturday gym",
                "Tomorrow late call",
                "Tomorrow dentist",
                "Tonight laundry",
                "Overdue report",
            ],
        ),
        # (a bound, not a window: up to the end of tomorrow, overdue items too)
        (
            "明天之前到期的待办",
            ["Tomorrow late call", "Tomorrow dentist", "Tonight laundry", "Overdue report"],
        ),
    ],
)
def test_a_time_bounded_read_uses_the_users_zone_and_the_window_said(
    api, timed, frozen, text, expected
) -> None:
    body = say(api, new_session(api), text)

    assert items(body) == expected
    assert shown(body) == expected
    assert [fact["count"] for fact in body["facts"]] == [len(expected)]


def test_overdue_is_open_and_due_before_now(api, new_yorker, frozen) -> None:
    make_todos(new_yorker, [("Done late", at(1, 8)), ("Open late", at(2, 23, 0))])
    todo = Todo.objects.get(title="Done late")
    todo_services.todo_set_status(owner=new_yorker, todo_id=todo.id, status="done")

    body = say(api, new_session(api), "what's overdue?")

    assert items(body) == ["Open late"]


# --- 4. notes without a keyword --------------------------------------------------------------


@pytest.fixture
def three_notes(new_yorker: Any) -> list[str]:
    for index, title in enumerate(["Trip ideas", "Recipes", "Standup"]):
        with time_machine.travel(CREATED + timedelta(minutes=index), tick=False):
            note_services.note_create(owner=new_yorker, title=title, content="x")
    return ["Standup", "Recipes", "Trip ideas"]


@pytest.mark.parametrize(
    "text", ["我的笔记", "列出我的笔记", "所有笔记", "list my notes", "show all notes"]
)
def test_notes_are_listed_without_a_keyword_newest_first(api, three_notes, frozen, text) -> None:
    body = say(api, new_session(api), text)

    assert [fact["tool"] for fact in body["facts"]] == ["search_notes"]
    assert items(body) == three_notes
    assert shown(body) == three_notes
    assert body["notices"] == []  # no question about what to search for


def test_notes_page_like_todos(api, new_yorker, frozen) -> None:
    for index in range(1, 13):
        with time_machine.travel(CREATED + timedelta(minutes=index), tick=False):
            note_services.note_create(owner=new_yorker, title=f"N{index:02d}", content="x")
    session = new_session(api)

    first = say(api, session, "list my notes")
    rest = say(api, session, "more")

    assert first["reply"].splitlines()[0] == "Showing 10 of 12:"
    assert shown(first) == [f"N{n:02d}" for n in range(12, 2, -1)]
    assert shown(rest) == ["N02", "N01"]


# --- 5. the waiting card and "it" ------------------------------------------------------------


@pytest.mark.parametrize(
    ("delete", "question", "answer"),
    [
        ("删除待办买菜", "删了吗？", "还没有执行，确认卡在等你确认（「买菜」）"),
        ("删除待办买菜", "办好了吗", "还没有执行，确认卡在等你确认（「买菜」）"),
        ("delete the todo 买菜", "did you delete it?", "Not yet — the card is waiting for your"),
        ("delete the todo 买菜", "is it done?", "Not yet — the card is waiting for your"),
    ],
)
def test_a_question_about_a_waiting_card_states_that_it_waits(
    api, new_yorker, frozen, delete, question, answer
) -> None:
    make_todos(new_yorker, [("买菜", None)])
    session = new_session(api)
    card_body = say(api, session, delete)
    assert [card["tool"] for card in card_body["cards"]] == ["delete_todo"]

    body = say(api, session, question)

    assert body["reply"].startswith(answer)
    assert body["cards"] == []
    assert body["facts"] == []
    assert Todo.objects.filter(title="买菜").count() == 1  # nothing ran


@pytest.mark.parametrize(
    ("question", "start"), [("删了吗？", "回执："), ("did you delete it?", "The receipt says:")]
)
def test_a_question_about_a_confirmed_card_states_its_receipt(
    api, new_yorker, frozen, question, start
) -> None:
    make_todos(new_yorker, [("买菜", None)])
    session = new_session(api)
    [card] = say(api, session, "删除待办买菜")["cards"]
    assert confirm(api, session, card).status_code == 200

    body = say(api, session, question)

    assert body["reply"].startswith(start)
    assert "买菜" in body["reply"]
    assert not [n for n in body["notices"] if n.get("status") == "guarded"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("删了吗？", "没有执行：「买菜」的确认卡已被拒绝，什么都没有改变。"),
        ("is it done?", "No — the card for “买菜” was rejected; nothing changed."),
    ],
)
def test_a_question_about_a_rejected_card_says_it_was_not_done(
    api, new_yorker, frozen, question, answer
) -> None:
    make_todos(new_yorker, [("买菜", None)])
    session = new_session(api)
    [card] = say(api, session, "删除待办买菜")["cards"]
    rejected = api.post(
        "/api/v1/agent/confirmations/reject/",
        {"token": card["token"], "session_id": session},
        format="json",
    )
    assert rejected.status_code == 200, rejected.content

    body = say(api, session, question)

    assert body["reply"] == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("删了吗？", "没有执行：「买菜」的确认卡已过期"),
        ("did you delete it?", "No — the card for “买菜” expired"),
    ],
)
def test_a_question_about_an_expired_card_says_it_was_not_done(
    api, new_yorker, question, answer
) -> None:
    make_todos(new_yorker, [("买菜", None)])
    with time_machine.travel(NOW, tick=False):
        session = new_session(api)
        say(api, session, "删除待办买菜")
    with time_machine.travel(NOW + timedelta(days=2), tick=False):
        body = say(api, session, question)

    assert body["reply"].startswith(answer)


@pytest.mark.parametrize(
    ("question", "title"),
    [("它什么时候到期？", "截止 2026-12-03 09:00"), ("when is it due?", "due 2026-12-03 09:00")],
)
def test_it_in_a_read_names_the_item_of_the_last_card(
    api, new_yorker, frozen, question, title
) -> None:
    make_todos(new_yorker, [("买菜", at(3, 9)), ("Call mom", None)])
    session = new_session(api)
    say(api, session, "删除待办买菜")

    body = say(api, session, question)

    assert items(body) == ["买菜"]
    assert title in body["reply"]


# --- the chat page ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "text", "link", "label"),
    [
        ("zh-CN", "过期的待办", "/todos/?view=overdue", "在列表页查看全部"),
        ("en", "list my notes", "/notes/", "See the whole list on its page"),
    ],
)
def test_the_chat_page_links_a_list_to_its_item_page(
    client, new_yorker, three_notes, frozen, language, text, link, label
) -> None:
    make_todos(new_yorker, [("Pay rent", at(1, 9))])
    client.force_login(new_yorker)
    client.get("/")
    session_id = client.session[CONVERSATION_SESSION_KEY]

    response = client.post(
        "/chat/message/",
        {"text": text, "session_id": session_id},
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE=language,
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert f'<p class="fact-link"><a href="{link}">{label}</a></p>' in html


@pytest.mark.parametrize(
    ("title", "read", "question", "due"),
    [
        ("交房租", "有关房租的待办", "这条什么时候到期？", "截止 2026-12-09 09:00"),
        ("Pay rent", "todos about rent", "when is that one due?", "due 2026-12-09 09:00"),
    ],
)
def test_it_in_a_read_names_the_item_of_the_last_single_item_read(
    api, new_yorker, frozen, title, read, question, due
) -> None:
    make_todos(new_yorker, [(title, at(9, 9)), ("Call mom", None)])
    session = new_session(api)
    assert items(say(api, session, read)) == [title]

    body = say(api, session, question)

    assert items(body) == [title]
    assert due in body["reply"]


@pytest.mark.parametrize(
    ("search", "answer"), [("搜一下笔记", "所有笔记"), ("search my notes", "show all notes")]
)
def test_all_notes_said_to_the_keyword_question_lists_them_not_searches_the_words(
    api, three_notes, frozen, search, answer
) -> None:
    session = new_session(api)
    asked = say(api, session, search)
    assert [notice["slot"] for notice in asked["notices"]] == ["keyword"]

    body = say(api, session, answer)

    assert items(body) == three_notes
    assert "No note matches" not in body["reply"]


@pytest.mark.parametrize(
    ("locale", "head"),
    [("zh-CN", "显示 10 条，共超过 10000 条："), ("en", "Showing 10 of more than 10000:")],
)
def test_a_list_past_the_count_cap_says_of_more_than_the_cap(locale, head) -> None:
    data = {
        "count": None,
        "count_capped": True,
        "todos": [{"title": f"T{n}"} for n in range(10)],
        "next": "cursor",
        "after": False,
    }

    summary = listing(
        data,
        key="todos",
        empty_code="TODO_RESULT_QUERY_EMPTY",
        head_code="TODO_RESULT_QUERY",
        line=lambda item: item["title"],
        locale=locale,
    )

    assert summary.splitlines()[0] == head
    assert summary.splitlines()[1:11] == [f"T{n}" for n in range(10)]


def test_an_earlier_page_by_its_number_starts_again_from_the_first(api, fourteen, frozen) -> None:
    session = new_session(api)
    say(api, session, "列出我的待办")
    assert shown(say(api, session, "第二页")) == fourteen[10:]

    body = say(api, session, "第一页")

    assert body["reply"].splitlines()[0] == "显示 10 条，共 14 条："
    assert shown(body) == fourteen[:10]
    assert shown(say(api, session, "下一页")) == fourteen[10:]


def test_a_page_word_after_a_write_request_is_no_page(api, new_yorker, frozen) -> None:
    body = say(api, new_session(api), "提醒我明天上午9点交房租，更多")

    assert [fact["tool"] for fact in body["facts"]] == []
    assert "这个对话里还没有可以继续的列表" not in body["reply"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("删了吗？", "「买菜」的确认卡正在执行，还没有结果；稍后再问我。"),
        (
            "did you delete it?",
            "The card for “买菜” is running and has no result yet; ask me again shortly.",
        ),
    ],
)
def test_a_question_about_a_running_card_says_it_has_no_result_yet(
    api, new_yorker, frozen, question, answer
) -> None:
    make_todos(new_yorker, [("买菜", None)])
    session = new_session(api)
    [card] = say(api, session, "删除待办买菜")["cards"]
    assert card_transitions.card_claim(card["token"], attempt_id="elsewhere").status == "claimed"

    body = say(api, session, question)

    assert body["reply"] == answer
    assert Todo.objects.filter(title="买菜").count() == 1


@pytest.mark.parametrize(
    ("text", "link", "narrowed"),
    [
        (
            "明天到期的高优先级待办",
            "/todos/?view=all&within=tomorrow&priority=2",
            "只显示：明天到期 · 优先级高",
        ),
        (
            "high priority todos due tomorrow",
            "/todos/?view=all&within=tomorrow&priority=2",
            "Showing only: due tomorrow · High priority",
        ),
    ],
)
def test_a_window_read_links_to_the_todo_page_showing_the_same_todos(
    api, client, new_yorker, timed, frozen, text, link, narrowed
) -> None:
    for title in ("Tomorrow dentist", "Saturday gym"):
        todo = Todo.objects.get(title=title)
        todo_services.todo_update(
            owner=new_yorker, todo_id=todo.id, expected_version=None, priority=2
        )

    body = say(api, new_session(api), text)

    assert items(body) == ["Tomorrow dentist"]
    [fact] = body["facts"]
    assert fact["link"] == link
    client.force_login(new_yorker)
    language = "en" if narrowed.startswith("Showing") else "zh-CN"
    html = client.get(link, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert re.findall(r'class="item-title"[^>]*>([^<]+)<', html) == ["Tomorrow dentist"]
    assert narrowed in html
