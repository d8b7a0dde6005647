"""An existing item named with a label ("the todo called X", 名为X的待办, 叫X的那条) or with its
kind after it (交房租的待办) is that item, over HTTP through the rules planner; an item whose
own title starts with such a word is still found (the words as said are the next reading)."""

from __future__ import annotations

from typing import Any

import pytest

from agent.planners.rules import interpret
from tests.test_conversation_api import new_session, say
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db


@pytest.fixture
def rules(settings: Any) -> None:
    settings.LIGHTNOTE_PLANNER = "rules"


@pytest.mark.parametrize(
    ("text", "key", "name"),
    [
        ("complete the todo called Pay rent", "todo_title", "Pay rent"),
        ("mark the task named Buy milk as done", "todo_title", "Buy milk"),
        ("delete the todo called Prepare slides", "todo_title", "Prepare slides"),
        ("把叫写周报的待办删掉", "todo_title", "写周报"),
        ("把名为交房租的待办标记完成", "todo_title", "交房租"),
        ("把标题是买牛奶的那条删了", "todo_title", "买牛奶"),
        ("给交房租的待办提高优先级", "todo_title", "交房租"),
        ("把题目为读书笔记的笔记标题改成读后感", "note_title", "读书笔记"),
    ],
)
def test_the_label_or_kind_around_an_items_name_is_not_its_name(
    text: str, key: str, name: str
) -> None:
    assert interpret(text).args[key] == name


def test_the_name_as_said_stays_the_next_reading() -> None:
    intent = interpret("把叫写周报的待办删掉")
    assert intent.args["todo_title"] == "写周报"
    assert ("delete_todo", {"todo_title": "叫写周报的"}) in intent.otherwise


def test_a_name_that_starts_with_a_label_word_is_kept_whole() -> None:
    # 叫外卖 (order takeout) is a name: 叫 is a label only with its 的 (叫X的待办).
    assert interpret("把叫外卖标记完成").args["todo_title"] == "叫外卖"


@pytest.mark.parametrize(
    ("title", "text"),
    [
        ("写周报", "把叫写周报的待办删掉"),
        ("Pay rent", "complete the todo called Pay rent"),
        ("交房租", "名为交房租的那条删掉"),
    ],
)
def test_a_labelled_name_gives_the_card_for_that_item(
    rules: None, alice_api: Any, user: Any, title: str, text: str
) -> None:
    todo = todo_services.todo_create(owner=user, title=title)
    body = say(alice_api, new_session(alice_api), text)
    [card] = body["cards"]
    assert card["args"]["todo_id"] == str(todo.id)
    assert Todo.objects.get(id=todo.id).deleted_at is None  # a card, never a write


def test_an_item_whose_title_starts_with_called_is_still_found(
    rules: None, alice_api: Any, user: Any
) -> None:
    todo = todo_services.todo_create(owner=user, title="Called the plumber")
    body = say(alice_api, new_session(alice_api), "mark called the plumber as done")
    [card] = body["cards"]
    assert (card["tool"], card["args"]["todo_id"]) == ("set_todo_status", str(todo.id))
