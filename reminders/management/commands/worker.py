"""``manage.py worker``: the background worker, the one entry point of the task queue.

It runs django-tasks-db's worker (``db_worker``) with the project's settings, and beside it
the reminder scan's schedule (``reminders.scheduling``). Run as many as you like, on as
many machines as share the database: workers claim tasks with SELECT ... FOR UPDATE SKIP
LOCKED, and every reminder is delivered once whatever runs where (docs/reminders.md).
"""

from __future__ import annotations

import threading
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from reminders.scheduling import run_schedule


class Command(BaseCommand):
    help = "Run the background worker (task queue + the reminder scan's schedule)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--scan-every",
            type=float,
            default=settings.LIGHTNOTE_REMINDER_SCAN_SECONDS,
            help="Seconds between reminder scans (default: LIGHTNOTE_REMINDER_SCAN_SECONDS)",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=1.0,
            help="Seconds the queue worker waits when the queue is empty (default: 1)",
        )
        parser.add_argument(
            "--worker-id", default=None, help="A name unique in the worker pool (default: random)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        stop = threading.Event()
        schedule = threading.Thread(
            target=run_schedule,
            kwargs={"every": options["scan_every"], "stop": stop},
            name="reminder-schedule",
            daemon=True,
        )
        schedule.start()
        worker_options: dict[str, Any] = {
            "interval": options["interval"],
            "reload": False,
            "startup_delay": False,
            "verbosity": options["verbosity"],
        }
        if options["worker_id"]:
            worker_options["worker_id"] = options["worker_id"]
        try:
            call_command("db_worker", **worker_options)
        finally:
            stop.set()
