"""Failed-login throttling (django-axes): per username + client address, with audit events.

``LIGHTNOTE_LOGIN_FAILURE_LIMIT`` failed logins (default 5) by one username from one address
within ``LIGHTNOTE_LOGIN_COOLOFF`` seconds (default 900) lock that pair out for the cool-off;
every attempt during the lockout, right or wrong, is refused and starts the cool-off again.
A successful login resets the pair's count. Both ways in are covered, because both call
``authenticate(request, ...)``: the token endpoint (``POST /api/v1/auth/token/``, answered
429 ``RATE_LIMITED`` in the one error body, with ``Retry-After``) and the login page
(``/accounts/login/``, re-rendered with status 429 and a message in the page's language).

Counting is axes' database handler (``AccessAttempt`` rows): it works the same on SQLite and
MariaDB, survives a Redis flush, and staff can see and clear lockouts in the admin.

Audit (``lightnote.audit``): ``auth.login_failed`` for each counted failure and
``auth.locked_out`` once when a lockout starts. Attempts refused during a lockout write no
row each (axes counts them in ``AccessAttempt.failures_since_start``), so a password spray
against a locked pair cannot flood the audit table.
"""

from __future__ import annotations

import math
from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off, get_credentials
from axes.signals import user_locked_out
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.signals import user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import request_locale

# Set on the request by the backend when axes refused an attempt of a locked-out pair.
_BLOCKED = "lightnote_login_blocked"


class LoginThrottleBackend(AxesStandaloneBackend):
    """Axes' lockout check, first in ``AUTHENTICATION_BACKENDS``.

    An ``authenticate()`` call without a request (a management command, the test client's
    ``login()``) has no client address to count against and is not throttled; every HTTP
    login passes its request.
    """

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None:
            return None
        try:
            return super().authenticate(request, username, password, **kwargs)
        except AxesBackendPermissionDenied:
            setattr(request, _BLOCKED, True)  # refused as locked out: not a new failure
            raise


def lockout_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username a lockout counts under: trimmed and case-folded, so ``Alice`` and
    ``ALICE`` (the same account on MariaDB's case-insensitive collation) share one count."""
    username = (credentials or {}).get("username")
    if username is None:
        username = request.POST.get("username") if request is not None else None
    if not isinstance(username, str):
        return None
    return username.strip().casefold()[:150]


def retry_after_seconds() -> int:
    """Seconds until a pair locked out now may try again (the whole cool-off: each refused
    attempt starts it again)."""
    cool_off = get_cool_off()
    return max(1, math.ceil(cool_off.total_seconds())) if cool_off else 3600


def lockout_error() -> LightNoteError:
    """The API's answer to a locked-out login: 429 ``RATE_LIMITED`` with ``Retry-After``."""
    retry_after = retry_after_seconds()
    return LightNoteError(
        "RATE_LIMITED",
        status=429,
        params={"retry_after": retry_after},
        headers={"Retry-After": str(retry_after)},
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None
) -> HttpResponse:
    """``AXES_LOCKOUT_CALLABLE``: the one error body under ``/api/``, else the login page
    again with a lockout message (status 429 for both)."""
    error = lockout_error()
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse(error.body(request_locale(request)), status=error.status)
    else:
        username = lockout_username(request, credentials) or ""
        response = render(
            request,
            "registration/login.html",
            {
                "form": AuthenticationForm(request, initial={"username": username}),
                "locked_out": True,
                "retry_minutes": math.ceil(retry_after_seconds() / 60),
                "next": request.POST.get("next", "") if request.method == "POST" else "",
            },
            status=error.status,
        )
    for name, value in error.headers.items():
        response[name] = value
    return response


def reset_after_success(request: HttpRequest, username: str) -> None:
    """Forget the failures of ``username`` from this address after a login that did not go
    through ``django.contrib.auth.login`` (the token endpoint); the page's login resets
    through axes' ``user_logged_in`` handler (``AXES_RESET_ON_SUCCESS``)."""
    AxesProxyHandler.update_request(request)
    AxesProxyHandler.get_implementation().reset_user_attempts(  # type: ignore[attr-defined]
        request, get_credentials(username=username)
    )


def _address(request: Any) -> str:
    return str(getattr(request, "axes_ip_address", "") or "")


@receiver(user_login_failed, dispatch_uid="lightnote.accounts.login_throttle.failed")
def _audit_failed_login(
    sender: Any, credentials: dict[str, Any], request: Any = None, **_: Any
) -> None:
    if request is None or getattr(request, _BLOCKED, False):
        return
    audit_event(
        "auth.login_failed",
        code="INVALID_CREDENTIALS",
        details={
            "username": lockout_username(request, credentials),
            "address": _address(request),
            "path": request.path,
        },
    )


@receiver(user_locked_out, dispatch_uid="lightnote.accounts.login_throttle.locked_out")
def _audit_lockout(sender: Any, request: Any = None, username: Any = None, **_: Any) -> None:
    if request is None or getattr(request, _BLOCKED, False):
        return  # already locked: the lockout began (and was recorded) earlier
    audit_event(
        "auth.locked_out",
        code="RATE_LIMITED",
        details={
            "username": username,
            "address": _address(request),
            "path": request.path,
            "failures": getattr(request, "axes_failures_since_start", None),
            "cool_off_seconds": retry_after_seconds(),
        },
    )
