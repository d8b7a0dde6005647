"""DRF authentication that also resolves the admin read-only context.

After authentication ``request.user`` is the *subject* (whose data is read) and
``lightnote.impersonation.context.actor_context(request)`` tells the actor and the context.
"""

from __future__ import annotations

from typing import Any

from rest_framework import authentication


class _WithActorContext:
    """Resolve the actor context, then run the admin read-only gate
    (``lightnote.impersonation.readonly``):
    for DRF views this is the one place a write inside an admin context is refused.
    Then make the request's language (now that its user is known) Django's active one."""

    runs_admin_gate = True

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        result = super().authenticate(request)  # type: ignore[misc]
        if result is None:
            return None
        from lightnote.impersonation.context import resolve_actor_context
        from lightnote.impersonation.readonly import admin_context_gate
        from lightnote.texts.i18n import activate_request_language

        user, auth = result
        context = resolve_actor_context(request, user)
        admin_context_gate(request, context)
        # The user is known now: DRF's own messages (raised later, while the view validates)
        # speak the language the error body's own message will (``request_locale``).
        activate_request_language(request, context.subject)
        return context.subject, auth


class TokenAuthentication(_WithActorContext, authentication.TokenAuthentication):
    """``Authorization: Token <key>``: DRF's own lookup (the token and its user in one
    query), looked up on every request, so deleting a token revokes it at once."""


class SessionAuthentication(_WithActorContext, authentication.SessionAuthentication):
    """Django session + CSRF, for the browser."""
