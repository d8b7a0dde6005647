"""Test configuration: two backends, visible skips, and shared fixtures.

``make test`` runs the suite twice: the embedded pass (SQLite + in-process fakeredis) and the
services pass (``LIGHTNOTE_TEST_BACKEND=services``: MariaDB + real Redis). In the services pass
an unreachable server skips every test with the reason shown, or fails the run when
``REQUIRE_SERVICES=1`` (CI). Tests marked ``services`` need the real servers and are skipped,
with that reason, in the embedded pass.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.core.servers.basehttp import ThreadedWSGIServer
from django.test.testcases import LiveServerThread


class _OneRequestAtATime(ThreadedWSGIServer):
    """The browser tests' live server, whose requests share the test's in-memory SQLite
    connection in the embedded pass: one request at a time there (a streamed answer holds
    its turn until it ends).

    Django hands that one connection to every request thread; a page's parallel requests
    (the document, a redirect, the admin's scripts) then used it at once, and the sqlite3
    module crashed the test process now and then (a segmentation fault in ``execute``).
    Each request runs whole under a lock (its body read inside it); connections stay
    parallel, so a browser's idle keep-alive connection blocks nobody. With their own
    connections (MariaDB, the services pass) requests run in parallel as in production.
    """

    _request_lock = threading.Lock()

    def set_app(self, application: Any) -> None:
        if not self.connections_override:
            super().set_app(application)
            return

        def one_at_a_time(environ: Any, start_response: Any) -> Iterator[bytes]:
            # A generator, so a streamed answer (a turn's events) goes out as it is made;
            # the lock is held until the last piece has been sent.
            with self._request_lock:
                response = application(environ, start_response)
                try:
                    yield from response
                finally:
                    close = getattr(response, "close", None)
                    if close is not None:
                        close()

        super().set_app(one_at_a_time)


LiveServerThread.server_class = _OneRequestAtATime

TEST_BACKEND = os.environ.get("LIGHTNOTE_TEST_BACKEND", "embedded")
REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES", "") == "1"
_unreachable: list[str] = []


def _probe_services() -> list[str]:
    """Return a reason for each real server this pass needs and cannot reach."""
    problems: list[str] = []
    database = settings.DATABASES["default"]
    try:
        import MySQLdb

        connection = MySQLdb.connect(
            host=database["HOST"],
            port=int(database["PORT"]),
            user=database["USER"],
            password=database["PASSWORD"],
            connect_timeout=3,
        )
        connection.close()
    except Exception as exc:
        problems.append(f"MariaDB at {database['HOST']}:{database['PORT']} unreachable ({exc})")
    try:
        import redis

        redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=3).ping()
    except Exception as exc:
        problems.append(f"Redis at {settings.REDIS_URL} unreachable ({exc})")
    return problems


def pytest_configure(config: pytest.Config) -> None:
    if TEST_BACKEND != "services":
        return
    _unreachable.extend(_probe_services())
    if _unreachable and REQUIRE_SERVICES:
        pytest.exit("REQUIRE_SERVICES=1 but " + "; ".join(_unreachable), returncode=3)


def pytest_report_header(config: pytest.Config) -> str:
    database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    return (
        f"LightNote test backend: {TEST_BACKEND} (database={database}, redis={settings.REDIS_URL})"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TEST_BACKEND == "services" and _unreachable:
        skip = pytest.mark.skip(reason="services pass skipped: " + "; ".join(_unreachable))
        for item in items:
            item.add_marker(skip)
        return
    if TEST_BACKEND != "services":
        skip = pytest.mark.skip(
            reason="needs the real MariaDB and Redis: runs in the services pass of `make test`"
        )
        for item in items:
            if "services" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _clean_redis() -> Iterator[None]:
    """Give every test an empty control store (the test Redis database is the suite's own)."""
    from lightnote.controlstore.redis import get_redis

    get_redis().flushdb()
    return


@pytest.fixture
def make_user(django_user_model: Any) -> Any:
    counter = iter(range(1, 10_000))

    def make(username: str | None = None, **fields: Any) -> Any:
        name = username or f"user{next(counter)}"
        user = django_user_model.objects.create_user(username=name, password="pw-" + name, **fields)
        return user

    return make


@pytest.fixture
def user(make_user: Any) -> Any:
    return make_user("alice")


@pytest.fixture
def other_user(make_user: Any) -> Any:
    return make_user("bob")


@pytest.fixture
def api_client() -> Any:
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def client_for(api_client: Any) -> Any:
    """Return an APIClient authenticated by token as the given user."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    def make(user: Any, **headers: str) -> APIClient:
        client = APIClient(headers=headers or None)
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make


@pytest.fixture
def alice_api(client_for: Any, user: Any) -> Any:
    return client_for(user)


BROWSER = "/usr/bin/chromium"


@pytest.fixture
def sync_playwright() -> Any:
    """Playwright's sync entry point, once Debian's Chromium is known to be there.

    Skipped with the reason when the browser or the package is missing, unless
    ``REQUIRE_SERVICES=1``, where a missing browser fails the run.
    """

    def unavailable(reason: str) -> None:
        if REQUIRE_SERVICES:
            pytest.fail(f"REQUIRE_SERVICES=1 but {reason}")
        pytest.skip(reason)

    if not os.path.exists(BROWSER):
        unavailable(f"no browser at {BROWSER} (install Debian's chromium package)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright Python package is not installed")
    return sync_playwright


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the guard corpus's and the held-out sets' figures when their tests ran."""
    from tests.guard_corpus import FIGURES

    if FIGURES:
        terminalreporter.write_sep("=", "truthfulness guard corpus (tests/data/guard_corpus)")
        for line in FIGURES:
            terminalreporter.write_line(line)
    # --- held-out sets (issues 43, 44): scored, printed, not tuned on ---
    from tests.heldout import FIGURES as HELDOUT_FIGURES

    if HELDOUT_FIGURES:
        terminalreporter.write_sep(
            "=", "held-out sets (tests/data/heldout) and guard tuning sets (tests/data)"
        )
        for line in HELDOUT_FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture
def steady_window() -> Iterator[None]:
    """The clock moved to the middle of the current minute, and ticking: a test that fills a
    fixed-window rate limit ("2/m", windows aligned to the minute) never sees its window end
    between its requests (a run that straddled a minute boundary took the third unit in a
    new window)."""
    now = datetime.now(UTC)
    with time_machine.travel(now.replace(second=30, microsecond=0), tick=True):
        yield


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[Any]:
    """Select the OpenAI planner, pointed at a fresh fake server (1 s client timeout); a test
    module needing another timeout defines its own."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server
