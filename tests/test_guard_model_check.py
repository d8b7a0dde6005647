"""The guard's optional model check (issue 43, item 3) against the local fake OpenAI server.

With ``LIGHTNOTE_GUARD_MODEL_CHECK`` on and a model configured, the guard asks the model (a
strict JSON schema) which actions a reply claims: a claim the data rules miss is removed, a
model answer never keeps what the rules removed, and a timeout or bad answer leaves the
rules' verdict.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from agent.guard import NOT_EXECUTED_TEXT, find_claims, guard_reply
from agent.guard.backing import backing_for
from tests.fake_openai import FakeOpenAI

MISSED = "Submit the weekly report is toast. Anything else?"  # the rules read no claim here
CAUGHT = "I've deleted “Submit the weekly report”."


@pytest.fixture
def server(settings: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        fake.apply_to(settings)
        settings.LIGHTNOTE_PLANNER = "openai"
        settings.LIGHTNOTE_GUARD_MODEL_CHECK = True
        settings.LIGHTNOTE_GUARD_MODEL_TIMEOUT_MS = 300
        yield fake


def _answer(fake: FakeOpenAI, *claims: tuple[str, str, str], delay: float = 0.0) -> None:
    rows = [{"phrase": p, "capability": c, "item": i} for p, c, i in claims]
    fake.reply_text(json.dumps({"claims": rows}), delay=delay)


def test_the_rules_miss_the_phrase_the_model_check_is_given() -> None:
    assert find_claims(MISSED) == []


def test_a_claim_the_rules_miss_is_removed_and_the_request_is_a_strict_schema(
    server: FakeOpenAI,
) -> None:
    _answer(server, ("is toast", "delete", "Submit the weekly report"))
    verdict = guard_reply(MISSED, backings=[], locale="en")
    assert verdict.replaced
    assert verdict.removed == ("is toast",)
    assert verdict.text == f"Anything else?\n{NOT_EXECUTED_TEXT['en']}"
    [request] = server.requests
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["strict"] is True


def test_a_model_answer_of_no_claims_never_keeps_what_the_rules_removed(
    server: FakeOpenAI,
) -> None:
    _answer(server)
    verdict = guard_reply(CAUGHT, backings=[], locale="en")
    assert verdict.replaced
    assert verdict.text == NOT_EXECUTED_TEXT["en"]


def test_a_claim_the_model_names_that_a_receipt_backs_stays(server: FakeOpenAI) -> None:
    created = backing_for(
        action_id=uuid.uuid4(),
        capability="todo.create",
        resource_type="todo",
        result={"title": "Weekly meeting notes"},
    )
    assert created is not None
    _answer(server, ("is on the board", "create", "Weekly meeting notes"))
    text = "“Weekly meeting notes” is on the board."
    verdict = guard_reply(text, backings=[created], locale="en", focus=created)
    assert not verdict.replaced
    assert verdict.text == text


def test_a_phrase_the_reply_does_not_hold_removes_nothing(server: FakeOpenAI) -> None:
    _answer(server, ("I deleted everything", "delete", ""))
    assert not guard_reply("Your todos are all open.", backings=[], locale="en").replaced


@pytest.mark.parametrize(
    "script",
    ["timeout", "not json", "outside the schema", "http error"],
)
def test_a_failed_check_leaves_the_rules_verdict(server: FakeOpenAI, script: str) -> None:
    for _ in range(2):  # one answer per reply guarded below
        if script == "timeout":
            _answer(server, ("is toast", "delete", ""), delay=1.5)
        elif script == "not json":
            server.reply_text("the reply claims a delete")
        elif script == "outside the schema":
            server.reply_text(json.dumps({"claims": [{"phrase": "is toast", "capability": "x"}]}))
        else:
            server.reply_error(500)
    assert not guard_reply(MISSED, backings=[], locale="en").replaced
    assert guard_reply(CAUGHT, backings=[], locale="en").text == NOT_EXECUTED_TEXT["en"]


def test_the_check_is_off_by_default(settings: Any) -> None:
    with FakeOpenAI() as fake:
        fake.apply_to(settings)
        settings.LIGHTNOTE_PLANNER = "openai"
        _answer(fake, ("is toast", "delete", ""))
        assert not guard_reply(MISSED, backings=[], locale="en").replaced
        assert fake.requests == []
