"""Reads said the way people ask them, over HTTP with the rules planner: the items listed are
the ones the question is about (a wrong filter would say "nothing found" or list others)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from tests.test_conversation_api import new_session, say
from todos import services as todo_services

pytestmark = pytest.mark.django_db

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def items(settings: Any, user: Any) -> None:
    settings.LIGHTNOTE_PLANNER = "rules"
    user.time_zone = "Asia/Shanghai"
    user.save()
    due = {
        "交房租": datetime(2026, 12, 3, 18, 0, tzinfo=SHANGHAI),  # tomorrow
        "体检": datetime(2026, 12, 9, 10, 0, tzinfo=SHANGHAI),  # next week
        "写年终总结": datetime(2026, 12, 28, 18, 0, tzinfo=SHANGHAI),  # later
        "买牛奶": None,
    }
    for title, due_at in due.items():
        todo_services.todo_create(owner=user, title=title, due_at=due_at)


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ("明天要做什么", {"交房租"}),
        ("我明天要做什么？", {"交房租"}),
        ("下周要做什么", {"交房租", "体检"}),
        ("下周有什么安排", {"交房租", "体检"}),
        # ("due" said: due within next week, Monday to Sunday, not by its end)
        ("what is due next week", {"体检"}),
    ],
)
def test_a_question_about_a_time_lists_what_is_due_by_then(
    items: None, alice_api: Any, text: str, listed: set[str]
) -> None:
    with time_machine.travel("2026-12-02T14:00:00+08:00", tick=False):
        body = say(alice_api, new_session(alice_api), text)
    [fact] = body["facts"]
    assert fact["tool"] == "query_todos"
    assert fact["status"] == "succeeded"
    for title in listed:
        assert title in body["reply"]
    for title in {"交房租", "体检", "写年终总结", "买牛奶"} - listed:
        assert title not in body["reply"]
