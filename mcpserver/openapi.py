"""Document the MCP token on the REST API (read-only: every unsafe method answers 403)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class McpTokenScheme(OpenApiAuthenticationExtension):
    target_class = "mcpserver.authentication.McpTokenAuthentication"
    name = "mcpToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "An MCP token (lnmcp_…), also accepted as `Token lnmcp_…`. Read-only on this "
                "API: every other method answers 403 MCP_TOKEN_WRITE_FORBIDDEN. See docs/mcp.md."
            ),
        }
