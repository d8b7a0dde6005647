"""The schedule of the reminder scan: a task enqueued every few seconds, never piled up.

Each step enqueues one ``scan_due_reminders`` unless one is already waiting in the queue
(READY), so however many workers run, the queue holds at most about one waiting scan per
worker, and a scan lost with a killed worker is simply replaced by the next step. The
scan itself is safe to run anywhere, any number of times (``reminders.services``).
"""

from __future__ import annotations

import datetime as dt
import logging
import threading

from django.db import close_old_connections
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from lightnote.ops.heartbeat import worker_beat
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


# Finished scans are kept this long (to look at in the admin), then removed; a scan still
# RUNNING after a day belonged to a worker that was killed (its deliveries rolled back).
FINISHED_SCANS_KEPT = dt.timedelta(hours=1)
STALE_RUNNING_SCAN = dt.timedelta(days=1)
PRUNE_BATCH = 1000


def prune_scans(*, now: dt.datetime | None = None) -> int:
    """Delete up to one batch of old scan results; return how many went."""
    now = now or timezone.now()
    scans = DBTaskResult.objects.filter(task_path=scan_due_reminders.module_path)
    finished = scans.filter(
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED],
        finished_at__lt=now - FINISHED_SCANS_KEPT,
    )
    stale = scans.filter(status=TaskResultStatus.RUNNING, started_at__lt=now - STALE_RUNNING_SCAN)
    ids = list(finished.values_list("id", flat=True)[:PRUNE_BATCH])
    ids += list(stale.values_list("id", flat=True)[:PRUNE_BATCH])
    deleted, _ = DBTaskResult.objects.filter(id__in=ids).delete()
    return deleted


def run_schedule(*, every: float, stop: threading.Event) -> None:
    """Schedule a scan every ``every`` seconds until ``stop`` is set (a worker's thread)."""
    while not stop.is_set():
        try:
            worker_beat()  # /readyz's "worker" check reads it
            if schedule_scan():
                prune_scans()
        except Exception:  # a lost database: try again at the next step
            logger.exception("could not schedule the reminder scan")
        finally:
            close_old_connections()
        stop.wait(every)
