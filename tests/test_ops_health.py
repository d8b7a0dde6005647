"""``/healthz`` and ``/readyz``; the request id every response carries; a middleware for free."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import redis
from django.db import connection
from django.test import Client
from django.utils import timezone

from lightnote.ops.heartbeat import last_beat, worker_beat
from lightnote.ops.models import WorkerHeartbeat
from lightnote.ops.request_counters import count_requests
from tests.conftest import REQUIRE_SERVICES

ALL_OK = {"database": "ok", "redis": "ok", "migrations": "ok", "worker": "ok"}


def readyz() -> Any:
    return Client().get("/readyz")


# --- /healthz ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_healthz_answers_ok_without_touching_the_database_or_redis() -> None:
    with count_requests() as counts:
        response = Client().get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    # The whole middleware stack, ours included, costs nothing here.
    assert (counts.sql, counts.redis) == (0, 0)


@pytest.mark.django_db
def test_the_observability_middleware_adds_no_sql_and_no_redis_to_a_request(
    settings: Any, client_for: Any, user: Any
) -> None:
    observed_client = client_for(user)
    observed_client.get("/api/v1/todos/")  # warm: first reads, compiled queries
    with count_requests() as observed:
        assert observed_client.get("/api/v1/todos/").status_code == 200
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if not m.startswith("lightnote.ops.")]
    bare_client = client_for(user)  # a new client loads the middleware list anew
    bare_client.get("/api/v1/todos/")
    with count_requests() as bare:
        response = bare_client.get("/api/v1/todos/")

    assert "X-Request-ID" not in response  # the middleware was really off
    assert (observed.sql, observed.redis) == (bare.sql, bare.redis)


# --- /readyz ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_readyz_is_ok_when_every_check_passes(settings: Any) -> None:
    settings.LIGHTNOTE_REQUIRE_WORKER = True
    worker_beat()

    response = readyz()

    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ok", "checks": ALL_OK}


@pytest.mark.django_db(transaction=True)
def test_readyz_reveals_no_version_or_address(settings: Any) -> None:
    settings.LIGHTNOTE_REQUIRE_WORKER = True
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # refused: the failure must not name it

    response = readyz()

    assert response.status_code == 503
    text = response.content.decode()
    assert "127.0.0.1" not in text
    assert "6379" not in text
    assert set(response.json()) == {"status", "checks"}
    assert response.json()["checks"]["redis"] == "error"
    assert "Server" not in response.headers


@pytest.mark.django_db(transaction=True)
def test_a_missing_worker_fails_readiness_only_when_the_worker_is_required(settings: Any) -> None:
    WorkerHeartbeat.objects.all().delete()
    settings.LIGHTNOTE_REQUIRE_WORKER = False

    relaxed = readyz()

    assert relaxed.status_code == 200
    assert relaxed.json()["checks"]["worker"] == "missing"

    settings.LIGHTNOTE_REQUIRE_WORKER = True
    strict = readyz()

    assert strict.status_code == 503
    assert strict.json() == {"status": "unavailable", "checks": {**ALL_OK, "worker": "missing"}}


@pytest.mark.django_db(transaction=True)
def test_a_worker_silent_past_the_max_age_is_stale(settings: Any) -> None:
    settings.LIGHTNOTE_REQUIRE_WORKER = True
    settings.LIGHTNOTE_WORKER_HEARTBEAT_MAX_AGE = 60
    worker_beat()
    WorkerHeartbeat.objects.update(beat_at=timezone.now() - timedelta(seconds=61))

    stale = readyz()

    assert stale.status_code == 503
    assert stale.json()["checks"]["worker"] == "stale"

    worker_beat()
    assert readyz().status_code == 200


@pytest.mark.django_db(transaction=True)
def test_worker_beat_keeps_one_row_and_moves_its_time() -> None:
    worker_beat()
    first = last_beat()
    worker_beat()

    assert WorkerHeartbeat.objects.count() == 1
    assert first is not None
    later = last_beat()
    assert later is not None
    assert later >= first


@pytest.mark.django_db(transaction=True)
def test_an_unapplied_migration_fails_readiness(settings: Any) -> None:
    settings.LIGHTNOTE_REQUIRE_WORKER = False
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM django_migrations WHERE app = 'ops' AND name = '0001_initial'")
    try:
        response = readyz()
    finally:
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO django_migrations (app, name, applied) VALUES (%s, %s, %s)",
                ["ops", "0001_initial", timezone.now()],
            )

    assert response.status_code == 503
    assert response.json()["checks"]["migrations"] == "pending"
    assert readyz().json()["checks"]["migrations"] == "ok"


# --- a hung Redis -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def own_redis() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """A redis-server of this test's own on a free port (stopped and removed after)."""
    if not shutil.which("redis-server"):
        if REQUIRE_SERVICES:
            pytest.fail("REQUIRE_SERVICES=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")
    port = _free_port()
    workdir = tempfile.mkdtemp(prefix="ln-readyz-")
    server = subprocess.Popen(
        [
            *("redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", workdir),
            *("--save", "", "--appendonly", "no", "--loglevel", "warning"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(url, socket_timeout=0.5).ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield server, url
    finally:
        os.kill(server.pid, signal.SIGCONT)  # a stopped process cannot act on SIGTERM
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.mark.django_db(transaction=True)
def test_a_hung_redis_answers_503_within_two_seconds_and_200_once_it_is_back(
    settings: Any, own_redis: tuple[subprocess.Popen[bytes], str]
) -> None:
    server, url = own_redis
    settings.REDIS_URL = url
    settings.LIGHTNOTE_REQUIRE_WORKER = True
    worker_beat()
    assert readyz().status_code == 200

    os.kill(server.pid, signal.SIGSTOP)
    started = time.monotonic()
    hung = readyz()
    elapsed = time.monotonic() - started

    assert hung.status_code == 503
    assert hung.json()["checks"] == {**ALL_OK, "redis": "timeout"}
    assert elapsed < 2.0

    os.kill(server.pid, signal.SIGCONT)
    assert readyz().status_code == 200


# --- X-Request-ID -------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/healthz", "/no/such/page/", "/api/v1/nothing/", "/api/v1/todos/"]
)
def test_every_response_carries_a_new_request_id(path: str) -> None:
    first = Client().get(path)
    second = Client().get(path)

    assert len(first["X-Request-ID"]) == 32
    assert first["X-Request-ID"] != second["X-Request-ID"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/healthz", "/no/such/page/", "/api/v1/todos/"])
def test_a_well_formed_client_request_id_is_echoed(path: str) -> None:
    response = Client().get(path, HTTP_X_REQUEST_ID="lb-7f3a:42.1_x")

    assert response["X-Request-ID"] == "lb-7f3a:42.1_x"


@pytest.mark.django_db
@pytest.mark.parametrize("given", ["", "x" * 65, "has space", "a\u00e9", "semi;colon"])
def test_a_malformed_client_request_id_is_replaced(given: str) -> None:
    response = Client().get("/healthz", HTTP_X_REQUEST_ID=given)

    assert response["X-Request-ID"] != given
    assert len(response["X-Request-ID"]) == 32
