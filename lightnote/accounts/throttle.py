"""Sign-up and password-reset requests per client address, counted like the card limits.

The same fixed-window limiter as ``agent.ratelimit`` (``lightnote.controlstore.limits``: one
atomic script per request, audited ``rate.limited`` over it), counting a digest of the client
address instead of a user: these requests come before any login. The address is
``REMOTE_ADDR``, as for the failed-login lockout (a forwarded header is never trusted).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpRequest

from lightnote.controlstore import limits
from lightnote.texts.i18n import define_messages

GROUPS = {
    "signup": "LIGHTNOTE_RATE_LIMIT_SIGNUPS",
    "password_reset": "LIGHTNOTE_RATE_LIMIT_PASSWORD_RESETS",
}


def limit_by_address(request: HttpRequest, group: str) -> None:
    """Count one ``group`` request from this address; 429 ``RATE_LIMITED`` over its rate,
    503 ``ACCOUNT_LIMITER_UNAVAILABLE`` when the store cannot count it."""
    address = hashlib.sha256(request.META.get("REMOTE_ADDR", "").encode()).hexdigest()[:32]
    limits.take_now(
        limits.limit_unit(
            group=f"accounts.{group}",
            rate=getattr(settings, GROUPS[group]),
            subject=address,
            unavailable_code="ACCOUNT_LIMITER_UNAVAILABLE",
        )
    )


define_messages(
    {
        "ACCOUNT_LIMITER_UNAVAILABLE": (
            "服务暂时不可用，请稍后再试。",
            "The service is unavailable for a moment; try again shortly.",
        ),
    }
)
