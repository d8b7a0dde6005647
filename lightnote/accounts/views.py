"""Account endpoints: token login and the current user."""

from __future__ import annotations

import sys
from typing import Any, cast

from django.contrib.auth import authenticate
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lightnote.accounts import login_throttle
from lightnote.accounts.services import user_update_preferences
from lightnote.audit import CHANNEL_API
from lightnote.errors import LightNoteError
from lightnote.models import LANGUAGE_CHOICES, User, validate_time_zone
from lightnote.rest import http_guards
from lightnote.rest.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    AUTHENTICATED_403,
    WRITE_403,
    error_responses,
)
from lightnote.rest.serializers import StrictSerializer
from lightnote.texts.i18n import translate


class TokenLoginSerializer(StrictSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=512, trim_whitespace=False)


class AuthTokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class TokenView(APIView):
    """Exchange a username and password for an API token."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=TokenLoginSerializer,
        responses={
            200: AuthTokenSerializer,
            **error_responses(
                400,
                415,
                429,
                s400="INVALID_CREDENTIALS or VALIDATION_ERROR",
                s429=(
                    "RATE_LIMITED: too many failed logins for this username from this "
                    "address (LIGHTNOTE_LOGIN_FAILURE_LIMIT within LIGHTNOTE_LOGIN_COOLOFF); "
                    "every attempt is refused until Retry-After has passed"
                ),
            ),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = TokenLoginSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        # With the request, so the failed-login lockout (lightnote.accounts.login_throttle) sees it.
        user = authenticate(request._request, **serializer.validated_data)
        if getattr(request._request, "axes_locked_out", False):
            raise login_throttle.lockout_error()
        if user is None or not user.is_active:
            raise LightNoteError("INVALID_CREDENTIALS", status=400)
        login_throttle.reset_after_success(request._request, serializer.validated_data["username"])
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "time_zone", "language"]
        read_only_fields = ["id", "username"]


class MeUpdateSerializer(StrictSerializer):
    time_zone = serializers.CharField(
        max_length=64, required=False, validators=[validate_time_zone]
    )
    language = serializers.ChoiceField(choices=LANGUAGE_CHOICES, required=False)


class MeView(APIView):
    """The current user's profile: time zone and language."""

    @extend_schema(
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={200: MeSerializer, **error_responses(401, 403, s403=AUTHENTICATED_403)},
    )
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)

    @extend_schema(
        request=MeUpdateSerializer,
        parameters=[ADMIN_CONTEXT_PARAMETER],
        responses={
            200: MeSerializer,
            **error_responses(400, 401, 403, 415, s403=WRITE_403),
        },
    )
    def patch(self, request: Request) -> Response:
        serializer = MeUpdateSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        user = user_update_preferences(
            user=cast(User, request.user), **serializer.validated_data, channel=CHANNEL_API
        )
        return Response(MeSerializer(user).data)


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """A 500 as the one error body (the details are in the server log, not the response).

    Called while Django handles the exception: a lost database (raised in a middleware, say
    a session lookup) is a 503 ``DATABASE_UNAVAILABLE`` instead.
    """
    failure = sys.exc_info()[1]
    if http_guards.is_database_lost(failure):
        return http_guards.database_unavailable(request)
    if http_guards.is_store_lost(failure):
        return http_guards.store_unavailable(request)
    if isinstance(failure, LightNoteError):
        return http_guards.known_failure(request, failure)
    locale = http_guards.safe_locale(request)
    return JsonResponse(
        {"error": {"code": "INTERNAL_ERROR", "message": translate("INTERNAL_ERROR", locale)}},
        status=500,
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """A 404 under ``/api/`` is the one error body too (e.g. a malformed id in a path)."""
    if not request.path.startswith("/api/"):
        return defaults.page_not_found(request, exception)
    return http_guards.error_answer(request, "NOT_FOUND", 404)
