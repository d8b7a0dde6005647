"""Concurrent confirms of one token against the real Redis and MariaDB: one execution.

50 threads (each its own client and database connection) and, separately, several forked
processes (each its own Redis and MariaDB connections) confirm the same card through the
HTTP endpoint at once. Exactly one receipt row and one todo exist afterwards; every other
answer is ``202 running`` or the identical settled body; nothing is a 5xx. A double click
that lands while the first confirm is still executing gets ``202``.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.cards.reconcile import reconcile_expired
from agent.models import ActionReceipt
from tests.agent_helpers import CONFIRM_URL, StoreClock, flow_with_card, spy_on
from todos import services as todo_services
from todos.models import Todo

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

THREADS = 50
PROCESSES = 8


@pytest.fixture(autouse=True)
def _generous_claim_limit(settings: Any) -> None:
    # Every racer that still sees the card ready counts as a new claim; the per-user limit
    # is not what these tests are about (test_confirm_ratelimit.py is).
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1000/m"


def assert_one_execution(answers: list[tuple[int, bytes]], *, action_id: str) -> bytes:
    """Check the racers' answers and the database; return the settled body."""
    statuses = Counter(code for code, _ in answers)
    assert set(statuses) <= {200, 202}, statuses  # no 4xx, no 5xx
    settled = {body for code, body in answers if code == 200}
    assert len(settled) == 1, settled  # the winner's body, byte for byte, for every replay
    assert all(body == b'{"state":"running"}' for code, body in answers if code == 202)
    assert Todo.objects.count() == 1
    assert [str(a) for a in ActionReceipt.objects.values_list("action_id", flat=True)] == [
        action_id
    ]
    return settled.pop()


def test_fifty_threads_confirming_one_token_execute_it_once(user: Any, monkeypatch: Any) -> None:
    flow = flow_with_card(user)
    action_id = flow.card_id()
    key = Token.objects.get(user=user).key
    service_calls = spy_on(monkeypatch, todo_services, "todo_create")
    barrier = threading.Barrier(THREADS)
    payload = {"token": flow.token, "session_id": flow.session_id}

    def confirm_once(_: int) -> tuple[int, bytes]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        try:
            barrier.wait(timeout=30)
            response = client.post(CONFIRM_URL, payload, format="json")
            return response.status_code, response.content
        finally:
            connections.close_all()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        answers = list(pool.map(confirm_once, range(THREADS)))

    settled = assert_one_execution(answers, action_id=action_id)
    assert len(service_calls) == 1
    assert flow.confirm().content == settled
    assert flow.status().content == settled


def _confirm_in_child(key: str, payload: dict[str, str], barrier: Any, results: Any) -> None:
    # Forked after the parent closed its database connections, so this process opens its
    # own; redis-py's pools notice the new pid and open their own sockets too.
    try:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        barrier.wait(timeout=30)
        response = client.post(CONFIRM_URL, payload, format="json")
        results.put((response.status_code, response.content))
    except Exception as exc:  # reported to the parent, which fails the test
        results.put((0, repr(exc).encode()))
    finally:
        connections.close_all()


def test_several_processes_confirming_one_token_execute_it_once(user: Any) -> None:
    flow = flow_with_card(user)
    action_id = flow.card_id()
    key = Token.objects.get(user=user).key
    payload = {"token": flow.token, "session_id": flow.session_id}
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(PROCESSES)
    results = context.Queue()
    connections.close_all()  # never share a MariaDB socket with a child
    children = [
        context.Process(target=_confirm_in_child, args=(key, payload, barrier, results))
        for _ in range(PROCESSES)
    ]
    for child in children:
        child.start()
    try:
        answers = [results.get(timeout=60) for _ in children]
    finally:
        for child in children:
            child.join(timeout=30)

    assert [code for code, _ in answers if code == 0] == [], answers
    settled = assert_one_execution(answers, action_id=action_id)
    assert flow.confirm().content == settled


def test_a_double_click_while_the_first_confirm_is_executing_gets_202_running(
    user: Any, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    original = todo_services.todo_create
    executing = threading.Event()
    release = threading.Event()

    def slow_create(**kwargs: Any) -> Any:
        executing.set()
        release.wait(timeout=10)
        return original(**kwargs)

    monkeypatch.setattr(todo_services, "todo_create", slow_create)
    key = Token.objects.get(user=user).key
    first: dict[str, Any] = {}

    def first_click() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        try:
            first["response"] = client.post(
                CONFIRM_URL, {"token": flow.token, "session_id": flow.session_id}, format="json"
            )
        finally:
            connections.close_all()

    worker = threading.Thread(target=first_click)
    worker.start()
    try:
        assert executing.wait(timeout=10)
        second = flow.confirm()
        state = flow.status()
        refused = flow.reject()
    finally:
        release.set()
        worker.join(timeout=30)

    assert (second.status_code, second.json()) == (202, {"state": "running"})
    assert state.json() == {"state": "running"}
    assert refused.status_code == 409
    assert refused.json()["state"] == "running"
    assert first["response"].status_code == 200
    assert flow.confirm().content == first["response"].content
    assert Todo.objects.count() == 1


def test_an_executor_whose_lease_passed_mid_run_is_fenced_and_answers_the_reconciled_outcome(
    user: Any, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    clock = StoreClock().start()
    original = todo_services.todo_create
    reconciled: list[int] = []

    def slow_create(**kwargs: Any) -> Any:
        # The executor stalls past its lease; meanwhile a reconciler (its own thread and
        # database connection) voids the action. Then the executor carries on.
        def reconcile() -> None:
            try:
                reconciled.append(reconcile_expired(locale="zh-CN"))
            finally:
                connections.close_all()

        clock.past_lease()
        reconciler = threading.Thread(target=reconcile)
        reconciler.start()
        reconciler.join(timeout=30)
        return original(**kwargs)

    monkeypatch.setattr(todo_services, "todo_create", slow_create)
    try:
        answer = flow.confirm(HTTP_ACCEPT_LANGUAGE="en")  # the reconciler spoke Chinese
    finally:
        clock.stop()

    assert reconciled == [1]
    assert answer.status_code == 200
    assert answer.json()["outcome"]["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert Todo.objects.count() == 0  # the late write was rolled back by the fence
    assert [r.status for r in ActionReceipt.objects.filter(action_id=card_id)] == ["voided"]
    assert flow.confirm().content == answer.content  # the first answer is the stored one
    assert flow.confirm(HTTP_ACCEPT_LANGUAGE="en").content == answer.content
