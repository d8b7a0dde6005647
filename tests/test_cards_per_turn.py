"""Issue 10 row 9: one model turn proposing many writes (``LIGHTNOTE_MAX_CARDS_PER_TURN``).

A hostile or confused model answers one message with 70 write calls (the real ``openai``
client against ``tests.fake_openai``). The turn makes cards for the first N (default 5);
every further proposal gets the notice ``TOO_MANY_PROPOSALS``, stores nothing and takes
nothing from the user's card rate limit. The rules planner proposes one write per message,
so it can never reach the limit.
"""

from __future__ import annotations

from typing import Any

import pytest

from lightnote.models import AuditEvent
from lightnote.texts.i18n import translate
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import card_keys, new_session, say, send

pytestmark = pytest.mark.django_db

PROPOSED = 70


def seventy_writes(server: FakeOpenAI) -> None:
    server.reply_tool_calls(
        *(tool_call("create_todo", {"title": f"待办 {n}"}) for n in range(PROPOSED))
    )


def test_seventy_proposed_writes_make_five_cards_and_sixty_five_notices(
    alice_api: Any, fake_openai: FakeOpenAI
) -> None:
    seventy_writes(fake_openai)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "把这些都建成待办")

    assert [card["args"]["title"] for card in body["cards"]] == [f"待办 {n}" for n in range(5)]
    assert len(card_keys()) == 5  # nothing stored for the other 65
    message = translate("TOO_MANY_PROPOSALS", "zh-CN", limit=5)
    assert body["notices"] == [
        {
            "capability": "todo.create",
            "status": "rejected",
            "code": "TOO_MANY_PROPOSALS",
            "message": message,
        }
    ] * (PROPOSED - 5)
    assert body["reply"].count(message) == 1  # the reason once, not 65 times
    [event] = AuditEvent.objects.filter(code="TOO_MANY_PROPOSALS")
    assert (event.event_type, event.details["count"], event.details["limit"]) == (
        "card.refused",
        65,
        5,
    )
    assert AuditEvent.objects.filter(event_type="card.issued").count() == 5


def test_the_message_is_english_for_an_english_request(
    alice_api: Any, fake_openai: FakeOpenAI, settings: Any
) -> None:
    settings.LIGHTNOTE_MAX_CARDS_PER_TURN = 2
    fake_openai.reply_tool_calls(
        *(tool_call("create_todo", {"title": f"todo {n}"}) for n in range(3))
    )
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "make these todos", **{"Accept-Language": "en"})

    assert len(body["cards"]) == 2
    [notice] = body["notices"]
    assert notice["code"] == "TOO_MANY_PROPOSALS"
    assert notice["message"] == (
        "One message makes at most 2 cards; the other proposed actions got none. "
        "Handle these first, then ask for the rest."
    )


def test_refused_proposals_do_not_consume_the_card_rate_limit(
    alice_api: Any, fake_openai: FakeOpenAI, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "6/h"
    seventy_writes(fake_openai)
    session_id = new_session(alice_api)
    assert len(say(alice_api, session_id, "把这些都建成待办")["cards"]) == 5

    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "第六个"}))
    assert len(say(alice_api, session_id, "再建一个")["cards"]) == 1  # the 6th of 6

    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "第七个"}))
    refused = send(alice_api, session_id, "再建一个")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "RATE_LIMITED"
