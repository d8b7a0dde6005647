"""Every page and endpoint answers a control-store outage with its 503, never a 500.

A real redis-server started by the test on a free port is the control store; it is then
stopped (connections refused) or hung with SIGSTOP (connections open, no reply). The MCP
card page, its confirm and its reject answer the app's own error page; the API answers the
error body; nothing calls the failed store again on the way out (the answer comes within
a few socket timeouts).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from tests.mcp_helpers import card_path, csrf_from, mcp_key, memory_server, propose
from tests.redis_fault import OwnRedis, own_redis

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

TIMEOUT_MS = 300
# A hung store costs each command one timeout (and one retry): an error path that asked
# the store again would show as more.
MAX_SECONDS = 8 * TIMEOUT_MS / 1000


@pytest.fixture
def store() -> Iterator[OwnRedis]:
    with own_redis() as server, server.as_store(timeout_ms=TIMEOUT_MS):
        yield server


def _client(user: Any) -> Client:
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(user)
    return client


def _fail(store: OwnRedis, how: str) -> None:
    if how == "stopped":
        store.stop()
    else:
        store.hang()


def _assert_page_503(response: Any, started: float) -> None:
    assert response.status_code == 503, response.content[:400]
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "Traceback" not in body
    assert 'data-code="' in body
    assert time.monotonic() - started < MAX_SECONDS


@pytest.mark.parametrize("how", ["stopped", "hung"])
def test_the_mcp_card_page_answers_a_store_outage_with_its_error_page(
    store: OwnRedis, user: Any, how: str
) -> None:
    card = propose(memory_server(mcp_key(user)))
    client = _client(user)
    _fail(store, how)
    started = time.monotonic()
    _assert_page_503(client.get(card_path(card["card_id"])), started)


@pytest.mark.parametrize("action", ["confirm", "reject"])
@pytest.mark.parametrize("how", ["stopped", "hung"])
def test_the_mcp_card_confirm_and_reject_answer_a_store_outage_with_503(
    store: OwnRedis, user: Any, how: str, action: str
) -> None:
    card = propose(memory_server(mcp_key(user)))
    client = _client(user)
    page = client.get(card_path(card["card_id"]))
    assert page.status_code == 200
    csrf = csrf_from(page)
    _fail(store, how)
    started = time.monotonic()
    response = client.post(f"{card_path(card['card_id'])}{action}/", {"csrfmiddlewaretoken": csrf})
    _assert_page_503(response, started)


PAGES = ["/", "/chat/", "/todos/", "/notes/", "/settings/", "/settings/mcp/"]
API_READS = ["/api/v1/me/", "/api/v1/todos/", "/api/v1/notes/", "/api/v1/agent/sessions/"]


@pytest.mark.parametrize("how", ["stopped", "hung"])
def test_no_page_or_api_read_answers_500_when_the_store_is_down(
    store: OwnRedis, user: Any, how: str
) -> None:
    client = _client(user)
    _fail(store, how)
    for path in PAGES + API_READS:
        response = client.get(path, HTTP_ACCEPT_LANGUAGE="en")
        assert response.status_code in {200, 302, 503}, (path, response.status_code)
        if response.status_code == 503 and path.startswith("/api/"):
            assert response.json()["error"]["code"]


@pytest.mark.parametrize("how", ["stopped", "hung"])
def test_no_api_write_answers_500_when_the_store_is_down(
    store: OwnRedis, user: Any, how: str
) -> None:
    from rest_framework.test import APIClient

    from agent.models import AgentSession

    session = AgentSession.objects.create(owner=user)
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    _fail(store, how)
    writes = [
        ("/api/v1/todos/", {"title": "t"}, {"HTTP_IDEMPOTENCY_KEY": "k1"}),
        ("/api/v1/notes/", {"title": "n"}, {}),
        (f"/api/v1/agent/sessions/{session.id}/messages/", {"text": "帮我创建待办 写周报"}, {}),
        (
            "/api/v1/agent/confirmations/confirm/",
            {"token": "x" * 43, "session_id": str(session.id)},
            {},
        ),
        (
            "/api/v1/agent/confirmations/status/",
            {"token": "x" * 43, "session_id": str(session.id)},
            {},
        ),
    ]
    for path, body, headers in writes:
        response = client.post(path, body, format="json", **headers)
        assert response.status_code != 500, (path, response.content[:300])
        if response.status_code == 503:
            assert response.json()["error"]["code"]


@pytest.mark.parametrize("how", ["stopped", "hung"])
def test_the_chat_page_answers_a_message_without_a_500_when_the_store_is_down(
    store: OwnRedis, user: Any, how: str
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    _fail(store, how)
    response = client.post("/chat/message/", {"text": "帮我创建待办 写周报"})
    assert response.status_code != 500, response.content[:300]
    assert b"Traceback" not in response.content
