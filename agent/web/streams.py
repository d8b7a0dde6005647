"""The chat page's streamed turn: the model's guarded sentences, then the turn's fragment.

The page's script posts the message form with ``Accept: text/event-stream``. The turn is
the JSON path's (:class:`agent.conversation.streaming.TurnStream`); the page gets ``delta``
events (``{"text"}``, each sentence judged by the guard) and one ``done`` event carrying
``{"html"}``, the fragment an htmx post answers with, or ``{"problem"}``, the notice of a
turn that failed after its first sentence. A turn with nothing to stream (a card turn, the
rules planner) or that fails first answers as an htmx post does: one fragment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponseBase

from agent.conversation.streaming import KEEPALIVE, TurnStream, event_stream, known_failure, sse
from agent.web.htmx import Fragment, problem, respond
from lightnote.impersonation.context import ActorContext

Turn = Callable[[Callable[[str], None] | None], dict[str, Any]]


def page_stream(
    request: HttpRequest,
    turn: Turn,
    shown: Callable[[dict[str, Any]], Fragment],
    *,
    actor: ActorContext,
    locale: str,
) -> Fragment | HttpResponseBase:
    """Run ``turn`` streamed; ``shown`` makes the page's fragment of its answer."""
    stream = TurnStream(turn)
    first = stream.start()  # a turn that fails first raises: the page's usual notice
    if first[0] == "result":
        return shown(first[1])

    def html(fragment: Fragment) -> str:
        return respond(request, fragment, actor=actor, locale=locale).content.decode()

    def events() -> Iterator[bytes]:
        for kind, value in stream.events(first):
            if kind == "delta":
                yield sse("delta", {"text": value})
            elif kind == "keepalive":
                yield KEEPALIVE
            elif kind == "result":
                yield sse("done", {"html": html(shown(value))})
            else:
                failure = problem(known_failure(value), locale=locale)
                yield sse("done", {"problem": html(failure)})

    return event_stream(events())
