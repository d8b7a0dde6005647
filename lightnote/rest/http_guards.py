"""Answers to hostile or unlucky requests, in the one error format, before and after views.

- A body over ``LIGHTNOTE_MAX_BODY_BYTES`` is a 413 ``REQUEST_TOO_LARGE`` before anything
  reads it (its ``Content-Length`` is checked first; a body that grows past the limit while
  Django reads it raises ``RequestDataTooBig``, answered the same). A chunked body without
  a length, which Django would read as empty, is a 411 ``LENGTH_REQUIRED``.
- A request line over ``LIGHTNOTE_MAX_REQUEST_LINE`` is a 414 ``URI_TOO_LONG``; a header
  field over ``LIGHTNOTE_MAX_HEADER_FIELD`` or more than ``LIGHTNOTE_MAX_HEADER_FIELDS``
  fields is a 431 ``HEADERS_TOO_LARGE`` (:class:`RequestLimitsMiddleware`, inside the
  security and CSP middleware so these answers carry their headers).
- A lost database (``OperationalError`` / ``InterfaceError`` from ``django.db``) is a 503
  ``DATABASE_UNAVAILABLE``: from DRF views through :func:`lightnote.errors.exception_handler`,
  from any other view through :class:`HostileInputMiddleware`, and from a middleware through
  the 500 handler.
- A control store that cannot answer (``lightnote.controlstore.redis.STORE_ERRORS`` escaping a
page) is a
  503 ``STORE_UNAVAILABLE``, and a ``LightNoteError`` escaping a page view (not DRF's) is
  answered with its own code and status: a page never turns a known failure into a 500.
- Django's own 400 (a bad ``Host``, a malformed request), 403 (CSRF) and 404 answer with the
  error body under ``/api/``; pages get a small self-contained page (it needs no database).

docs/security.md lists each defence and its test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views import csrf, defaults

from lightnote.errors import KnownFailure, is_database_lost, safe_locale
from lightnote.texts.i18n import define_messages, translate
from lightnote.texts.page_texts import cookie_locale

define_messages(
    {
        "REQUEST_TOO_LARGE": (
            "请求体过大（上限 {limit} 字节）。",
            "The request body is too large (limit {limit} bytes).",
        ),
        "DATABASE_UNAVAILABLE": (
            "数据库暂时不可用，请稍后重试；未做任何修改。",
            "The database is unavailable; please retry later. Nothing was changed.",
        ),
        "STORE_UNAVAILABLE": (
            "服务暂时不可用，请稍后重试。",
            "The service is unavailable; please retry later.",
        ),
        "BAD_REQUEST": ("请求无效。", "The request is not valid."),
        "URI_TOO_LONG": (
            "请求行过长（上限 {limit} 字节）。",
            "The request line is too long (limit {limit} bytes).",
        ),
        "HEADERS_TOO_LARGE": (
            "请求头过大（每个字段上限 {limit} 字节，最多 {fields} 个字段）。",
            "The request headers are too large (at most {limit} bytes a field, {fields} fields).",
        ),
        "LENGTH_REQUIRED": (
            "请求体须带 Content-Length（不支持分块传输）。",
            "Send the body with a Content-Length (chunked bodies are not accepted).",
        ),
        "CSRF_FAILED": (
            "CSRF 校验失败，请刷新页面后重试。",
            "The CSRF check failed; reload the page and try again.",
        ),
        "ERROR_PAGE_TITLE": ("出错了", "Something went wrong"),
        "ERROR_PAGE_BACK": ("返回首页", "Back to the start page"),
    }
)


def wants_json(request: HttpRequest) -> bool:
    """API paths (and a client that asks only for JSON) get the error body; pages get HTML."""
    if request.path.startswith("/api/"):
        return True
    accept = request.META.get("HTTP_ACCEPT", "")
    return "application/json" in accept and "text/html" not in accept


def error_answer(
    request: HttpRequest,
    code: str,
    status: int,
    *,
    extra: dict[str, Any] | None = None,
    **params: Any,
) -> HttpResponse:
    """The error body ``{"error": {"code", "message"}}``, or a minimal page for a browser."""
    if wants_json(request):
        message = translate(code, safe_locale(request), **params)
        body = {"code": code, "message": message, **(extra or {})}
        return JsonResponse({"error": body}, status=status)
    # A page follows the language switch's cookie first, as every page does (page_locale).
    locale = cookie_locale(request) or safe_locale(request)
    message = translate(code, locale, **params)
    html = render_to_string(
        "lightnote/error_page.html",
        {
            "lang": "en" if locale == "en" else "zh-CN",
            "title": translate("ERROR_PAGE_TITLE", locale),
            "message": message,
            "code": code,
            "back": translate("ERROR_PAGE_BACK", locale),
        },
    )
    return HttpResponse(html, status=status, content_type="text/html; charset=utf-8")


def too_large(request: HttpRequest) -> HttpResponse:
    limit = settings.LIGHTNOTE_MAX_BODY_BYTES
    # No "Connection: close" here: a WSGI application may not set hop-by-hop headers; the
    # server (gunicorn) discards or closes on the unread rest of the body itself.
    return error_answer(request, "REQUEST_TOO_LARGE", 413, limit=limit)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    response = error_answer(request, "DATABASE_UNAVAILABLE", 503)
    response["Retry-After"] = "5"
    return response


def store_unavailable(request: HttpRequest) -> HttpResponse:
    response = error_answer(request, "STORE_UNAVAILABLE", 503)
    response["Retry-After"] = "5"
    return response


def known_failure(request: HttpRequest, error: KnownFailure) -> HttpResponse:
    """Answer a ``LightNoteError`` that escaped a page view with its own code and status."""
    response = error_answer(request, error.code, error.status, extra=error.extra, **error.params)
    for name, value in error.headers.items():
        response[name] = value
    if error.status == 503 and "Retry-After" not in response:
        response["Retry-After"] = "5"
    return response


def is_store_lost(exc: BaseException | None) -> bool:
    """True for "the control store could not answer" (a refused or timed-out Redis)."""
    from lightnote.controlstore.redis import STORE_ERRORS

    return isinstance(exc, STORE_ERRORS)


def declared_length(request: HttpRequest) -> int | None:
    """The request's ``Content-Length`` as a number, or None when absent or garbage."""
    raw = request.META.get("CONTENT_LENGTH") or ""
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


class HostileInputMiddleware:
    """First in the chain: refuse an oversized body unread; answer a lost database with 503.

    ``process_exception`` sees exceptions of views that are not DRF's (DRF views answer
    through the exception handler); a middleware's own failure reaches :func:`server_error`.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        length = declared_length(request)
        if length is not None and length > settings.LIGHTNOTE_MAX_BODY_BYTES:
            return too_large(request)
        if not length and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            # Django reads a body only up to its Content-Length: a chunked one would be
            # silently taken as empty. Refuse it instead of acting on a body nobody read.
            return error_answer(request, "LENGTH_REQUIRED", 411)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, RequestDataTooBig):
            return too_large(request)
        if is_database_lost(exception):
            return database_unavailable(request)
        if is_store_lost(exception):
            return store_unavailable(request)
        if isinstance(exception, KnownFailure):
            return known_failure(request, exception)
        return None


def request_line_length(request: HttpRequest) -> int:
    """The request line's length as sent: ``METHOD URI PROTOCOL`` (gunicorn's ``RAW_URI``,
    else the path and query as Django has them)."""
    uri = request.META.get("RAW_URI") or request.get_full_path()
    protocol = request.META.get("SERVER_PROTOCOL", "HTTP/1.1")
    return len(request.method or "") + 1 + len(uri) + 1 + len(protocol)


def header_fields(request: HttpRequest) -> list[int]:
    """The length of each header field line (``Name: value``) of the request."""
    meta = request.META
    names = [name for name in meta if name.startswith("HTTP_")]
    names += [name for name in ("CONTENT_TYPE", "CONTENT_LENGTH") if meta.get(name)]
    return [len(name.removeprefix("HTTP_")) + 2 + len(str(meta[name])) for name in names]


class RequestLimitsMiddleware:
    """Answer an over-long request line (414) or header (431) before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        line_limit = settings.LIGHTNOTE_MAX_REQUEST_LINE
        if request_line_length(request) > line_limit:
            return error_answer(request, "URI_TOO_LONG", 414, limit=line_limit)
        fields = header_fields(request)
        field_limit = settings.LIGHTNOTE_MAX_HEADER_FIELD
        count_limit = settings.LIGHTNOTE_MAX_HEADER_FIELDS
        if len(fields) > count_limit or any(length > field_limit for length in fields):
            return error_answer(
                request, "HEADERS_TOO_LARGE", 431, limit=field_limit, fields=count_limit
            )
        return self.get_response(request)


# --- Django's error handlers (named in lightnote/urls.py and settings.CSRF_FAILURE_VIEW) ---


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 400 (a bad Host, a malformed form post, too many fields) in the error format."""
    if isinstance(exception, RequestDataTooBig):
        return too_large(request)
    if not wants_json(request):
        return defaults.bad_request(request, exception)  # type: ignore[arg-type]
    return error_answer(request, "BAD_REQUEST", 400)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A refused CSRF check: the error body under ``/api/``, Django's page elsewhere."""
    if not wants_json(request):
        return csrf.csrf_failure(request, reason)
    return error_answer(request, "CSRF_FAILED", 403)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's 403 outside DRF: the error body under ``/api/``."""
    if not wants_json(request):
        return defaults.permission_denied(request, exception)  # type: ignore[arg-type]
    return error_answer(request, "PERMISSION_DENIED", 403)
