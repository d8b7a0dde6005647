from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission

from lightnote.context import actor_context
from lightnote.errors import LightNoteError


def refuse_admin_write(request: Any, *, what: str) -> None:
    """Raise 403 ``ADMIN_READONLY`` (and audit it) when an admin read-only context is active."""
    context = actor_context(request)
    if not context.is_admin_readonly:
        return
    from lightnote.audit import audit_event

    audit_event(
        "admin.write_refused",
        actor=context.actor,
        subject=context.subject,
        code="ADMIN_READONLY",
        details={"what": what, "method": request.method, "path": request.path},
    )
    raise LightNoteError("ADMIN_READONLY", status=403)


class IsAuthenticatedNoAdminWrites(BasePermission):
    """Authenticated, and no unsafe method while an admin read-only context is active."""

    def has_permission(self, request: Any, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method not in SAFE_METHODS:
            refuse_admin_write(request, what=view.__class__.__name__)
        return True
