"""Django in the bench's own process: migrate its database, create the users (with API
tokens) and seed the rows the list measurements read."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.pop("OPENAI_API_KEY", None)
    os.environ.pop("LIGHTNOTE_TEST_DATABASE_NAME", None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def token_for(username: str) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user = get_user_model().objects.create_user(username=username, password="bench-pass-2026")
    return Token.objects.create(user=user).key


def seed_rows(username: str, rows: int) -> None:
    """Give ``username`` ``rows`` todos and ``rows`` notes, created one minute apart."""
    from django.contrib.auth import get_user_model

    from notes.models import Note
    from todos.models import Todo

    owner = get_user_model().objects.get(username=username)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    batch = 5_000
    for first in range(0, rows, batch):
        todos, notes = [], []
        for i in range(first, min(rows, first + batch)):
            at = start + timedelta(minutes=i)
            todos.append(
                Todo(
                    owner=owner,
                    title=f"todo {i}",
                    description="seeded by make bench",
                    status="done" if i % 3 == 0 else "open",
                    created_at=at,
                    updated_at=at,
                )
            )
            notes.append(
                Note(
                    owner=owner,
                    title=f"note {i}",
                    content="seeded by make bench",
                    tags=["bench"],
                    created_at=at,
                    updated_at=at,
                )
            )
        Todo.objects.bulk_create(todos)
        Note.objects.bulk_create(notes)


def wait_until_flushed(*, timeout_s: float = 90.0, poll_s: float = 1.0, steady: int = 3) -> dict:
    """Wait until MariaDB has written out what the seed left in memory; return what was seen.

    Seeding 100k rows leaves thousands of dirty InnoDB pages, which the server's page cleaner
    writes out over the next half minute (measured: about 3,200 pages falling to a floor of
    about 550 in 25 s). Timed requests in that window share the disk and the cores with that
    flushing, and the paths with more writes (a confirm: four, and the largest redo) more
    than the others. So the timing starts once ``Innodb_buffer_pool_pages_dirty`` has
    stopped falling (the same or higher for ``steady`` polls in a row), or after
    ``timeout_s``. Read-only: it only reads the server's global status.
    """
    import time

    from django.db import connection

    def dirty_pages() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
            row = cursor.fetchone()
        return int(row[1]) if row else 0

    start = time.perf_counter()
    first = lowest = dirty_pages()
    still = 0
    while still < steady and time.perf_counter() - start < timeout_s:
        time.sleep(poll_s)
        now = dirty_pages()
        still = still + 1 if now >= lowest else 0
        lowest = min(lowest, now)
    return {
        "dirty_pages_after_seed": first,
        "dirty_pages_at_start": dirty_pages(),
        "waited_s": round(time.perf_counter() - start, 1),
        "timed_out": still < steady,
    }
