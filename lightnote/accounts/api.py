"""The account API for mobile clients: register, and ask for a password-reset mail."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lightnote.accounts.email_verification import send_verification
from lightnote.accounts.password_reset import request_reset
from lightnote.accounts.signup import account_register
from lightnote.accounts.throttle import limit_by_address
from lightnote.audit import CHANNEL_API
from lightnote.errors import LightNoteError
from lightnote.rest.openapi import error_responses
from lightnote.rest.serializers import StrictSerializer
from lightnote.texts.i18n import request_locale


class RegisterSerializer(StrictSerializer):
    # Blank and weak values pass here: the service reports every field's problem at once.
    username = serializers.CharField(max_length=300, allow_blank=True)
    email = serializers.CharField(max_length=300, allow_blank=True)
    password = serializers.CharField(max_length=512, allow_blank=True, trim_whitespace=False)


class RegisteredSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class PasswordResetSerializer(StrictSerializer):
    email = serializers.EmailField(max_length=254)


class RegisterView(APIView):
    """Create an account; its email verification link is mailed at once."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=RegisterSerializer,
        responses={
            201: RegisteredSerializer,
            **error_responses(
                400,
                403,
                415,
                429,
                s400="VALIDATION_ERROR (fields: a taken or malformed username, a bad address, "
                "a weak password)",
                s403="SIGNUP_CLOSED (LIGHTNOTE_SIGNUP=closed)",
                s429="RATE_LIMITED: too many sign-ups from this address",
            ),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = RegisterSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        locale = request_locale(request)
        limit_by_address(request._request, "signup")
        user = account_register(**serializer.validated_data, locale=locale, channel=CHANNEL_API)
        send_verification(user=user, locale=locale, request=request._request)
        return Response({"id": user.pk, "username": user.username}, status=201)


class PasswordResetView(APIView):
    """Mail a password-reset link to the accounts at an address (202 either way)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=PasswordResetSerializer,
        responses={
            202: None,
            **error_responses(
                400,
                415,
                429,
                s400="VALIDATION_ERROR (not an email address)",
                s429="RATE_LIMITED: too many reset requests from this address",
            ),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = PasswordResetSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        if not request_reset(request._request, serializer.validated_data["email"]):
            raise LightNoteError("VALIDATION_ERROR")
        return Response(status=202)
