"""A streamed turn: the model's reply a guarded sentence at a time, then the turn's answer.

docs/api.md, "Streaming a turn". The turn itself is the JSON path's
(:func:`agent.conversation.turn.handle_message`); streaming adds two things around it:

- :class:`GuardedSentences` listens to the planner (``PlanRequest.listener``), cuts the
  model's text into whole sentences and lets one out only when the truthfulness guard,
  judging the reply so far with the backings the turn's own guard uses, removes nothing
  more than it did before that sentence. A sentence the guard removes is never sent. A
  sentence waits until the next one begins (or the round ends with text only), so a
  round's last sentence before a tool call — a card turn's prose — is never sent.
- :class:`TurnStream` runs the turn on a thread of its own and hands its events to the
  response as they come: the turn holds the database and the model call, the request's
  thread writes to the client. Closing the stream (the client went away) cancels the
  turn at the model's next piece; nothing of a cancelled turn is written.

Each entry point answers the stream's end in its own shape (the API: ``card``, ``choice``,
``notice``, ``fact`` and ``done`` events; the chat page: the turn's HTML).
"""

from __future__ import annotations

import contextvars
import functools
import json
import logging
import queue
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from django.db import connections
from django.http import StreamingHttpResponse

from agent.guard import guard_reply
from agent.guard.records import session_backings
from agent.planners.base import TurnCancelled
from lightnote.errors import LightNoteError, is_database_lost

logger = logging.getLogger(__name__)

# Where a sentence ends: a Chinese or an exclamation/question mark, an ellipsis, a full
# stop before a space, or a line's end; with the closing quotes and brackets after it.
SENTENCE_END = re.compile(r"(?:[。！？!?；]+|…+|\.(?=\s)|\n)[”’」』）)\]\"']*")
# An idle stream sends a comment this often, so a client that left is noticed (a write
# fails) while the model is still thinking.
KEEPALIVE_SECONDS = 2.0


class GuardedSentences:
    """Let a model's reply out a whole sentence at a time, each one judged by the guard.

    The guard judges the reply so far (every sentence heard, sent or not, as the turn's
    own guard will see the whole reply); the new sentence goes out only when the guard
    removes nothing that it did not already remove without it.
    """

    def __init__(
        self,
        *,
        deliver: Callable[[str], None],
        session_id: Any,
        locale: str,
        titles: Callable[[], tuple[str, ...]],
    ) -> None:
        self._deliver = deliver
        self._locale = locale
        self._titles = titles
        # No write runs during a turn: the session's receipts are read once, when needed.
        self._backings = functools.cache(lambda: session_backings(session_id))
        self._heard = ""  # whole sentences of this round's reply
        self._pending = ""  # text after the last whole sentence
        self._removed: Counter[str] = Counter()

    def reply_text(self, piece: str) -> None:
        self._deliver("")  # nothing to send yet; a cancelled stream stops here
        self._pending += piece
        while (cut := self._sentence_cut()) is not None:
            sentence, self._pending = self._pending[:cut], self._pending[cut:]
            self._judge(sentence)

    def _sentence_cut(self) -> int | None:
        """Where the first whole sentence ends, once the next one has begun.

        Waiting for the next sentence keeps the last one back until the round shows what
        follows it: a tool call (a card turn, whose prose is never shown) resets instead.
        """
        for end in SENTENCE_END.finditer(self._pending):
            rest = self._pending[end.end() :]
            if rest.strip():
                return len(self._pending) - len(rest.lstrip())
        return None

    def reply_reset(self) -> None:
        self._deliver("")  # nothing to send; a cancelled stream stops here
        self._heard, self._pending, self._removed = "", "", Counter()

    def reply_end(self) -> None:
        rest, self._pending = self._pending, ""
        if rest.strip():
            self._judge(rest)

    def _judge(self, sentence: str) -> None:
        self._heard += sentence
        verdict = guard_reply(
            self._heard, backings=self._backings, locale=self._locale, titles=self._titles()
        )
        removed = Counter(verdict.removed)
        fresh = removed - self._removed
        self._removed = removed
        if fresh:
            logger.info("a streamed sentence was withheld by the guard")
            self._deliver("")
        elif sentence.strip():
            self._deliver(sentence)


class TurnStream:
    """Run a turn on its own thread; hand its events to the response as they come.

    ``turn(deliver)`` is the JSON path's turn, told to call ``deliver(text)`` with each
    guarded sentence; it returns the answer's body. The events are ``("delta", text)``,
    then ``("result", body)``, or ``("error", exception)`` when the turn failed.
    """

    def __init__(self, turn: Callable[[Callable[[str], None]], dict[str, Any]]) -> None:
        self._turn = turn
        self._events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._cancelled = threading.Event()

    def start(self) -> tuple[str, Any]:
        """Start the turn and return its first event; a turn that fails first raises.

        So a turn that fails before anything was sent (a 429, a store outage) answers with
        the JSON error and status the JSON path has.
        """
        # The request's context (its language, request id, trace) goes with the turn.
        context = contextvars.copy_context()
        threading.Thread(
            target=context.run, args=(self._run,), name="turn-stream", daemon=True
        ).start()
        kind, value = self._events.get()
        if kind == "error":
            raise value
        return kind, value

    def events(self, first: tuple[str, Any]) -> Iterator[tuple[str, Any]]:
        """Yield the turn's events from ``first`` on (``("keepalive", None)`` while idle).

        Closing this generator (the server does when the client is gone) cancels the turn.
        """
        try:
            event = first
            while True:
                yield event
                if event[0] in {"result", "error"}:
                    return
                try:
                    event = self._events.get(timeout=KEEPALIVE_SECONDS)
                except queue.Empty:
                    event = ("keepalive", None)
        finally:
            self._cancelled.set()

    def _deliver(self, text: str) -> None:
        if self._cancelled.is_set():
            raise TurnCancelled
        if text:
            self._events.put(("delta", text))

    def _run(self) -> None:
        try:
            self._events.put(("result", self._turn(self._deliver)))
        except TurnCancelled:
            logger.info("a streamed turn was cancelled: the client went away")
        except BaseException as error:  # whatever it is, the response must hear of it
            self._events.put(("error", error))
        finally:
            connections.close_all()  # this thread's own connections


def known_failure(error: BaseException) -> LightNoteError:
    """The error the JSON path would have answered for a turn that failed mid-stream."""
    if isinstance(error, LightNoteError):
        return error
    if is_database_lost(error):
        return LightNoteError("DATABASE_UNAVAILABLE", status=503)
    logger.error("a streamed turn failed", exc_info=error)
    return LightNoteError("INTERNAL_ERROR", status=500)


def message_events(stream: TurnStream, first: tuple[str, Any], locale: str) -> Iterator[bytes]:
    """The API's events (docs/api.md): ``delta``s, then the answer's parts and ``done``."""
    for kind, value in stream.events(first):
        if kind == "delta":
            yield sse("delta", {"text": value})
        elif kind == "keepalive":
            yield KEEPALIVE
        elif kind == "result":
            for name, part in (("card", "cards"), ("choice", "choices"), ("notice", "notices")):
                for item in value.get(part, []):
                    yield sse(name, item)
            for fact in value.get("facts", []):
                yield sse("fact", fact)
            yield sse("done", value)
        else:
            body = known_failure(value).body(locale)
            yield sse("error", body)
            yield sse("done", body)


def sse(event: str, data: Any) -> bytes:
    """One server-sent event."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


KEEPALIVE = b": keepalive\n\n"


def event_stream(chunks: Iterator[bytes]) -> StreamingHttpResponse:
    """The streaming response: never cached, never buffered by a proxy."""
    response = StreamingHttpResponse(chunks, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-store"
    response["X-Accel-Buffering"] = "no"  # nginx passes each event on at once
    return response


def wants_stream(request: Any) -> bool:
    """Return True when the client asked for the turn as events."""
    accept = request.headers.get("Accept", "")
    return "text/event-stream" in accept
