"""Signed-in pages are never stored: a Back after a change re-reads the page from the server.

Without it, a browser shows its old copy of the chat (a confirmed card as still waiting); the
pages hold a person's own data, so no shared cache may keep them either.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control


class SignedInNoStoreMiddleware:
    """Mark every HTML response to a signed-in request ``Cache-Control: no-store, private``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # The user the response was made for, only if something read it (every page does:
        # login_required, the base layout); never loaded here, so an answer made without the
        # database (a 503 for a lost one) does not reach for it again.
        user = getattr(request, "_cached_user", None)
        html = response.get("Content-Type", "").startswith("text/html")
        if html and user is not None and user.is_authenticated:
            patch_cache_control(response, no_store=True, private=True)
        return response
