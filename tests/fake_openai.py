"""A local OpenAI-compatible server for tests, so the real ``openai`` client code path runs.

It serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port) from a script of queued
responses — tool calls, text, delays, HTTP errors — and records every request body. Use it
as a context manager and point the settings at it::

    with FakeOpenAI() as server:
        server.apply_to(settings)  # pytest-django's ``settings`` fixture
        server.reply_text("hello")
        ...
        assert "tools" not in server.requests[0]
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHAT_PATH = "/v1/chat/completions"


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str = "") -> dict[str, Any]:
    """Return one scripted tool call; a str ``arguments`` is sent raw (e.g. malformed JSON)."""
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "name": name, "arguments": raw}


@dataclass
class Scripted:
    """One queued answer: an HTTP status and body, sent after ``delay`` seconds."""

    status: int
    body: dict[str, Any]
    delay: float = 0.0


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return  # keep the test output clean

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") != CHAT_PATH:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
            return
        scripted = fake.record(body)
        if scripted.delay and fake.stopping.wait(scripted.delay):
            return  # the server is shutting down: drop the answer
        self._send(scripted.status, scripted.body)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        payload = json.dumps(body, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            if status >= 400:
                # The client honours this, so its one retry does not slow the suite down.
                self.send_header("retry-after-ms", "10")
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (its timeout): nobody is listening any more


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeOpenAI


class FakeOpenAI:
    """The scripted server; ``requests`` holds every request body received, in order."""

    def __init__(self, model: str = "fake-model") -> None:
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._script: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._counter = 0
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        # A short poll interval keeps shutdown (each test's teardown) fast.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def apply_to(self, settings: Any, *, timeout: float = 5) -> None:
        """Point the OpenAI settings at this server (pytest-django's ``settings`` fixture)."""
        settings.OPENAI_API_KEY = "sk-test-fake-key"
        settings.OPENAI_BASE_URL = self.base_url
        settings.LIGHTNOTE_LLM_MODEL = self.model
        settings.LIGHTNOTE_LLM_TIMEOUT = timeout

    # --- the script ---------------------------------------------------------------------

    def record(self, body: dict[str, Any]) -> Scripted:
        """Record a request and return the next scripted answer (500 when none is left)."""
        with self._lock:
            self.requests.append(body)
            if self._script:
                return self._script.popleft()
        return Scripted(500, {"error": {"message": "fake server: script exhausted"}})

    def pending(self) -> int:
        """Return how many scripted answers have not been sent yet."""
        with self._lock:
            return len(self._script)

    def _completion(self, message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
        with self._lock:
            self._counter += 1
            number = self._counter
        return {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion",
            "created": 1_790_000_000 + number,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _queue(self, scripted: Scripted) -> None:
        with self._lock:
            self._script.append(scripted)

    def reply_text(self, text: str, *, delay: float = 0.0) -> None:
        """Queue an answer with text and no tool call."""
        message = {"role": "assistant", "content": text}
        self._queue(Scripted(200, self._completion(message, "stop"), delay))

    def reply_tool_calls(
        self, *calls: dict[str, Any], content: str | None = None, delay: float = 0.0
    ) -> None:
        """Queue an answer with tool calls (see :func:`tool_call`) and optional text."""
        numbered = [
            {
                "id": call["id"] or f"call_fake_{index}",
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for index, call in enumerate(calls, start=1)
        ]
        message = {"role": "assistant", "content": content, "tool_calls": numbered}
        self._queue(Scripted(200, self._completion(message, "tool_calls"), delay))

    def reply_error(self, status: int, message: str = "scripted failure") -> None:
        """Queue an HTTP error answer in the OpenAI error shape."""
        body = {"error": {"message": message, "type": "server_error", "code": None}}
        self._queue(Scripted(status, body))

    def reply_raw(self, status: int, body: dict[str, Any], *, delay: float = 0.0) -> None:
        """Queue any JSON body as it is (e.g. a completion with no choices)."""
        self._queue(Scripted(status, body, delay))
