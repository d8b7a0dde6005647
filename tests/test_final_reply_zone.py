"""The final reply after a zone change speaks the zone the card was read in.

A card read "今晚 9 点" in Shanghai holds 21:00 +08:00. When the user moves to New York before
confirming, the final reply (the offline template and what the model is given) names the
time in the card's zone, as the card's reading in history does — not 08:00 in New York.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import time_machine

from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import (
    FROZEN_NOW,
    SEED,
    confirm,
    final_reply,
    new_session,
    only_card,
    say,
)

pytestmark = pytest.mark.django_db

READ_IN_SHANGHAI = "已为你创建待办「提交周报」，截止 2026-12-02 21:00（Asia/Shanghai）。"


def _confirmed_after_moving(api: Any, user: Any, text: str) -> Any:
    """Issue a card in Shanghai, move the user to New York, confirm, ask for the reply."""
    session_id = new_session(api)
    card = only_card(say(api, session_id, text))
    user.time_zone = "America/New_York"
    user.save(update_fields=["time_zone"])
    assert confirm(api, session_id, card).status_code == 200
    return final_reply(api, session_id, card)


def test_the_offline_reply_names_the_time_in_the_zone_the_card_was_read_in(
    alice_api: Any, user: Any
) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        reply = _confirmed_after_moving(alice_api, user, SEED)

    assert reply.json()["reply"] == READ_IN_SHANGHAI


def test_the_model_is_given_the_receipts_times_in_the_cards_zone(
    alice_api: Any, user: Any, fake_openai: FakeOpenAI
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"})
    )
    fake_openai.reply_text("")  # an empty answer: the template speaks from the same receipt

    with time_machine.travel(FROZEN_NOW, tick=False):
        reply = _confirmed_after_moving(alice_api, user, SEED)

    given = json.loads(fake_openai.requests[-1]["messages"][1]["content"])["receipt"]
    assert given["result"]["due_at"] == "2026-12-02T21:00:00+08:00"
    assert given["settled_at"] == "2026-12-02T14:00:00+08:00"
    assert reply.json()["reply"] == READ_IN_SHANGHAI
