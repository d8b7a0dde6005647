"""The notifications and calendar feed API: thin views over ``reminders.services``."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lightnote.audit import CHANNEL_API
from lightnote.rest.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    AUTHENTICATED_403,
    WRITE_403,
    documented_errors,
    error_responses,
    path_uuid,
)
from reminders import selectors, services
from reminders.models import Notification
from reminders.serializers import (
    CalendarFeedSerializer,
    EmptyBodySerializer,
    NotificationSerializer,
    ReadAllSerializer,
)

NOTIFICATION_ID = path_uuid(
    "notification_id", "The notification's id (another user's notification is a 404)"
)


def _checked_empty_body(request: Request) -> None:
    body = EmptyBodySerializer(data=request.data or {}, context={"request": request})
    body.is_valid(raise_exception=True)


class NotificationListView(GenericAPIView):
    """The requesting user's notifications, newest first."""

    serializer_class = NotificationSerializer
    queryset = Notification.objects.none()  # for schema introspection; reads use selectors

    @extend_schema(
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            200: NotificationSerializer(many=True),
            **error_responses(
                400, 401, 403, 404, s403=AUTHENTICATED_403, s404="No such page (?page=)"
            ),
        },
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(selectors.notification_list(owner=request.user))
        data = NotificationSerializer(page, many=True, context={"request": request}).data
        return self.get_paginated_response(data)


class NotificationReadView(APIView):
    """Mark one of the requesting user's notifications read."""

    @extend_schema(
        request=EmptyBodySerializer,
        parameters=[NOTIFICATION_ID, ADMIN_CONTEXT_PARAMETER],
        responses={
            200: NotificationSerializer,
            **documented_errors(
                (400, 401, 403, 404, 415),
                codes={404: ("NOTIFICATION_NOT_FOUND",)},
                descriptions={"s403": WRITE_403},
            ),
        },
    )
    def post(self, request: Request, notification_id: str) -> Response:
        _checked_empty_body(request)
        notification = services.notification_mark_read(
            owner=request.user, notification_id=notification_id
        )
        return Response(NotificationSerializer(notification, context={"request": request}).data)


class NotificationReadAllView(APIView):
    """Mark every notification of the requesting user read."""

    @extend_schema(
        request=EmptyBodySerializer,
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            200: ReadAllSerializer,
            **error_responses(400, 401, 403, 415, s403=WRITE_403),
        },
    )
    def post(self, request: Request) -> Response:
        _checked_empty_body(request)
        read = services.notification_mark_all_read(owner=request.user)
        unread = selectors.notification_unread_count(owner=request.user)
        return Response({"read": read, "unread_count": unread})


def feed_url(secret: str) -> str:
    """The public address of a feed (``LIGHTNOTE_PUBLIC_URL``: calendars fetch it from afar)."""
    path = reverse("calendar-feed-ics", kwargs={"secret": secret})
    return f"{settings.LIGHTNOTE_PUBLIC_URL}{path}"


class CalendarFeedView(APIView):
    """The requesting user's private iCalendar feed: make a new URL, or revoke it."""

    @extend_schema(
        request=EmptyBodySerializer,
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            201: CalendarFeedSerializer,
            **error_responses(400, 401, 403, 415, s403=WRITE_403),
        },
    )
    def post(self, request: Request) -> Response:
        _checked_empty_body(request)
        secret = services.calendar_feed_create(owner=request.user, channel=CHANNEL_API)
        return Response({"url": feed_url(secret)}, status=201)

    @extend_schema(
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            204: OpenApiResponse(description="Revoked (or there was none): the URL answers 404"),
            **error_responses(401, 403, s403=WRITE_403),
        },
    )
    def delete(self, request: Request) -> Response:
        services.calendar_feed_revoke(owner=request.user, channel=CHANNEL_API)
        return Response(status=204)
