"""Writes of notes. Everything that changes a ``Note`` goes through these functions."""

from __future__ import annotations

import uuid
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from lightnote.accounts.caps import enforce_cap
from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.errors import LightNoteError
from lightnote.field_checks import (
    UNSET,
    checked_line,
    checked_text,
    checked_title,
    checked_values,
)
from lightnote.rest.versioning import (
    release_idempotency_key,
    versioned_delete,
    versioned_restore,
    versioned_update,
)
from lightnote.transactions import service_atomic
from notes.models import CONTENT_MAX, TAG_MAX, TAGS_MAX, TITLE_MAX, Note


def check_title(title: Any) -> str:
    """Return the trimmed title, or raise ``NOTE_TITLE_REQUIRED`` / ``NOTE_TITLE_TOO_LONG``."""
    return checked_title(title, prefix="NOTE", max_length=TITLE_MAX)


def check_content(content: Any) -> str:
    """Return the content as given (None: ``""``), or raise ``NOTE_CONTENT_TOO_LONG``."""
    return checked_text(
        content, too_long="NOTE_CONTENT_TOO_LONG", max_length=CONTENT_MAX, field="content"
    )


def check_tags(tags: Any) -> list[str]:
    """Return trimmed, de-duplicated tags (order kept), or raise ``NOTE_TAGS_INVALID``."""
    if tags is None:
        return []
    invalid = LightNoteError("NOTE_TAGS_INVALID", params={"max_tags": TAGS_MAX, "max": TAG_MAX})
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise invalid
    cleaned = list(dict.fromkeys(checked_line(tag, field="tags") for tag in tags))
    if len(cleaned) > TAGS_MAX or any(not tag or len(tag) > TAG_MAX for tag in cleaned):
        raise invalid
    return cleaned


def check_room(*, owner: Any) -> None:
    """Refuse with 403 ``NOTE_LIMIT_REACHED`` when ``owner`` has no room for one more note
    (``note_create``; a create card at issue time too, checked again on confirming)."""
    enforce_cap("note", owner=owner)


@service_atomic
def note_create(
    *,
    owner: Any,
    title: str,
    content: str = "",
    tags: list[str] | None = None,
    note_id: uuid.UUID | None = None,
    idempotency_key: str | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Note:
    """Create a note for ``owner`` (403 ``NOTE_LIMIT_REACHED`` past the cap, on every channel).

    ``note_id`` lets a caller derive the id from a stable payload: a second create with the
    same id raises 409 ``NOTE_ALREADY_EXISTS`` instead of writing a twin. ``actor`` (default:
    the owner) and ``channel`` are recorded with the ``note.created`` event.
    """
    check_room(owner=owner)
    now = timezone.now()
    values = {
        "owner": owner,
        "title": check_title(title),
        "content": check_content(content),
        "tags": check_tags(tags),
        "idempotency_key": idempotency_key,
        "created_at": now,
        "updated_at": now,
    }
    if note_id is None:
        note = Note.objects.create(**values)
    else:
        try:
            with transaction.atomic():
                note = Note.objects.create(id=note_id, **values)
        except IntegrityError:
            if Note.objects.filter(id=note_id).exists():
                raise LightNoteError("NOTE_ALREADY_EXISTS", status=409) from None
            raise
    _audit("note.created", note.pk, owner=owner, actor=actor, channel=channel)
    return note


def _audit(event_type: str, note_id: Any, *, owner: Any, actor: Any, channel: str) -> None:
    audit_write(
        event_type, item_type="note", item_id=note_id, owner=owner, actor=actor, channel=channel
    )


@service_atomic
def note_forget_idempotency_key(*, owner: Any, note_id: uuid.UUID | str, key: str) -> bool:
    """Release ``key`` from the owner's note it created, so the key may create anew.

    For a key past its retention (24 h). Updates the control column only, with no version
    bump: the note itself does not change. Returns True when the note still held the key.
    """
    return release_idempotency_key(Note, owner=owner, obj_id=note_id, key=key)


@service_atomic
def note_update(
    *,
    owner: Any,
    note_id: uuid.UUID | str,
    expected_version: int | None,
    title: Any = UNSET,
    content: Any = UNSET,
    tags: Any = UNSET,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Note:
    """Change the given fields if the note is still at ``expected_version``."""
    values = checked_values(
        title=(title, check_title), content=(content, check_content), tags=(tags, check_tags)
    )
    note = versioned_update(
        Note,
        owner=owner,
        obj_id=note_id,
        expected_version=expected_version,
        values=values,
        prefix="NOTE",
    )
    _audit("note.updated", note.pk, owner=owner, actor=actor, channel=channel)
    return note


@service_atomic
def note_delete(
    *,
    owner: Any,
    note_id: uuid.UUID | str,
    expected_version: int | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> uuid.UUID:
    """Move the note to the trash (at ``expected_version`` when given) and return its id."""
    deleted_id = versioned_delete(
        Note, owner=owner, obj_id=note_id, expected_version=expected_version, prefix="NOTE"
    )
    _audit("note.deleted", deleted_id, owner=owner, actor=actor, channel=channel)
    return deleted_id


@service_atomic
def note_restore(
    *,
    owner: Any,
    note_id: uuid.UUID | str,
    expected_version: int | None = None,
    actor: Any = None,
    channel: str = CHANNEL_SYSTEM,
) -> Note:
    """Take the note out of the trash (at ``expected_version`` when given)."""
    note = versioned_restore(
        Note, owner=owner, obj_id=note_id, expected_version=expected_version, prefix="NOTE"
    )
    _audit("note.restored", note.pk, owner=owner, actor=actor, channel=channel)
    return note
