"""The one error type for domain and protocol failures, and the DRF handler that renders it.

Every error body is ``{"error": {"code": "UPPER_SNAKE", "message": "...", ...}}`` with the
message in the request's locale.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response

from lightnote.texts.i18n import (
    DEFAULT_LOCALE,
    define_messages,
    locale_from_accept_language,
    request_locale,
    translate,
)

logger = logging.getLogger(__name__)

# The database is unreachable or the connection broke (not: a constraint, a bad query).
DATABASE_LOST = (OperationalError, InterfaceError)


def is_database_lost(exc: BaseException | None) -> bool:
    """True for a lost or unusable database connection (Django's wrapped driver errors)."""
    return isinstance(exc, DATABASE_LOST)


def safe_locale(request: HttpRequest | None) -> str:
    """``request_locale`` that never needs the database (it may be the thing that failed)."""
    if request is None:
        return DEFAULT_LOCALE
    try:
        return request_locale(request)
    except DatabaseError:
        header = request.META.get("HTTP_ACCEPT_LANGUAGE")
        return locale_from_accept_language(header) or DEFAULT_LOCALE


class KnownFailure(Exception):
    """A failure that knows its answer: ``code``, ``status``, message ``params``, ``extra``
    keys and ``headers`` (``lightnote.errors.LightNoteError`` is the one kind)."""

    code: str
    status: int
    params: dict[str, Any]
    extra: dict[str, Any]
    headers: dict[str, str]


class LightNoteError(KnownFailure):
    """A failure with a stable code, an HTTP status and a translated message.

    ``params`` fill the message template; ``extra`` adds keys inside ``error`` (e.g.
    ``fields`` or ``candidates``); ``outer`` adds keys beside ``error`` (e.g. ``state``).
    """

    def __init__(
        self,
        code: str,
        *,
        status: int = 400,
        params: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        outer: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.params = params or {}
        self.extra = extra or {}
        self.outer = outer or {}
        self.headers = headers or {}

    def message(self, locale: str | None) -> str:
        return translate(self.code, locale, **self.params)

    def as_error(self, locale: str | None) -> dict[str, Any]:
        """Return the ``{"code", "message", ...}`` object, e.g. for a settled outcome."""
        return {"code": self.code, "message": self.message(locale), **self.extra}

    def body(self, locale: str | None) -> dict[str, Any]:
        return {"error": self.as_error(locale), **self.outer}

    def __repr__(self) -> str:
        return f"LightNoteError({self.code!r}, status={self.status})"


define_messages(
    {
        "VALIDATION_ERROR": ("请求参数不合法。", "The request is not valid."),
        "MALFORMED_REQUEST": ("请求体不是合法的 JSON。", "The request body is not valid JSON."),
        "UNSUPPORTED_MEDIA_TYPE": (
            "请以 application/json 发送请求。",
            "Send the request as application/json.",
        ),
        "NOT_AUTHENTICATED": ("请先登录。", "Authentication is required."),
        "AUTHENTICATION_FAILED": ("登录凭据无效。", "The credentials are not valid."),
        "INVALID_CREDENTIALS": ("用户名或密码错误。", "The username or password is wrong."),
        "PERMISSION_DENIED": ("你没有执行此操作的权限。", "You may not do this."),
        "NOT_FOUND": ("资源不存在。", "Not found."),
        "METHOD_NOT_ALLOWED": ("不支持该请求方法。", "This method is not allowed here."),
        "NOT_ACCEPTABLE": ("无法提供所请求的格式。", "The requested format is not available."),
        "RATE_LIMITED": (
            "操作过于频繁，请 {retry_after} 秒后再试。",
            "Too many requests; retry in {retry_after} s.",
        ),
        "INTERNAL_ERROR": (
            "服务器内部错误，请稍后重试。",
            "Internal server error; please retry later.",
        ),
        "UNKNOWN_FIELD": ("不支持的字段。", "This field is not allowed."),
    }
)

_DRF_CODES: list[tuple[type[drf_exceptions.APIException], str]] = [
    (drf_exceptions.NotAuthenticated, "NOT_AUTHENTICATED"),
    (drf_exceptions.AuthenticationFailed, "AUTHENTICATION_FAILED"),
    (drf_exceptions.PermissionDenied, "PERMISSION_DENIED"),
    (drf_exceptions.NotFound, "NOT_FOUND"),
    (drf_exceptions.MethodNotAllowed, "METHOD_NOT_ALLOWED"),
    (drf_exceptions.NotAcceptable, "NOT_ACCEPTABLE"),
    (drf_exceptions.UnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"),
    (drf_exceptions.ParseError, "MALFORMED_REQUEST"),
    (drf_exceptions.Throttled, "RATE_LIMITED"),
]


def _field_errors(detail: Any) -> Any:
    """Flatten DRF's ErrorDetail tree into plain strings and lists."""
    if isinstance(detail, dict):
        return {key: _field_errors(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_field_errors(value) for value in detail]
    return str(detail)


def error_response(error: LightNoteError, request: Any) -> Response:
    """Render ``error`` in the request's locale."""
    response = Response(error.body(request_locale(request)), status=error.status)
    for name, value in error.headers.items():
        response[name] = value
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF exception handler: every failure becomes the one error body."""
    from rest_framework.views import set_rollback  # not at import: DRF imports this module

    request = context.get("request")
    if isinstance(exc, LightNoteError):
        set_rollback()
        return error_response(exc, request)
    if is_database_lost(exc):
        # Lost database: nothing was written (an unsafe request never got as far as a claim
        # or a commit: those paths answer for themselves). The locale needs no user row.
        logger.error("database unavailable: %s", exc)
        set_rollback()
        error = LightNoteError("DATABASE_UNAVAILABLE", status=503)
        response = Response(error.body(safe_locale(request)), status=503)
        response["Retry-After"] = "5"
        return response
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()
    if isinstance(exc, drf_exceptions.ValidationError):
        set_rollback()
        fields = _field_errors(exc.detail)
        if not isinstance(fields, dict):
            fields = {"non_field_errors": fields if isinstance(fields, list) else [fields]}
        return error_response(LightNoteError("VALIDATION_ERROR", extra={"fields": fields}), request)
    if isinstance(exc, drf_exceptions.APIException):
        set_rollback()
        code = next((c for cls, c in _DRF_CODES if isinstance(exc, cls)), "VALIDATION_ERROR")
        headers: dict[str, str] = {}
        params: dict[str, Any] = {}
        if isinstance(exc, drf_exceptions.Throttled):
            wait = int(getattr(exc, "wait", None) or 1)
            headers["Retry-After"] = str(wait)
            params["retry_after"] = wait
        error = LightNoteError(code, status=exc.status_code, params=params, headers=headers)
        response = error_response(error, request)
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            response["WWW-Authenticate"] = auth_header
        return response
    return None
