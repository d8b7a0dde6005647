"""A confirm whose store stalls mid-way answers 503 and leaves the card confirmable.

The test starts its own ``redis-server`` on a free port, lets the confirm read the card,
then stops the server (SIGSTOP) before the claim is sent: the claim and redis-py's retry of
it wait in the server's socket while the request times out and answers 503 ("try again").
The server is resumed after that answer; it then runs the queued claims, which carry a
deadline in the server's own clock (``record_transition.lua``'s ARGV[19]) and so write
nothing. The retry the 503 invites executes the card, once. Without the deadline the
queued claim would take the card for an attempt nobody owns, and the retry could only
ever answer "not executed".
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.conf import settings as django_settings
from django.test import Client, override_settings

from agent.cards import checks as confirm_checks
from agent.models import ActionReceipt
from lightnote.controlstore.redis import get_redis
from tests.agent_helpers import confirm, error_code, flow_with_card, status, token_client
from tests.test_chat_page import card_form, post_card, send
from todos.models import Todo

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

SOCKET_TIMEOUT_MS = 600  # each attempt's read timeout; redis-py retries once
DEADLINE_MS = 300  # a claim may apply at most this long after the card was read
STALL_S = 2.5  # longer than both attempts together: the request has answered by then


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def own_redis(tmp_path: Any) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A redis-server of this test's own, on a free loopback port."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed (the services pass needs it)")
    port = _free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            try:
                redis.Redis.from_url(url, socket_timeout=0.2).ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail("the test's redis-server did not start")
        yield server, url
    finally:
        os.kill(server.pid, signal.SIGCONT)
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture
def stalling_store(own_redis: tuple[subprocess.Popen[bytes], str]) -> Iterator[Any]:
    """Point the app at the test's server with short timeouts; yield ``stall_after_read()``,
    which makes the next confirm stop the server once its card is read, and resume it
    ``STALL_S`` later."""
    server, url = own_redis
    caches = {name: dict(config) for name, config in django_settings.CACHES.items()}
    caches["default"] = {
        **caches["default"],
        "LOCATION": url,
        "OPTIONS": {
            **caches["default"].get("OPTIONS", {}),
            "SOCKET_TIMEOUT": SOCKET_TIMEOUT_MS / 1000,
            "SOCKET_CONNECT_TIMEOUT": SOCKET_TIMEOUT_MS / 1000,
        },
    }
    resumed = threading.Event()

    def stall_after_read(monkeypatch: Any) -> threading.Event:
        original = confirm_checks.session_access

        def stop_then_check(**kwargs: Any) -> Any:
            os.kill(server.pid, signal.SIGSTOP)  # the card was read; the claim comes next
            timer = threading.Timer(
                STALL_S, lambda: (os.kill(server.pid, signal.SIGCONT), resumed.set())
            )
            timer.start()
            monkeypatch.setattr(confirm_checks, "session_access", original)  # once
            return original(**kwargs)

        monkeypatch.setattr(confirm_checks, "session_access", stop_then_check)
        return resumed

    with override_settings(CACHES=caches, REDIS_URL=url, LIGHTNOTE_CLAIM_DEADLINE_MS=DEADLINE_MS):
        get_redis().flushdb()
        yield stall_after_read
    resumed.wait(timeout=STALL_S * 4)


def _scripts_loaded(user: Any) -> None:
    """Confirm one card first, so the server holds every script (a claim queued behind a
    stall then runs for real, instead of answering NOSCRIPT)."""
    warm = flow_with_card(user, "帮我创建一条明天下午3点热身的待办")
    assert warm.confirm().status_code == 200


def _after_the_queued_claims_ran(resumed: threading.Event) -> None:
    assert resumed.wait(timeout=STALL_S * 4), "the server was never resumed"
    get_redis().ping()  # answered only once every command queued before it has run


def test_a_stalled_claim_on_the_api_answers_503_and_the_retry_executes_once(
    user: Any, stalling_store: Any, monkeypatch: Any
) -> None:
    _scripts_loaded(user)
    flow = flow_with_card(user)
    client = token_client(user)
    resumed = stalling_store(monkeypatch)

    started = time.monotonic()
    stalled = confirm(client, flow.token, flow.session_id)
    answered_after = time.monotonic() - started

    assert (stalled.status_code, error_code(stalled)) == (503, "CONFIRMATION_STORE_UNAVAILABLE")
    assert answered_after < STALL_S  # the answer came while the server was still stopped
    _after_the_queued_claims_ran(resumed)
    assert status(client, flow.token, flow.session_id).json() == {"state": "ready"}
    assert Todo.objects.count() == 1  # the warm-up's

    retried = confirm(client, flow.token, flow.session_id)

    assert retried.status_code == 200
    assert retried.json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 2
    assert ActionReceipt.objects.filter(action_id=flow.card_id()).count() == 1


def test_a_stalled_claim_on_the_chat_page_answers_503_and_the_retry_executes_once(
    user: Any, stalling_store: Any, monkeypatch: Any
) -> None:
    _scripts_loaded(user)
    page = Client()
    page.force_login(user)
    form = card_form(send(page).content.decode())
    resumed = stalling_store(monkeypatch)

    stalled = post_card(page, "/chat/confirm/", form)

    assert stalled.status_code == 503
    assert "CONFIRMATION_STORE_UNAVAILABLE" in stalled.content.decode()
    _after_the_queued_claims_ran(resumed)
    assert Todo.objects.count() == 1  # the warm-up's

    retried = post_card(page, "/chat/confirm/", form)

    assert retried.status_code == 200
    assert "outcome-succeeded" in retried.content.decode()
    assert Todo.objects.count() == 2
    assert ActionReceipt.objects.count() == 2


def test_a_stalled_claim_on_the_mcp_card_page_answers_503_and_the_retry_executes_once(
    user: Any, stalling_store: Any, monkeypatch: Any
) -> None:
    from tests.mcp_helpers import confirm_on_page, mcp_key, memory_server, page_client, propose

    _scripts_loaded(user)
    card = propose(memory_server(mcp_key(user)))
    client = page_client(user)
    resumed = stalling_store(monkeypatch)

    stalled = confirm_on_page(client, card["card_id"])

    assert stalled.status_code == 503
    _after_the_queued_claims_ran(resumed)
    assert Todo.objects.count() == 1  # the warm-up's

    retried = confirm_on_page(client, card["card_id"])

    assert retried.status_code == 200
    assert Todo.objects.count() == 2
    assert ActionReceipt.objects.filter(action_id=card["card_id"]).count() == 1
