"""The todo REST API: thin views over ``todos.services`` and ``todos.selectors``.

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
from todos import selectors, services
from todos.models import Todo
from todos.serializers import (
    TodoCreateSerializer,
    TodoListQuerySerializer,
    TodoSerializer,
    TodoUpdateSerializer,
)

TODO_ID = path_uuid("todo_id", "The todo's id (another user's todo is a 404)")


def todo_create_response(*, request: Request, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Create the requesting user's todo from validated ``data``; return (status, body).

    The one place a POST creates a todo, so an ``Idempotency-Key`` wrapper can store and
    replay exactly this pair around it.
    """
    todo = services.todo_create(owner=request.user, **data)
    return todo_existing_response(request=request, todo=todo)


def todo_existing_response(*, request: Request, todo: Todo) -> tuple[int, dict[str, Any]]:
    """Answer a create with ``todo``: also a keyed retry answered from the row it created."""
    return 201, dict(TodoSerializer(todo, context={"request": request}).data)


def todo_post_response(
    *, request: Request, idempotency_key: str | None
) -> tuple[int, dict[str, Any]]:
    """Validate the POST body and create the todo, carrying the key digest (or None)."""
    serializer = TodoCreateSerializer(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    data = {**serializer.validated_data, "idempotency_key": idempotency_key}
    return todo_create_response(request=request, data=data)


class TodoListView(GenericAPIView):
    """The requesting user's todos: list and create."""

    serializer_class = TodoSerializer
    queryset = Todo.objects.none()  # for schema introspection only; reads use the selectors
    # Set for a list of live rows under fixed filters: its capped count may be cached.
    live_count_scope: str | None = None

    @extend_schema(
        parameters=[TodoListQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: TodoSerializer(many=True),
            **error_responses(
                400, 401, 403, 404, s403=AUTHENTICATED_403, s404="No such page (?page=)"
            ),
        },
    )
    def get(self, request: Request) -> Response:
        query = TodoListQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        if query.validated_data["trashed"]:
            todos = selectors.todo_trash_list(owner=request.user)
        else:
            status = query.validated_data.get("status")
            todos = selectors.todo_list(owner=request.user, status=status)
            self.live_count_scope = f"status={status or '*'}"  # lightnote.list_counts
        page = self.paginate_queryset(todos)
        data = TodoSerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)

    @extend_schema(
        request=TodoCreateSerializer,
        parameters=[IDEMPOTENCY_KEY_PARAMETER, ADMIN_CONTEXT_PARAMETER],
        responses={
            201: TodoSerializer,
            **error_responses(
                400, 401, 403, 409, 415, 422, 503, s403=WRITE_403, **IDEMPOTENCY_ERRORS
            ),
        },
    )
    def post(self, request: Request) -> Response:
        return idempotent_create(
            request,
            create=lambda key: todo_post_response(request=request, idempotency_key=key),
            existing=lambda todo: todo_existing_response(request=request, todo=todo),
            find=lambda key: selectors.todo_find_by_idempotency_key(owner=request.user, key=key),
            forget=lambda todo, key: services.todo_forget_idempotency_key(
                owner=request.user, todo_id=todo.pk, key=key
            ),
        )


class TodoDetailView(GenericAPIView):
    """One of the requesting user's todos: read, change (with its version), delete."""

    serializer_class = TodoSerializer
    queryset = Todo.objects.none()  # for schema introspection only; reads use the selectors

    @extend_schema(
        parameters=[TODO_ID, ADMIN_CONTEXT_PARAMETER],
        responses={200: TodoSerializer, **error_responses(401, 403, 404, s403=AUTHENTICATED_403)},
    )
    def get(self, request: Request, todo_id: str) -> Response:
        todo = selectors.todo_get(owner=request.user, todo_id=todo_id)
        return Response(TodoSerializer(todo, context={"request": request}).data)

    @extend_schema(
        request=TodoUpdateSerializer,
        parameters=[TODO_ID, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: TodoSerializer,
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                415,
                s403=WRITE_403,
                s409="TODO_VERSION_CONFLICT: the todo is no longer at `version`",
            ),
        },
    )
    def patch(self, request: Request, todo_id: str) -> Response:
        serializer = TodoUpdateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        changes = dict(serializer.validated_data)
        version = changes.pop("version")
        todo = services.todo_update(
            owner=request.user, todo_id=todo_id, expected_version=version, **changes
        )
        return Response(TodoSerializer(todo, context={"request": request}).data)

    @extend_schema(
        parameters=[TODO_ID, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            204: OpenApiResponse(description="Deleted"),
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                s403=WRITE_403,
                s409="TODO_VERSION_CONFLICT: ?version= was given and the todo has moved on",
            ),
        },
    )
    def delete(self, request: Request, todo_id: str) -> Response:
        query = VersionQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        services.todo_delete(
            owner=request.user,
            todo_id=todo_id,
            expected_version=query.validated_data.get("version"),
        )
        return Response(status=204)


class TodoRestoreView(GenericAPIView):
    """Take one of the requesting user's deleted todos out of the trash."""

    serializer_class = TodoSerializer
    queryset = Todo.objects.none()  # for schema introspection only

    @extend_schema(
        request=None,
        parameters=[TODO_ID, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: TodoSerializer,
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                s403=WRITE_403,
                s404="TODO_NOT_FOUND: no such todo in the trash (a live one included)",
                s409="TODO_VERSION_CONFLICT: ?version= was given and the todo has moved on",
            ),
        },
    )
    def post(self, request: Request, todo_id: str) -> Response:
        query = VersionQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        todo = services.todo_restore(
            owner=request.user,
            todo_id=todo_id,
            expected_version=query.validated_data.get("version"),
        )
        return Response(TodoSerializer(todo, context={"request": request}).data)
