"""The schedule of the reminder scan: a task enqueued every few seconds, never piled up.

Each step enqueues one ``scan_due_reminders`` unless one is already waiting in the queue
(READY), so however many workers run, the queue holds at most about one waiting scan per
worker, and a scan lost with a killed worker is simply replaced by the next step. The
scan itself is safe to run anywhere, any number of times (``reminders.services``).
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections
from django_tasks_db.models import DBTaskResult

from reminders.tasks import scan_due_reminders

logger = logging.getLogger(__name__)


def scan_waiting() -> bool:
    """Whether a scan is already enqueued and not yet claimed by a worker."""
    return DBTaskResult.objects.ready().filter(task_path=scan_due_reminders.module_path).exists()


def schedule_scan() -> bool:
    """Enqueue a scan unless one is waiting; return whether one was enqueued."""
    if scan_waiting():
        return False
    scan_due_reminders.enqueue()
    return True


def run_schedule(*, every: float, stop: threading.Event) -> None:
    """Schedule a scan every ``every`` seconds until ``stop`` is set (a worker's thread)."""
    while not stop.is_set():
        try:
            schedule_scan()
        except Exception:  # a lost database: try again at the next step
            logger.exception("could not schedule the reminder scan")
        finally:
            close_old_connections()
        stop.wait(every)
