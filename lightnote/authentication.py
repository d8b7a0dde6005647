"""DRF authentication that also resolves the admin read-only context.

After authentication ``request.user`` is the *subject* (whose data is read) and
``lightnote.context.actor_context(request)`` tells the actor and the context.
"""

from __future__ import annotations

from typing import Any

from rest_framework import authentication, exceptions


class _WithActorContext:
    """Resolve the actor context, then run the admin read-only gate (``lightnote.readonly``):
    for DRF views this is the one place a write inside an admin context is refused."""

    runs_admin_gate = True

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        result = super().authenticate(request)  # type: ignore[misc]
        if result is None:
            return None
        from lightnote.context import resolve_actor_context
        from lightnote.readonly import admin_context_gate

        user, auth = result
        context = resolve_actor_context(request, user)
        admin_context_gate(request, context)
        return context.subject, auth


ANNOTATIONS_ATTRIBUTE = "lightnote_token_annotations"


class TokenAuthentication(_WithActorContext, authentication.TokenAuthentication):
    """``Authorization: Token <key>``.

    The token is looked up on every request (deleting it revokes at once). A view may ride
    on that one query: its ``token_query_annotations()`` returns expressions (``Exists``...)
    that are evaluated beside the token, per the token's ``user_id``; their values are left on
    the request (:func:`token_annotations`) instead of costing a query each.
    """

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        view = (getattr(request, "parser_context", None) or {}).get("view")
        hook = getattr(view, "token_query_annotations", None)
        self.annotations: dict[str, Any] = hook() if hook else {}
        self.annotated: dict[str, Any] | None = None
        result = super().authenticate(request)
        if result is not None and self.annotated is not None:
            setattr(getattr(request, "_request", request), ANNOTATIONS_ATTRIBUTE, self.annotated)
        return result

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not self.annotations:
            return super().authenticate_credentials(key)
        model: Any = self.get_model()
        try:
            token = model.objects.select_related("user").annotate(**self.annotations).get(key=key)
        except model.DoesNotExist:
            raise exceptions.AuthenticationFailed() from None
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed()
        self.annotated = {name: getattr(token, name) for name in self.annotations}
        self.annotated["user_id"] = token.user_id
        return token.user, token


def token_annotations(request: Any) -> dict[str, Any]:
    """The values a view's ``token_query_annotations()`` got from this request's token query
    (with the token's ``user_id``); empty when the request was not authenticated that way."""
    django_request = getattr(request, "_request", request)
    return getattr(django_request, ANNOTATIONS_ATTRIBUTE, None) or {}


class SessionAuthentication(_WithActorContext, authentication.SessionAuthentication):
    """Django session + CSRF, for the browser."""
