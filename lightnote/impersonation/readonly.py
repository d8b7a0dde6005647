"""Admin read-only impersonation, enforced in one place for every entry.

While a staff member's admin context is active, a request may change nothing. One function,
:func:`admin_context_gate`, decides for every request: safe methods (GET, HEAD, OPTIONS)
pass; of the unsafe ones only the *passes* registered here pass (ending the context,
logging out, switching the page language, and the agent's context conversation — see
:data:`PASSES`); everything else is refused with 403 ``ADMIN_READONLY`` and the audit event
``admin.write_refused`` naming the staff member, the subject and the context.

The gate runs at the moment a context becomes known for a request, from exactly two hooks:

- DRF views: the authentication classes (``lightnote.accounts.authentication``) call it right after
  they resolve the actor context (the ``X-Admin-Context`` header or the browser session). So
  the order is authentication (401) -> admin read-only (403) -> the view; a view that must
  answer a malformed body first (the token endpoints: body (400) -> 401 -> 403, docs/api.md
  "Confirming") validates the body before DRF authenticates. An MCP token never reaches the
  gate with an unsafe method: its authentication class refuses every one.
- Every other view (the chat page, item pages, settings, the Django admin, MCP settings, any
  later page): :class:`AdminReadOnlyMiddleware`, after Django's authentication, resolves the
  browser session's context and runs the gate before the view.

No view needs its own check; a new view is covered by default (deny unless passed).

The middleware also keeps the record of what was done under a context: every request made
in one leaves an ``admin.request`` audit event (method, path, status, context id),
every refusal an ``admin.write_refused`` event; the admin lists both under the context.
It also shows the Django admin in the staff member's own time zone.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils import timezone

from lightnote.errors import LightNoteError
from lightnote.impersonation.context import (
    ADMIN_CONTEXT_HEADER,
    ADMIN_CONTEXT_SESSION_KEY,
    ActorContext,
    actor_context,
    resolved_actor_context,
)

logger = logging.getLogger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# A pass: given the request, its actor context and the URL's kwargs, may this unsafe request
# go on while the context is active? Keyed by the URL's view name (with namespace).
Pass = Callable[[Any, ActorContext, dict[str, Any]], bool]


def _always(request: Any, context: ActorContext, kwargs: dict[str, Any]) -> bool:
    return True


PASSES: dict[str, Pass] = {
    # Ending (and, in the browser, replacing) the context: the staff member's own act.
    "admin-impersonation": _always,
    "admin:lightnote_admincontext_end": _always,
    "admin:lightnote_user_impersonate": _always,
    # Logging out (the site's and the admin's) and switching the page language (a cookie).
    "logout": _always,
    "admin:logout": _always,
}


def register_pass(view_name: str, allows: Pass = _always) -> None:
    """Let unsafe requests to ``view_name`` through while a context is active when ``allows``
    says so. Apps register their passes at start-up (``AppConfig.ready``); each must write
    no user data (e.g. the agent's context conversation, the language cookie)."""
    PASSES[view_name] = allows


_suspended: ContextVar[bool] = ContextVar("admin_gate_suspended", default=False)


@contextlib.contextmanager
def gate_suspended() -> Iterator[None]:
    """Authenticate without running the gate: only to choose the language of an answer that
    is already decided (a 400 for a malformed body), never to let a request through."""
    reset = _suspended.set(True)
    try:
        yield
    finally:
        _suspended.reset(reset)


def _match(request: Any) -> Any:
    """The URL resolver's match of this (Django or DRF) request, or None before routing."""
    return getattr(getattr(request, "_request", request), "resolver_match", None)


def _view_name(request: Any) -> str | None:
    match = _match(request)
    return match.view_name if match is not None else None


def admin_context_gate(request: Any, context: ActorContext) -> None:
    """Refuse (403 ``ADMIN_READONLY``, audited) an unsafe request inside an admin context
    unless its view has a pass. Does nothing outside a context or for a safe method."""
    if context.admin_context is None or request.method in SAFE_METHODS or _suspended.get():
        return
    match = _match(request)
    allows = PASSES.get(match.view_name) if match is not None else None
    if allows is not None and allows(request, context, dict(match.kwargs)):
        return
    refuse(request, context)


def refuse(request: Any, context: ActorContext, *, what: str | None = None) -> None:
    """Audit the refusal of this request and raise 403 ``ADMIN_READONLY``."""
    from lightnote.audit import audit_event

    django_request = getattr(request, "_request", request)
    audit_event(
        "admin.write_refused",
        actor=context.actor,
        subject=context.subject,
        code="ADMIN_READONLY",
        details={
            "what": what or _view_name(request) or "",
            "method": request.method,
            "path": django_request.path[:500],
            "context_id": context.admin_context_id,
        },
    )
    django_request.lightnote_admin_refused = True
    raise LightNoteError("ADMIN_READONLY", status=403)


# --- the middleware ----------------------------------------------------------------------


def _drf_gated(view_func: Any) -> bool:
    """True when ``view_func`` is a DRF view whose every authentication class runs the gate
    (or refuses unsafe methods itself): DRF then decides, after authentication."""
    from rest_framework.views import APIView

    cls = getattr(view_func, "cls", None)
    if not (isinstance(cls, type) and issubclass(cls, APIView)):
        return False
    classes = list(getattr(view_func, "initkwargs", {}).get("authentication_classes") or [])
    classes = classes or list(cls.authentication_classes)
    return bool(classes) and all(getattr(c, "runs_admin_gate", False) for c in classes)


def _might_have_context(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    if ADMIN_CONTEXT_HEADER in request.META:  # present, even empty: resolved (and refused)
        return True
    session = getattr(request, "session", None)
    return bool(session is not None and session.get(ADMIN_CONTEXT_SESSION_KEY))


def refusal_response(request: HttpRequest, error: LightNoteError) -> HttpResponse:
    """The answer to a refused request: the error body under /api/, else a page with the
    banner (a fragment for htmx) — always with the error's real status."""
    from lightnote.texts.i18n import request_locale

    if request.path.startswith("/api/"):
        return JsonResponse(error.body(request_locale(request)), status=error.status)
    from lightnote.texts.i18n import translate
    from lightnote.texts.page_texts import page_locale

    locale = page_locale(request)
    page = {
        "code": error.code,
        "message": error.message(locale),
        "page_locale": locale,
        "title": translate("ADMIN_CONTEXT_REFUSED_TITLE", locale),
        "back": translate("ADMIN_CONTEXT_REFUSED_BACK", locale),
        "back_url": "/admin/" if request.path.startswith("/admin/") else "/",
    }
    if request.headers.get("HX-Request") == "true":
        response = HttpResponse(
            render_to_string("lightnote/readonly_notice.html", page, request),
            status=error.status,
        )
        response["X-LightNote-Fragment"] = "1"
        response["HX-Retarget"] = "#problems"
        response["HX-Reswap"] = "innerHTML"
        return response
    return HttpResponse(
        render_to_string("lightnote/readonly_refused.html", page, request), status=error.status
    )


class AdminReadOnlyMiddleware:
    """Runs the gate for every non-DRF view, records requests made under a context, and
    shows the admin in the staff member's zone. Placed after AuthenticationMiddleware."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        zoned = request.path.startswith("/admin/") and self._activate_staff_zone(request)
        try:
            response = self.get_response(request)
        finally:
            if zoned:
                timezone.deactivate()
        self._record(request, response)
        return response

    @staticmethod
    def _activate_staff_zone(request: HttpRequest) -> bool:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return False
        with contextlib.suppress(Exception):
            timezone.activate(user.zone)
            return True
        return False

    def process_view(
        self, request: HttpRequest, view_func: Any, args: Any, kwargs: Any
    ) -> HttpResponse | None:
        from lightnote.rest import http_guards

        try:
            return self._gate(request, view_func)
        except DatabaseError as error:
            # The session or the context could not be read: a lost database is a 503 here as
            # in any view (an exception raised in process_view skips process_exception).
            if http_guards.is_database_lost(error):
                return http_guards.database_unavailable(request)
            raise

    @staticmethod
    def _gate(request: HttpRequest, view_func: Any) -> HttpResponse | None:
        if not _might_have_context(request) or _drf_gated(view_func):
            return None  # a DRF view: its authentication runs the gate (after a body check)
        try:
            context = actor_context(request)
        except LightNoteError as error:
            if request.method in SAFE_METHODS:
                return None  # the view shows the unusable context its own way
            return refusal_response(request, error)
        try:
            admin_context_gate(request, context)
        except LightNoteError as error:
            return refusal_response(request, error)
        return None

    @staticmethod
    def _record(request: HttpRequest, response: HttpResponse) -> None:
        """One ``admin.request`` event per request made inside a context (a refusal
        has its own event)."""
        context = resolved_actor_context(request)
        if context is None or context.admin_context is None:
            return
        if getattr(request, "lightnote_admin_refused", False):
            return
        from lightnote.audit import audit_event

        try:
            audit_event(
                "admin.request",
                actor=context.actor,
                subject=context.subject,
                details={
                    "context_id": context.admin_context_id,
                    "method": request.method,
                    "path": request.get_full_path()[:500],
                    "status": response.status_code,
                },
            )
        except DatabaseError:  # the record must not turn an answer into a 500
            logger.exception("could not record a request made in an admin context")
