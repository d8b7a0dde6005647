"""DRF's default permission; the admin read-only rule itself lives in
``lightnote.impersonation.readonly``."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission

from lightnote.impersonation.context import actor_context


def refuse_admin_write(request: Any, *, what: str) -> None:
    """Raise 403 ``ADMIN_READONLY`` (and audit it) when an admin read-only context is active.

    Kept for code paths outside HTTP views; views need not call it:
    ``lightnote.impersonation.readonly``
    refuses every unsafe request inside a context before the view runs.
    """
    context = actor_context(request)
    if context.is_admin_readonly:
        from lightnote.impersonation.readonly import refuse

        refuse(request, context, what=what)


class IsAuthenticatedNoAdminWrites(BasePermission):
    """Authenticated, and no unsafe method while an admin read-only context is active.

    The gate in authentication refuses first; this stays as a second line for a view whose
    authentication classes do not run it.
    """

    def has_permission(self, request: Any, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if request.method not in SAFE_METHODS:
            refuse_admin_write(request, what=view.__class__.__name__)
        return True
