"""DRF authentication that also resolves the admin read-only context.

After authentication ``request.user`` is the *subject* (whose data is read) and
``lightnote.context.actor_context(request)`` tells the actor and the context.
"""

from __future__ import annotations

from typing import Any

from rest_framework import authentication


class _WithActorContext:
    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        result = super().authenticate(request)  # type: ignore[misc]
        if result is None:
            return None
        from lightnote.context import resolve_actor_context

        user, auth = result
        context = resolve_actor_context(request, user)
        return context.subject, auth


class TokenAuthentication(_WithActorContext, authentication.TokenAuthentication):
    """``Authorization: Token <key>``."""


class SessionAuthentication(_WithActorContext, authentication.SessionAuthentication):
    """Django session + CSRF, for the browser."""
