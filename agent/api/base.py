"""What the agent's endpoints share: body-first validation, the token endpoint, schemas.

docs/api.md fixes the order of the checks of a token endpoint: body shape (400) ->
authentication (401) -> admin read-only (403, the gate in authentication) -> the
operation's own checks. :class:`BodyFirstView` validates the body in ``initial``, before
DRF authenticates (``self.payload`` holds it); a 400 still answers in the caller's language
(:func:`identify_for_locale`). :class:`TokenBodyView` names a token and its session,
:class:`TokenEndpoint` the confirm / reject / status / reply shape (an ``execution.Answer``),
:func:`post_schema` the one way their POST is documented.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.exceptions import APIException
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agent.cards import confirm as execution
from agent.conversation import sessions
from agent.models import AgentSession
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import actor_context
from lightnote.impersonation.readonly import gate_suspended
from lightnote.rest.openapi import ADMIN_CONTEXT_PARAMETER, documented_errors
from lightnote.rest.serializers import StrictSerializer
from lightnote.texts.i18n import request_locale

SESSION_404 = {404: ("SESSION_NOT_FOUND",)}
# The statuses every POST of a card (confirm, reject, status, reply, edit, ...) may answer.
CARD_STATUSES = (400, 401, 403, 404, 409, 410, 415, 429, 503)
CARD_ERRORS = {
    403: ("CONFIRMATION_FORBIDDEN", "ADMIN_READONLY"),
    404: ("SESSION_NOT_FOUND",),
    410: ("CONFIRMATION_EXPIRED",),
    503: ("CONFIRMATION_STORE_UNAVAILABLE",),
}
MISSES_429 = (
    "RATE_LIMITED (with Retry-After): this user presented more unknown or expired tokens "
    "than LIGHTNOTE_RATE_LIMIT_TOKEN_MISSES allows in the window; answered instead of 410 for "
    "a further miss (a known token is answered as usual)"
)


class TokenRequestSerializer(StrictSerializer):
    token = serializers.CharField(max_length=512)
    session_id = serializers.UUIDField()


def validated(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    """Return the request body validated by ``serializer_class`` (400 when it is not)."""
    serializer = serializer_class(data=request.data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def owned_session(request: Request, session_id: Any) -> AgentSession:
    """Return the caller's live session; another user's or a deleted one is a 404."""
    return sessions.session_get(session_id=session_id, owner=actor_context(request).subject)


def identify_for_locale(request: Request) -> None:
    """Authenticate quietly so a 400 answers in the user's language; a failure changes nothing.

    The 400 still answers first (docs/api.md's order): this only chooses the message's language,
    so the admin read-only gate does not run (nothing is refused or audited for a 400).
    """
    with contextlib.suppress(APIException, LightNoteError), gate_suspended():
        request.user  # noqa: B018 - the property runs the authenticators


def post_schema(
    *,
    tag: str,
    summary: str,
    description: str,
    ok: Mapping[int, Any],
    request: Any = TokenRequestSerializer,
    codes: Mapping[int, Sequence[str]],
    descriptions: Mapping[str, str] | None = None,
) -> Callable[[type], type]:
    """Document a card endpoint's POST: its body (by default a token and its session), the
    admin header, ``ok`` (200, maybe 202) and the error codes it names per status of
    :data:`CARD_STATUSES`."""
    return extend_schema_view(
        post=extend_schema(
            tags=[tag],
            summary=summary,
            description=description,
            request=request,
            responses={
                **ok,
                **documented_errors(CARD_STATUSES, codes=codes, descriptions=descriptions),
            },
            parameters=[ADMIN_CONTEXT_PARAMETER],
        )
    )


class BodyFirstView(APIView):
    """A POST endpoint whose body shape answers first: body (400) -> authentication (401) ->
    admin read-only (403, the gate in authentication) -> the operation's own checks.

    The body is validated in ``initial`` before DRF authenticates; ``self.payload`` holds it.
    """

    permission_classes = [IsAuthenticated]
    request_serializer: type[serializers.Serializer]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        if request.method == "POST":  # any other method is a plain 405 from DRF's dispatch
            try:
                self.payload = validated(self.request_serializer, request)
            except APIException:
                identify_for_locale(request)
                raise
        super().initial(request, *args, **kwargs)


class TokenBodyView(BodyFirstView):
    """A body-first endpoint whose body names a token and its ``session_id``."""

    request_serializer: type[serializers.Serializer] = TokenRequestSerializer


class TokenEndpoint(TokenBodyView):
    """Shared shape of confirm / reject / status / reply: body first, then everything else.

    docs/api.md fixes the order: body shape (400) -> authentication (401) -> admin read-only
    (403) -> ...; so the body is validated in ``initial`` before DRF authenticates, and the
    admin read-only gate runs in authentication.
    """

    operation: Callable[..., execution.Answer]

    def operation_extras(self) -> dict[str, Any]:
        """More keyword arguments for ``operation`` (none here)."""
        return {}

    def post(self, request: Request) -> Response:
        answer = type(self).operation(
            request=request,
            actor=actor_context(request),
            token=self.payload["token"],
            session_id=self.payload["session_id"],
            locale=request_locale(request),
            **self.operation_extras(),
        )
        return Response(answer.body, status=answer.status, headers=answer.headers)
