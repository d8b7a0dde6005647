"""The rules planner's writes through the messages endpoint (issue 47 item 4, issue 44 items
4-6): reminders and repeating todos, no wrong write, one turn for a complete request, and
"it" after a card. Clock: Wednesday 2026-12-02 14:00 in Asia/Shanghai."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from lightnote.texts.i18n import translate
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 14, 0, tzinfo=SHANGHAI)
SESSIONS = "/api/v1/agent/sessions/"


@pytest.fixture
def chat(make_user: Any, client_for: Any, settings: Any) -> Any:
    """Post messages as one user (zone Asia/Shanghai) in one session, the clock frozen."""
    settings.LIGHTNOTE_PLANNER = "rules"
    owner = make_user("series", time_zone="Asia/Shanghai")

    class Chat:
        user = owner

        def __init__(self) -> None:
            self.api = client_for(owner)
            self.session = ""

        def new(self) -> Chat:
            with time_machine.travel(NOW, tick=False):
                response = self.api.post(SESSIONS, {}, format="json")
            assert response.status_code == 201, response.content
            self.session = response.json()["id"]
            return self

        def say(self, text: str, language: str = "zh-CN") -> dict[str, Any]:
            with time_machine.travel(NOW, tick=False):
                response = self.api.post(
                    f"{SESSIONS}{self.session}/messages/",
                    {"text": text},
                    format="json",
                    headers={"Accept-Language": language},
                )
            assert response.status_code == 200, response.content
            return response.json()

    return Chat().new()


def language_of(text: str) -> str:
    return "en" if text.isascii() else "zh-CN"


def only_card(body: dict[str, Any]) -> dict[str, Any]:
    assert [notice["status"] for notice in body["notices"]] == [], body["notices"]
    [card] = body["cards"]
    return card


def rows(card: dict[str, Any]) -> dict[str, str]:
    return {row["key"]: row["value"] for row in card["preview"]["details"]}


# --- reminders and repeating todos (issue 47 item 4) -------------------------------------


@pytest.mark.parametrize(
    ("text", "title", "due"),
    [
        ("remind me to call mom tomorrow at 10am", "Call mom", "2026-12-03T10:00:00+08:00"),
        ("明天上午10点提醒我给妈妈打电话", "给妈妈打电话", "2026-12-03T10:00:00+08:00"),
    ],
)
def test_a_reminder_asked_for_is_a_create_card_reminded_at_its_time(
    chat: Any, text: str, title: str, due: str
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    assert card["tool"] == "create_todo"
    assert (card["args"]["title"], card["args"]["due_at"]) == (title, due)
    assert card["args"]["remind_at"] == due
    assert "remind_at" in rows(card)
    assert Todo.objects.count() == 0


def test_a_reminder_whose_hour_may_be_am_or_pm_asks_and_the_answer_sets_both_times(
    chat: Any,
) -> None:
    # "at 10" with no am/pm is 10 a.m. or 10 p.m.: the time parser asks, never guesses
    asked = chat.say("remind me to call mom tomorrow at 10", "en")
    assert asked["cards"] == []
    assert [(n["status"], n["slot"]) for n in asked["notices"]] == [("clarify", "due_at")]
    card = only_card(chat.say("10am", "en"))
    assert card["args"]["due_at"] == card["args"]["remind_at"] == "2026-12-03T10:00:00+08:00"


@pytest.mark.parametrize(
    ("text", "title", "rule", "due", "words"),
    [
        ("每周一早上9点开周会", "开周会", "FREQ=WEEKLY;BYDAY=MO", "2026-12-07T09:00", "每周一"),
        (
            "every Monday 9am standup",
            "Standup",
            "FREQ=WEEKLY;BYDAY=MO",
            "2026-12-07T09:00",
            "every Monday",
        ),
        (
            "water the plants every other day",
            "Water the plants",
            "FREQ=DAILY;INTERVAL=2",
            "2026-12-02T23:59",
            "every 2 days",
        ),
        ("每天早上8点吃药", "吃药", "FREQ=DAILY", "2026-12-03T08:00", "每天"),
        (
            "每月最后一天交房租",
            "交房租",
            "FREQ=MONTHLY;BYMONTHDAY=-1",
            "2026-12-31T23:59",
            "最后一天",
        ),
        (
            "pay rent on the last day of every month",
            "Pay rent",
            "FREQ=MONTHLY;BYMONTHDAY=-1",
            "2026-12-31T23:59",
            "last day",
        ),
        (
            "每个工作日早上9点打卡",
            "打卡",
            "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
            "2026-12-03T09:00",
            "工作日",
        ),
        ("每月15号还信用卡", "还信用卡", "FREQ=MONTHLY;BYMONTHDAY=15", "2026-12-15T23:59", "15"),
    ],
)
def test_a_repetition_is_a_create_card_with_its_rule_in_words_and_next_dates(
    chat: Any, text: str, title: str, rule: str, due: str, words: str
) -> None:
    card = only_card(chat.say(text, language_of(text)))
    args = card["args"]
    assert (card["tool"], args["title"], args["recurrence"]) == ("create_todo", title, rule)
    assert args["due_at"].startswith(due)
    shown = rows(card)
    assert words in shown["recurrence"]
    assert len([one for one in shown["next_occurrences"].split(",") if one.strip()]) == 3 or (
        shown["next_occurrences"].count("2026") + shown["next_occurrences"].count("2027") == 3
    )
    assert Todo.objects.count() == 0


def test_the_confirmed_repeating_card_makes_one_series_todo(chat: Any) -> None:
    card = only_card(chat.say("每周一早上9点开周会"))
    with time_machine.travel(NOW, tick=False):
        response = chat.api.post(
            "/api/v1/agent/confirmations/confirm/",
            {"token": card["token"], "session_id": chat.session},
            format="json",
        )
    assert response.status_code == 200, response.content
    [todo] = Todo.objects.filter(owner=chat.user)
    assert (todo.title, todo.recurrence) == ("开周会", "FREQ=WEEKLY;BYDAY=MO")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("stop repeating Pay rent", "Pay rent"),
        ("交房租不要再重复了", "交房租"),
        ("取消交房租的重复", "交房租"),
    ],
)
def test_stop_repeating_is_an_update_card_clearing_the_rule(
    chat: Any, text: str, title: str
) -> None:
    todo = todo_services.todo_create(
        owner=chat.user,
        title=title,
        due_at=datetime(2026, 12, 31, 9, 0, tzinfo=SHANGHAI),
        recurrence="FREQ=MONTHLY;BYMONTHDAY=-1",
    )
    card = only_card(chat.say(text, language_of(text)))
    assert card["tool"] == "update_todo"
    assert card["args"]["todo_id"] == str(todo.id)
    assert card["args"]["recurrence"] is None
    todo.refresh_from_db()
    assert todo.recurrence  # a card, not yet a write


@pytest.mark.parametrize(
    ("text", "locale"),
    [("every third full moon water the cactus", "en"), ("每逢农历十五拜佛", "zh-CN")],
)
def test_a_rule_todos_cannot_follow_is_refused_in_the_users_language(
    chat: Any, text: str, locale: str
) -> None:
    body = chat.say(text, locale)
    assert body["cards"] == []
    assert body["reply"] == translate("PLANNER_RECURRING_UNSUPPORTED", locale)
    assert Todo.objects.count() == 0
