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
