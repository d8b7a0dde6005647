"""Serve LightNote's agent tools to MCP clients: stdio (default) or streamable HTTP."""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lightnote.errors import LightNoteError
from mcpserver.models import McpSession
from mcpserver.tokens import mcp_token_authenticate


class Command(BaseCommand):
    help = (
        "Serve the agent's tools over MCP. stdio: the MCP token comes from LIGHTNOTE_MCP_TOKEN. "
        "http: streamable HTTP at http://LIGHTNOTE_MCP_BIND/mcp (default 127.0.0.1:8765), each "
        "request carrying 'Authorization: Bearer <MCP token>'."
    )
    requires_system_checks: Any = []  # stdout is the protocol channel: nothing else may print

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
        parser.add_argument("--bind", default=None, help="host:port for http")

    def handle(self, *args: Any, **options: Any) -> None:
        store = str(settings.CACHES["default"]["LOCATION"])
        if store.startswith("fakeredis://"):
            # Its cards would live in this process only: the web process's card page would
            # find none of them (and show them as not verifiable).
            raise CommandError(
                "The control store is in-process (LIGHTNOTE_REDIS_URL=fakeredis://...), so "
                "cards issued by mcp_serve could not be confirmed by the web process. Use the "
                "web process's own endpoint instead (make run, then "
                f"{settings.LIGHTNOTE_PUBLIC_URL}/mcp/), or point both processes at one Redis "
                "with LIGHTNOTE_REDIS_URL=redis://..."
            )
        if options["transport"] == "http":
            self._serve_http(options["bind"] or settings.LIGHTNOTE_MCP_BIND)
        else:
            self._serve_stdio()

    def _serve_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        from mcpserver.server import Binding, build_server

        key = os.environ.get("LIGHTNOTE_MCP_TOKEN", "").strip()
        try:
            mcp_token_authenticate(key)  # fail fast; every call checks it again
        except LightNoteError:
            raise CommandError(
                "LIGHTNOTE_MCP_TOKEN must hold an active MCP token "
                "(create one: manage.py mcp_token create --user NAME --name LABEL)"
            ) from None
        binding = Binding(
            transport=McpSession.Transport.STDIO,
            key=key,
            admin_context_id=os.environ.get("LIGHTNOTE_MCP_ADMIN_CONTEXT") or None,
        )
        server = build_server(binding)

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)

    def _serve_http(self, bind: str) -> None:
        import uvicorn

        from mcpserver.http import build_http_app, split_bind

        try:
            host, port = split_bind(bind)
        except ValueError:
            raise CommandError(f"--bind must look like host:port, got {bind!r}") from None
        app = build_http_app(bind)
        self.stderr.write(f"LightNote MCP server on http://{bind}/mcp")
        uvicorn.run(app, host=host, port=port, log_level="info", lifespan="on")
