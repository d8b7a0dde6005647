"""The measurements over keep-alive HTTP: the four interleaved paths (direct create, card
issue, confirm, repeat confirm), list latency at two sizes, and one card confirmed by many
concurrent connections; each summarized as percentiles plus the server's own counters."""

from __future__ import annotations

import os
import random
import statistics
import uuid
from typing import Any

from bench.client import Burst, Client, Reply, burst
from bench.config import HOST

# The first is the baseline the others are reported against: an authenticated no-op.
PATHS = ("me", "direct create", "card issue", "confirm", "repeat confirm")


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (``fraction`` in 0..1)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[rank]


def summarize(replies: list[Reply]) -> dict[str, Any]:
    times = [reply.ms for reply in replies]
    summary: dict[str, Any] = {
        "n": len(times),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(percentile(times, 0.95), 2),
        "p99_ms": round(percentile(times, 0.99), 2),
    }
    for counter in ("sql", "sql_writes", "redis"):
        values = [getattr(reply, counter) for reply in replies]
        if values and all(value is not None for value in values):
            summary[f"{counter}_per_request"] = {
                "min": min(values),
                "median": statistics.median(values),
                "max": max(values),
            }
    return summary


class Expect(Exception):
    """A path answered something other than what it must answer: the bench stops."""


def _expect(reply: Reply, status: int, what: str) -> Reply:
    if reply.status != status:
        raise Expect(f"{what}: expected {status}, got {reply.status}: {reply.body!r}")
    return reply


class Paths:
    """The interleaved paths for one user, one keep-alive connection."""

    def __init__(self, client: Client, session_id: str, rng: random.Random) -> None:
        self.client = client
        self.session_id = session_id
        self.rng = rng
        self.ready: list[str] = []
        self.settled: list[str] = []
        self.counter = 0

    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def me(self) -> Reply:
        return _expect(self.client.call("GET", "/api/v1/me/"), 200, "me")

    def direct_create(self) -> Reply:
        reply = self.client.call("POST", "/api/v1/todos/", {"title": f"直接创建 {self._next()}"})
        return _expect(reply, 201, "direct create")

    def card_issue(self) -> Reply:
        text = f"帮我创建一条明天下午三点开会{self._next()}的待办"
        reply = _expect(
            self.client.call(
                "POST", f"/api/v1/agent/sessions/{self.session_id}/messages/", {"text": text}
            ),
            200,
            "card issue",
        )
        cards = reply.body.get("cards") or []
        if len(cards) != 1:
            raise Expect(f"card issue: expected one card, got {reply.body!r}")
        self.ready.append(cards[0]["token"])
        return reply

    def confirm(self) -> Reply:
        if not self.ready:
            self.card_issue()
        token = self.ready.pop(0)
        reply = self._confirm(token, "confirm", "ok:true")
        self.settled.append(token)
        return reply

    def repeat_confirm(self) -> Reply:
        if not self.settled:
            self.confirm()
        return self._confirm(self.rng.choice(self.settled), "repeat confirm", "the stored ok:true")

    def _confirm(self, token: str, what: str, expected: str) -> Reply:
        """Confirm ``token``; the answer must be 200 with a succeeded outcome."""
        reply = _expect(
            self.client.call(
                "POST",
                "/api/v1/agent/confirmations/confirm/",
                {"token": token, "session_id": self.session_id},
            ),
            200,
            what,
        )
        if reply.body["outcome"]["ok"] is not True:
            raise Expect(f"{what}: expected {expected}, got {reply.body!r}")
        return reply

    def run(self, rounds: int, names: tuple[str, ...] = PATHS) -> dict[str, list[Reply]]:
        """Run ``rounds`` rounds; each runs every path once, in a freshly shuffled order."""
        calls = {
            "me": self.me,
            "direct create": self.direct_create,
            "card issue": self.card_issue,
            "confirm": self.confirm,
            "repeat confirm": self.repeat_confirm,
        }
        samples: dict[str, list[Reply]] = {name: [] for name in names}
        for _ in range(rounds):
            order = list(names)
            self.rng.shuffle(order)
            for name in order:
                samples[name].append(calls[name]())
        return samples


def open_session(client: Client) -> str:
    reply = _expect(client.call("POST", "/api/v1/agent/sessions/", {}), 201, "session")
    return str(reply.body["id"])


def ratio_interval(
    times: list[float], base: list[float], rng: random.Random, *, draws: int = 1000
) -> tuple[float, float]:
    """The 95 % interval of ``median(times) / median(base)``: a paired bootstrap.

    ``times[i]`` and ``base[i]`` were timed in the same round, so a draw resamples whole
    rounds (both values of each): the machine's drift, which the interleaving lets hit
    both alike, stays paired. Percentile interval over ``draws`` resamples, with ``rng``
    (the bench's seeded one: the same samples give the same interval).
    """
    if len(times) != len(base) or not times:
        raise ValueError("ratio_interval takes one value of each per round")
    every = range(len(times))
    ratios = []
    for _ in range(draws):
        picked = rng.choices(every, k=len(times))
        denominator = statistics.median(base[i] for i in picked)
        ratios.append(statistics.median(times[i] for i in picked) / denominator)
    ratios.sort()
    low, high = ratios[int(0.025 * draws)], ratios[min(draws - 1, int(0.975 * draws))]
    return round(low, 3), round(high, 3)


def measure_paths(port: int, token: str, rounds: int, rng: random.Random) -> dict[str, Any]:
    """Time the paths, ``rounds`` interleaved rounds after a warm-up; each path's summary,
    and for each but the baseline (``GET /api/v1/me/``) the 95 % interval of its p50's ratio
    to the baseline's (``ratio_95``, :func:`ratio_interval`): the sampling noise of that
    ratio. Reported, never a target."""
    client = Client(HOST, port, token)
    paths = Paths(client, open_session(client), rng)
    paths.run(max(10, rounds // 10))  # warm every worker thread's connections and caches
    samples = paths.run(rounds)
    client.close()
    summaries = {name: summarize(replies) for name, replies in samples.items()}
    base = [reply.ms for reply in samples[PATHS[0]]]
    resampling = random.Random(rng.getrandbits(64))  # its own stream: the rest draws as before
    for name in PATHS[1:]:
        times = [reply.ms for reply in samples[name]]
        summaries[name]["ratio_95"] = list(ratio_interval(times, base, resampling))
    return summaries


def measure_lists(
    port: int, tokens: dict[int, str], rounds: int, rng: random.Random
) -> dict[str, Any]:
    """GET the first page of todos and of notes for users with different row counts."""
    clients = {rows: Client(HOST, port, token) for rows, token in tokens.items()}
    calls = [
        (rows, kind, path)
        for rows in tokens
        for kind, path in (("todos", "/api/v1/todos/"), ("notes", "/api/v1/notes/"))
    ]
    samples: dict[tuple[int, str], list[Reply]] = {(rows, kind): [] for rows, kind, _ in calls}
    for warm in range(10 + rounds):
        rng.shuffle(calls)
        for rows, kind, path in calls:
            reply = _expect(clients[rows].call("GET", path), 200, f"list {kind} at {rows}")
            if warm >= 10:
                samples[(rows, kind)].append(reply)
    result: dict[str, Any] = {}
    for (rows, kind), replies in samples.items():
        summary = summarize(replies)
        first = replies[0].body
        summary["count"] = first.get("count")
        summary["count_capped"] = first.get("count_capped")
        result[f"{kind} @ {rows} rows"] = summary
    for client in clients.values():
        client.close()
    return result


def measure_burst(port: int, token: str, concurrent: int, *, warm_up: int = 0) -> dict[str, Any]:
    """Confirm one card from ``concurrent`` connections at once; count its executions.

    ``warm_up``: first the same on another card from that many connections, untimed, so a
    server started for the burst has its connections and caches as a running one has.
    """
    from agent.models import ActionReceipt
    from todos.models import Todo

    if warm_up:
        measure_burst(port, token, warm_up)
    client = Client(HOST, port, token)
    session_id = open_session(client)
    title = f"并发确认{os.getpid()}-{uuid.uuid4().hex[:8]}"
    issued = _expect(
        client.call(
            "POST",
            f"/api/v1/agent/sessions/{session_id}/messages/",
            {"text": f"帮我创建一条明天下午三点{title}的待办"},
        ),
        200,
        "burst card",
    )
    card = issued.body["cards"][0]
    client.close()
    result: Burst = burst(
        HOST,
        port,
        token,
        "/api/v1/agent/confirmations/confirm/",
        {"token": card["token"], "session_id": session_id},
        concurrent,
    )
    executions = Todo.objects.filter(title__contains=title).count()
    receipts = (
        ActionReceipt.objects.filter(action_id=card["card_id"]).count()
        if card.get("card_id")
        else None
    )
    return {
        "concurrent": concurrent,
        "executions": executions,
        "receipts": receipts,
        "statuses": {str(code): count for code, count in sorted(result.statuses.items())},
        "connect_ms": round(result.open_ms, 1),
        "all_answered_ms": round(result.answered_ms, 1),
        "errors": result.errors[:5],
        "error_count": len(result.errors),
    }
