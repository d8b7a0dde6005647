"""Issue 10 row 10: unknown or expired tokens are throttled per user and audited in bulk.

``LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES`` misses per user and window answer 410 as before (each
audited); further misses answer 429 ``RATE_LIMITED`` with ``Retry-After``, write nothing to
the database, and are tallied in Redis; ``flush_miss_tallies`` (``reconcile_cards``) writes
one ``rate.limited`` row per user, kind and action with the count. The check sits at "token
known" in docs/api.md's order (after authentication, the admin context and the store), and
only a miss pays for it: a known token is answered as before, however many misses precede it.
"""

from __future__ import annotations

import io
import secrets
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command

from agent.ratelimit import MISS_TALLIES_KEY, flush_miss_tallies
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from lightnote.ops.request_counters import count_requests
from tests.agent_helpers import (
    CONFIRM_URL,
    REJECT_URL,
    STATUS_URL,
    StoreClock,
    confirm,
    error_code,
    flow_with_card,
    open_session,
    token_client,
)
from todos.models import Todo

pytestmark = pytest.mark.django_db

EDIT_URL = "/api/v1/agent/confirmations/edit/"
REPLY_URL = "/api/v1/agent/continuations/reply/"
CHOOSE_URL = "/api/v1/agent/choices/choose/"


@pytest.fixture(autouse=True)
def _one_window() -> Iterator[None]:
    # Every request of a test in one rate window ("/m"), from its start.
    clock = StoreClock(frozen=True).start().to_window_start(60)
    try:
        yield
    finally:
        clock.stop()


def miss(client: Any, session_id: str, url: str = CONFIRM_URL) -> Any:
    body: dict[str, Any] = {"token": secrets.token_urlsafe(32), "session_id": session_id}
    if url == EDIT_URL:
        body["args"] = {"title": "x"}
    if url == CHOOSE_URL:
        body["candidate_id"] = "00000000-0000-4000-8000-000000000000"
    return client.post(url, body, format="json")


def test_misses_over_the_limit_answer_429_on_every_token_endpoint(user: Any, settings: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    urls = [CONFIRM_URL, REJECT_URL, STATUS_URL, EDIT_URL, REPLY_URL, CHOOSE_URL]
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = f"{len(urls)}/m"

    first = [miss(client, session_id, url) for url in urls]  # one miss per endpoint
    assert [(r.status_code, error_code(r)) for r in first] == [
        (410, "CONFIRMATION_EXPIRED"),
        (410, "CONFIRMATION_EXPIRED"),
        (410, "CONFIRMATION_EXPIRED"),
        (410, "CONFIRMATION_EXPIRED"),
        (410, "CONTINUATION_EXPIRED"),
        (410, "CONFIRMATION_EXPIRED"),
    ]
    for url in urls:
        response = miss(client, session_id, url)
        assert (response.status_code, error_code(response)) == (429, "RATE_LIMITED"), url
        retry_after = int(response["Retry-After"])
        assert 1 <= retry_after <= 60
        assert str(retry_after) in response.json()["error"]["message"]


def test_five_hundred_random_tokens_write_a_bounded_audit(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "20/m"
    client = token_client(user)
    session_id = open_session(client)

    answers = Counter(miss(client, session_id).status_code for _ in range(500))

    assert answers == {410: 20, 429: 480}
    assert AuditEvent.objects.filter(event_type="confirm.expired").count() == 20
    assert not AuditEvent.objects.filter(event_type="rate.limited").exists()  # not yet flushed
    call_command("reconcile_cards", stdout=io.StringIO())  # the periodic job
    [row] = AuditEvent.objects.filter(event_type="rate.limited")
    assert (row.actor, row.subject, row.code) == (user, user, "RATE_LIMITED")
    assert row.details == {
        "group": "agent.token_misses",
        "rate": "20/m",
        "kind": "card",
        "action": "confirm",
        "count": 480,
    }
    assert AuditEvent.objects.count() == 21
    assert flush_miss_tallies() == 0  # taken once
    assert get_redis().exists(MISS_TALLIES_KEY) == 0


def test_a_throttled_miss_writes_nothing_to_the_database(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "1/m"
    client = token_client(user)
    session_id = open_session(client)
    assert miss(client, session_id).status_code == 410

    with count_requests() as counts:
        assert miss(client, session_id).status_code == 429

    assert counts.sql_writes == 0


def test_the_throttle_is_per_user(user: Any, other_user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "2/m"
    mine, theirs = token_client(user), token_client(other_user)
    my_session, their_session = open_session(mine), open_session(theirs)
    assert [miss(mine, my_session).status_code for _ in range(3)] == [410, 410, 429]

    assert miss(theirs, their_session).status_code == 410


def test_a_known_token_is_answered_as_usual_after_many_misses(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "2/m"
    flow = flow_with_card(user)
    answers = [miss(flow.client, flow.session_id).status_code for _ in range(5)]
    assert answers == [410, 410, 429, 429, 429]

    response = confirm(flow.client, flow.token, flow.session_id)

    assert response.status_code == 200, response.content
    assert response.json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 1


def test_throttled_misses_are_tallied_per_kind_and_action(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "1/m"
    client = token_client(user)
    session_id = open_session(client)
    miss(client, session_id)
    for url, times in ((STATUS_URL, 3), (REPLY_URL, 2)):
        for _ in range(times):
            assert miss(client, session_id, url).status_code == 429

    assert flush_miss_tallies() == 2
    counts = {
        (e.details["kind"], e.details["action"]): e.details["count"]
        for e in AuditEvent.objects.filter(event_type="rate.limited")
    }
    assert counts == {("card", "status"): 3, ("continuation", "reply"): 2}


def test_a_miss_is_checked_after_authentication(user: Any, settings: Any, api_client: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES = "1/m"
    client = token_client(user)
    session_id = open_session(client)
    assert [miss(client, session_id).status_code for _ in range(2)] == [410, 429]

    response = miss(api_client, session_id)  # anonymous: 401 comes first

    assert (response.status_code, error_code(response)) == (401, "NOT_AUTHENTICATED")
