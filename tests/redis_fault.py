"""A throwaway redis-server a test starts on a free port, then stops, hangs or resumes.

    with own_redis() as server:
        with server.as_store():   # the cache "default" points at it
            ...
            server.hang()         # SIGSTOP: connections open, no reply (a stalled server)
            server.resume()       # SIGCONT
            server.stop()         # the process ends: connections are refused

Everything is stopped on exit, also when the block fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.test import override_settings

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass
class OwnRedis:
    port: int
    process: subprocess.Popen[bytes]
    hung: bool = field(default=False)

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def hang(self) -> None:
        os.kill(self.process.pid, signal.SIGSTOP)
        self.hung = True

    def resume(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)
        self.hung = False

    def stop(self) -> None:
        if self.hung:
            self.resume()
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)

    @contextmanager
    def as_store(self, timeout_ms: int = 300) -> Iterator[None]:
        """Point the cache ``default`` (the control store) at this server for the block."""
        from django_redis.pool import ConnectionFactory

        seconds = timeout_ms / 1000
        caches = {name: dict(config) for name, config in settings.CACHES.items()}
        options = {
            **caches["default"].get("OPTIONS", {}),
            "SOCKET_CONNECT_TIMEOUT": seconds,
            "SOCKET_TIMEOUT": seconds,
        }
        caches["default"] = {**caches["default"], "LOCATION": self.url, "OPTIONS": options}
        with override_settings(CACHES=caches):
            try:
                yield
            finally:
                # django-redis keeps pools per URL for the process: drop this server's.
                ConnectionFactory._pools.pop(self.url, None)  # type: ignore[attr-defined]


@contextmanager
def own_redis() -> Iterator[OwnRedis]:
    """Run a redis-server without persistence on a free port for the block."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    workdir = tempfile.mkdtemp(prefix="ln-redis-fault-")
    port = _free_port()
    process = subprocess.Popen(
        [binary, "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no"],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = OwnRedis(port=port, process=process)
    try:
        deadline = time.monotonic() + 10
        while True:
            with socket.socket() as probe:
                if probe.connect_ex((HOST, port)) == 0:
                    break
            if time.monotonic() > deadline or process.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
