"""MCP tokens: create, revoke, authenticate. The only module that writes ``McpToken``."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from lightnote.accounts.caps import enforce_cap
from lightnote.errors import LightNoteError
from lightnote.field_checks import checked_line
from lightnote.models import User
from mcpserver.models import TOKEN_NAME_MAX, McpToken

KEY_PREFIX = "lnmcp_"
PREFIX_SHOWN = len(KEY_PREFIX) + 6
# ``last_used_at`` is a hint for the owner, not an audit trail: written at most this often.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def key_digest(raw_key: str) -> str:
    """Return the stored digest of a raw key."""
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def looks_like_mcp_key(raw_key: str) -> bool:
    """Return True for a string shaped like an MCP key (no database lookup)."""
    return raw_key.startswith(KEY_PREFIX)


def _clean_name(name: str) -> str:
    cleaned = checked_line(str(name or ""), field="name")
    if not cleaned or len(cleaned) > TOKEN_NAME_MAX:
        raise LightNoteError("MCP_TOKEN_NAME_INVALID", params={"limit": TOKEN_NAME_MAX})
    return cleaned


@transaction.atomic
def mcp_token_create(
    *, owner: User, name: str, scope: str = McpToken.Scope.PROPOSE
) -> tuple[McpToken, str]:
    """Create a token for ``owner`` with ``scope`` (``read`` or ``propose``); return it and
    its raw key (shown once, never stored)."""
    from lightnote.audit import audit_event

    if scope not in McpToken.Scope.values:
        raise LightNoteError("MCP_TOKEN_SCOPE_INVALID")
    enforce_cap("mcp_token", owner=owner)
    raw_key = KEY_PREFIX + secrets.token_urlsafe(32)
    token = McpToken.objects.create(
        owner=owner,
        name=_clean_name(name),
        scope=scope,
        key_digest=key_digest(raw_key),
        prefix=raw_key[:PREFIX_SHOWN],
    )
    audit_event(
        "mcp.token_created",
        actor=owner,
        subject=owner,
        details={"token_id": token.pk, "name": token.name, "scope": scope, "channel": "mcp"},
    )
    return token, raw_key


@transaction.atomic
def mcp_token_revoke(*, owner: User, token_id: int) -> McpToken:
    """Revoke one of ``owner``'s tokens (a repeat is a no-op); 404 for anyone else's."""
    from lightnote.audit import audit_event

    token = McpToken.objects.select_for_update().filter(pk=token_id, owner=owner).first()
    if token is None:
        raise LightNoteError("MCP_TOKEN_NOT_FOUND", status=404)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        audit_event(
            "mcp.token_revoked",
            actor=owner,
            subject=owner,
            details={"token_id": token.pk, "name": token.name, "channel": "mcp"},
        )
    return token


def mcp_token_authenticate(raw_key: str | None) -> McpToken:
    """Return the active token for ``raw_key``; 401 ``MCP_TOKEN_INVALID`` otherwise.

    An inactive owner's token is as invalid as a revoked one.
    """
    if not raw_key or not looks_like_mcp_key(raw_key):
        raise LightNoteError("MCP_TOKEN_INVALID", status=401)
    token = (
        McpToken.objects.select_related("owner")
        .filter(key_digest=key_digest(raw_key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.owner.is_active:
        raise LightNoteError("MCP_TOKEN_INVALID", status=401)
    now = timezone.now()
    if token.last_used_at is None or token.last_used_at < now - LAST_USED_RESOLUTION:
        # A conditional UPDATE: concurrent requests write it once, never a lost update.
        McpToken.objects.filter(pk=token.pk).filter(
            Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ).update(last_used_at=now)
        token.last_used_at = now
    return token
