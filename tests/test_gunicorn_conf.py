"""``gunicorn.conf.py``: the production worker model's settings and their checks."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

CONF = Path(__file__).resolve().parent.parent / "gunicorn.conf.py"
KNOBS = (
    "LIGHTNOTE_BIND",
    "LIGHTNOTE_WORKER_CLASS",
    "LIGHTNOTE_WORKERS",
    "LIGHTNOTE_THREADS",
    "LIGHTNOTE_KEEPALIVE",
    "LIGHTNOTE_WORKER_TIMEOUT",
    "LIGHTNOTE_WORKER_CONNECTIONS",
    "LIGHTNOTE_BACKLOG",
    "LIGHTNOTE_ACCESS_LOG",
)


def _load(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    for name in KNOBS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


def test_the_defaults_are_stock_gthread_with_keep_alive_and_a_small_connection_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    conf = _load(monkeypatch)
    assert conf["worker_class"] == "gthread"  # gunicorn's own worker and thread pool
    assert conf["threads"] == 4
    assert conf["keepalive"] == 5
    # A worker takes at most 100 connections: 4 in service, 96 kept alive idle; the rest
    # wait in the backlog for whichever worker frees a slot first.
    assert conf["worker_connections"] == 100
    assert conf["backlog"] == 2048
    assert conf["worker_connections"] - conf["threads"] > 0


def test_each_knob_is_read_and_a_sync_server_needs_no_keep_alive_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under ``sync`` a cap at the thread count is fine: nothing is kept alive there.
    conf = _load(
        monkeypatch,
        LIGHTNOTE_WORKERS="3",
        LIGHTNOTE_THREADS="2",
        LIGHTNOTE_WORKER_CONNECTIONS="2",
        LIGHTNOTE_BACKLOG="512",
        LIGHTNOTE_WORKER_CLASS="sync",
    )
    assert (conf["workers"], conf["threads"], conf["worker_connections"], conf["backlog"]) == (
        3,
        2,
        2,
        512,
    )
    assert conf["worker_class"] == "sync"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"LIGHTNOTE_THREADS": "four"}, "LIGHTNOTE_THREADS must be an integer, got 'four'"),
        ({"LIGHTNOTE_WORKER_CONNECTIONS": "0"}, "must be at least 1, got 0"),
        (
            {"LIGHTNOTE_WORKER_CONNECTIONS": "4", "LIGHTNOTE_THREADS": "4"},
            "LIGHTNOTE_WORKER_CONNECTIONS (4) must exceed LIGHTNOTE_THREADS (4)",
        ),
        (
            {
                "LIGHTNOTE_WORKER_CONNECTIONS": "2",
                "LIGHTNOTE_THREADS": "4",
                "LIGHTNOTE_WORKER_CLASS": "gthread",
            },
            "LIGHTNOTE_WORKER_CONNECTIONS (2) must exceed LIGHTNOTE_THREADS (4)",
        ),
        (
            {"LIGHTNOTE_WORKER_CLASS": "lightnote.serving.ThreadWorker"},
            "LIGHTNOTE_WORKER_CLASS must be one of ('gthread', 'sync')",
        ),
    ],
)
def test_a_setting_it_cannot_use_stops_it_with_a_reason(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        _load(monkeypatch, **env)
    assert message in str(stopped.value)
