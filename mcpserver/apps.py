from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class McpServerConfig(AppConfig):
    """The MCP server: the agent's tools for any MCP client, with the same cards."""

    name = "mcpserver"
    verbose_name = _("MCP server")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from mcpserver import messages, openapi  # noqa: F401  (texts; the OpenAPI scheme)
