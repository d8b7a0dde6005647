"""Reads of notes, always scoped to one owner."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q, QuerySet

from lightnote.rest.versioning import owned_get, titled, trashed
from notes.models import Note


def note_list(*, owner: Any, keyword: str | None = None, tag: str | None = None) -> QuerySet[Note]:
    """Return the owner's notes, most recently changed first, optionally filtered."""
    notes = Note.objects.filter(owner=owner)
    if keyword:
        notes = notes.filter(Q(title__icontains=keyword) | Q(content__icontains=keyword))
    if tag:
        # JSON containment differs between SQLite and MySQL; tags are few, filter in Python.
        ids = [note.id for note in notes.only("id", "tags") if tag in (note.tags or [])]
        notes = notes.filter(id__in=ids)
    return notes


def note_get(*, owner: Any, note_id: uuid.UUID | str) -> Note:
    """Return the owner's note or raise 404 ``NOTE_NOT_FOUND`` (also for others' notes)."""
    return owned_get(Note, owner=owner, obj_id=note_id, not_found="NOTE_NOT_FOUND")


def note_find_by_title(*, owner: Any, title: str) -> list[Note]:
    """Return the owner's notes titled ``title``, or differing from it in letter case only
    (``lightnote.rest.versioning.titled``)."""
    return titled(Note, owner=owner, title=title)


def note_find_by_idempotency_key(*, owner: Any, key: str) -> Note | None:
    """Return the owner's note created with this Idempotency-Key digest, or None."""
    return Note.objects.filter(owner=owner, idempotency_key=key).first()


def note_trash_list(*, owner: Any) -> QuerySet[Note]:
    """Return the owner's deleted notes still in the trash, most recently deleted first."""
    return trashed(Note, owner=owner)
