"""``changes``: what changed, said by the server from receipts, on every assistant message."""

from __future__ import annotations

from typing import Any

import pytest
import time_machine

from agent.models import ActionReceipt
from tests.test_conversation_api import FROZEN_NOW, confirm, final_reply, new_session, say

pytestmark = pytest.mark.django_db

HISTORY = "/api/v1/agent/sessions/{}/messages/"


@pytest.fixture(autouse=True)
def _frozen() -> Any:
    with time_machine.travel(FROZEN_NOW, tick=False):
        yield


def _history(api: Any, session_id: str) -> list[dict[str, Any]]:
    response = api.get(HISTORY.format(session_id))
    assert response.status_code == 200
    return response.json()["results"]


def _counted(messages: list[dict[str, Any]]) -> list[str]:
    """Every receipt counted on the screen's assistant lines, in order."""
    return [
        item["action_id"]
        for message in messages
        if message["role"] == "assistant"
        for item in message["changes"]["items"]
    ]


def test_a_card_turn_changes_nothing_yet_and_says_its_card_waits(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    body = say(alice_api, session_id, "帮我创建今晚9点提交周报的待办")
    assert len(body["cards"]) == 1
    assert body["changes"] == {
        "count": 0,
        "text": "还没有修改任何数据：1 张确认卡等你确认。",
        "items": [],
    }


def test_a_read_turn_says_nothing_changed_in_the_message_s_language(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    assert say(alice_api, session_id, "show my todos")["changes"] == {
        "count": 0,
        "text": "No change was made in this turn.",
        "items": [],
    }


def test_after_a_confirm_each_receipt_is_counted_once_on_the_screen(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    [card] = say(alice_api, session_id, "帮我创建今晚9点提交周报的待办")["cards"]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True

    # Settled, no final reply yet: the card's turn shows its receipt.
    turn = [m for m in _history(alice_api, session_id) if m["role"] == "assistant"]
    assert turn[0]["changes"]["count"] == 1
    assert turn[0]["changes"]["text"] == "已修改 1 项：已创建待办「提交周报」。"
    assert _counted(turn) == [card["card_id"]]

    reply = final_reply(alice_api, session_id, card).json()
    assert reply["changes"]["items"][0]["action_id"] == card["card_id"]
    assert reply["changes"]["count"] == 1

    # With the final reply in the conversation, the receipt is on its line only.
    messages = _history(alice_api, session_id)
    assert _counted(messages) == [card["card_id"]]
    counts = {
        ("final reply" if "card_id" in m else "card turn"): m["changes"]["count"]
        for m in messages
        if m["role"] == "assistant"
    }
    assert counts == {"card turn": 0, "final reply": 1}
    assert ActionReceipt.objects.count() == 1


def test_a_change_line_is_built_from_the_stored_item_in_english(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    [card] = say(alice_api, session_id, "Create a todo to submit the weekly report at 9pm tonight")[
        "cards"
    ]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True
    reply = final_reply(alice_api, session_id, card, **{"Accept-Language": "en"}).json()
    [item] = reply["changes"]["items"]
    assert item["capability"] == "todo.create"
    assert reply["changes"]["text"].startswith("1 change: created todo “")


def test_the_chat_page_shows_the_server_s_line_under_each_reply(user: Any) -> None:
    from django.test import Client

    from tests.test_chat_page import card_form, post_card, send

    page = Client()
    page.force_login(user)
    html = send(page).content.decode()
    assert 'class="changes" data-count="0"' in html
    assert "还没有修改任何数据：1 张确认卡等你确认。" in html
    form = card_form(html)
    assert post_card(page, "/chat/confirm/", form).status_code == 200
    reloaded = page.get("/chat/", follow=True).content.decode()
    assert 'class="changes" data-count="1"' in reloaded
