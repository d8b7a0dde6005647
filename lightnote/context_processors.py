"""Template context shared by the chat page and the Django admin."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from lightnote.context import ADMIN_CONTEXT_SESSION_KEY, active_admin_context


def admin_context(request: HttpRequest) -> dict[str, Any]:
    """Expose the staff member's active read-only impersonation context, if any."""
    user = getattr(request, "user", None)
    context_id = getattr(request, "session", {}).get(ADMIN_CONTEXT_SESSION_KEY)
    if not context_id or user is None or not user.is_authenticated or not user.is_staff:
        return {"active_admin_context": None}
    return {"active_admin_context": active_admin_context(staff=user, context_id=context_id)}
