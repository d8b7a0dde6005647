"""Under ``/api/`` every edge answer is the one JSON error body with the security headers.

Django checks the request line and the headers itself (``LIGHTNOTE_MAX_REQUEST_LINE``,
``LIGHTNOTE_MAX_HEADER_FIELD``, ``LIGHTNOTE_MAX_HEADER_FIELDS``): 414 ``URI_TOO_LONG`` and
431 ``HEADERS_TOO_LARGE``, answered before anything reads the request; gunicorn's own
limits are set above them, so gunicorn lets such a request through to Django. Tested with
Django's test client and with gunicorn itself on a free port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parent.parent
# The flags gunicorn.conf.py is to carry (docs/security.md): above Django's limits.
GUNICORN_LIMITS = [
    "--limit-request-line",
    "8190",
    "--limit-request-field_size",
    "16380",
    "--limit-request-fields",
    "200",
]


def _assert_json_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == code
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" in response


def test_a_request_line_over_the_limit_is_a_414_json_error() -> None:
    client = Client()
    long_query = "q=" + "x" * 4100
    _assert_json_error(client.get(f"/api/v1/todos/?{long_query}"), 414, "URI_TOO_LONG")
    assert client.get(f"/api/v1/todos/?{'q=' + 'x' * 100}").status_code == 401  # within


def test_a_header_over_the_limit_is_a_431_json_error() -> None:
    client = Client()
    _assert_json_error(
        client.get("/api/v1/todos/", HTTP_X_PADDING="x" * 8200), 431, "HEADERS_TOO_LARGE"
    )
    many = {f"HTTP_X_FIELD_{index}": "1" for index in range(101)}
    _assert_json_error(client.get("/api/v1/todos/", **many), 431, "HEADERS_TOO_LARGE")


def test_a_page_gets_the_error_page_for_the_same_limits() -> None:
    response = Client().get("/todos/?q=" + "x" * 4100, HTTP_ACCEPT="text/html")
    assert response.status_code == 414
    assert response["Content-Type"].startswith("text/html")
    assert b'data-code="URI_TOO_LONG"' in response.content


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def gunicorn_url() -> Iterator[str]:
    port = _free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "lightnote.test_settings",
        "LIGHTNOTE_ALLOWED_HOSTS": "127.0.0.1",
        "LIGHTNOTE_WORKERS": "1",
        "LIGHTNOTE_THREADS": "2",
        "LIGHTNOTE_ACCESS_LOG": "",
    }
    process = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "-c",
            str(ROOT / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
            *GUNICORN_LIMITS,
            "lightnote.wsgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, "gunicorn exited"
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.1)
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)


def _raw(address: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(request)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def test_gunicorn_with_its_limits_raised_lets_django_answer_414_and_431(gunicorn_url: str) -> None:
    line = f"GET /api/v1/todos/?q={'x' * 5000} HTTP/1.1\r\n".encode()
    status, headers, body = _raw(
        gunicorn_url, line + b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    assert (status, headers["content-type"]) == (414, "application/json")
    assert b'"URI_TOO_LONG"' in body
    assert headers["x-content-type-options"] == "nosniff"
    padding = b"X-Padding: " + b"x" * 9000 + b"\r\n"
    request = b"GET /api/v1/todos/ HTTP/1.1\r\nHost: 127.0.0.1\r\n" + padding
    status, headers, body = _raw(gunicorn_url, request + b"Connection: close\r\n\r\n")
    assert (status, headers["content-type"]) == (431, "application/json")
    assert b'"HEADERS_TOO_LARGE"' in body
