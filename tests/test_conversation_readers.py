"""Which reader takes a message: the offline grammar's readers, or the model.

With ``LIGHTNOTE_PLANNER=openai`` every message is the model's, even one the rules would
read as a correction ("不对，是明天") or an undo ("undo that"): the scripted model shows the
request it received, with the cards in front of the user as data. Its answer with the
ordinary tools is mapped to the correction, undo or pick it means. Without a model the same
messages are read by the grammar, and the buttons (edit, undo, choose) work either way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine

from agent.conversation import readers
from agent.models import ActionCard
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import FROZEN_NOW, confirm, new_session, say
from todos.models import Todo

pytestmark = pytest.mark.django_db

TOMORROW_NINE = "2026-12-03T21:00:00+08:00"


@pytest.fixture(autouse=True)
def _frozen() -> Iterator[None]:
    with time_machine.travel(FROZEN_NOW, tick=False):
        yield


def _shown_to_model(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``in_front_of_the_user`` data the model was given in one request."""
    for message in request["messages"]:
        if message["role"] == "system" and "in_front_of_the_user" in message["content"]:
            return list(json.loads(message["content"])["items"])
    return []


def test_the_table_is_the_model_alone_when_a_model_is_configured(settings: Any) -> None:
    settings.LIGHTNOTE_PLANNER = "openai"
    assert [type(reader).__name__ for reader in readers.readers()] == ["ModelPlanned"]
    settings.LIGHTNOTE_PLANNER = "rules"
    assert [type(reader).__name__ for reader in readers.readers()] == [
        "ChoicePick",
        "PageAsked",
        "CardAsked",
        "PendingAnswer",
        "CardCorrection",
        "UndoSaid",
        "Dismissed",
        "ListReference",
        "ItemPronoun",
        "Planned",
    ]


def test_a_correction_said_to_a_model_reaches_the_model_and_replaces_the_card(
    alice_api: Any, fake_openai: FakeOpenAI
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"})
    )
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "明晚 9 点"})
    )
    session_id = new_session(alice_api)
    [first] = say(alice_api, session_id, "帮我创建今晚9点提交周报的待办")["cards"]

    body = say(alice_api, session_id, "不对，是明天")

    assert len(fake_openai.requests) == 2  # the model read it, not the offline grammar
    last = fake_openai.requests[1]
    assert last["messages"][-1] == {"role": "user", "content": "不对，是明天"}
    [shown] = _shown_to_model(last)
    assert (shown["kind"], shown["card_id"], shown["state"]) == ("card", first["card_id"], "ready")
    [card] = body["cards"]
    assert card["args"]["due_at"] == TOMORROW_NINE
    assert card["parent_id"] == first["card_id"]  # mapped to a correction of that card
    old = ActionCard.objects.get(id=first["card_id"])
    assert (old.state, old.void_reason) == ("voided", ActionCard.VoidReason.SUPERSEDED)


def test_an_undo_said_to_a_model_reaches_the_model_and_offers_the_undo_card(
    alice_api: Any, fake_openai: FakeOpenAI
) -> None:
    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "买牛奶"}))
    session_id = new_session(alice_api)
    [card] = say(alice_api, session_id, "add a todo to buy milk")["cards"]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True
    todo = Todo.objects.get()
    # The model answers "undo that" with the compensation: delete what was created.
    fake_openai.reply_tool_calls(tool_call("delete_todo", {"todo_id": str(todo.id)}))

    body = say(alice_api, session_id, "undo that")

    last = fake_openai.requests[-1]
    assert last["messages"][-1] == {"role": "user", "content": "undo that"}
    assert [item["state"] for item in _shown_to_model(last)] == ["settled"]
    [undo] = body["cards"]
    assert undo["tool"] == "delete_todo"
    assert undo["compensates_id"] == card["card_id"]  # mapped to the undo of that card
    assert confirm(alice_api, session_id, undo).json()["outcome"]["ok"] is True
    assert Todo.objects.filter(deleted_at__isnull=True).count() == 0


def test_without_a_model_the_grammar_reads_the_correction(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    [first] = say(alice_api, session_id, "帮我创建今晚9点提交周报的待办")["cards"]

    [card] = say(alice_api, session_id, "不对，是明天")["cards"]

    assert card["args"]["due_at"] == TOMORROW_NINE
    assert card["parent_id"] == first["card_id"]
