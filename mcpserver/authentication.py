"""The REST API's answer to an MCP token: reads pass, every write and confirm is refused.

An MCP token is scoped to read + propose through MCP. On the API it authenticates safe
methods (GET, HEAD, OPTIONS) like any token; every other method — each write, each
confirmation, each new agent message (which would hand back confirm tokens) — is refused
with 403 ``MCP_TOKEN_WRITE_FORBIDDEN`` before any view runs.
"""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import SAFE_METHODS

from lightnote.errors import LightNoteError
from lightnote.impersonation.context import resolve_actor_context
from lightnote.texts.i18n import activate_request_language
from mcpserver.tokens import looks_like_mcp_key, mcp_token_authenticate

_SCHEMES = {"bearer", "token"}


class McpTokenAuthentication(BaseAuthentication):
    """``Authorization: Bearer lnmcp_…`` (or ``Token lnmcp_…``): read-only on the API."""

    # Refuses every unsafe method itself, so the admin read-only gate has nothing to add.
    runs_admin_gate = True

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if len(parts) != 2 or parts[0].decode("latin-1").lower() not in _SCHEMES:
            return None
        key = parts[1].decode("latin-1")
        if not looks_like_mcp_key(key):
            return None  # another kind of token: the next class decides
        if request.method not in SAFE_METHODS:
            from lightnote.audit import audit_event

            audit_event(
                "mcp.api_write_refused",
                code="MCP_TOKEN_WRITE_FORBIDDEN",
                details={"channel": "mcp", "method": request.method, "path": request.path},
            )
            raise LightNoteError("MCP_TOKEN_WRITE_FORBIDDEN", status=403)
        token = mcp_token_authenticate(key)
        context = resolve_actor_context(request, token.owner)
        activate_request_language(request, context.subject)  # as the API's other classes
        return context.subject, token

    def authenticate_header(self, request: Any) -> str:
        # DRF asks the first class for the 401 challenge: keep the API's own, ``Token``.
        return "Token"
