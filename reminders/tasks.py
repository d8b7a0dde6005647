"""The background tasks (django-tasks, run by ``manage.py worker``)."""

from __future__ import annotations

from django_tasks import task

from reminders import services


@task()
def scan_due_reminders() -> int:
    """Deliver the reminders due now (one batch); return how many were delivered."""
    return services.reminders_deliver_due()
