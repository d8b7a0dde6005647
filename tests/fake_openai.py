"""A local OpenAI-compatible server for tests, so the real ``openai`` client code path runs.

It serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free port) from a script of queued
responses — tool calls, text, delays, HTTP errors — and records every request body. Use it
as a context manager and point the settings at it::

    with FakeOpenAI() as server:
        server.apply_to(settings)  # pytest-django's ``settings`` fixture
        server.reply_text("hello")
        ...
        assert "tools" not in server.requests[0]

A request with ``"stream": true`` gets the same scripted answer as server-sent chunks (text
first, then tool calls, then ``[DONE]``), like the real API. :meth:`FakeOpenAI.stream_text`
scripts a reply sent a piece at a time, ``interval`` seconds apart, optionally holding after
some pieces until the test calls :meth:`FakeOpenAI.release`; ``progress`` tells how far the
stream got and whether the client hung up.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
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
    # A streamed answer's text pieces (None: the whole text is one piece), sent
    # ``interval`` seconds apart; after ``hold_after`` pieces the fake waits for release().
    pieces: list[str] | None = None
    interval: float = 0.0
    hold_after: int | None = None


@dataclass
class StreamProgress:
    """How far the last streamed answer got."""

    total: int = 0  # pieces it has to send
    sent: int = 0  # pieces written so far
    held: threading.Event = field(default_factory=threading.Event)  # waiting for release()
    finished: threading.Event = field(default_factory=threading.Event)  # [DONE] written
    hung_up: threading.Event = field(default_factory=threading.Event)  # a write failed


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
        if body.get("stream") and scripted.status == 200:
            self._stream(scripted)
        else:
            self._send(scripted.status, scripted.body)

    def _stream(self, scripted: Scripted) -> None:
        """Send a scripted answer as chat.completion.chunk events, then ``[DONE]``."""
        fake = self.server.fake
        events = _chunks(scripted)
        progress = fake.progress = StreamProgress(total=len(events))
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for number, event in enumerate(events, start=1):
                self.wfile.write(f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode())
                self.wfile.flush()
                progress.sent = number
                if number == scripted.hold_after:
                    progress.held.set()
                    fake.released.wait(10)
                if scripted.interval and fake.stopping.wait(scripted.interval):
                    return
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            progress.finished.set()
        except OSError:
            progress.hung_up.set()  # the client closed the stream

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


def _chunks(scripted: Scripted) -> list[dict[str, Any]]:
    """The chunks of a scripted answer: its text pieces, its tool calls, its finish."""
    body = scripted.body
    choices = body.get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices else None
    if not isinstance(message, dict):
        return [body]  # a raw body with no message: sent as it is, once
    base = {key: body[key] for key in ("id", "created", "model") if key in body}
    base["object"] = "chat.completion.chunk"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    content = message.get("content") or ""
    pieces = scripted.pieces if scripted.pieces is not None else ([content] if content else [])
    out = [chunk({"role": "assistant", "content": ""})]
    out.extend(chunk({"content": piece}) for piece in pieces)
    for index, call in enumerate(message.get("tool_calls") or []):
        out.append(chunk({"tool_calls": [{"index": index, **call}]}))
    out.append(chunk({}, choices[0].get("finish_reason") or "stop"))
    return out


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
        self.progress = StreamProgress()
        self.released = threading.Event()
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
        self.released.set()
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

    def stream_text(
        self, pieces: list[str], *, interval: float = 0.05, hold_after: int | None = None
    ) -> None:
        """Queue a text answer that a streaming request gets piece by piece.

        ``hold_after``: after that many chunks (the first chunk carries only the role, so
        piece ``n`` is chunk ``n + 1``) the stream waits until :meth:`release`.
        """
        message = {"role": "assistant", "content": "".join(pieces)}
        self._queue(
            Scripted(
                200,
                self._completion(message, "stop"),
                pieces=list(pieces),
                interval=interval,
                hold_after=hold_after,
            )
        )

    def release(self) -> None:
        """Let a held stream go on."""
        self.released.set()

    def reply_raw(self, status: int, body: dict[str, Any], *, delay: float = 0.0) -> None:
        """Queue any JSON body as it is (e.g. a completion with no choices)."""
        self._queue(Scripted(status, body, delay))
