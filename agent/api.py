"""Thin HTTP layer of the agent: sessions, messages, confirmations, final replies."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import serializers
from rest_framework.exceptions import APIException
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agent import continuations, conversation, execution
from agent.models import AgentSession
from lightnote.context import actor_context
from lightnote.errors import LightNoteError
from lightnote.i18n import define_messages, request_locale
from lightnote.openapi import ADMIN_CONTEXT_PARAMETER, error_responses
from lightnote.serializers import StrictSerializer

MESSAGE_MAX = 4000

define_messages({"SESSION_NOT_FOUND": ("会话不存在。", "The conversation does not exist.")})


class EmptySerializer(StrictSerializer):
    """An empty JSON object."""


class SessionSerializer(serializers.Serializer):
    id = serializers.UUIDField()


class MessageRequestSerializer(StrictSerializer):
    text = serializers.CharField(max_length=MESSAGE_MAX, trim_whitespace=True)


class TokenRequestSerializer(StrictSerializer):
    token = serializers.CharField(max_length=512)
    session_id = serializers.UUIDField()


_Preview = inline_serializer(
    name="CardPreview",
    fields={
        "title": serializers.CharField(),
        "target": serializers.CharField(),
        "impact": serializers.CharField(),
        "details": serializers.ListField(child=serializers.DictField()),
    },
)
_Card = inline_serializer(
    name="Card",
    fields={
        "token": serializers.CharField(),
        "continuation_token": serializers.CharField(),
        "capability": serializers.CharField(),
        "tool": serializers.CharField(),
        "risk": serializers.ChoiceField(choices=["low", "medium", "high"]),
        "state": serializers.ChoiceField(choices=["ready"]),
        "expires_at": serializers.DateTimeField(),
        "args": serializers.DictField(),
        "preview": _Preview,
    },
)
_MessageResponse = inline_serializer(
    name="MessageResponse",
    fields={
        "message_id": serializers.UUIDField(),
        "reply": serializers.CharField(),
        "facts": serializers.ListField(child=serializers.DictField()),
        "cards": serializers.ListField(child=_Card),
        "notices": serializers.ListField(child=serializers.DictField()),
    },
)
_Receipt = inline_serializer(
    name="Receipt",
    fields={
        "action_id": serializers.UUIDField(),
        "tool": serializers.CharField(),
        "capability": serializers.CharField(),
        "status": serializers.ChoiceField(choices=["succeeded"]),
        "summary": serializers.CharField(),
        "resource": serializers.DictField(),
        "settled_at": serializers.DateTimeField(),
    },
)
_Outcome = inline_serializer(
    name="Outcome",
    fields={
        "ok": serializers.BooleanField(allow_null=True),
        "receipt": _Receipt,
        "error": serializers.DictField(required=False),
    },
)
_StateResponse = inline_serializer(
    name="ConfirmationState",
    fields={
        "state": serializers.ChoiceField(choices=["ready", "running", "settled", "rejected"]),
        "outcome": _Outcome,
    },
)
_ReplyResponse = inline_serializer(
    name="ContinuationReply",
    fields={
        "state": serializers.ChoiceField(choices=["settled", "running"]),
        "reply": serializers.CharField(required=False),
    },
)


def _validated(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _owned_session(request: Request, session_id: Any) -> AgentSession:
    """Return the caller's session; another user's session is a 404 (never revealed)."""
    owner = actor_context(request).subject
    session = AgentSession.objects.filter(id=session_id, owner=owner).first()
    if session is None:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    return session


class SessionsView(APIView):
    """Open a conversation owned by the caller.

    Allowed in an admin read-only context (a conversation is not user data): there, the
    agent answers write requests with an ADMIN_READONLY notice instead of a card.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=EmptySerializer,
        responses={201: SessionSerializer, **error_responses(400, 401, 403, 415)},
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request) -> Response:
        _validated(EmptySerializer, request)
        session = AgentSession.objects.create(owner=actor_context(request).subject)
        return Response({"id": str(session.id)}, status=201)


class MessagesView(APIView):
    """Send one message; get the guarded reply, read facts, cards and notices."""

    permission_classes = [IsAuthenticated]  # writes are refused per proposal, as notices

    @extend_schema(
        request=MessageRequestSerializer,
        responses={200: _MessageResponse, **error_responses(400, 401, 403, 404, 415, 429, 503)},
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request, session_id: str) -> Response:
        payload = _validated(MessageRequestSerializer, request)
        actor = actor_context(request)
        session = _owned_session(request, session_id)
        body = conversation.handle_message(
            request=request,
            actor=actor,
            session=session,
            text=payload["text"],
            locale=request_locale(request),
        )
        return Response(body)


def _identify_for_locale(request: Request) -> None:
    """Authenticate quietly so a 400 answers in the user's language; a failure changes nothing.

    The 400 still answers first (API.md's order): this only chooses the message's language.
    """
    with contextlib.suppress(APIException, LightNoteError):
        request.user  # noqa: B018 - the property runs the authenticators


class _TokenEndpoint(APIView):
    """Shared shape of confirm / reject / status / reply: body first, then everything else.

    API.md fixes the order: body shape (400) -> authentication (401) -> ...; so the body is
    validated in ``initial`` before DRF authenticates, and the admin read-only check runs in
    the operation (after authentication).
    """

    permission_classes = [IsAuthenticated]
    operation: Callable[..., execution.Answer]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if request.method == "POST":  # any other method is a plain 405 from DRF's dispatch
            try:
                self.payload = _validated(TokenRequestSerializer, request)
            except APIException:
                _identify_for_locale(request)
                raise
        super().initial(request, *args, **kwargs)

    def post(self, request: Request) -> Response:
        answer = type(self).operation(
            request=request,
            actor=actor_context(request),
            token=self.payload["token"],
            session_id=self.payload["session_id"],
            locale=request_locale(request),
        )
        return Response(answer.body, status=answer.status, headers=answer.headers)


def _token_endpoint_schema(responses: dict[int, Any]) -> Callable[[type], type]:
    """Document one token endpoint's POST: the shared body, the admin header, its statuses."""
    return extend_schema_view(
        post=extend_schema(
            request=TokenRequestSerializer,
            responses=responses,
            parameters=[ADMIN_CONTEXT_PARAMETER],
        )
    )


@_token_endpoint_schema(
    {
        200: _StateResponse,
        202: _StateResponse,
        **error_responses(400, 401, 403, 409, 410, 415, 429, 503),
    }
)
class ConfirmView(_TokenEndpoint):
    """Confirm a card: exactly one request executes it; the others learn what happened."""

    operation = staticmethod(execution.confirm)


@_token_endpoint_schema({200: _StateResponse, **error_responses(400, 401, 403, 409, 410, 415, 503)})
class RejectView(_TokenEndpoint):
    """Reject a ready card."""

    operation = staticmethod(execution.reject)


@_token_endpoint_schema({200: _StateResponse, **error_responses(400, 401, 403, 409, 410, 415, 503)})
class StatusView(_TokenEndpoint):
    """A card's state, and its outcome once settled."""

    operation = staticmethod(execution.status)


@_token_endpoint_schema(
    {
        200: _ReplyResponse,
        202: _ReplyResponse,
        **error_responses(400, 401, 403, 409, 410, 415, 429, 503),
    }
)
class ContinuationReplyView(_TokenEndpoint):
    """The final reply after a succeeded action (generated once, with no write tools)."""

    operation = staticmethod(continuations.reply)
