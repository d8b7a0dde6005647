"""Issue 10 row 8: many concurrent confirms of one card against a low claim limit.

Real threads (each its own client and MariaDB connection) race through the HTTP endpoint
against the real Redis. Only the request that actually claims the card counts against
``LIGHTNOTE_RATE_LIMIT_CONFIRMS``: every duplicate, whether it saw the card ready and lost
the claim, or saw it running or settled, is answered 202 or the settled body, never 429;
the user's claim counter moves by exactly one, so the next new claim is still allowed.
Each racer's read and claim are one script; strangers racing with the token from their own
session are refused 403 and never claim it.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.cards import transitions as card_transitions
from agent.models import ActionReceipt
from lightnote.controlstore.redis import get_redis
from tests.agent_helpers import (
    CONFIRM_URL,
    StoreClock,
    confirm,
    error_code,
    flow_with_card,
    issue_card,
    open_session,
    spy_on,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

THREADS = 100  # MariaDB's default max_connections is 151, shared with the other tests


def race(
    key: str, payload: dict[str, str], threads: int, *, stranger: Any = None
) -> list[tuple[int, bytes]]:
    """POST ``payload`` to the confirm endpoint from ``threads`` threads at once.

    ``stranger`` (index -> (key, payload) or None) lets some racers be another user."""
    barrier = threading.Barrier(threads)

    def confirm_once(index: int) -> tuple[int, bytes]:
        racer_key, racer_payload = (stranger and stranger(index)) or (key, payload)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {racer_key}")
        try:
            barrier.wait(timeout=60)
            response = client.post(CONFIRM_URL, racer_payload, format="json")
            return response.status_code, response.content
        finally:
            connections.close_all()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(confirm_once, range(threads)))


def error_code_of(body: bytes) -> str:
    return str(json.loads(body)["error"]["code"])


def claims_counted(user_id: int) -> int:
    """The user's claim units taken in every window (read from the real Redis)."""
    redis = get_redis()
    keys = list(redis.scan_iter(match=f"*rate:agent.claims:{user_id}:*"))
    return sum(int(redis.get(key) or 0) for key in keys)


def test_a_hundred_racers_on_one_card_count_one_claim_and_none_gets_429(
    user: Any, other_user: Any, settings: Any, monkeypatch: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "2/h"
    # One rate window ("/h") for the whole test, from its start.
    clock = StoreClock(frozen=True).start().to_window_start(3600)
    try:
        flow = flow_with_card(user)
        action_id = flow.card_id()
        second = issue_card(user, session_id=flow.session_id).token
        third = issue_card(user, session_id=flow.session_id).token
        key = Token.objects.get(user=user).key
        payload = {"token": flow.token, "session_id": flow.session_id}

        # The execution holds the card in ``running`` a moment, so that racers find it
        # ready (and lose the claim) as well as running (and are answered 202).
        calls = spy_on(monkeypatch, todo_services, "todo_create")
        counted = todo_services.todo_create

        def slow_create(*args: Any, **kwargs: Any) -> Any:
            time.sleep(0.2)  # widens the race; nothing is asserted about time
            return counted(*args, **kwargs)

        monkeypatch.setattr(todo_services, "todo_create", slow_create)
        # Every racer reads the card, checks it and claims; a tenth of them are a stranger
        # holding the token, from their own session: refused before any claim.
        claims = spy_on(monkeypatch, card_transitions, "card_claim")
        thief_key = Token.objects.get_or_create(user=other_user)[0].key
        thief_payload = {"token": flow.token, "session_id": open_session(token_client(other_user))}

        def stranger(index: int) -> tuple[str, dict[str, str]] | None:
            return (thief_key, thief_payload) if index % 10 == 0 else None

        answers = race(key, payload, THREADS, stranger=stranger)

        statuses = Counter(code for code, _ in answers)
        assert statuses[403] == THREADS // 10, statuses
        assert {error_code_of(body) for code, body in answers if code == 403} == {
            "CONFIRMATION_FORBIDDEN"
        }
        del statuses[403]
        assert len(claims) <= THREADS - THREADS // 10  # strangers never reach the claim
        assert 429 not in statuses, statuses
        assert set(statuses) <= {200, 202}, statuses
        settled = {body for code, body in answers if code == 200}
        assert len(settled) == 1, settled
        assert len(calls) == 1  # exactly one execution
        assert Todo.objects.count() == 1
        assert [str(a) for a in ActionReceipt.objects.values_list("action_id", flat=True)] == [
            action_id
        ]
        assert claims_counted(user.pk) == 1  # the winner's claim, once

        # The limit still has room for exactly one more new claim.
        assert confirm(flow.client, second, flow.session_id).status_code == 200
        refused = confirm(flow.client, third, flow.session_id)
        assert (refused.status_code, error_code(refused)) == (429, "RATE_LIMITED")
        assert claims_counted(user.pk) == 2

        # With the limit exhausted, a second race on the settled card is still answered
        # with its outcome by every racer: a repeat is never a new claim.
        replays = race(key, payload, THREADS // 2)
        assert {(code, body) for code, body in replays} == {(200, settled.pop())}
        assert claims_counted(user.pk) == 2
        assert len(calls) == 2
    finally:
        clock.stop()
