"""gunicorn server hooks for metrics over every worker process.

``gunicorn.conf.py`` imports them by name (gunicorn calls module-level functions with
these names)::

    from lightnote.ops.gunicorn_hooks import child_exit, on_starting  # noqa: F401

:func:`on_starting` runs in the master before any worker exists: it makes sure
``PROMETHEUS_MULTIPROC_DIR`` names a directory (a new private one when unset), so each
worker imports ``prometheus_client`` in multiprocess mode and writes its samples there,
and ``/metrics`` in any worker sums them all. This module must not import
``prometheus_client`` itself: the mode is fixed at its first import.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"


def on_starting(server: Any) -> None:
    """Give the workers a metrics directory (``PROMETHEUS_MULTIPROC_DIR``, made if missing)."""
    directory = os.environ.get(MULTIPROC_DIR)
    if directory:
        os.makedirs(directory, exist_ok=True)
    else:
        os.environ[MULTIPROC_DIR] = tempfile.mkdtemp(prefix="lightnote-metrics-")


def child_exit(server: Any, worker: Any) -> None:
    """Let the exited worker's samples stay counted, its live ones go (prometheus_client)."""
    if os.environ.get(MULTIPROC_DIR):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
