"""Time to first visible text of a model turn, streamed and not (docs/api.md, streaming).

A scripted model (``tests.fake_openai.FakeOpenAI``, in this process) writes a reply of
several sentences a word at a time, ``PIECE_SECONDS`` apart. The bench's gunicorn runs with
``LIGHTNOTE_PLANNER=openai`` pointed at it; the same turn is sent ``n`` times each way,
interleaved:

- streaming off (the JSON answer): the first text is visible when the whole answer is in;
- streaming on (``Accept: text/event-stream``): when the first ``delta`` event is in.

Both also report the time to the whole answer (the ``done`` event, or the JSON body).
"""

from __future__ import annotations

import http.client
import json
import re
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bench.config import HOST, ROOT
from bench.measure import percentile

PIECE_SECONDS = 0.05
REPLY = [
    "You have three open todos today. ",
    "The first one, the weekly report, is due tonight at nine. ",
    "The other two have no due time yet. ",
    "Would you like me to set one for them?",
]
PIECES = [word for sentence in REPLY for word in re.findall(r"\S+\s*", sentence)]


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50_ms": round(statistics.median(values), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "max_ms": round(max(values), 1),
    }


@contextmanager
def scripted_model(turns: int) -> Iterator[dict[str, str]]:
    """Serve ``turns`` scripted streamed replies; yield the server's model settings."""
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(model="bench-scripted") as model:
        for _ in range(turns):
            model.stream_text(PIECES, interval=PIECE_SECONDS)
        yield {
            "LIGHTNOTE_PLANNER": "openai",
            "OPENAI_API_KEY": "sk-bench-scripted",
            "OPENAI_BASE_URL": model.base_url,
            "LIGHTNOTE_LLM_MODEL": model.model,
            "LIGHTNOTE_LLM_TIMEOUT": "10",
        }


def _turn(port: int, token: str, session_id: str, *, stream: bool) -> dict[str, float]:
    """Send one message; return the milliseconds to its first text and to its end."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    headers = {
        "Authorization": f"Token {token}",
        "Content-Type": "application/json",
        "Accept": "text/event-stream" if stream else "application/json",
    }
    body = json.dumps({"text": "What is open today?"}).encode()
    start = time.perf_counter()
    connection.request(
        "POST", f"/api/v1/agent/sessions/{session_id}/messages/", body=body, headers=headers
    )
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"a scripted turn answered {response.status}: {response.read()!r}")
    first = None
    received = b""
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        received += piece
        if first is None and (not stream or b"event: delta" in received):
            first = time.perf_counter()
    end = time.perf_counter()
    connection.close()
    if stream and b"event: done" not in received:
        raise RuntimeError("a streamed turn ended without its done event")
    return {"first_ms": ((first or end) - start) * 1000, "end_ms": (end - start) * 1000}


def measure_first_text(port: int, token: str, n: int) -> dict[str, Any]:
    """Send the scripted turn ``n`` times each way, interleaved; summarise both."""
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    connection.request(
        "POST",
        "/api/v1/agent/sessions/",
        body=b"{}",
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    session_id = json.loads(connection.getresponse().read())["id"]
    connection.close()
    timings: dict[str, list[dict[str, float]]] = {"streaming_off": [], "streaming_on": []}
    for _ in range(n):
        timings["streaming_off"].append(_turn(port, token, session_id, stream=False))
        timings["streaming_on"].append(_turn(port, token, session_id, stream=True))
    return {
        "model": f"scripted: {len(PIECES)} pieces in {len(REPLY)} sentences, "
        f"{PIECE_SECONDS * 1000:.0f} ms apart",
        **{
            mode: {
                "first_text": summary([row["first_ms"] for row in rows]),
                "whole_answer": summary([row["end_ms"] for row in rows]),
            }
            for mode, rows in timings.items()
        },
    }
