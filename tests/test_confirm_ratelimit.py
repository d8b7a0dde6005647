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
from django.conf import settings as django_settings
from django.test import override_settings

from agent.cards import transitions as card_transitions
from agent.ratelimit import new_claim_unit
from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.store import token_digest
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    CREATE_TODO_TEXT,
    card_key_of,
    card_keys,
    confirm,
    error_code,
    issue_card,
    messages_url,
    open_session,
    ratelimit_store_down,
    reject,
    rewrite_record,
    spy_on,
    status,
    token_client,
)
from todos import services as todo_services
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


def claims_counted(user: Any) -> int:
    """The units of the claims limit counted for ``user`` in this (frozen) window."""
    return int(get_redis().get(new_claim_unit(user_id=user.pk).counter.key) or 0)


def test_a_claim_the_limit_refuses_writes_nothing_and_answers_as_before(
    user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (first, second) = cards_for(user, 2)
    assert confirm(client, first, session_id).status_code == 200
    before = get_redis().hgetall(card_key_of(second))

    response = confirm(client, second, session_id)

    retry_after = limited(response)
    assert get_redis().hgetall(card_key_of(second)) == before  # still ready, no attempt
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, token_digest(second)) is None
    assert claims_counted(user) == 1  # the refusal counted nothing
    event = AuditEvent.objects.get(event_type="rate.limited")
    assert event.details == {"group": "agent.claims", "rate": "1/h", "retry_after": retry_after}
    assert response.json()["error"]["code"] == "RATE_LIMITED"


def test_a_tampered_card_fails_its_binding_before_the_limit_and_gives_its_unit_back(
    user: Any, settings: Any, monkeypatch: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (tampered, good, late) = cards_for(user, 3)
    rewrite_record(tampered, lambda record: record["args"].update(title="改过"))
    service_calls = spy_on(monkeypatch, todo_services, "todo_create")

    invalid = confirm(client, tampered, session_id)

    assert (invalid.status_code, error_code(invalid)) == (409, "CONFIRMATION_INVALID")
    assert not get_redis().exists(card_key_of(tampered))  # destroyed, as always
    assert service_calls == []
    assert claims_counted(user) == 0  # its unit was given back: the next claim may run
    assert confirm(client, good, session_id).status_code == 200
    rewrite_record(late, lambda record: record["args"].update(title="改过"))
    refused = confirm(client, late, session_id)  # the limit is reached: the binding first
    assert (refused.status_code, error_code(refused)) == (409, "CONFIRMATION_INVALID")
    assert not get_redis().exists(card_key_of(late))
    assert claims_counted(user) == 1
    assert not AuditEvent.objects.filter(event_type="rate.limited").exists()


def test_a_limiter_on_its_own_connection_counts_before_the_claim_and_claims_nothing_over_it(
    user: Any, settings: Any, monkeypatch: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1/h"
    client = token_client(user)
    session_id, (first, second) = cards_for(user, 2)
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["ratelimit"] = dict(django_settings.CACHES["default"])
    claims = spy_on(monkeypatch, card_transitions, "card_claim")
    given_back = spy_on(monkeypatch, card_transitions, "card_release")

    with override_settings(CACHES=caches, LIGHTNOTE_RATE_LIMIT_CACHE="ratelimit"):
        assert confirm(client, first, session_id).status_code == 200
        limited(confirm(client, second, session_id))

    assert [call["take"] for call in claims] == [None]  # not in the claim's script
    assert given_back == []  # the refused confirm never claimed
    assert status(client, second, session_id).json() == {"state": "ready"}
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, token_digest(second)) is None
    assert claims_counted(user) == 1


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
    assert card_transitions.card_claim(running, attempt_id="another-request").status == "claimed"
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
