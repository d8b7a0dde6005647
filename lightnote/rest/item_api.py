"""The REST views every kind of item (todo, note) shares: list and create, detail, restore.

An app describes its item once — model, serializers, selectors, services — as an
:class:`ItemApi`, and takes its three views from :meth:`ItemApi.views`. The views are thin:
they validate, call the app's selectors and services, and serialise. ``request.user`` is the
subject (the owner whose data is read); inside an admin read-only context every unsafe method
has been refused before a view runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db.models import Model, QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from lightnote.audit import CHANNEL_API
from lightnote.rest.idempotency import (
    IDEMPOTENCY_ERRORS,
    IDEMPOTENCY_KEY_PARAMETER,
    idempotent_create,
)
from lightnote.rest.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    AUTHENTICATED_403,
    WRITE_403,
    error_responses,
    path_uuid,
)
from lightnote.rest.serializers import VersionQuerySerializer, refuse_body_fields

Answer = tuple[int, dict[str, Any]]


@dataclass(frozen=True)
class ItemApi:
    """One kind of item as the REST API serves it.

    ``noun`` names the item in paths (``<noun>_id``), in the services' keyword arguments and
    in the error codes (``<NOUN>_VERSION_CONFLICT``, ``<NOUN>_NOT_FOUND``). ``list_filters``
    turns the validated list query into the list selector's keyword arguments.
    ``list_count_scope`` names a live list under fixed filters (or None, e.g. for a search)
    so that its capped count may be remembered (``lightnote.rest.list_counts``); it must name
    each list apart and the model must list its filtered fields in ``LIST_FILTER_FIELDS``.
    """

    noun: str
    plural: str
    model: type[Model]
    serializer: type[serializers.Serializer]
    create_serializer: type[serializers.Serializer]
    update_serializer: type[serializers.Serializer]
    list_query_serializer: type[serializers.Serializer]
    list_filters: Callable[[dict[str, Any]], dict[str, Any]]
    list_description: str
    select_list: Callable[..., QuerySet[Any]]
    select_trash: Callable[..., QuerySet[Any]]
    select_one: Callable[..., Any]
    select_by_idempotency_key: Callable[..., Any]
    create: Callable[..., Any]
    update: Callable[..., Any]
    delete: Callable[..., Any]
    restore: Callable[..., Any]
    forget_idempotency_key: Callable[..., Any]
    list_count_scope: Callable[[dict[str, Any]], str | None] = lambda query: None

    @property
    def id_kwarg(self) -> str:
        return f"{self.noun}_id"

    def _data(self, request: Request, item: Any) -> dict[str, Any]:
        return dict(self.serializer(item, context={"request": request}).data)

    def create_response(self, *, request: Request, data: dict[str, Any]) -> Answer:
        """Create the requesting user's item from validated ``data``; return (status, body).

        The one place a POST creates an item, so an ``Idempotency-Key`` wrapper can store and
        replay exactly this pair around it.
        """
        return self.existing_response(
            request=request, item=self.create(owner=request.user, **data, channel=CHANNEL_API)
        )

    def existing_response(self, *, request: Request, item: Any) -> Answer:
        """Answer a create with ``item``: also a keyed retry answered from the row it created."""
        return 201, self._data(request, item)

    def post_response(self, *, request: Request, idempotency_key: str | None) -> Answer:
        """Validate the POST body and create the item, carrying the key digest (or None)."""
        serializer = self.create_serializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        data = {**serializer.validated_data, "idempotency_key": idempotency_key}
        return self.create_response(request=request, data=data)

    def _version(self, request: Request) -> int | None:
        query = VersionQuerySerializer(data=request.query_params, context={"request": request})
        query.is_valid(raise_exception=True)
        version: int | None = query.validated_data.get("version")
        return version

    def views(self) -> tuple[type[GenericAPIView], type[GenericAPIView], type[GenericAPIView]]:
        """Return the list, detail and restore views of this item."""
        return self._list_view(), self._detail_view(), self._restore_view()

    def _view(self, name: str, doc: str, methods: dict[str, Any]) -> type[GenericAPIView]:
        attributes = {
            "__doc__": doc,
            "__module__": self.model.__module__.replace(".models", ".api"),
            "serializer_class": self.serializer,
            # For schema introspection only; reads use the selectors.
            "queryset": self.model._default_manager.none(),
            **methods,
        }
        return type(f"{self.noun.title()}{name}View", (GenericAPIView,), attributes)

    def _list_view(self) -> type[GenericAPIView]:
        api = self

        @extend_schema(
            parameters=[api.list_query_serializer, ADMIN_CONTEXT_PARAMETER],
            responses={
                200: api.serializer(many=True),
                **error_responses(
                    400, 401, 403, 404, s403=AUTHENTICATED_403, s404="No such page (?page=)"
                ),
            },
        )
        def get(self: GenericAPIView, request: Request) -> Response:
            query = api.list_query_serializer(
                data=request.query_params, context={"request": request}
            )
            query.is_valid(raise_exception=True)
            if query.validated_data["trashed"]:
                items = api.select_trash(owner=request.user)
            else:
                items = api.select_list(
                    owner=request.user, **api.list_filters(query.validated_data)
                )
                # lightnote.rest.pagination reads it: a capped count may be remembered.
                self.live_count_scope = api.list_count_scope(  # type: ignore[attr-defined]
                    query.validated_data
                )
            page = self.paginate_queryset(items)
            data = api.serializer(page, many=True, context={"request": request}).data
            return self.get_paginated_response(data)

        @extend_schema(
            request=api.create_serializer,
            parameters=[IDEMPOTENCY_KEY_PARAMETER, ADMIN_CONTEXT_PARAMETER],
            responses={
                201: api.serializer,
                **error_responses(
                    400, 401, 403, 409, 415, 422, 503, s403=WRITE_403, **IDEMPOTENCY_ERRORS
                ),
            },
        )
        def post(self: GenericAPIView, request: Request) -> Response:
            return idempotent_create(
                request,
                create=lambda key: api.post_response(request=request, idempotency_key=key),
                existing=lambda item: api.existing_response(request=request, item=item),
                find=lambda key: api.select_by_idempotency_key(owner=request.user, key=key),
                forget=lambda item, key: api.forget_idempotency_key(
                    owner=request.user, key=key, **{api.id_kwarg: item.pk}
                ),
            )

        return self._view("List", api.list_description, {"get": get, "post": post})

    def _detail_view(self) -> type[GenericAPIView]:
        api = self
        item_id = path_uuid(
            api.id_kwarg, f"The {api.noun}'s id (another user's {api.noun} is a 404)"
        )
        conflict = f"{api.noun.upper()}_VERSION_CONFLICT"

        @extend_schema(
            parameters=[item_id, ADMIN_CONTEXT_PARAMETER],
            responses={
                200: api.serializer,
                **error_responses(401, 403, 404, s403=AUTHENTICATED_403),
            },
        )
        def get(self: GenericAPIView, request: Request, **kwargs: str) -> Response:
            item = api.select_one(owner=request.user, **kwargs)
            return Response(api._data(request, item))

        @extend_schema(
            request=api.update_serializer,
            parameters=[item_id, ADMIN_CONTEXT_PARAMETER],
            responses={
                200: api.serializer,
                **error_responses(
                    400,
                    401,
                    403,
                    404,
                    409,
                    415,
                    s403=WRITE_403,
                    s409=f"{conflict}: the {api.noun} is no longer at `version`",
                ),
            },
        )
        def patch(self: GenericAPIView, request: Request, **kwargs: str) -> Response:
            serializer = api.update_serializer(data=request.data, context={"request": request})
            serializer.is_valid(raise_exception=True)
            changes = dict(serializer.validated_data)
            version = changes.pop("version")
            item = api.update(
                owner=request.user,
                expected_version=version,
                **kwargs,
                **changes,
                channel=CHANNEL_API,
            )
            return Response(api._data(request, item))

        @extend_schema(
            parameters=[item_id, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
            responses={
                204: OpenApiResponse(description="Deleted"),
                **error_responses(
                    400,
                    401,
                    403,
                    404,
                    409,
                    s403=WRITE_403,
                    s409=f"{conflict}: ?version= was given and the {api.noun} has moved on",
                ),
            },
        )
        def delete(self: GenericAPIView, request: Request, **kwargs: str) -> Response:
            refuse_body_fields(request)
            api.delete(
                owner=request.user,
                expected_version=api._version(request),
                **kwargs,
                channel=CHANNEL_API,
            )
            return Response(status=204)

        doc = f"One of the requesting user's {api.plural}: read, change (with its version), delete."
        return self._view("Detail", doc, {"get": get, "patch": patch, "delete": delete})

    def _restore_view(self) -> type[GenericAPIView]:
        api = self
        item_id = path_uuid(
            api.id_kwarg, f"The {api.noun}'s id (another user's {api.noun} is a 404)"
        )
        noun = api.noun.upper()

        @extend_schema(
            request=None,
            parameters=[item_id, VersionQuerySerializer, ADMIN_CONTEXT_PARAMETER],
            responses={
                200: api.serializer,
                **error_responses(
                    400,
                    401,
                    403,
                    404,
                    409,
                    s403=WRITE_403,
                    s404=f"{noun}_NOT_FOUND: no such {api.noun} in the trash (a live one included)",
                    s409=f"{noun}_VERSION_CONFLICT: ?version= was given and the {api.noun} has "
                    "moved on",
                ),
            },
        )
        def post(self: GenericAPIView, request: Request, **kwargs: str) -> Response:
            refuse_body_fields(request)
            item = api.restore(
                owner=request.user,
                expected_version=api._version(request),
                **kwargs,
                channel=CHANNEL_API,
            )
            return Response(api._data(request, item))

        doc = f"Take one of the requesting user's deleted {api.plural} out of the trash."
        return self._view("Restore", doc, {"post": post})
