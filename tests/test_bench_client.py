"""``make bench``'s burst client against a real local HTTP server: every answer counted by
its status, every connection that gives none counted as an error, and a deadline kept."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bench.client import _status_of, burst


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.bodies: list[tuple[str, str, Any]] = []
        self.rules: Callable[[int], int | str] = lambda n: 200

    @property
    def port(self) -> int:
        return int(self.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    """Answers the n-th POST by the rule in ``server.rules``; remembers every body."""

    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        body = json.loads(self.rfile.read(length))
        server = self.server
        with server.lock:
            server.bodies.append((self.path, self.headers["Authorization"], body))
            n = len(server.bodies)
        rule = server.rules(n)
        if rule == "drop":  # close without a word
            self.close_connection = True
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if rule == "stall":
            time.sleep(3)
            return
        payload = json.dumps({"n": n}).encode() * (4000 if rule == 202 else 1)  # one large
        self.send_response(int(rule))
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[_Server]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_every_answer_is_counted_by_its_status(http_server: _Server) -> None:
    http_server.rules = lambda n: 202 if n % 10 == 0 else 200
    port = http_server.port
    result = burst("127.0.0.1", port, "tok", "/confirm/", {"token": "t", "n": 1}, 120)
    assert result.statuses == {200: 108, 202: 12}
    assert result.errors == []
    assert 0 < result.slowest_ms <= result.answered_ms
    bodies = http_server.bodies
    assert len(bodies) == 120
    assert set(map(json.dumps, bodies)) == {
        json.dumps(["/confirm/", "Token tok", {"token": "t", "n": 1}])
    }


def test_a_connection_closed_without_an_answer_is_an_error(
    http_server: _Server,
) -> None:
    http_server.rules = lambda n: "drop" if n in (3, 7) else 200
    port = http_server.port
    result = burst("127.0.0.1", port, "tok", "/", {}, 20)
    assert result.statuses == {200: 18}
    assert len(result.errors) == 2


def test_the_deadline_is_kept_and_the_unanswered_are_errors(
    http_server: _Server,
) -> None:
    http_server.rules = lambda n: "stall" if n == 1 else 200
    port = http_server.port
    started = time.perf_counter()
    result = burst("127.0.0.1", port, "tok", "/", {}, 5, timeout=0.5)
    assert time.perf_counter() - started < 2.5
    assert result.statuses == {200: 4}
    assert result.errors == ["no answer within 0.5 s"]


def test_a_refused_connection_is_an_error_and_nothing_is_sent() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # bound, not listening: connections are refused
        result = burst("127.0.0.1", port, "tok", "/", {}, 3, timeout=2)
    assert result.statuses == {}
    assert len(result.errors) == 3
    assert all("ConnectionRefusedError" in error for error in result.errors)


def test_the_status_line_is_read_or_refused() -> None:
    assert _status_of(b"HTTP/1.1 202 Accepted\r\nX: y\r\n\r\n{}") == 202
    assert _status_of(b"HTTP/1.0 503 Service Unavailable\r\n\r\n") == 503
    assert _status_of(b"") is None
    assert _status_of(b"garbage\r\n") is None
    assert _status_of(b"HTTP/1.1 abc\r\n") is None
