"""Remove trashed todos and notes for good once they are older than the retention period."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.utils import timezone


def trash_models() -> list[Any]:
    """Every installed model with a trash (a ``deleted_at`` column and an ``all_objects``)."""
    return [
        model
        for model in apps.get_models()
        if hasattr(model, "all_objects") and any(f.name == "deleted_at" for f in model._meta.fields)
    ]


def purge_trash(*, older_than_days: int, batch: int = 1000) -> dict[str, int]:
    """Delete rows trashed more than ``older_than_days`` ago, in batches; return counts."""
    cutoff = timezone.now() - timedelta(days=older_than_days)
    removed: dict[str, int] = {}
    for model in trash_models():
        total = 0
        while True:
            ids = list(
                model.all_objects.filter(deleted_at__lt=cutoff).values_list("pk", flat=True)[:batch]
            )
            if not ids:
                break
            with transaction.atomic():
                # Re-check the condition: a row restored meanwhile is no longer purged.
                deleted, _ = model.all_objects.filter(pk__in=ids, deleted_at__lt=cutoff).delete()
            total += deleted
        removed[model._meta.label] = total
    return removed


class Command(BaseCommand):
    help = "Remove todos and notes trashed longer than LIGHTNOTE_TRASH_RETENTION days ago."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--days",
            type=int,
            default=None,
            help="retention in days (default: LIGHTNOTE_TRASH_RETENTION)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = (
            options["days"] if options["days"] is not None else settings.LIGHTNOTE_TRASH_RETENTION
        )
        if days < 1:
            self.stderr.write("--days must be at least 1")
            raise SystemExit(2)
        for label, count in purge_trash(older_than_days=days).items():
            self.stdout.write(f"{label}: {count} purged")
