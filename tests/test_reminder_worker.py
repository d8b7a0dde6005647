"""The background worker as real processes: `manage.py worker` delivers a reminder set through
the API exactly once (with `make run`'s SQLite file and with MariaDB + Redis), two workers
racing over the same due reminders deliver each once, and a worker killed mid-delivery
loses nothing and duplicates nothing."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from reminders import services
from reminders.models import Notification, ReminderDelivery
from todos import services as todo_services

BASE_DIR = Path(settings.BASE_DIR)
DEADLINE = 90  # seconds: generous, the machine is shared
TEST_BACKEND = os.environ.get("LIGHTNOTE_TEST_BACKEND", "embedded")


def _env(database_url: str, redis_url: str, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "lightnote.settings",
        "LIGHTNOTE_DATABASE_URL": database_url,
        "LIGHTNOTE_REDIS_URL": redis_url,
        "LIGHTNOTE_SECRET_KEY": "test-secret-key-for-the-worker-processes-0123456789",
        "LIGHTNOTE_HTTPS": "0",
        "LIGHTNOTE_PLANNER": "rules",
        "LIGHTNOTE_LOG_LEVEL": "WARNING",
        "LIGHTNOTE_EMAIL_URL": "locmem://",
        **extra,
    }


def _test_database_env() -> dict[str, str]:
    """The environment of a process sharing this (services) test's database and Redis."""
    database = settings.DATABASES["default"]
    url = (
        f"mysql://{database['USER']}:{database['PASSWORD']}@{database['HOST']}:"
        f"{database['PORT']}/{database['NAME']}"
    )
    return _env(url, settings.REDIS_URL)


@contextmanager
def _processes(commands: list[list[str]], env: dict[str, str]) -> Iterator[list[Any]]:
    """Run ``manage.py`` commands as processes; stop them (TERM, then KILL) on the way out."""
    started = [
        subprocess.Popen(
            [sys.executable, "manage.py", *command],
            cwd=BASE_DIR,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for command in commands
    ]
    try:
        yield started
    finally:
        for process in started:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until(check: Any, *, deadline: float = DEADLINE, every: float = 0.5) -> Any:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(every)
    return check()


def _worker(*extra: str) -> list[str]:
    return ["worker", "--scan-every", "1", "--interval", "0.2", "-v", "0", *extra]


# --- end to end, make run's setup: SQLite file, runserver and the worker ---------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _http(method: str, url: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(url, method=method)  # noqa: S310 (a local test server)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data=data, timeout=20) as answer:  # noqa: S310
        return json.loads(answer.read() or b"null")


@pytest.mark.skipif(TEST_BACKEND == "services", reason="the embedded pass runs make run's setup")
def test_a_reminder_set_through_the_api_arrives_once_with_make_runs_setup(tmp_path: Path) -> None:
    env = _env(f"sqlite:///{tmp_path / 'db.sqlite3'}", "fakeredis://embedded", LIGHTNOTE_DEBUG="1")
    for setup in (["migrate", "--noinput", "-v", "0"], ["ensure_demo_user"]):
        subprocess.run(
            [sys.executable, "manage.py", *setup], cwd=BASE_DIR, env=env, check=True, timeout=300
        )
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    commands = [["runserver", "--noreload", f"127.0.0.1:{port}"], _worker()]
    with _processes(commands, env):

        def token() -> str | None:
            try:
                answer = _http(
                    "POST",
                    f"{base}/api/v1/auth/token/",
                    {"username": "demo", "password": "demo-pass-2026"},
                )
            except OSError:
                return None
            return str(answer["token"])

        key = _wait_until(token)
        assert key, "the web server did not start"
        remind_at = timezone.now().replace(microsecond=0) + dt.timedelta(seconds=10)
        todo = _http(
            "POST",
            f"{base}/api/v1/todos/",
            {"title": "Call mom", "remind_at": remind_at.isoformat()},
            key,
        )

        def delivered() -> list[Any]:
            return _http("GET", f"{base}/api/v1/notifications/", token=key)["results"]

        assert delivered() == []
        results = _wait_until(delivered, deadline=DEADLINE + 10)
        assert [item["todo_id"] for item in results] == [todo["id"]]
        time.sleep(3)  # three more scans
        assert len(delivered()) == 1
        # The worker beats while it runs: readiness names it alive.
        ready = _http("GET", f"{base}/readyz")
        assert ready["checks"]["worker"] == "ok"


# --- the same with MariaDB + Redis -----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_a_reminder_set_through_the_api_arrives_once_with_mariadb_and_redis(
    user: Any, client_for: Any
) -> None:
    api = client_for(user)
    remind_at = timezone.now().replace(microsecond=0) + dt.timedelta(seconds=10)
    created = api.post(
        "/api/v1/todos/", {"title": "Call mom", "remind_at": remind_at.isoformat()}, format="json"
    )
    assert created.status_code == 201
    with _processes([_worker()], _test_database_env()):
        assert api.get("/api/v1/notifications/").json()["results"] == []
        results = _wait_until(lambda: api.get("/api/v1/notifications/").json()["results"])
        assert [item["todo_id"] for item in results] == [created.json()["id"]]
        assert dt.datetime.fromisoformat(results[0]["created_at"]) >= remind_at
        time.sleep(3)
        assert api.get("/api/v1/notifications/").json()["count"] == 1


# --- races and kills (MariaDB) ----------------------------------------------------------------

DUE = 120


def _due_todos(owner: Any, count: int = DUE) -> list[Any]:
    past = timezone.now() - dt.timedelta(minutes=1)
    return [
        todo_services.todo_create(owner=owner, title=f"Due {n}", remind_at=past).id
        for n in range(count)
    ]


def _assert_each_delivered_once(todo_ids: list[Any]) -> None:
    per_todo = Counter(Notification.objects.values_list("todo_id", flat=True))
    assert per_todo == Counter(dict.fromkeys(todo_ids, 1))
    assert ReminderDelivery.objects.count() == len(todo_ids)


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_two_workers_racing_over_the_same_due_reminders_deliver_each_once(user: Any) -> None:
    todo_ids = _due_todos(user)
    with _processes([_worker(), _worker()], _test_database_env()):
        _wait_until(lambda: ReminderDelivery.objects.count() >= DUE)
        time.sleep(3)  # both keep scanning: nothing more may appear
    _assert_each_delivered_once(todo_ids)


SCAN_AT_ONCE = """
import time
from reminders import services
start = {start}
time.sleep(max(0.0, start - time.time()))
print(services.reminders_deliver_due(), flush=True)
"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_four_processes_scanning_at_the_same_instant_deliver_each_reminder_once(
    user: Any,
) -> None:
    todo_ids = _due_todos(user)
    start = time.time() + 8  # after every process has started Django
    code = SCAN_AT_ONCE.format(start=start)
    with _processes(
        [["shell", "-v", "0", "-c", code] for _ in range(4)], _test_database_env()
    ) as started:
        outputs = [process.communicate(timeout=DEADLINE)[0] for process in started]
    counts = [int(output.strip().splitlines()[-1]) for output in outputs]
    assert sum(counts) == DUE, outputs
    _assert_each_delivered_once(todo_ids)


KILLED_MID_DELIVERY = """
import time
from django.db import transaction
from reminders import services
with transaction.atomic():
    delivered = services.reminders_deliver_due()
    print("uncommitted", delivered, flush=True)
    time.sleep(120)
"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_a_worker_killed_mid_delivery_loses_nothing_and_duplicates_nothing(user: Any) -> None:
    todo_ids = _due_todos(user, 20)
    with _processes(
        [["shell", "-v", "0", "-c", KILLED_MID_DELIVERY]], _test_database_env()
    ) as started:
        victim = started[0]
        line = victim.stdout.readline()
        assert line.split() == ["uncommitted", "20"], line
        assert Notification.objects.count() == 0  # not committed: nobody sees it
        victim.kill()  # SIGKILL mid-transaction: no cleanup code runs
        victim.wait(timeout=30)
    # The server rolled the dead connection's transaction back and freed its row locks.
    delivered = _wait_until(lambda: services.reminders_deliver_due(), deadline=30)
    assert delivered == 20
    assert services.reminders_deliver_due() == 0
    _assert_each_delivered_once(todo_ids)
