"""Who acts, on whose data, and whether an admin read-only context is active.

``actor`` is the person who sent the request; ``subject`` is the user whose data the request
reads or changes. They differ only inside an admin read-only context, where every write is
refused (``ADMIN_READONLY``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils import timezone

from lightnote.errors import LightNoteError
from lightnote.models import AdminContext, User

ADMIN_CONTEXT_HEADER = "HTTP_X_ADMIN_CONTEXT"
ADMIN_CONTEXT_SESSION_KEY = "lightnote_admin_context"
_ATTRIBUTE = "lightnote_actor"


@dataclass(frozen=True)
class ActorContext:
    actor: User
    subject: User
    admin_context: AdminContext | None = None

    @property
    def is_admin_readonly(self) -> bool:
        return self.admin_context is not None

    @property
    def admin_context_id(self) -> str | None:
        return str(self.admin_context.id) if self.admin_context else None

    @property
    def admin_mode(self) -> str | None:
        return self.admin_context.mode if self.admin_context else None


def active_admin_context(*, staff: User, context_id: str) -> AdminContext | None:
    """Return the staff member's active context with this id, or None."""
    try:
        return AdminContext.objects.select_related("subject").get(
            id=context_id, staff=staff, ended_at__isnull=True, expires_at__gt=timezone.now()
        )
    except (AdminContext.DoesNotExist, ValidationError, ValueError, TypeError):
        return None  # a malformed id is as unknown as a missing one


def resolve_actor_context(request: Any, user: User) -> ActorContext:
    """Attach and return the actor context for an authenticated ``user``.

    An ``X-Admin-Context`` header that does not name an active context of this staff member
    is refused (403), never ignored: acting on the wrong user's data would be worse. A header
    that is present but empty is such a header too, not an absent one.
    A context remembered in the browser session that has ended is simply forgotten.
    """
    django_request = getattr(request, "_request", request)
    header_id = django_request.META.get(ADMIN_CONTEXT_HEADER)
    session = getattr(django_request, "session", None)
    session_id = session.get(ADMIN_CONTEXT_SESSION_KEY) if session is not None else None
    context: AdminContext | None = None
    if header_id is not None:
        if not user.is_staff:
            raise LightNoteError("ADMIN_ONLY", status=403)
        context = active_admin_context(staff=user, context_id=header_id)
        if context is None:
            raise LightNoteError("ADMIN_CONTEXT_INVALID", status=403)
    elif session_id and user.is_staff:
        context = active_admin_context(staff=user, context_id=session_id)
        if context is None and session is not None:
            session.pop(ADMIN_CONTEXT_SESSION_KEY, None)
    actor_context = ActorContext(
        actor=user, subject=context.subject if context else user, admin_context=context
    )
    setattr(django_request, _ATTRIBUTE, actor_context)
    return actor_context


def resolved_actor_context(request: Any) -> ActorContext | None:
    """Return the actor context already resolved for this request, or None (never resolves)."""
    return getattr(getattr(request, "_request", request), _ATTRIBUTE, None)


def actor_context(request: Any) -> ActorContext:
    """Return the request's actor context (resolving it for plain Django views)."""
    django_request = getattr(request, "_request", request)
    existing = getattr(django_request, _ATTRIBUTE, None)
    if existing is not None:
        return existing
    user = getattr(django_request, "user", None)
    if user is None or not user.is_authenticated:
        raise LightNoteError("NOT_AUTHENTICATED", status=401)
    return resolve_actor_context(django_request, user)
