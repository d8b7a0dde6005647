"""A turn streamed as server-sent events (docs/api.md, "Streaming a turn").

The OpenAI planner talks to ``tests.fake_openai.FakeOpenAI``, which streams a scripted reply
piece by piece (50 ms apart) and can hold mid-stream until the test lets it go on, so the
tests assert the order of events against the fake's progress, never wall time. The turn
runs on a thread of its own, hence the transactional database.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import OperationalError

from agent.conversation import sessions
from agent.models import Message
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import confirm, messages_url, new_session, say, send
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

STREAM = {"Accept": "text/event-stream"}
SENTENCES = [
    "You have three open todos. ",
    "The first one is due tomorrow. ",
    "Anything else I can help with?",
]
FALSE_CLAIM = "I've deleted “Buy milk” for you. "


def words(sentences: list[str]) -> list[str]:
    """The sentences as a model streams them: a word (and its space) at a time."""
    return [word for sentence in sentences for word in re.findall(r"\S+\s*", sentence)]


def read_events(response: Any) -> Iterator[tuple[str, Any]]:
    """Parse the response's server-sent events as they arrive (comments skipped)."""
    buffer = b""
    for chunk in response.streaming_content:
        buffer += chunk
        while b"\n\n" in buffer:
            raw, buffer = buffer.split(b"\n\n", 1)
            fields = dict(line.split(": ", 1) for line in raw.decode().splitlines() if ": " in line)
            if "event" in fields:
                yield fields["event"], json.loads(fields["data"])


def stream(api: Any, session_id: str, text: str, **headers: str) -> Any:
    response = api.post(
        messages_url(session_id), {"text": text}, format="json", headers={**STREAM, **headers}
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    return response


def comparable(body: dict[str, Any]) -> dict[str, Any]:
    """A message body without what differs between two turns (ids, tokens, times)."""
    varying = {"token", "continuation_token", "card_id", "id", "expires_at", "action_id"}
    return {
        **{key: value for key, value in body.items() if key != "message_id"},
        "cards": [
            {key: value for key, value in card.items() if key not in varying}
            for card in body["cards"]
        ],
    }


def join_turn_threads() -> None:
    for thread in threading.enumerate():
        if thread.name == "turn-stream":
            thread.join(timeout=10)


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=5)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server


def test_the_first_sentence_arrives_while_the_model_is_still_writing(
    alice_api, fake_openai
) -> None:
    pieces = words(SENTENCES)
    # Held after the second sentence's first word: the first sentence is whole by then.
    fake_openai.stream_text(pieces, hold_after=1 + len(SENTENCES[0].split()) + 1)
    session_id = new_session(alice_api)

    events = read_events(stream(alice_api, session_id, "What is open?"))
    first, data = next(events)
    progress = fake_openai.progress
    assert (first, data) == ("delta", {"text": SENTENCES[0]})
    assert progress.held.is_set()
    assert not progress.finished.is_set()
    assert progress.sent < progress.total
    fake_openai.release()
    rest = list(events)

    assert [data for name, data in rest if name == "delta"] == [
        {"text": SENTENCES[1]},
        {"text": SENTENCES[2]},
    ]
    assert [name for name, _ in rest][-1] == "done"
    assert rest[-1][1]["reply"] == "".join(SENTENCES).strip()
    assert progress.finished.is_set()
    assert fake_openai.requests[0]["stream"] is True


def test_a_false_claim_mid_stream_is_never_sent(alice_api, fake_openai) -> None:
    pieces = words([SENTENCES[0], FALSE_CLAIM, SENTENCES[2]])
    fake_openai.stream_text(pieces)
    session_id = new_session(alice_api)

    events = list(read_events(stream(alice_api, session_id, "What is open?")))

    deltas = [data["text"] for name, data in events if name == "delta"]
    assert deltas == [SENTENCES[0], SENTENCES[2]]
    assert not any("deleted" in json.dumps(data) for name, data in events if name != "done")
    [(_, notice)] = [(name, data) for name, data in events if name == "notice"]
    assert notice["code"] == "REPLY_UNBACKED_CLAIM"
    name, done = events[-1]
    assert name == "done"
    assert "deleted" not in done["reply"]
    assert done["notices"] == [notice]
    assert Todo.objects.count() == 0


@pytest.mark.parametrize(
    "sentences",
    [SENTENCES, [SENTENCES[0], FALSE_CLAIM, SENTENCES[2]]],
    ids=["plain", "false-claim"],
)
def test_done_is_the_json_answer_for_the_same_script(alice_api, fake_openai, sentences) -> None:
    fake_openai.stream_text(words(sentences), interval=0)
    fake_openai.stream_text(words(sentences), interval=0)
    json_answer = say(alice_api, new_session(alice_api), "What is open?")
    session_id = new_session(alice_api)

    name, done = list(read_events(stream(alice_api, session_id, "What is open?")))[-1]

    assert name == "done"
    assert comparable(done) == comparable(json_answer)
    # What history keeps is what `done` carried.
    stored = Message.objects.get(id=done["message_id"])
    assert stored.text == done["reply"]


@pytest.mark.parametrize(
    "prose",
    [
        None,
        "I have prepared a card for it, please confirm.",
        "我为你准备了一张待办确认卡，请确认后执行。",
    ],
    ids=["no-prose", "en", "zh"],
)
def test_a_card_turn_streams_no_model_prose(alice_api, fake_openai, prose) -> None:
    # The stream sends the prose first, then the tool call (as the API does).
    for _ in range(2):
        fake_openai.reply_tool_calls(
            tool_call("create_todo", {"title": "Submit the weekly report"}), content=prose
        )
    json_answer = say(alice_api, new_session(alice_api), "Add a todo: submit the weekly report")
    session_id = new_session(alice_api)

    events = list(
        read_events(stream(alice_api, session_id, "Add a todo: submit the weekly report"))
    )

    names = [name for name, _ in events]
    assert names == ["card", "done"]
    card, done = events[0][1], events[1][1]
    assert done["cards"] == [card]
    assert done["reply"] == "Please review the card below; nothing happens until you confirm it."
    assert comparable(done) == comparable(json_answer)
    assert Todo.objects.count() == 0


def test_the_rules_planner_answers_in_one_done(alice_api, settings) -> None:
    settings.LIGHTNOTE_PLANNER = "rules"
    session_id = new_session(alice_api)

    events = list(read_events(stream(alice_api, session_id, "帮我创建一个待办：买牛奶")))

    assert [name for name, _ in events] == ["card", "done"]
    assert events[1][1]["cards"] == [events[0][1]]
    assert events[1][1]["cards"][0]["tool"] == "create_todo"


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        ({"text": ""}, "application/json", 400, "VALIDATION_ERROR"),
        ({"text": "x", "extra": 1}, "application/json", 400, "VALIDATION_ERROR"),
        ("text=hi", "application/x-www-form-urlencoded", 415, "UNSUPPORTED_MEDIA_TYPE"),
    ],
    ids=["empty", "unknown-field", "not-json"],
)
def test_bad_input_on_the_stream_gets_the_json_errors(
    alice_api, body, content_type, status, code
) -> None:
    session_id = new_session(alice_api)
    payload = json.dumps(body) if isinstance(body, dict) else body

    answers = [
        alice_api.post(
            messages_url(session_id), payload, content_type=content_type, headers=headers
        )
        for headers in ({}, STREAM)
    ]

    for answer in answers:
        assert answer.status_code == status
        assert answer["Content-Type"] == "application/json"
        assert answer.json()["error"]["code"] == code


def test_an_unknown_session_or_no_login_gets_the_json_errors(alice_api, client) -> None:
    missing = send(alice_api, "00000000-0000-0000-0000-000000000000", "hi", **STREAM)
    anonymous = client.post(
        messages_url(new_session(alice_api)),
        {"text": "hi"},
        content_type="application/json",
        headers=STREAM,
    )

    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "SESSION_NOT_FOUND")
    assert anonymous.status_code == 401
    assert anonymous["Content-Type"] == "application/json"


def test_a_disconnect_cancels_the_model_call_and_writes_nothing(alice_api, fake_openai) -> None:
    pieces = words(SENTENCES)
    fake_openai.stream_text(pieces, hold_after=1 + len(SENTENCES[0].split()) + 1)
    session_id = new_session(alice_api)
    response = stream(alice_api, session_id, "What is open?")
    events = read_events(response)
    assert next(events)[0] == "delta"

    response.close()  # the client goes away
    fake_openai.release()

    assert fake_openai.progress.hung_up.wait(10)
    assert not fake_openai.progress.finished.is_set()
    join_turn_threads()
    assert Message.objects.filter(session_id=session_id).count() == 0


def test_a_read_round_is_not_streamed_and_the_answer_after_it_is(alice_api, fake_openai) -> None:
    for _ in range(2):
        fake_openai.reply_tool_calls(
            tool_call("query_todos", {"status": "open"}), content="Let me look."
        )
        fake_openai.stream_text(words(SENTENCES), interval=0)
    json_answer = say(alice_api, new_session(alice_api), "What is open?")
    session_id = new_session(alice_api)

    events = list(read_events(stream(alice_api, session_id, "What is open?")))

    assert [data["text"] for name, data in events if name == "delta"] == SENTENCES
    assert [name for name, _ in events][-2:] == ["fact", "done"]
    done = events[-1][1]
    assert done["facts"][0]["tool"] == "query_todos"
    assert comparable(done) == comparable(json_answer)
    assert [request.get("stream") for request in fake_openai.requests] == [True] * 4


def test_a_turn_refused_before_its_first_event_answers_with_the_json_error(
    alice_api, settings
) -> None:
    settings.LIGHTNOTE_PLANNER = "rules"
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/d"
    session_id = new_session(alice_api)
    say(alice_api, session_id, "帮我创建一个待办：买牛奶")

    limited = send(alice_api, session_id, "帮我创建一个待办：买面包", **STREAM)

    assert limited.status_code == 429
    assert limited["Content-Type"] == "application/json"
    assert limited.json()["error"]["code"] == "RATE_LIMITED"
    assert int(limited["Retry-After"]) >= 1
    assert not Message.objects.filter(text="帮我创建一个待办：买面包").exists()


def test_a_claim_a_receipt_backs_is_streamed(alice_api, fake_openai) -> None:
    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "Submit the weekly report"}))
    session_id = new_session(alice_api)
    card = say(alice_api, session_id, "Add a todo: submit the weekly report")["cards"][0]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True
    backed = ["I created “Submit the weekly report” for you. ", "Anything else?"]
    fake_openai.stream_text(words(backed), interval=0)

    events = list(read_events(stream(alice_api, session_id, "Did it work?")))

    assert [data["text"] for name, data in events if name == "delta"] == backed
    assert events[-1][1]["reply"] == "".join(backed)
    assert events[-1][1]["notices"] == []


def test_a_turn_that_fails_after_its_first_sentence_ends_with_error_and_done(
    alice_api, fake_openai, monkeypatch
) -> None:
    fake_openai.stream_text(words(SENTENCES), interval=0)
    session_id = new_session(alice_api)

    def database_lost(**_: Any) -> None:
        raise OperationalError("server has gone away")

    # The turn's one transaction begins with the session's touch: the database goes there.
    monkeypatch.setattr(sessions, "session_touch", database_lost)
    events = list(read_events(stream(alice_api, session_id, "What is open?")))

    names = [name for name, _ in events]
    assert names == ["delta", "delta", "delta", "error", "done"]
    assert events[-2][1] == events[-1][1]
    assert events[-1][1]["error"]["code"] == "DATABASE_UNAVAILABLE"
    assert Message.objects.filter(session_id=session_id).count() == 0
