"""The todo and note services directly: versions, conflicts, races, field rules."""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection

from lightnote.errors import LightNoteError
from notes import services as note_services
from notes.models import CONTENT_MAX, TAG_MAX, TAGS_MAX, Note
from notes.models import TITLE_MAX as NOTE_TITLE_MAX
from todos import services as todo_services
from todos.models import DESCRIPTION_MAX, PRIORITIES, Todo
from todos.models import TITLE_MAX as TODO_TITLE_MAX

pytestmark = pytest.mark.django_db

DUE = dt.datetime(2026, 12, 2, 21, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))


@contextlib.contextmanager
def raises_code(code: str, status: int = 400) -> Iterator[None]:
    """Assert the block raises LightNoteError ``code`` with ``status``."""
    with pytest.raises(LightNoteError) as caught:
        yield
    assert (caught.value.code, caught.value.status) == (code, status)


# --- versions ---------------------------------------------------------------------------


def test_todo_version_increments_by_one_per_change(user) -> None:
    todo = todo_services.todo_create(owner=user, title="a")
    assert todo.version == 1
    todo = todo_services.todo_update(owner=user, todo_id=todo.id, expected_version=1, title="b")
    assert todo.version == 2
    todo = todo_services.todo_set_status(owner=user, todo_id=todo.id, status="done")
    assert todo.version == 3
    todo = todo_services.todo_update(owner=user, todo_id=todo.id, expected_version=3, due_at=DUE)
    assert (todo.version, todo.due_at, todo.status, todo.title) == (4, DUE, "done", "b")


def test_note_version_increments_by_one_per_change(user) -> None:
    note = note_services.note_create(owner=user, title="a")
    note = note_services.note_update(owner=user, note_id=note.id, expected_version=1, tags=["x"])
    note = note_services.note_update(owner=user, note_id=note.id, expected_version=2, content="c")
    assert (note.version, note.tags, note.content) == (3, ["x"], "c")


def test_stale_todo_version_is_409_and_never_overwrites(user) -> None:
    todo = todo_services.todo_create(owner=user, title="original")
    todo_services.todo_update(owner=user, todo_id=todo.id, expected_version=1, title="newer")
    with raises_code("TODO_VERSION_CONFLICT", 409):
        todo_services.todo_update(owner=user, todo_id=todo.id, expected_version=1, title="stale")
    with raises_code("TODO_VERSION_CONFLICT", 409):
        todo_services.todo_delete(owner=user, todo_id=todo.id, expected_version=1)
    todo.refresh_from_db()
    assert (todo.title, todo.version) == ("newer", 2)


def test_stale_note_version_is_409_and_never_overwrites(user) -> None:
    note = note_services.note_create(owner=user, title="original")
    note_services.note_update(owner=user, note_id=note.id, expected_version=1, content="newer")
    with raises_code("NOTE_VERSION_CONFLICT", 409):
        note_services.note_update(owner=user, note_id=note.id, expected_version=1, content="old")
    with raises_code("NOTE_VERSION_CONFLICT", 409):
        note_services.note_delete(owner=user, note_id=note.id, expected_version=1)
    note.refresh_from_db()
    assert (note.content, note.version) == ("newer", 2)


def test_another_owner_cannot_change_or_delete(user, other_user) -> None:
    todo = todo_services.todo_create(owner=user, title="mine")
    note = note_services.note_create(owner=user, title="mine")
    with raises_code("TODO_NOT_FOUND", 404):
        todo_services.todo_update(
            owner=other_user, todo_id=todo.id, expected_version=1, title="theirs"
        )
    with raises_code("TODO_NOT_FOUND", 404):
        todo_services.todo_delete(owner=other_user, todo_id=todo.id)
    with raises_code("NOTE_NOT_FOUND", 404):
        note_services.note_delete(owner=other_user, note_id=note.id)
    todo.refresh_from_db()
    assert (todo.title, todo.version, Note.objects.count()) == ("mine", 1, 1)


# --- the race ---------------------------------------------------------------------------


def _race(update: Any, attempts: int = 2) -> list[Any]:
    """Run ``update(i)`` in ``attempts`` threads released together; return results/errors."""
    barrier = threading.Barrier(attempts)
    results: list[Any] = [None] * attempts

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = update(index)
        except LightNoteError as error:
            results[index] = error
        finally:
            connection.close()  # each thread has its own connection; leave none open

    threads = [threading.Thread(target=run, args=(i,)) for i in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(5))
def test_concurrent_updates_with_the_same_version_have_exactly_one_winner(user, round_) -> None:
    todo = todo_services.todo_create(owner=user, title="start")

    results = _race(
        lambda i: todo_services.todo_update(
            owner=user, todo_id=todo.id, expected_version=1, title=f"writer {i}"
        )
    )

    winners = [r for r in results if isinstance(r, Todo)]
    losers = [r for r in results if isinstance(r, LightNoteError)]
    assert len(winners) == 1
    assert [(e.code, e.status) for e in losers] == [("TODO_VERSION_CONFLICT", 409)]
    todo.refresh_from_db()
    assert (todo.title, todo.version) == (winners[0].title, 2)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_note_updates_with_the_same_version_have_exactly_one_winner(user) -> None:
    note = note_services.note_create(owner=user, title="start")

    results = _race(
        lambda i: note_services.note_update(
            owner=user, note_id=note.id, expected_version=1, content=f"writer {i}"
        ),
        attempts=4,
    )

    winners = [r for r in results if isinstance(r, Note)]
    assert len(winners) == 1
    assert (
        sorted(r.code for r in results if isinstance(r, LightNoteError))
        == ["NOTE_VERSION_CONFLICT"] * 3
    )
    note.refresh_from_db()
    assert (note.content, note.version) == (winners[0].content, 2)


# --- field rules ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"title": ""}, "TODO_TITLE_REQUIRED"),
        ({"title": " \n\t "}, "TODO_TITLE_REQUIRED"),
        ({"title": None}, "TODO_TITLE_REQUIRED"),
        ({"title": "t" * 201}, "TODO_TITLE_TOO_LONG"),
        ({"title": "x", "description": "d" * 2001}, "TODO_DESCRIPTION_TOO_LONG"),
        ({"title": "x", "priority": 3}, "TODO_PRIORITY_INVALID"),
        ({"title": "x", "priority": -1}, "TODO_PRIORITY_INVALID"),
        ({"title": "x", "priority": True}, "TODO_PRIORITY_INVALID"),
        ({"title": "x", "priority": "1"}, "TODO_PRIORITY_INVALID"),
        ({"title": "x", "due_at": dt.datetime(2026, 12, 2, 21, 0)}, "TODO_DUE_AT_INVALID"),
        ({"title": "x", "due_at": "2026-12-02T21:00:00+08:00"}, "TODO_DUE_AT_INVALID"),
    ],
)
def test_todo_create_field_rules(user, fields, code) -> None:
    with raises_code(code):
        todo_services.todo_create(owner=user, **fields)
    assert Todo.objects.count() == 0


def test_todo_status_must_be_open_or_done(user) -> None:
    todo = todo_services.todo_create(owner=user, title="x")
    with raises_code("TODO_STATUS_INVALID"):
        todo_services.todo_set_status(owner=user, todo_id=todo.id, status="archived")
    todo.refresh_from_db()
    assert (todo.status, todo.version) == ("open", 1)


def test_todo_title_whitespace_is_collapsed_before_the_length_limit(user) -> None:
    todo = todo_services.todo_create(owner=user, title="  plan   the\ttrip  " + " " * 300)
    assert todo.title == "plan the trip"
    assert todo_services.todo_create(owner=user, title="t" * 200).title == "t" * 200


def test_a_failed_update_writes_no_field(user) -> None:
    todo = todo_services.todo_create(owner=user, title="keep", priority=1)
    with raises_code("TODO_PRIORITY_INVALID"):
        todo_services.todo_update(
            owner=user, todo_id=todo.id, expected_version=1, title="changed", priority=9
        )
    todo.refresh_from_db()
    assert (todo.title, todo.priority, todo.version) == ("keep", 1, 1)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"title": ""}, "NOTE_TITLE_REQUIRED"),
        ({"title": "   "}, "NOTE_TITLE_REQUIRED"),
        ({"title": "t" * 256}, "NOTE_TITLE_TOO_LONG"),
        ({"title": "x", "content": "c" * 60_001}, "NOTE_CONTENT_TOO_LONG"),
        ({"title": "x", "tags": "work"}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": [f"t{i}" for i in range(21)]}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": ["t" * 51]}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": ["ok", ""]}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": ["ok", "   "]}, "NOTE_TAGS_INVALID"),
        ({"title": "x", "tags": ["ok", 3]}, "NOTE_TAGS_INVALID"),
    ],
)
def test_note_create_field_rules(user, fields, code) -> None:
    with raises_code(code):
        note_services.note_create(owner=user, **fields)
    assert Note.objects.count() == 0


def test_note_tags_are_trimmed_and_deduplicated_in_order(user) -> None:
    note = note_services.note_create(owner=user, title="x", tags=[" b", "a", "b ", "a", "c"])
    assert note.tags == ["b", "a", "c"]


def test_note_tag_limits_count_after_deduplication(user) -> None:
    twenty = [f"tag{i}" for i in range(20)]
    note = note_services.note_create(owner=user, title="x", tags=twenty + twenty[:5])
    assert note.tags == twenty
    exact = note_services.note_create(owner=user, title="y", tags=["t" * 50])
    assert exact.tags == ["t" * 50]


@pytest.mark.parametrize(
    ("create", "fields", "code", "limits"),
    [
        ("todo", {"title": "t" * (TODO_TITLE_MAX + 1)}, "TODO_TITLE_TOO_LONG", [TODO_TITLE_MAX]),
        (
            "todo",
            {"title": "x", "description": "d" * (DESCRIPTION_MAX + 1)},
            "TODO_DESCRIPTION_TOO_LONG",
            [DESCRIPTION_MAX],
        ),
        ("todo", {"title": "x", "priority": 3}, "TODO_PRIORITY_INVALID", PRIORITIES),
        ("note", {"title": "t" * (NOTE_TITLE_MAX + 1)}, "NOTE_TITLE_TOO_LONG", [NOTE_TITLE_MAX]),
        (
            "note",
            {"title": "x", "content": "c" * (CONTENT_MAX + 1)},
            "NOTE_CONTENT_TOO_LONG",
            [CONTENT_MAX],
        ),
        (
            "note",
            {"title": "x", "tags": ["t" * (TAG_MAX + 1)]},
            "NOTE_TAGS_INVALID",
            [TAGS_MAX, TAG_MAX],
        ),
    ],
)
def test_limit_messages_state_the_limits_the_models_hold(
    user, create, fields, code, limits
) -> None:
    """Each limit is written once (the model module); the message is filled from it."""
    service = todo_services.todo_create if create == "todo" else note_services.note_create
    with pytest.raises(LightNoteError) as caught:
        service(owner=user, **fields)
    assert caught.value.code == code
    for locale in ("zh-CN", "en"):
        message = caught.value.message(locale)
        assert "{" not in message
        for limit in limits:
            assert str(limit) in message, (locale, message)
