"""Conversations and their messages: open, list, read, rename, delete; send, read history.

Thin views over ``agent.conversation.sessions`` (the one place that finds, lists, titles, renames
and
soft-deletes a session) and ``agent.conversation.turn.handle_message`` (one turn). A read is of
the subject's conversation (inside an admin context also the staff member's own one bound
to it); a write only of the caller's own; anything else is 404 ``SESSION_NOT_FOUND``.
History shows each card's CURRENT state and its preview in the request's language, never
a token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agent.api.base import SESSION_404, owned_session, validated
from agent.api.examples import MESSAGE_200
from agent.api.schemas import (
    TAG_HISTORY,
    TAG_MESSAGES,
    TAG_SESSIONS,
    HistoryMessageSerializer,
    SessionSummarySerializer,
)
from agent.cards import history as lifecycle
from agent.cards.changes import history_changes
from agent.cards.previews import preview_in
from agent.choices import store as choice_store
from agent.conversation import sessions, streaming
from agent.conversation import turn as conversation
from agent.guard.provenance import issued_provenance
from agent.models import MESSAGE_MAX, TITLE_MAX, AgentSession, Message
from lightnote.impersonation.context import actor_context
from lightnote.rest.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    WRITE_403,
    documented_errors,
    error_responses,
    path_uuid,
)
from lightnote.rest.pagination import Pagination
from lightnote.rest.serializers import StrictSerializer, refuse_body_fields
from lightnote.texts.i18n import request_locale

SESSION_PARAMETER = path_uuid("session_id", "The conversation's id")


class EmptySerializer(StrictSerializer):
    """An empty JSON object."""


class SessionSerializer(serializers.Serializer):
    id = serializers.UUIDField()


class SessionRenameSerializer(StrictSerializer):
    title = serializers.CharField(max_length=TITLE_MAX, trim_whitespace=True)


class MessageRequestSerializer(StrictSerializer):
    text = serializers.CharField(max_length=MESSAGE_MAX, trim_whitespace=True)


def _readable_session(request: Request, session_id: Any) -> AgentSession:
    """The subject's conversation, or inside an admin context the staff member's own
    conversation bound to it; anything else 404."""
    return sessions.session_readable(session_id=session_id, actor=actor_context(request))


def _session_body(session: AgentSession, request: Request) -> dict[str, Any]:
    zone = actor_context(request).subject.zone
    return {
        "id": str(session.id),
        "title": session.title,
        "created_at": session.created_at.astimezone(zone).isoformat(),
        "updated_at": session.updated_at.astimezone(zone).isoformat(),
    }


def _message_body(
    message: Message,
    *,
    locale: str,
    zone: Any,
    now: Any,
    choices: dict[Any, list[Any]] | None = None,
    subject: Any = None,
) -> dict[str, Any]:
    """Return one history message: its stored text and its cards' current states.

    Each card's preview is rendered again in the request's language from its stored
    prepared args (``agent.cards.previews``); the text, facts and notices are as stored.
    """
    payload = message.payload or {}
    body: dict[str, Any] = {
        "id": str(message.id),
        "role": message.role,
        "text": message.text,
        "created_at": message.created_at.astimezone(zone).isoformat(),
        "facts": payload.get("facts") or [],
        "notices": payload.get("notices") or [],
        "cards": [
            _with_provenance(
                {
                    **lifecycle.history_card(row, locale=locale, zone=zone, now=now),
                    "preview": preview_in(row, locale=locale, zone=zone, subject=subject),
                },
                payload,
                locale,
            )
            for row in message.cards.all()
        ],
        "choices": [
            choice_store.history_choice(row, zone=zone, now=now)
            for row in (choices or {}).get(message.id, [])
        ],
    }
    if payload.get("card_id"):
        body["card_id"] = payload["card_id"]
    return body


def _with_provenance(card: dict[str, Any], payload: dict[str, Any], locale: str) -> dict[str, Any]:
    card["provenance"] = issued_provenance(card, payload, locale)
    return card


class SessionsView(APIView):
    """Open a conversation, or list the caller's conversations.

    Opening one is allowed in an admin read-only context: the conversation is then the staff
    member's own, bound to the context (never the subject's); the agent there reads the
    subject's data and answers write requests with an ADMIN_READONLY notice instead of a card.
    The list shows the subject's conversations (a context's own are never listed).
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=[TAG_SESSIONS],
        summary="Open a conversation",
        request=EmptySerializer,
        responses={201: SessionSerializer, **error_responses(400, 401, 403, 415)},
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request) -> Response:
        validated(EmptySerializer, request)
        session = sessions.session_open_for(actor=actor_context(request))
        return Response({"id": str(session.id)}, status=201)

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="List conversations, the latest activity first",
        description="Paginated (`?page=`, `?page_size=`). Deleted conversations are not listed.",
        responses={200: SessionSummarySerializer(many=True), **error_responses(400, 401, 403, 404)},
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def get(self, request: Request) -> Response:
        paginator = Pagination()
        queryset = sessions.session_list(owner=actor_context(request).subject)
        page = paginator.paginate_queryset(queryset, request, view=self) or []
        return paginator.get_paginated_response(
            [_session_body(session, request) for session in page]
        )

    pagination_class = Pagination


class SessionDetailView(APIView):
    """One conversation: read, rename, delete (soft)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="Read a conversation's title and times",
        responses={
            200: SessionSummarySerializer,
            **documented_errors((401, 403, 404), codes=SESSION_404),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def get(self, request: Request, session_id: str) -> Response:
        return Response(_session_body(_readable_session(request, session_id), request))

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="Rename a conversation",
        request=SessionRenameSerializer,
        responses={
            200: SessionSummarySerializer,
            **documented_errors(
                (400, 401, 403, 404, 415), codes=SESSION_404, descriptions={"s403": WRITE_403}
            ),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def patch(self, request: Request, session_id: str) -> Response:
        payload = validated(SessionRenameSerializer, request)
        session = owned_session(request, session_id)
        sessions.session_rename(session=session, title=payload["title"])
        return Response(_session_body(session, request))

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="Delete a conversation (soft)",
        description="Its ready cards are voided: their tokens then answer 410 "
        "CONFIRMATION_EXPIRED. Afterwards the conversation answers 404 everywhere (its "
        "messages, confirming, the final reply). Receipts and the audit trail are kept.",
        request=None,
        responses={
            204: OpenApiResponse(description="Deleted"),
            **documented_errors(
                (401, 403, 404), codes=SESSION_404, descriptions={"s403": WRITE_403}
            ),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def delete(self, request: Request, session_id: str) -> Response:
        refuse_body_fields(request)
        session = owned_session(request, session_id)
        sessions.session_delete(session=session, actor=actor_context(request))
        return Response(status=204)


class MessagesView(APIView):
    """Send one message; or read the conversation's messages with their cards' states."""

    # Inside an admin context a message may go only to the context's own conversation (the
    # gate in authentication refuses the subject's with 403 ADMIN_READONLY); there, writes
    # are refused per proposal, as notices.
    permission_classes = [IsAuthenticated]
    pagination_class = Pagination

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="Read a conversation's messages, oldest first",
        description="Paginated (`?page=`, `?page_size=`). Each assistant message carries its "
        "cards with their CURRENT state from the database (`ready` until `expires_at`, "
        "`expired`, `rejected`, `settled` with the outcome and receipt, `voided`), never a "
        "token. A final reply (after a confirm) is a message of its own naming its `card_id`.",
        responses={
            200: HistoryMessageSerializer(many=True),
            **documented_errors((400, 401, 403, 404), codes=SESSION_404),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = _readable_session(request, session_id)
        paginator = Pagination()
        page = (
            paginator.paginate_queryset(
                sessions.session_messages(session=session), request, view=self
            )
            or []
        )
        locale = request_locale(request)
        subject = actor_context(request).subject
        zone = subject.zone
        now = timezone.now()
        # One more query only when a message on the page offered a choice.
        choices = choice_store.choices_by_message(
            [message.id for message in page if (message.payload or {}).get("choices")]
        )
        changes = history_changes(page, session=session, locale=locale, now=now)
        bodies = []
        for message in page:
            body = _message_body(
                message, locale=locale, zone=zone, now=now, choices=choices, subject=subject
            )
            if message.id in changes:
                body["changes"] = changes[message.id]
            bodies.append(body)
        return paginator.get_paginated_response(bodies)

    @extend_schema(
        tags=[TAG_MESSAGES],
        summary="Send a message; get the reply, facts, cards and notices",
        description="A write the assistant proposes comes back as a card: show its preview, "
        "then post its `token` to confirm or reject. Nothing is written before that. "
        "With `Accept: text/event-stream` the turn streams as server-sent events: `delta` "
        "(guarded reply text, whole sentences), `card`, `choice`, `notice`, `fact`, then one "
        "`done` carrying this same body; an error before the first event is this JSON error.",
        request=MessageRequestSerializer,
        responses={
            200: MESSAGE_200,
            **documented_errors(
                (400, 401, 403, 404, 415, 429, 503),
                codes={**SESSION_404, 503: ("CONFIRMATION_STORE_UNAVAILABLE",)},
            ),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request, session_id: str) -> Response | StreamingHttpResponse:
        payload = validated(MessageRequestSerializer, request)
        actor = actor_context(request)
        if actor.admin_context is not None:
            # Inside an admin context: only the staff member's conversation bound to it.
            session = sessions.session_writable(session_id=session_id, actor=actor)
            recent = None
        else:
            # The session and the history the planner reads, in one query.
            session, recent = sessions.session_get_with_recent(
                session_id=session_id, owner=actor.subject, limit=conversation.HISTORY_TURNS
            )
        locale = request_locale(request)

        def turn(on_sentence: Callable[[str], None] | None = None) -> dict[str, Any]:
            return conversation.handle_message(
                request=request,
                actor=actor,
                session=session,
                text=payload["text"],
                locale=locale,
                recent=recent,
                on_sentence=on_sentence,
            )

        if not streaming.wants_stream(request):
            return Response(turn())
        # The same turn, its reply a guarded sentence at a time (docs/api.md).
        stream = streaming.TurnStream(turn)
        first = stream.start()  # a turn that fails before any event answers as JSON
        return streaming.event_stream(streaming.message_events(stream, first, locale))

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        """Answer a stream's request with JSON until the stream begins (its errors)."""
        return super().perform_content_negotiation(
            request, force=force or streaming.wants_stream(request)
        )
