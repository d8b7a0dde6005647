"""The streamable HTTP transport: the SDK's app, with bearer MCP tokens and origin checks.

Authentication uses the SDK's own pieces: ``BearerAuthBackend`` with a ``TokenVerifier``
that accepts active MCP tokens, and ``RequireAuthMiddleware`` in front of ``/mcp``; the
SDK's session manager then refuses a session id presented with another credential. DNS
rebinding protection (Host and Origin checks) stays on, as the SDK recommends.
"""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

from lightnote.errors import LightNoteError
from mcpserver.connections import refresh_connections
from mcpserver.models import McpSession
from mcpserver.server import Binding, build_server
from mcpserver.tokens import mcp_token_authenticate

MCP_PATH = "/mcp"
SCOPE = "lightnote:mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def _verify(raw_key: str) -> AccessToken | None:
    refresh_connections()
    try:
        token = mcp_token_authenticate(raw_key)
    except LightNoteError:
        return None
    finally:
        refresh_connections()
    return AccessToken(
        token=raw_key,
        client_id=f"mcp-token-{token.pk}",
        scopes=[SCOPE],
        subject=str(token.owner_id),
    )


class McpTokenVerifier:
    """The SDK's ``TokenVerifier`` for LightNote MCP tokens (checked on every request)."""

    async def verify_token(self, token: str) -> AccessToken | None:
        result: AccessToken | None = await sync_to_async(_verify, thread_sensitive=True)(token)
        return result


def split_bind(bind: str) -> tuple[str, int]:
    """Return ``(host, port)`` of ``host:port`` (``[::1]:8765`` for IPv6)."""
    host, _, port = bind.rpartition(":")
    return host.strip("[]"), int(port)


def _transport_security(host: str, port: int) -> TransportSecuritySettings:
    """Return the Host/Origin allow-lists for a server bound to ``host:port``."""
    if host in LOOPBACK:
        hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
        origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
    else:
        shown = f"[{host}]" if ":" in host else host
        hosts = [f"{shown}:{port}"]
        origins = []
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts + list(settings.LIGHTNOTE_MCP_ALLOWED_HOSTS),
        allowed_origins=origins + list(settings.LIGHTNOTE_MCP_ALLOWED_ORIGINS),
    )


def build_http_app(
    bind: str | None = None,
    *,
    transport_security: TransportSecuritySettings | None = None,
    **options: Any,
) -> Starlette:
    """Return the ASGI app serving MCP at ``/mcp`` for ``bind`` (``LIGHTNOTE_MCP_BIND``);
    ``transport_security`` replaces the Host/Origin lists made for that bind."""
    host, port = split_bind(bind or settings.LIGHTNOTE_MCP_BIND)
    server = build_server(Binding(transport=McpSession.Transport.HTTP))
    return server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=transport_security or _transport_security(host, port),
        host=host,
        # No OAuth server here: the issuer is LightNote itself, where tokens are made, and
        # no resource URL is given, so the SDK publishes no OAuth metadata.
        auth=AuthSettings(
            issuer_url=settings.LIGHTNOTE_PUBLIC_URL,  # type: ignore[arg-type]
            resource_server_url=None,
            required_scopes=[SCOPE],
        ),
        token_verifier=McpTokenVerifier(),
        **options,
    )
