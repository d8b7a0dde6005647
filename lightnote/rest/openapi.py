"""OpenAPI helpers: the one error body, declared for every status an operation can return."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from drf_spectacular.authentication import SessionScheme
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    inline_serializer,
)
from rest_framework import serializers

ErrorDetail = inline_serializer(
    name="ErrorDetail",
    fields={
        "code": serializers.CharField(help_text="UPPER_SNAKE error code"),
        "message": serializers.CharField(help_text="In the request's locale"),
        "fields": serializers.DictField(required=False, help_text="Per-field validation errors"),
    },
)
ErrorBody = inline_serializer(name="ErrorBody", fields={"error": ErrorDetail})

_DESCRIPTIONS = {
    400: "Invalid request (VALIDATION_ERROR and friends)",
    401: "Not authenticated (NOT_AUTHENTICATED, AUTHENTICATION_FAILED)",
    403: "Forbidden (e.g. ADMIN_READONLY)",
    404: "Not found, or another user's object",
    409: "Conflict (e.g. a stale version)",
    410: "Gone (unknown or expired token)",
    415: "The body is not application/json (UNSUPPORTED_MEDIA_TYPE)",
    422: "Unprocessable (e.g. IDEMPOTENCY_KEY_REUSED)",
    429: "Rate limited (RATE_LIMITED, with Retry-After)",
    503: "A required store is unavailable",
}

# The 403s every authenticated operation can answer, whatever it does.
AUTHENTICATED_403 = (
    "ADMIN_CONTEXT_INVALID (X-Admin-Context names no active context of this staff member), "
    "ADMIN_ONLY (X-Admin-Context sent by a non-staff user), or a failed CSRF check"
)
WRITE_403 = (
    AUTHENTICATED_403
    + "; ADMIN_READONLY (an admin read-only context is active); MCP_TOKEN_WRITE_FORBIDDEN (an "
    "MCP token, which may only read through the API)"
)


# Example codes shown for a status unless an operation names its own.
_EXAMPLE_CODES = {
    400: ("VALIDATION_ERROR",),
    401: ("NOT_AUTHENTICATED",),
    403: ("ADMIN_READONLY",),
    404: ("NOT_FOUND",),
    415: ("UNSUPPORTED_MEDIA_TYPE",),
    429: ("RATE_LIMITED",),
}
# Sample values for the placeholders of example messages.
_EXAMPLE_PARAMS = {"retry_after": 30, "max": 120, "limit": 4000, "limit_kb": 64}


def _error_example(status: int, code: str) -> OpenApiExample:
    """Return a real error body for ``code`` (its English message) as an example."""
    from lightnote.texts.i18n import translate

    error: dict[str, Any] = {"code": code, "message": translate(code, "en", **_EXAMPLE_PARAMS)}
    if code == "VALIDATION_ERROR":
        error["fields"] = {"text": ["This field is required."]}
    return OpenApiExample(
        f"{status} {code}",
        value={"error": error},
        response_only=True,
        status_codes=[str(status)],
    )


def error_responses(*statuses: int, **descriptions: str) -> dict[int, Any]:
    """Return ``{status: OpenApiResponse(ErrorBody)}`` for ``@extend_schema(responses=...)``."""
    return documented_errors(statuses, codes={}, descriptions=descriptions)


def documented_errors(
    statuses: Sequence[int],
    *,
    codes: Mapping[int, Sequence[str]],
    descriptions: Mapping[str, str] | None = None,
) -> dict[int, Any]:
    """Like :func:`error_responses`, naming the error codes an operation answers per status.

    Each code becomes an example with its real message; a status with no code shows a
    typical code of that status. ``descriptions`` maps ``"s409"`` to a status's text.
    """
    result: dict[int, Any] = {}
    for status in statuses:
        description = (descriptions or {}).get(f"s{status}", _DESCRIPTIONS.get(status, "Error"))
        examples_for = codes.get(status) or _EXAMPLE_CODES.get(status)
        examples = (
            [_error_example(status, code) for code in examples_for]
            if examples_for
            else [
                OpenApiExample(
                    f"error{status}",
                    value={"error": {"code": "...", "message": "..."}},
                    response_only=True,
                    status_codes=[str(status)],
                )
            ]
        )
        result[status] = OpenApiResponse(
            response=ErrorBody, description=description, examples=examples
        )
    return result


ADMIN_CONTEXT_PARAMETER = OpenApiParameter(
    name="X-Admin-Context",
    type=OpenApiTypes.UUID,
    location=OpenApiParameter.HEADER,
    required=False,
    description=(
        "Staff only: the id of an active admin read-only context. Reads then return the "
        "subject's data and every write is refused with 403 ADMIN_READONLY."
    ),
)


def path_uuid(name: str, description: str) -> OpenApiParameter:
    """Declare a UUID path parameter (the route takes any string, so a bad id is a 404)."""
    return OpenApiParameter(
        name=name, type=OpenApiTypes.UUID, location=OpenApiParameter.PATH, description=description
    )


class LightNoteSessionScheme(SessionScheme):
    """Document ``lightnote.accounts.authentication.SessionAuthentication`` as the session
    cookie."""

    target_class = "lightnote.accounts.authentication.SessionAuthentication"


# --- Answers every operation can give at the HTTP edge (docs/security.md) --------------------

_BODY_METHODS = {"post", "put", "patch"}
JSON = "application/json"


def _edge_error(code: str, description: str) -> dict[str, Any]:
    from lightnote.texts.i18n import translate

    message = translate(code, "en", limit=1_048_576, fields=100)
    return {
        "description": description,
        "content": {
            JSON: {
                "schema": {"$ref": "#/components/schemas/ErrorBody"},
                "examples": {code: {"value": {"error": {"code": code, "message": message}}}},
            }
        },
    }


def document_edge_errors(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: declare what any operation may answer before or
    around its view — 503 ``DATABASE_UNAVAILABLE`` (a lost database) everywhere, and 413
    ``REQUEST_TOO_LARGE``, 411 ``LENGTH_REQUIRED`` and 400 ``MALFORMED_REQUEST`` wherever a
    body is taken."""
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            edge = {
                "503": ("DATABASE_UNAVAILABLE", "The database is unavailable"),
                "414": ("URI_TOO_LONG", "The request line is over LIGHTNOTE_MAX_REQUEST_LINE"),
                "431": ("HEADERS_TOO_LARGE", "A header over LIGHTNOTE_MAX_HEADER_FIELD"),
            }
            if method in _BODY_METHODS or "requestBody" in operation:
                edge["413"] = ("REQUEST_TOO_LARGE", "The body is over LIGHTNOTE_MAX_BODY_BYTES")
                edge["411"] = ("LENGTH_REQUIRED", "A chunked body without Content-Length")
                edge["400"] = ("MALFORMED_REQUEST", _DESCRIPTIONS[400])
            for status, (code, description) in edge.items():
                if status not in responses:
                    responses[status] = _edge_error(code, description)
                    continue
                content = responses[status].get("content", {}).get(JSON)
                if content is not None:
                    examples = content.setdefault("examples", {})
                    examples.setdefault(
                        code, _edge_error(code, "")["content"][JSON]["examples"][code]
                    )
                if code not in responses[status].get("description", ""):
                    responses[status]["description"] += f"; {code}"
    return result


RETRY_AFTER_HEADER = {
    "schema": {"type": "integer", "minimum": 1},
    "description": "Seconds to wait before asking again (202 running: poll `status` or the "
    "reply again; 429: the rate limit's window)",
}


def declare_retry_after(
    result: dict[str, Any], generator: Any, request: Any, public: Any
) -> dict[str, Any]:
    """Postprocessing hook: declare the ``Retry-After`` header on every 202 and 429 answer."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for status in ("202", "429"):
                response = operation.get("responses", {}).get(status)
                if response is not None:
                    response.setdefault("headers", {})["Retry-After"] = RETRY_AFTER_HEADER
    return result
