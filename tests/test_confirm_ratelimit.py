"""Per-user rate limits on new claims and new cards (docs/api.md: 429 ``RATE_LIMITED``).

The limit is checked where docs/api.md's order puts it: after the state check, so a repeat of a
running, settled or rejected card is answered from its record and never refused; and a
limiter that cannot reach its store answers 503, never 500 and never "allowed".
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine

from agent import cards
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    CREATE_TODO_TEXT,
    card_keys,
    confirm,
    error_code,
    issue_card,
    messages_url,
    open_session,
    ratelimit_store_down,
    reject,
    status,
    token_client,
)
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _frozen_clock() -> Iterator[None]:
    # django-ratelimit counts per time window; a frozen clock keeps every request of a test
    # in one window, so the counts below are exact.
    with time_machine.travel(datetime.now(tz=UTC), tick=False):
        yield


def limited(response: Any) -> int:
    """Assert a 429 RATE_LIMITED answer and return its Retry-After seconds."""
    assert response.status_code == 429, response.content
    assert error_code(response) == "RATE_LIMITED"
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= 3600
    assert str(retry_after) in response.json()["error"]["message"]
    return retry_after


def cards_for(user: Any, count: int) -> tuple[str, list[str]]:
    session_id = str(issue_card(user).card.session_id)
    return session_id, [issue_card(user, session_id=session_id).token for _ in range(count)]


def test_new_claims_over_the_limit_get_429_with_retry_after(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "2/h"
    client = token_client(user)
    session_id, tokens = cards_for(user, 3)

    answers = [confirm(client, token, session_id) for token in tokens]

    assert [response.status_code for response in answers[:2]] == [200, 200]
    limited(answers[2])
    assert status(client, tokens[2], session_id).json() == {"state": "ready"}  # not claimed
    assert Todo.objects.count() == 2
    event = AuditEvent.objects.get(event_type="rate.limited")
    assert (event.actor, event.code) == (user, "RATE_LIMITED")
    assert event.details["group"] == "agent.claims"


def test_the_claim_limit_is_per_user(user: Any, other_user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    session_id, (first, second) = cards_for(user, 2)
    other_session, (theirs,) = cards_for(other_user, 1)
    client = token_client(user)

    assert confirm(client, first, session_id).status_code == 200
    limited(confirm(client, second, session_id))
    assert confirm(token_client(other_user), theirs, other_session).status_code == 200


def test_a_repeat_confirm_of_a_settled_card_is_never_refused_by_the_limit(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (settled, fresh) = cards_for(user, 2)
    first = confirm(client, settled, session_id)
    assert first.status_code == 200
    limited(confirm(client, fresh, session_id))

    replays = [confirm(client, settled, session_id) for _ in range(3)]

    assert {(reply.status_code, reply.content) for reply in replays} == {(200, first.content)}


def test_a_repeat_confirm_of_a_running_card_is_never_refused_by_the_limit(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (done, running, fresh) = cards_for(user, 3)
    assert confirm(client, done, session_id).status_code == 200
    assert cards.card_claim(running, attempt_id="another-request").status == "claimed"
    limited(confirm(client, fresh, session_id))

    response = confirm(client, running, session_id)

    assert (response.status_code, response.json()) == (202, {"state": "running"})


def test_a_rejected_card_is_answered_before_the_limit(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (done, rejected, fresh) = cards_for(user, 3)
    confirm(client, done, session_id)
    reject(client, rejected, session_id)
    limited(confirm(client, fresh, session_id))

    response = confirm(client, rejected, session_id)

    assert (response.status_code, error_code(response)) == (409, "CONFIRMATION_REJECTED")


def test_a_store_outage_inside_the_claim_limiter_is_503_and_nothing_runs(user: Any) -> None:
    client = token_client(user)
    session_id, (token,) = cards_for(user, 1)

    with ratelimit_store_down():
        response = confirm(client, token, session_id)

    assert response.status_code == 503
    assert error_code(response) == "CONFIRMATION_STORE_UNAVAILABLE"
    assert status(client, token, session_id).json() == {"state": "ready"}
    assert Todo.objects.count() == 0


def test_a_store_outage_inside_the_card_limiter_is_503_and_no_card_is_issued(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)

    with ratelimit_store_down():
        response = client.post(messages_url(session_id), {"text": CREATE_TODO_TEXT}, format="json")

    assert response.status_code == 503
    assert error_code(response) == "CONFIRMATION_STORE_UNAVAILABLE"
    assert card_keys() == []


def test_issuing_cards_over_the_limit_gives_429_on_the_messages_endpoint(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "2/h"
    client = token_client(user)
    session_id = open_session(client)

    answers = [
        client.post(messages_url(session_id), {"text": CREATE_TODO_TEXT}, format="json")
        for _ in range(3)
    ]

    assert [len(response.json()["cards"]) for response in answers[:2]] == [1, 1]
    limited(answers[2])
    assert len(card_keys()) == 2  # the third card was never written
    event = AuditEvent.objects.get(event_type="rate.limited")
    assert event.details["group"] == "agent.cards"
