"""Thin HTTP layer of the agent: sessions, messages, confirmations, final replies."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.exceptions import APIException
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agent import (
    card_edits,
    card_undo,
    choice_store,
    choices,
    continuations,
    conversation,
    derived_cards,
    execution,
    lifecycle,
    sessions,
)
from agent.api_examples import MESSAGE_200, REPLY_200, confirm_200, reply_202, state_202
from agent.api_schemas import (
    TAG_CONFIRM,
    TAG_HISTORY,
    TAG_MESSAGES,
    TAG_REPLY,
    TAG_SESSIONS,
    CardResponseSerializer,
    ChooseRequestSerializer,
    ChooseResponseSerializer,
    ConfirmationStateSerializer,
    EditRequestSchema,
    HistoryMessageSerializer,
    ReissueResponseSerializer,
    SessionSummarySerializer,
)
from agent.guard.provenance import issued_provenance
from agent.models import MESSAGE_MAX, TITLE_MAX, AgentSession, Message
from agent.previews import preview_in
from lightnote.authentication import TokenQueryExtension
from lightnote.context import actor_context
from lightnote.errors import LightNoteError
from lightnote.i18n import request_locale
from lightnote.openapi import (
    ADMIN_CONTEXT_PARAMETER,
    WRITE_403,
    documented_errors,
    error_responses,
    path_uuid,
)
from lightnote.pagination import Pagination
from lightnote.readonly import gate_suspended
from lightnote.serializers import StrictSerializer

_404 = {404: ("SESSION_NOT_FOUND",)}
SESSION_PARAMETER = path_uuid("session_id", "The conversation's id")


class EmptySerializer(StrictSerializer):
    """An empty JSON object."""


class SessionSerializer(serializers.Serializer):
    id = serializers.UUIDField()


class ReissueRequestSerializer(StrictSerializer):
    card_id = serializers.UUIDField()
    session_id = serializers.UUIDField()


class SessionRenameSerializer(StrictSerializer):
    title = serializers.CharField(max_length=TITLE_MAX, trim_whitespace=True)


class MessageRequestSerializer(StrictSerializer):
    text = serializers.CharField(max_length=MESSAGE_MAX, trim_whitespace=True)


class TokenRequestSerializer(StrictSerializer):
    token = serializers.CharField(max_length=512)
    session_id = serializers.UUIDField()


class UndoRequestSerializer(StrictSerializer):
    card_id = serializers.UUIDField()
    session_id = serializers.UUIDField()


class EditRequestSerializer(TokenRequestSerializer):
    args = serializers.DictField(allow_empty=False)


class ChooseBodySerializer(TokenRequestSerializer):
    candidate_id = serializers.UUIDField()


def _validated(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    serializer = serializer_class(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _owned_session(request: Request, session_id: Any) -> AgentSession:
    """Return the caller's live session; another user's or a deleted one is a 404."""
    return sessions.session_get(session_id=session_id, owner=actor_context(request).subject)


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
    prepared args (``agent.previews``); the text, facts and notices are as stored.
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
        _validated(EmptySerializer, request)
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
        responses={200: SessionSummarySerializer, **documented_errors((401, 403, 404), codes=_404)},
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
                (400, 401, 403, 404, 415), codes=_404, descriptions={"s403": WRITE_403}
            ),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def patch(self, request: Request, session_id: str) -> Response:
        payload = _validated(SessionRenameSerializer, request)
        session = _owned_session(request, session_id)
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
            **documented_errors((401, 403, 404), codes=_404, descriptions={"s403": WRITE_403}),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def delete(self, request: Request, session_id: str) -> Response:
        session = _owned_session(request, session_id)
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
            **documented_errors((400, 401, 403, 404), codes=_404),
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
        return paginator.get_paginated_response(
            [
                _message_body(
                    message, locale=locale, zone=zone, now=now, choices=choices, subject=subject
                )
                for message in page
            ]
        )

    @extend_schema(
        tags=[TAG_MESSAGES],
        summary="Send a message; get the reply, facts, cards and notices",
        description="A write the assistant proposes comes back as a card: show its preview, "
        "then post its `token` to confirm or reject. Nothing is written before that.",
        request=MessageRequestSerializer,
        responses={
            200: MESSAGE_200,
            **documented_errors(
                (400, 401, 403, 404, 415, 429, 503),
                codes={**_404, 503: ("CONFIRMATION_STORE_UNAVAILABLE",)},
            ),
        },
        parameters=[SESSION_PARAMETER, ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request, session_id: str) -> Response:
        payload = _validated(MessageRequestSerializer, request)
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
        body = conversation.handle_message(
            request=request,
            actor=actor,
            session=session,
            text=payload["text"],
            locale=request_locale(request),
            recent=recent,
        )
        return Response(body)


def _identify_for_locale(request: Request) -> None:
    """Authenticate quietly so a 400 answers in the user's language; a failure changes nothing.

    The 400 still answers first (docs/api.md's order): this only chooses the message's language,
    so the admin read-only gate does not run (nothing is refused or audited for a 400).
    """
    with contextlib.suppress(APIException, LightNoteError), gate_suspended():
        request.user  # noqa: B018 - the property runs the authenticators


class _BodyFirstView(APIView):
    """A POST endpoint whose body shape answers first: body (400) -> authentication (401) ->
    admin read-only (403, the gate in authentication) -> the operation's own checks.

    The body is validated in ``initial`` before DRF authenticates; ``self.payload`` holds it.
    """

    permission_classes = [IsAuthenticated]
    request_serializer: type[serializers.Serializer]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if request.method == "POST":  # any other method is a plain 405 from DRF's dispatch
            try:
                self.payload = _validated(self.request_serializer, request)
            except APIException:
                _identify_for_locale(request)
                raise
        super().initial(request, *args, **kwargs)


class _TokenEndpoint(_BodyFirstView):
    """Shared shape of confirm / reject / status / reply: body first, then everything else.

    docs/api.md fixes the order: body shape (400) -> authentication (401) -> admin read-only
    (403) -> ...; so the body is validated in ``initial`` before DRF authenticates, and the
    admin read-only gate runs in authentication.
    """

    operation: Callable[..., execution.Answer]
    request_serializer: type[serializers.Serializer] = TokenRequestSerializer

    def token_query_annotations(self) -> TokenQueryExtension | None:
        """Ask the token query whether the body's session is the token user's (one query
        for both; ``execution.session_access_for`` reads the answer)."""
        payload = getattr(self, "payload", None) or {}
        if "session_id" not in payload:
            return None
        return TokenQueryExtension(
            build=execution.session_check_annotation, value=payload["session_id"]
        )

    def post(self, request: Request) -> Response:
        answer = type(self).operation(
            request=request,
            actor=actor_context(request),
            token=self.payload["token"],
            session_id=self.payload["session_id"],
            locale=request_locale(request),
        )
        return Response(answer.body, status=answer.status, headers=answer.headers)


def _token_endpoint_schema(
    *, tag: str, summary: str, description: str, responses: dict[int, Any]
) -> Callable[[type], type]:
    """Document one token endpoint's POST: the shared body, the admin header, its statuses."""
    return extend_schema_view(
        post=extend_schema(
            tags=[tag],
            summary=summary,
            description=description,
            request=TokenRequestSerializer,
            responses=responses,
            parameters=[ADMIN_CONTEXT_PARAMETER],
        )
    )


_CARD_ERRORS = {
    403: ("CONFIRMATION_FORBIDDEN", "ADMIN_READONLY"),
    404: ("SESSION_NOT_FOUND",),
    410: ("CONFIRMATION_EXPIRED",),
    503: ("CONFIRMATION_STORE_UNAVAILABLE",),
}
_MISSES_429 = (
    "RATE_LIMITED (with Retry-After): this user presented more unknown or expired tokens "
    "than LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES allows in the window; answered instead of 410 for "
    "a further miss (a known token is answered as usual)"
)
_RUNNING = (
    "202 `running`: another request holds the card and is executing it. Do not confirm "
    "again blindly: poll `POST /api/v1/agent/confirmations/status/` with the same body, "
    "waiting the `Retry-After` seconds when the header is present (else about 1 s), until "
    "the state is `settled`. A repeat never executes twice."
)


@_token_endpoint_schema(
    tag=TAG_CONFIRM,
    summary="Confirm a card: execute it exactly once",
    description="Body: the card's `token` and its `session_id`. The first request claims and "
    "executes the card; 200 `settled` carries the outcome (`ok: true` with the receipt; "
    "`false` with the error; `null` when not verifiable yet: ask `status` later). "
    + _RUNNING
    + " After `ok: true`, fetch the final reply with the card's `continuation_token`.",
    responses={
        200: confirm_200(),
        202: state_202(_RUNNING),
        **documented_errors(
            (400, 401, 403, 404, 409, 410, 415, 429, 503),
            codes={**_CARD_ERRORS, 409: ("CONFIRMATION_REJECTED", "CONFIRMATION_INVALID")},
            descriptions={
                "s429": "RATE_LIMITED (with Retry-After): a new claim over "
                "LIGHTNOTE_RATE_LIMIT_CONFIRMS (a repeat is never refused), or " + _MISSES_429
            },
        ),
    },
)
class ConfirmView(_TokenEndpoint):
    """Confirm a card: exactly one request executes it; the others learn what happened."""

    operation = staticmethod(execution.confirm)


@_token_endpoint_schema(
    tag=TAG_CONFIRM,
    summary="Reject a ready card",
    description="Body: the card's `token` and its `session_id`. A running or settled card "
    "answers 409 CONFIRMATION_ALREADY_CLAIMED with its `state` beside `error`.",
    responses={
        200: ConfirmationStateSerializer,
        **documented_errors(
            (400, 401, 403, 404, 409, 410, 415, 429, 503),
            codes={**_CARD_ERRORS, 409: ("CONFIRMATION_ALREADY_CLAIMED",)},
            descriptions={"s429": _MISSES_429},
        ),
    },
)
class RejectView(_TokenEndpoint):
    """Reject a ready card."""

    operation = staticmethod(execution.reject)


@_token_endpoint_schema(
    tag=TAG_CONFIRM,
    summary="Read a card's state (poll it while `running`)",
    description="Body: the card's `token` and its `session_id`. Never executes. Use it to "
    "follow a 202 `running` confirm, or to resolve `ok: null`: it re-checks the receipt "
    "table and answers `ok: true` (a receipt exists) or, after the execution lease, "
    "`ok: false` ACTION_NOT_EXECUTED. Without a token (e.g. after a restart) read the card "
    "from the conversation's messages instead.",
    responses={
        200: confirm_200(),
        **documented_errors(
            (400, 401, 403, 404, 409, 410, 415, 429, 503),
            codes={**_CARD_ERRORS, 409: ("CONFIRMATION_INVALID",)},
            descriptions={"s429": _MISSES_429},
        ),
    },
)
class StatusView(_TokenEndpoint):
    """A card's state, and its outcome once settled."""

    operation = staticmethod(execution.status)


_REPLY_RUNNING = (
    "202 `running`: another request is generating the reply; poll this endpoint again after "
    "the `Retry-After` seconds (else about 1 s). A generation older than 60 s is abandoned "
    "and taken over."
)


@_token_endpoint_schema(
    tag=TAG_REPLY,
    summary="The final reply after a successful action",
    description="Body: the card's **`continuation_token`** (not its `token`) and the "
    "`session_id`. Generated once, with no write tool available; a repeat returns the same "
    "reply. 409 CONTINUATION_NOT_READY (`state: pending`): the action has no succeeded "
    "receipt (yet, or it failed). 503 CONTINUATION_GENERATION_FAILED: the model failed; "
    "retry. The outcome itself never depends on this reply: it is the confirm's receipt. "
    + _REPLY_RUNNING,
    responses={
        200: REPLY_200,
        202: reply_202(_REPLY_RUNNING),
        **documented_errors(
            (400, 401, 403, 404, 409, 410, 415, 429, 503),
            codes={
                403: ("CONTINUATION_FORBIDDEN", "ADMIN_READONLY"),
                404: ("SESSION_NOT_FOUND",),
                409: ("CONTINUATION_NOT_READY",),
                410: ("CONTINUATION_EXPIRED",),
                503: ("CONTINUATION_GENERATION_FAILED", "CONFIRMATION_STORE_UNAVAILABLE"),
            },
            descriptions={
                "s429": "RATE_LIMITED (with Retry-After): a new generation over "
                "LIGHTNOTE_RATE_LIMIT_CONFIRMS, or " + _MISSES_429
            },
        ),
    },
)
class ContinuationReplyView(_TokenEndpoint):
    """The final reply after a succeeded action (generated once, with no write tools)."""

    operation = staticmethod(continuations.reply)


class ReissueView(_BodyFirstView):
    """Ask again: a new card for a still-ready card whose token the client no longer has."""

    request_serializer = ReissueRequestSerializer

    @extend_schema(
        tags=[TAG_HISTORY],
        summary="Ask again: re-issue a ready card from history with a fresh token",
        description="Body: the history card's `card_id` and its `session_id`. History never "
        "returns tokens, so a client restoring a conversation (a reload, another device) "
        "gets a live card this way: the same prepared args and preview, a new `card_id` "
        "(the old one is its `parent_id`) and new tokens. The old card is voided first "
        "(its token then answers 410), so only one token is ever live. An expired card "
        "answers 410 CONFIRMATION_EXPIRED; a rejected, settled or voided one 409 "
        "CARD_NOT_READY with its `state`.",
        request=ReissueRequestSerializer,
        responses={
            200: ReissueResponseSerializer,
            **documented_errors(
                (400, 401, 403, 404, 409, 410, 415, 429, 503),
                codes={
                    404: ("SESSION_NOT_FOUND", "CARD_NOT_FOUND"),
                    409: ("CARD_NOT_READY",),
                    410: ("CONFIRMATION_EXPIRED",),
                    503: ("CONFIRMATION_STORE_UNAVAILABLE",),
                },
                descriptions={"s403": WRITE_403},
            ),
        },
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request) -> Response:
        payload = self.payload
        session = _owned_session(request, payload["session_id"])
        card = derived_cards.reissue_card(
            request=request,
            actor=actor_context(request),
            session=session,
            card_id=payload["card_id"],
            locale=request_locale(request),
        )
        return Response({"card": card})


_EDIT_ERRORS = {
    **_CARD_ERRORS,
    # Besides the protocol's codes, the tool's own (these are examples).
    400: ("VALIDATION_ERROR", "TOOL_ARGS_INVALID", "TODO_DUE_AT_INVALID", "TODO_UPDATE_NOOP"),
    404: ("SESSION_NOT_FOUND", "TODO_NOT_FOUND"),
    409: (
        "CONFIRMATION_ALREADY_CLAIMED",
        "CONFIRMATION_REJECTED",
        "CONFIRMATION_INVALID",
    ),
}


@extend_schema_view(
    post=extend_schema(
        tags=[TAG_CONFIRM],
        summary="Edit a ready card before confirming it",
        description="Body: the card's `token`, its `session_id` and `args`: the new values "
        "(title, description, content, tags, priority, due time in words or ISO; those the "
        "card's tool takes), merged over the card's. Checks run in confirm's order (400, 401, "
        "403 ADMIN_READONLY, 503, 410, 403 CONFIRMATION_FORBIDDEN, 409 CONFIRMATION_INVALID); "
        "then a running or settled card answers 409 CONFIRMATION_ALREADY_CLAIMED (with its "
        "`state`), a rejected one 409 CONFIRMATION_REJECTED. The merged args are prepared "
        "again through the same tool policy as a proposal (invalid: the tool's own error "
        "code), a new card is issued (its `parent_id` is the old card) and the old card is "
        "voided: its token answers 410 from then on, and it never executes. If a confirm of "
        "the old token won first, the edit answers 409 and issues nothing.",
        request=EditRequestSchema,
        responses={
            200: CardResponseSerializer,
            **documented_errors(
                (400, 401, 403, 404, 409, 410, 415, 429, 503),
                codes=_EDIT_ERRORS,
                descriptions={
                    "s429": "RATE_LIMITED (with Retry-After): the new card over "
                    "LIGHTNOTE_RATE_LIMIT_CARDS, or " + _MISSES_429
                },
            ),
        },
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
)
class EditView(_TokenEndpoint):
    """Edit a ready card: the new values prepared again, a new card, the old one voided."""

    request_serializer = EditRequestSerializer

    def post(self, request: Request) -> Response:
        card = card_edits.edit(
            request=request,
            actor=actor_context(request),
            token=self.payload["token"],
            session_id=self.payload["session_id"],
            edits=dict(self.payload["args"]),
            locale=request_locale(request),
        )
        return Response({"card": card})


class UndoView(_BodyFirstView):
    """Undo a succeeded card: an ordinary card for the compensating action."""

    request_serializer = UndoRequestSerializer

    @extend_schema(
        tags=[TAG_CONFIRM],
        summary="Undo a succeeded card: a card for the compensating action",
        description="Body: the succeeded card's `card_id` and its `session_id`. Within "
        "`LIGHTNOTE_UNDO_WINDOW` seconds of the settle, answers a new ready card (its "
        "`compensates_id` names the undone card) that, once confirmed like any card, takes "
        "the action back: a created todo goes to the trash, an update's previous values "
        "come back, a status change is reversed. Its execution is version-checked: if the "
        "item changed meanwhile it fails with the tool's VERSION_CONFLICT and nothing is "
        "overwritten. A card that did not succeed: 409 UNDO_NOT_SUCCEEDED; already undone: "
        "409 UNDO_ALREADY_DONE; an action with no undo: 409 UNDO_NOT_AVAILABLE; the item "
        "changed since: 409 UNDO_VERSION_CONFLICT; after the window: 410. An undo card issued "
        "earlier and still ready is voided (one live undo per card).",
        request=UndoRequestSerializer,
        responses={
            200: CardResponseSerializer,
            **documented_errors(
                (400, 401, 403, 404, 409, 410, 415, 429, 503),
                codes={
                    403: ("ADMIN_READONLY",),
                    404: ("SESSION_NOT_FOUND", "CARD_NOT_FOUND", "TODO_NOT_FOUND"),
                    409: (
                        "UNDO_NOT_SUCCEEDED",
                        "UNDO_ALREADY_DONE",
                        "UNDO_NOT_AVAILABLE",
                        "UNDO_VERSION_CONFLICT",
                    ),
                    410: ("CONFIRMATION_EXPIRED",),
                    503: ("CONFIRMATION_STORE_UNAVAILABLE",),
                },
                descriptions={"s403": WRITE_403},
            ),
        },
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
    def post(self, request: Request) -> Response:
        payload = self.payload
        session = _owned_session(request, payload["session_id"])
        card = card_undo.undo(
            request=request,
            actor=actor_context(request),
            session=session,
            card_id=payload["card_id"],
            locale=request_locale(request),
        )
        return Response({"card": card})


@extend_schema_view(
    post=extend_schema(
        tags=[TAG_CONFIRM],
        summary="Pick one item of a choice card: get the ordinary card for it",
        description="Body: the choice's `token`, its `session_id` and the picked "
        "`candidate_id`. Checks run in confirm's order: 400 body, 401, 403 ADMIN_READONLY, "
        "503, 410 (unknown or expired token), 403 CONFIRMATION_FORBIDDEN (another user's or "
        "another session's choice), 409 CONFIRMATION_INVALID (altered), 410 "
        "CONFIRMATION_EXPIRED (the choice was already used), 400 CHOICE_CANDIDATE_INVALID (an "
        "id the choice does not offer), 429 (the new-card limit, as for a proposal). The "
        "answer is a ready card carrying exactly the args the proposal prepared for that "
        "item (never an execution): confirm it like any card. One choice gives one card.",
        request=ChooseRequestSerializer,
        responses={
            200: ChooseResponseSerializer,
            **documented_errors(
                (400, 401, 403, 404, 409, 410, 415, 429, 503),
                codes={
                    **_CARD_ERRORS,
                    400: ("VALIDATION_ERROR", "CHOICE_CANDIDATE_INVALID"),
                    409: ("CONFIRMATION_INVALID",),
                },
            ),
        },
        parameters=[ADMIN_CONTEXT_PARAMETER],
    )
)
class ChooseView(_TokenEndpoint):
    """Pick a candidate of a choice card: the ordinary card for that item."""

    request_serializer = ChooseBodySerializer

    def post(self, request: Request) -> Response:
        card = choices.choose(
            request=request,
            actor=actor_context(request),
            token=self.payload["token"],
            session_id=self.payload["session_id"],
            candidate_id=str(self.payload["candidate_id"]),
            locale=request_locale(request),
        )
        return Response({"card": card})
