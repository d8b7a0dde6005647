"""The background worker's heartbeat: written by the worker, read by ``/readyz``.

The worker calls :func:`worker_beat` once per loop; readiness reads the age of the last
beat (:func:`last_beat`). Older than ``LIGHTNOTE_WORKER_HEARTBEAT_MAX_AGE`` seconds: stale.
"""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from lightnote.ops.models import WorkerHeartbeat

WORKER = "worker"  # the reminder worker (``manage.py worker``)


def worker_beat(*, name: str = WORKER) -> None:
    """Record that the worker ``name`` is alive now: one UPDATE (an INSERT the first time)."""
    now = timezone.now()
    if WorkerHeartbeat.objects.filter(name=name).update(beat_at=now):
        return
    try:
        with transaction.atomic():
            WorkerHeartbeat.objects.create(name=name, beat_at=now)
    except IntegrityError:  # a second worker created it meanwhile: its row, our time
        WorkerHeartbeat.objects.filter(name=name).update(beat_at=now)


def last_beat(*, name: str = WORKER) -> datetime | None:
    """When the worker ``name`` last beat, or None when it never has."""
    return WorkerHeartbeat.objects.filter(name=name).values_list("beat_at", flat=True).first()
