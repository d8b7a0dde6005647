"""Actions on a card that answer a new card: ask again, edit, undo, choose (by token or from
history).

Each is a :class:`CardActionView`: the body first (400), then authentication and the admin
read-only gate, then one operation that returns the new card (API shape), answered as
``{"card": ...}``. Ask again, undo and a pick from a choice in history name a card of the
caller's own conversation (``card_id`` + ``session_id``: :class:`HistoryCardView`); edit and
choose present a token (``token`` + ``session_id``: :class:`TokenCardView`, with the token
query's session check).
Nothing executes here: the new card is confirmed like any other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from agent.api.base import (
    CARD_ERRORS,
    MISSES_429,
    BodyFirstView,
    TokenBodyView,
    TokenRequestSerializer,
    owned_session,
    post_schema,
)
from agent.api.schemas import (
    TAG_CONFIRM,
    TAG_HISTORY,
    CardResponseSerializer,
    ChooseRequestSerializer,
    ChooseResponseSerializer,
    EditRequestSchema,
    ReissueResponseSerializer,
)
from agent.cards import derived as derived_cards
from agent.cards import edit as card_edits
from agent.cards import undo as card_undo
from agent.choices import choose as choices
from lightnote.impersonation.context import actor_context
from lightnote.rest.openapi import WRITE_403
from lightnote.rest.serializers import StrictSerializer
from lightnote.texts.i18n import request_locale


class ReissueRequestSerializer(StrictSerializer):
    card_id = serializers.UUIDField()
    session_id = serializers.UUIDField()


class UndoRequestSerializer(ReissueRequestSerializer):
    pass


class ChooseFromHistoryRequestSerializer(ReissueRequestSerializer):
    candidate_id = serializers.UUIDField()


class EditRequestSerializer(TokenRequestSerializer):
    args = serializers.DictField(allow_empty=False)


class ChooseBodySerializer(TokenRequestSerializer):
    candidate_id = serializers.UUIDField()


class CardActionView(BodyFirstView):
    """POST: ``operation(request=, actor=, locale=, **self.arguments(request))`` -> ``{"card"}``."""

    operation: Callable[..., dict[str, Any]]

    def arguments(self, request: Request) -> dict[str, Any]:
        """Return the operation's own arguments, from ``self.payload``."""
        raise NotImplementedError

    def post(self, request: Request) -> Response:
        card = type(self).operation(
            request=request,
            actor=actor_context(request),
            locale=request_locale(request),
            **self.arguments(request),
        )
        return Response({"card": card})


class HistoryCardView(CardActionView):
    """An action on a card of the caller's own conversation, named by ``card_id``."""

    def arguments(self, request: Request) -> dict[str, Any]:
        return {
            "session": owned_session(request, self.payload["session_id"]),
            "card_id": self.payload["card_id"],
        }


class TokenCardView(CardActionView, TokenBodyView):
    """An action on a card (or choice) presented by its ``token`` and ``session_id``."""

    def arguments(self, request: Request) -> dict[str, Any]:
        return {"token": self.payload["token"], "session_id": self.payload["session_id"]}


@post_schema(
    tag=TAG_HISTORY,
    summary="Ask again: re-issue a ready card from history with a fresh token",
    description="Body: the history card's `card_id` and its `session_id`. History never "
    "returns tokens, so a client restoring a conversation (a reload, another device) "
    "gets a live card this way: the same prepared args and preview, a new `card_id` "
    "(the old one is its `parent_id`) and new tokens. The old card is voided first "
    "(its token then answers 410), so only one token is ever live. An expired card "
    "answers 410 CONFIRMATION_EXPIRED; a rejected, settled or voided one 409 "
    "CARD_NOT_READY with its `state`.",
    request=ReissueRequestSerializer,
    ok={200: ReissueResponseSerializer},
    codes={
        404: ("SESSION_NOT_FOUND", "CARD_NOT_FOUND"),
        409: ("CARD_NOT_READY",),
        410: ("CONFIRMATION_EXPIRED",),
        503: ("CONFIRMATION_STORE_UNAVAILABLE",),
    },
    descriptions={"s403": WRITE_403},
)
class ReissueView(HistoryCardView):
    """Ask again: a new card for a still-ready card whose token the client no longer has."""

    request_serializer = ReissueRequestSerializer
    operation = staticmethod(derived_cards.reissue_card)


_EDIT_ERRORS = {
    **CARD_ERRORS,
    # Besides the protocol's codes, the tool's own (these are examples).
    400: ("VALIDATION_ERROR", "TOOL_ARGS_INVALID", "TODO_DUE_AT_INVALID", "TODO_UPDATE_NOOP"),
    404: ("SESSION_NOT_FOUND", "TODO_NOT_FOUND"),
    409: (
        "CONFIRMATION_ALREADY_CLAIMED",
        "CONFIRMATION_REJECTED",
        "CONFIRMATION_INVALID",
    ),
}


@post_schema(
    tag=TAG_CONFIRM,
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
    ok={200: CardResponseSerializer},
    codes=_EDIT_ERRORS,
    descriptions={
        "s429": "RATE_LIMITED (with Retry-After): the new card over "
        "LIGHTNOTE_RATE_LIMIT_CARDS, or " + MISSES_429
    },
)
class EditView(TokenCardView):
    """Edit a ready card: the new values prepared again, a new card, the old one voided."""

    request_serializer = EditRequestSerializer
    operation = staticmethod(card_edits.edit)

    def arguments(self, request: Request) -> dict[str, Any]:
        return {**super().arguments(request), "edits": dict(self.payload["args"])}


@post_schema(
    tag=TAG_CONFIRM,
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
    "earlier and still ready is voided (one live undo per card); requests for one card's "
    "undo are issued one at a time, so a double click leaves one live undo card too (one "
    "still waiting after 3 s: 409 UNDO_BUSY with Retry-After).",
    request=UndoRequestSerializer,
    ok={200: CardResponseSerializer},
    codes={
        403: ("ADMIN_READONLY",),
        404: ("SESSION_NOT_FOUND", "CARD_NOT_FOUND", "TODO_NOT_FOUND"),
        409: (
            "UNDO_NOT_SUCCEEDED",
            "UNDO_ALREADY_DONE",
            "UNDO_NOT_AVAILABLE",
            "UNDO_VERSION_CONFLICT",
            "UNDO_BUSY",
        ),
        410: ("CONFIRMATION_EXPIRED",),
        503: ("CONFIRMATION_STORE_UNAVAILABLE",),
    },
    descriptions={"s403": WRITE_403},
)
class UndoView(HistoryCardView):
    """Undo a succeeded card: an ordinary card for the compensating action."""

    request_serializer = UndoRequestSerializer
    operation = staticmethod(card_undo.undo)


@post_schema(
    tag=TAG_CONFIRM,
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
    ok={200: ChooseResponseSerializer},
    codes={
        **CARD_ERRORS,
        400: ("VALIDATION_ERROR", "CHOICE_CANDIDATE_INVALID"),
        409: ("CONFIRMATION_INVALID",),
    },
)
class ChooseView(TokenCardView):
    """Pick a candidate of a choice card: the ordinary card for that item."""

    request_serializer = ChooseBodySerializer
    operation = staticmethod(choices.choose)

    def arguments(self, request: Request) -> dict[str, Any]:
        return {**super().arguments(request), "candidate_id": str(self.payload["candidate_id"])}


@post_schema(
    tag=TAG_HISTORY,
    summary="Pick one item of a still-ready choice from history: get the ordinary card for it",
    description="Body: the choice's `card_id` (as history shows it), its `session_id` and "
    "the picked `candidate_id`. History never returns tokens, so a client restoring a "
    "conversation (a reload, another device) picks from a choice this way; the id is no "
    "secret and executes nothing: the answer is a ready card carrying exactly the args the "
    "proposal prepared for that item, to confirm with its own token. Order: 400 body, "
    "401, 403 ADMIN_READONLY, 404 (another user's or a deleted conversation, or no such "
    "choice in it), 410 CONFIRMATION_EXPIRED (expired, already used, or withdrawn), 503, "
    "409 CONFIRMATION_INVALID (altered), 400 CHOICE_CANDIDATE_INVALID, 429 (the new-card "
    "limit). One choice gives one card, however it is picked (by token, by id, by words).",
    request=ChooseFromHistoryRequestSerializer,
    ok={200: ChooseResponseSerializer},
    codes={
        400: ("VALIDATION_ERROR", "CHOICE_CANDIDATE_INVALID"),
        403: ("ADMIN_READONLY",),
        404: ("SESSION_NOT_FOUND", "CARD_NOT_FOUND"),
        409: ("CONFIRMATION_INVALID",),
        410: ("CONFIRMATION_EXPIRED",),
        503: ("CONFIRMATION_STORE_UNAVAILABLE",),
    },
    descriptions={
        "s403": WRITE_403,
        "s429": "RATE_LIMITED (with Retry-After): the new card over LIGHTNOTE_RATE_LIMIT_CARDS",
    },
)
class ChooseFromHistoryView(HistoryCardView):
    """Pick a candidate of a still-ready choice named by its id (from history)."""

    request_serializer = ChooseFromHistoryRequestSerializer
    operation = staticmethod(choices.choose_from_history)

    def arguments(self, request: Request) -> dict[str, Any]:
        return {**super().arguments(request), "candidate_id": str(self.payload["candidate_id"])}
