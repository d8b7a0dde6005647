"""gunicorn settings for ``make serve`` and ``make bench`` (docs/architecture.md, "Serving").

The worker model: gunicorn's own ``gthread`` — a few processes, each with a small pool of
threads, and HTTP keep-alive. A request here is mostly Python (one core at a time per
process) with short waits on MariaDB, Redis and, with a model configured, the LLM; threads
fill those waits, processes use the cores, and keep-alive spares mobile clients and the
proxy a TCP handshake per call. Each thread keeps its own persistent database connection
(``CONN_MAX_AGE``), so ``workers x threads`` connections are open per host. A streamed
reply holds its thread until it ends (docs/operations.md sizes it).
"""

from __future__ import annotations

import os

# Prometheus' multiprocess directory, made before the workers start; a dead worker's files
# are marked so its live gauges stop counting (lightnote/ops/gunicorn_hooks.py).
from lightnote.ops.gunicorn_hooks import child_exit, on_starting  # noqa: F401


def _int(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be an integer, got {raw!r}") from None
    if value < minimum:
        raise SystemExit(f"{name} must be at least {minimum}, got {value}")
    return value


bind = os.environ.get("LIGHTNOTE_BIND", "127.0.0.1:8000")
# Stock workers only: "gthread" (the default) or "sync" (one request per process at a time).
STOCK_WORKERS = ("gthread", "sync")
worker_class = os.environ.get("LIGHTNOTE_WORKER_CLASS", "gthread")
if worker_class not in STOCK_WORKERS:
    raise SystemExit(f"LIGHTNOTE_WORKER_CLASS must be one of {STOCK_WORKERS}, got {worker_class!r}")
workers = _int("LIGHTNOTE_WORKERS", os.cpu_count() or 2)
threads = _int("LIGHTNOTE_THREADS", 4)
keepalive = _int("LIGHTNOTE_KEEPALIVE", 5)
timeout = _int("LIGHTNOTE_WORKER_TIMEOUT", 60)
# Idle keep-alive connections wait in the worker's poller, not on a thread. A worker holds at
# most this many connections; more wait in the listen backlog until one closes, and the
# other workers take them meanwhile.
worker_connections = _int("LIGHTNOTE_WORKER_CONNECTIONS", 100)
if worker_class == "gthread" and worker_connections <= threads:
    raise SystemExit(
        f"LIGHTNOTE_WORKER_CONNECTIONS ({worker_connections}) must exceed LIGHTNOTE_THREADS "
        f"({threads}): a gthread worker keeps alive only the connections beyond its threads"
    )
backlog = _int("LIGHTNOTE_BACKLOG", 2048)
accesslog = os.environ.get("LIGHTNOTE_ACCESS_LOG", "-") or None
# Above Django's own limits (LIGHTNOTE_MAX_REQUEST_LINE / _HEADER_FIELD / _HEADER_FIELDS), so
# an over-long request line or header reaches Django and is answered as JSON (414 / 431)
# with the security headers instead of gunicorn's HTML (docs/security.md).
limit_request_line = 8190  # gunicorn's maximum
limit_request_field_size = 16380
limit_request_fields = 200
