"""Template context shared by every page (the chat, item pages, settings, the admin)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY, active_admin_context
from lightnote.texts.i18n import translate


def admin_context(request: HttpRequest) -> dict[str, Any]:
    """Expose the staff member's active read-only impersonation context, if any, and the
    banner every page shows while it lasts (both people, the end time in the staff member's
    zone, and the form that ends it)."""
    user = getattr(request, "user", None)
    context_id = getattr(request, "session", {}).get(ADMIN_CONTEXT_SESSION_KEY)
    if not context_id or user is None or not user.is_authenticated or not user.is_staff:
        return {"active_admin_context": None, "admin_banner": None}
    context = active_admin_context(staff=user, context_id=context_id)
    if context is None:
        return {"active_admin_context": None, "admin_banner": None}
    from lightnote.texts.page_texts import page_locale

    locale = page_locale(request)
    zone = user.zone
    expires = f"{context.expires_at.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"
    return {
        "active_admin_context": context,
        "admin_banner": {
            "text": translate(
                "ADMIN_CONTEXT_BANNER",
                locale,
                actor=user.username,
                subject=context.subject.username,
                expires=expires,
            ),
            "end": translate("ADMIN_CONTEXT_END", locale),
            "context_id": str(context.id),
            "reason": context.reason,
        },
    }
