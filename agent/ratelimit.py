"""Per-user rate limits on new cards and new claims (django-ratelimit on the Redis cache).

Callers place the check where docs/api.md's order puts it: after everything that can be answered
from an existing record, so a repeat of a running or settled card is never refused.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django_ratelimit.core import get_usage

from agent.control import store_unavailable
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.redis import STORE_ERRORS


def _limit(request: Any, *, group: str, rate: str, user_id: int) -> None:
    django_request = getattr(request, "_request", request)
    try:
        usage = get_usage(
            django_request,
            group=group,
            key=lambda _group, _request: str(user_id),
            rate=rate,
            increment=True,
        )
    except STORE_ERRORS:
        raise store_unavailable() from None
    if usage is None:  # RATELIMIT_ENABLE is off
        return
    if usage["limit"] == 0 and usage["time_left"] == -1:
        # django-ratelimit's answer when the cache could not count: the store is down.
        raise store_unavailable()
    if usage["should_limit"]:
        retry_after = max(1, int(usage["time_left"]))
        audit_event(
            "rate.limited",
            actor=get_user_model().objects.filter(pk=user_id).first(),
            code="RATE_LIMITED",
            details={"group": group, "rate": rate, "retry_after": retry_after},
        )
        raise LightNoteError(
            "RATE_LIMITED",
            status=429,
            params={"retry_after": retry_after},
            headers={"Retry-After": str(retry_after)},
        )


def limit_new_card(request: Any, *, user_id: int) -> None:
    """Count one card about to be issued; 429 ``RATE_LIMITED`` over the limit."""
    _limit(request, group="agent.cards", rate=settings.LIGHTNOTE_RATE_LIMIT_CARDS, user_id=user_id)


def limit_new_claim(request: Any, *, user_id: int) -> None:
    """Count one new claim (a confirm or a reply generation); 429 over the limit."""
    _limit(
        request, group="agent.claims", rate=settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS, user_id=user_id
    )
