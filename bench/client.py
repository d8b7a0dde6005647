"""HTTP clients of the bench: a keep-alive JSON client, and a burst of concurrent requests.

Plain standard library, so the client's own cost is small and known: ``http.client`` over
one persistent connection (it reconnects by itself when a ``sync`` server closes it), and
``asyncio`` streams for the burst (every connection opened first, then every request sent at
once).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """One answer: status, JSON body, elapsed milliseconds and the server's counters."""

    status: int
    body: Any
    ms: float
    sql: int | None = None
    sql_writes: int | None = None
    sql_round_trips: int | None = None
    redis: int | None = None
    headers: dict[str, str] = field(default_factory=dict)


def _int_header(headers: dict[str, str], name: str) -> int | None:
    value = headers.get(name.lower())
    return int(value) if value is not None else None


class Client:
    """A keep-alive JSON client for one user token."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=30)
        self.headers = {
            "Authorization": f"Token {token}",
            "Content-Type": "application/json",
            "Accept-Language": "zh-CN",
        }

    def call(self, method: str, path: str, body: Any = None) -> Reply:
        payload = None if body is None else json.dumps(body).encode()
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=payload, headers=self.headers)
            response = self.connection.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle keep-alive connection between two calls: once more.
            self.connection.close()
            start = time.perf_counter()
            self.connection.request(method, path, body=payload, headers=self.headers)
            response = self.connection.getresponse()
        raw = response.read()
        ms = (time.perf_counter() - start) * 1000
        headers = {key.lower(): value for key, value in response.getheaders()}
        body_json = json.loads(raw) if raw else None
        return Reply(
            status=response.status,
            body=body_json,
            ms=ms,
            sql=_int_header(headers, "X-LightNote-SQL"),
            sql_writes=_int_header(headers, "X-LightNote-SQL-Writes"),
            sql_round_trips=_int_header(headers, "X-LightNote-SQL-Round-Trips"),
            redis=_int_header(headers, "X-LightNote-Redis"),
            headers=headers,
        )

    def close(self) -> None:
        self.connection.close()


@dataclass
class Burst:
    """The result of ``concurrent`` identical requests."""

    statuses: dict[int, int]
    open_ms: float
    answered_ms: float
    slowest_ms: float
    errors: list[str]


async def _burst(
    host: str, port: int, token: str, path: str, body: Any, concurrent: int, timeout: float
) -> Burst:
    payload = json.dumps(body).encode()
    request = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Token {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + payload

    start_open = time.perf_counter()
    opened = await asyncio.gather(
        *(asyncio.open_connection(host, port) for _ in range(concurrent)), return_exceptions=True
    )
    open_ms = (time.perf_counter() - start_open) * 1000
    errors = [repr(item) for item in opened if isinstance(item, BaseException)]
    streams = [item for item in opened if not isinstance(item, BaseException)]

    start = time.perf_counter()
    for _, writer in streams:
        writer.write(request)

    async def answer(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[int, float]:
        await writer.drain()
        status_line = await reader.readline()
        raw = await reader.read()  # Connection: close -> until EOF
        del raw
        writer.close()
        return int(status_line.split()[1]), (time.perf_counter() - start) * 1000

    results = await asyncio.wait_for(
        asyncio.gather(*(answer(r, w) for r, w in streams), return_exceptions=True), timeout
    )
    answered_ms = (time.perf_counter() - start) * 1000
    statuses: dict[int, int] = {}
    slowest = 0.0
    for item in results:
        if isinstance(item, BaseException):
            errors.append(repr(item))
            continue
        code, ms = item
        statuses[code] = statuses.get(code, 0) + 1
        slowest = max(slowest, ms)
    return Burst(statuses, open_ms, answered_ms, slowest, errors)


def burst(
    host: str, port: int, token: str, path: str, body: Any, concurrent: int, timeout: float = 60
) -> Burst:
    """Open ``concurrent`` connections, then send the same POST on all of them at once."""
    return asyncio.run(_burst(host, port, token, path, body, concurrent, timeout))
