"""The note REST API: thin views over ``notes.services`` and ``notes.selectors``.

``request.user`` is the subject (the owner whose data is read); inside an admin read-only
context the default permission has already refused every unsafe method before a view runs.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from lightnote.idempotency import (
    IDEMPOTENCY_ERRORS,
    IDEMPOTENCY_KEY_PARAMETER,
    idempotent_create,
)
from lightnote.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    AUTHENTICATED_403,
    WRITE_403,
    error_responses,
    path_uuid,
)
from lightnote.serializers import VersionQuerySerializer
from notes import selectors, services
from notes.models import Note
from notes.serializers import (
    NoteCreateSerializer,
    NoteListQuerySerializer,
    NoteSerializer,
    NoteUpdateSerializer,
)

NOTE_ID = path_uuid("note_id", "The note's id (another user's note is a 404)")


def note_create_response(*, request: Request, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Create the requesting user's note from validated ``data``; return (status, body).

    The one place a POST creates a note, so an ``Idempotency-Key`` wrapper can store and
    replay exactly this pair around it.
    """
    note = services.note_create(owner=request.user, **data)
    return note_existing_response(request=request, note=note)


def note_existing_response(*, request: Request, note: Note) -> tuple[int, dict[str, Any]]:
    """Answer a create with ``note``: also a keyed retry answered from the row it created."""
    return 201, dict(NoteSerializer(note, context={"request": request}).data)


def note_post_response(
    *, request: Request, idempotency_key: str | None
) -> tuple[int, dict[str, Any]]:
    """Validate the POST body and create the note, carrying the key digest (or None)."""
    serializer = NoteCreateSerializer(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    data = {**serializer.validated_data, "idempotency_key": idempotency_key}
    return note_create_response(request=request, data=data)


class NoteListView(GenericAPIView):
    """The requesting user's notes: list (search by words or tag) and create."""

    serializer_class = NoteSerializer
    queryset = Note.objects.none()  # for schema introspection only; reads use the selectors
    # Set for a list of live rows under fixed filters: its capped count may be cached.
    live_count_scope: str | None = None

    @extend_schema(
        parameters=[NoteListQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: NoteSerializer(many=True),
            **error_responses(
                400, 401, 403, 404, s403=AUTHENTICATED_403, s404="No such page (?page=)"
            ),
        },
    )
    def get(self, request: Request) -> Response:
        query = NoteListQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        if query.validated_data["trashed"]:
            notes = selectors.note_trash_list(owner=request.user)
        else:
            keyword, tag = query.validated_data.get("q"), query.validated_data.get("tag")
            notes = selectors.note_list(owner=request.user, keyword=keyword, tag=tag)
            if not keyword and not tag:
                self.live_count_scope = "all"  # lightnote.list_counts (searches always count)
        page = self.paginate_queryset(notes)
        data = NoteSerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    @extend_schema(
        request=NoteCreateSerializer,
        parameters=[IDEMPOTENCY_KEY_PARAMETER, ADMIN_CONTEXT_PARAMETER],
        responses={
            201: NoteSerializer,
            **error_responses(
                400, 401, 403, 409, 415, 422, 503, s403=WRITE_403, **IDEMPOTENCY_ERRORS
            ),
        },
    )
    def post(self, request: Request) -> Response:
        return idempotent_create(
            request,
            create=lambda key: note_post_response(request=request, idempotency_key=key),
            existing=lambda note: note_existing_response(request=request, note=note),
            find=lambda key: selectors.note_find_by_idempotency_key(owner=request.user, key=key),
            forget=lambda note, key: services.note_forget_idempotency_key(
                owner=request.user, note_id=note.pk, key=key
            ),
        )


class NoteDetailView(GenericAPIView):
    """One of the requesting user's notes: read, change (with its version), delete."""

    serializer_class = NoteSerializer
    queryset = Note.objects.none()  # for schema introspection only; reads use the selectors

    @extend_schema(
        parameters=[NOTE_ID, ADMIN_CONTEXT_PARAMETER],
        responses={200: NoteSerializer, **error_responses(401, 403, 404, s403=AUTHENTICATED_403)},
    )
    def get(self, request: Request, note_id: str) -> Response:
        note = selectors.note_get(owner=request.user, note_id=note_id)
        return Response(NoteSerializer(note, context={"request": request}).data)

    @extend_schema(
        request=NoteUpdateSerializer,
        parameters=[NOTE_ID, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: NoteSerializer,
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                415,
                s403=WRITE_403,
                s409="NOTE_VERSION_CONFLICT: the note is no longer at `version`",
            ),
        },
    )
    def patch(self, request: Request, note_id: str) -> Response:
        serializer = NoteUpdateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        version = changes.pop("version")
        note = services.note_update(
            owner=request.user, note_id=note_id, expected_version=version, **changes
        )
        return Response(NoteSerializer(note, context={"request": request}).data)

    @extend_schema(
        parameters=[NOTE_ID, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            204: OpenApiResponse(description="Deleted"),
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                s403=WRITE_403,
                s409="NOTE_VERSION_CONFLICT: ?version= was given and the note has moved on",
            ),
        },
    )
    def delete(self, request: Request, note_id: str) -> Response:
        query = VersionQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        services.note_delete(
            owner=request.user,
            note_id=note_id,
            expected_version=query.validated_data.get("version"),
        )
        return Response(status=204)


class NoteRestoreView(GenericAPIView):
    """Take one of the requesting user's deleted notes out of the trash."""

    serializer_class = NoteSerializer
    queryset = Note.objects.none()  # for schema introspection only

    @extend_schema(
        request=None,
        parameters=[NOTE_ID, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: NoteSerializer,
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                s403=WRITE_403,
                s404="NOTE_NOT_FOUND: no such note in the trash (a live one included)",
                s409="NOTE_VERSION_CONFLICT: ?version= was given and the note has moved on",
            ),
        },
    )
    def post(self, request: Request, note_id: str) -> Response:
        query = VersionQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        note = services.note_restore(
            owner=request.user,
            note_id=note_id,
            expected_version=query.validated_data.get("version"),
        )
        return Response(NoteSerializer(note, context={"request": request}).data)
