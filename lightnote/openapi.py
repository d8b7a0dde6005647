"""OpenAPI helpers: the one error body, declared for every status an operation can return."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
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
    422: "Unprocessable (e.g. IDEMPOTENCY_KEY_REUSED)",
    429: "Rate limited (RATE_LIMITED, with Retry-After)",
    503: "A required store is unavailable",
}


def error_responses(*statuses: int, **descriptions: str) -> dict[int, Any]:
    """Return ``{status: OpenApiResponse(ErrorBody)}`` for ``@extend_schema(responses=...)``."""
    result: dict[int, Any] = {}
    for status in statuses:
        description = descriptions.get(f"s{status}", _DESCRIPTIONS.get(status, "Error"))
        result[status] = OpenApiResponse(
            response=ErrorBody,
            description=description,
            examples=[
                OpenApiExample(
                    f"error{status}",
                    value={"error": {"code": "...", "message": "..."}},
                    response_only=True,
                    status_codes=[str(status)],
                )
            ],
        )
    return result
