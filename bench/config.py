"""The bench's settings: the sizes, the ``LIGHTNOTE_BENCH_*`` knobs, where results go, and
``Refused`` (the bench will not run here)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
HOST = "127.0.0.1"

SIZES: dict[str, dict[str, Any]] = {
    "full": {
        "n": 500,
        "list_rows": (1_000, 100_000),
        "concurrent": 1000,
        "compare_n": 150,
        "stream_n": 20,
    },
    "smoke": {
        "n": 30,
        "list_rows": (1_000, 5_000),
        "concurrent": 100,
        "compare_n": 20,
        "stream_n": 3,
    },
}


class Refused(Exception):
    """The bench will not run here (a resource it would use is not its own)."""


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw else default


def bench_config() -> dict[str, Any]:
    size = os.environ.get("LIGHTNOTE_BENCH_SIZE", "full")
    if size not in SIZES:
        raise Refused(f"LIGHTNOTE_BENCH_SIZE must be one of {sorted(SIZES)}, got {size!r}")
    config = dict(SIZES[size])
    config["size"] = size
    config["n"] = _env_int("LIGHTNOTE_BENCH_N", config["n"])
    rows = os.environ.get("LIGHTNOTE_BENCH_LIST_ROWS", "").strip()
    if rows:
        small, large = (int(part) for part in rows.split(","))
        config["list_rows"] = (small, large)
    config["concurrent"] = _env_int("LIGHTNOTE_BENCH_CONCURRENT", config["concurrent"])
    config["stream_n"] = _env_int("LIGHTNOTE_BENCH_STREAM_N", config["stream_n"])
    config["compare"] = os.environ.get("LIGHTNOTE_BENCH_COMPARE", "1") != "0"
    config["mysql"] = os.environ.get("LIGHTNOTE_BENCH_MYSQL", "mysql://root@127.0.0.1:3306")
    config["redis_db"] = _env_int("LIGHTNOTE_BENCH_REDIS_DB", 12)
    config["redis_host"] = os.environ.get("LIGHTNOTE_BENCH_REDIS_HOST", "127.0.0.1")
    config["workers"] = _env_int("LIGHTNOTE_WORKERS", 2)
    config["threads"] = _env_int("LIGHTNOTE_THREADS", 4)
    config["worker_connections"] = _env_int("LIGHTNOTE_WORKER_CONNECTIONS", 100)
    config["seed"] = _env_int("LIGHTNOTE_BENCH_SEED", 20261203)
    return config
