"""The request's id, its log line and its metrics, in one outermost middleware.

Every response carries ``X-Request-ID``: the client's own when it sent a well-formed one
(1-64 of ``A-Z a-z 0-9 . _ : -``), else a new one. The id is also written back into
``request.META`` so the cards a request issues bind the same id (``agent.cards.issue``).
Then one log line per request (method, route pattern, status, duration; the user id once
authentication ran) and the request metrics (``lightnote.ops.metrics.http_response``).

It costs no SQL and no Redis round trip: the user id is read only if something already
loaded the user, and the metrics are in-process.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from time import perf_counter
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from lightnote.ops import metrics
from lightnote.ops.logs import log_context

logger = logging.getLogger("lightnote.request")

REQUEST_ID_HEADER = "X-Request-ID"
# The statuses whose error code the metrics count (lightnote.ops.metrics.http_response).
CODED_STATUSES = frozenset({410, 429, 503})
_WELL_FORMED = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


def request_id_of(request: HttpRequest) -> str:
    """The client's ``X-Request-ID`` when it is well-formed, else a new id."""
    given = request.META.get("HTTP_X_REQUEST_ID", "")
    if isinstance(given, str) and _WELL_FORMED.match(given):
        return given
    return uuid.uuid4().hex


def route_of(request: HttpRequest) -> str:
    """The URL pattern that served the request (never the raw path, which holds ids)."""
    match = getattr(request, "resolver_match", None)
    if match is not None and match.route:
        return "/" + match.route.lstrip("^").rstrip("$")
    if request.path.startswith(settings.STATIC_URL):
        return "static"
    return "unmatched"


def error_code_of(response: HttpResponseBase) -> str:
    """The ``error.code`` of an error body (DRF's data, or the small JSON body parsed)."""
    data = getattr(response, "data", None)
    json_body = response.get("Content-Type", "").startswith("application/json")
    if data is None and json_body and not response.streaming:
        try:
            data = json.loads(getattr(response, "content", b"") or b"null")
        except ValueError:
            data = None
    error = data.get("error") if isinstance(data, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) and code.isupper() and len(code) <= 64 else ""


class RequestObservabilityMiddleware:
    """Request id on every response; one log line and the request metrics per request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        request_id = request_id_of(request)
        request.META["HTTP_X_REQUEST_ID"] = request_id
        started = perf_counter()
        with log_context(request_id=request_id, _request=request) as context:
            response = self.get_response(request)
            seconds = perf_counter() - started
            route = route_of(request)
            context["route"] = route
            response[REQUEST_ID_HEADER] = request_id
            status = response.status_code
            code = error_code_of(response) if status in CODED_STATUSES else ""
            metrics.http_response(
                route=route, method=request.method or "", status=status, seconds=seconds, code=code
            )
            fields: dict[str, Any] = {
                "method": request.method,
                "status": status,
                "duration_ms": round(seconds * 1000, 1),
            }
            if code:
                fields["code"] = code
            level = logging.ERROR if status >= 500 and status != 503 else logging.INFO
            logger.log(level, "%s %s %s", request.method, route, status, extra=fields)
        return response
