from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """The last moment a background worker said it was alive (one row per worker name).

    In the database, not Redis: the embedded default's in-process fakeredis is not shared
    between the worker's process and the web's.
    """

    name = models.CharField(max_length=64, primary_key=True)
    beat_at = models.DateTimeField()

    class Meta:
        verbose_name = "worker heartbeat"

    def __str__(self) -> str:
        return f"{self.name} @ {self.beat_at.isoformat()}"
