from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from lightnote.rest.versioning import LiveManager

TITLE_MAX = 255
CONTENT_MAX = 60_000
TAGS_MAX = 20
TAG_MAX = 50


class Note(models.Model):
    """A user's note. Written only through ``notes.services``; ``version`` +1 per change."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notes"
    )
    title = models.CharField(max_length=TITLE_MAX)
    content = models.TextField(max_length=CONTENT_MAX, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1)
    idempotency_key = models.CharField(max_length=64, null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    # Set when deleted: the row is in the trash, restorable until ``purge_trash`` removes it.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    all_objects = models.Manager()  # the trash included
    objects = LiveManager()  # the default (Meta): live rows only: reads, writes, lists, admin

    class Meta:
        verbose_name = _("note")
        verbose_name_plural = _("notes")
        default_manager_name = "objects"
        ordering = ["-updated_at", "id"]
        # The list's filter and sort, owner first: the live rows (``deleted_at`` IS NULL is
        # an equality here) in list order, so a page reads its rows straight off the index and
        # the capped count reads the index alone (no row lookups).
        indexes = [
            models.Index(
                fields=["owner", "deleted_at", "-updated_at", "id"], name="note_owner_live_idx"
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "idempotency_key"], name="note_unique_owner_idempotency_key"
            )
        ]

    def __str__(self) -> str:
        return self.title
