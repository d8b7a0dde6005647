"""Pages of the MCP server: card confirmation and MCP token settings."""

from __future__ import annotations

from django.urls import path

from mcpserver import views
from mcpserver.web_endpoint import mcp_endpoint

urlpatterns = [
    # MCP's streamable HTTP in the web process itself (docs/mcp.md).
    path("mcp/", mcp_endpoint, name="mcp-endpoint"),
    path("mcp", mcp_endpoint),
    path("cards/<uuid:card_id>/", views.card_page, name="mcp-card"),
    path("cards/<uuid:card_id>/confirm/", views.card_confirm, name="mcp-card-confirm"),
    path("cards/<uuid:card_id>/reject/", views.card_reject, name="mcp-card-reject"),
    path("settings/mcp/", views.settings_page, name="mcp-settings"),
    path("settings/mcp/<int:token_id>/revoke/", views.token_revoke, name="mcp-token-revoke"),
]
