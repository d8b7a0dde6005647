"""The note REST API: the shared item views (``lightnote.rest.item_api``) over ``notes.services``
and ``notes.selectors``."""

from __future__ import annotations

from typing import Any

from lightnote.rest.item_api import ItemApi
from notes import selectors, services
from notes.models import Note
from notes.serializers import (
    NoteCreateSerializer,
    NoteListQuerySerializer,
    NoteSerializer,
    NoteUpdateSerializer,
)


def _list_filters(query: dict[str, Any]) -> dict[str, Any]:
    return {"keyword": query.get("q"), "tag": query.get("tag")}


def _list_count_scope(query: dict[str, Any]) -> str | None:
    return None if query.get("q") or query.get("tag") else "all"  # searches always count


NOTE_API = ItemApi(
    noun="note",
    plural="notes",
    model=Note,
    serializer=NoteSerializer,
    create_serializer=NoteCreateSerializer,
    update_serializer=NoteUpdateSerializer,
    list_query_serializer=NoteListQuerySerializer,
    list_filters=_list_filters,
    list_count_scope=_list_count_scope,
    list_description="The requesting user's notes: list (search by words or tag) and create.",
    select_list=selectors.note_list,
    select_trash=selectors.note_trash_list,
    select_one=selectors.note_get,
    select_by_idempotency_key=selectors.note_find_by_idempotency_key,
    create=services.note_create,
    update=services.note_update,
    delete=services.note_delete,
    restore=services.note_restore,
    forget_idempotency_key=services.note_forget_idempotency_key,
)

NoteListView, NoteDetailView, NoteRestoreView = NOTE_API.views()
note_create_response = NOTE_API.create_response
