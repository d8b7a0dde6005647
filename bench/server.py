"""The server under test: its environment and a gunicorn started with ``gunicorn.conf.py``
(the production worker model) on a free port, stopped afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator

from bench.client import Client
from bench.config import HOST, ROOT


def server_environment(database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of the bench server (and of this process's Django, for seeding)."""
    return {
        "DJANGO_SETTINGS_MODULE": "lightnote.settings",
        "LIGHTNOTE_DATABASE_URL": database_url,
        "LIGHTNOTE_REDIS_URL": redis_url,
        "LIGHTNOTE_REDIS_CLUSTER": "0",
        "LIGHTNOTE_SECRET_KEY": "bench-only-secret-key-not-for-production-0123456789abcdef",
        "LIGHTNOTE_DEBUG": "0",
        "LIGHTNOTE_HTTPS": "0",
        "LIGHTNOTE_ALLOWED_HOSTS": HOST,
        "LIGHTNOTE_LOG_LEVEL": "WARNING",
        "LIGHTNOTE_PLANNER": "rules",
        # The limiter runs on every claim, as in production, but never refuses here.
        "LIGHTNOTE_RATE_LIMIT_CARDS": "1000000/m",
        "LIGHTNOTE_RATE_LIMIT_CONFIRMS": "1000000/m",
        "LIGHTNOTE_REQUEST_COUNTERS": "1",
        "LIGHTNOTE_ACCESS_LOG": "",
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def server(env: dict[str, str], settings: dict[str, str], token: str) -> Iterator[int]:
    """Run gunicorn with ``gunicorn.conf.py`` plus ``settings``; yield its port."""
    port = _free_port()
    full_env = {**os.environ, **env, **settings, "LIGHTNOTE_BIND": f"{HOST}:{port}"}
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "gunicorn"), "lightnote.wsgi:application"],
        cwd=ROOT,
        env=full_env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"gunicorn exited with {process.returncode}")
            try:
                probe = Client(HOST, port, token)
                if probe.call("GET", "/api/v1/me/").status == 200:
                    probe.close()
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not answer within 60 s")
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
