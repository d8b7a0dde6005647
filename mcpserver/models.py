"""MCP tokens, MCP sessions and the cards proposed through them."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone

TOKEN_NAME_MAX = 80


class McpToken(models.Model):
    """A credential for MCP clients only: it may read (and propose, by its scope), never
    write or confirm.

    Only the SHA-256 of the key is stored (the key has 256 random bits, so a fast hash is
    enough); ``prefix`` is the first characters, shown so the owner can tell tokens apart.
    ``conversation`` is where its proposals go, from every one of its MCP sessions: opened
    by the first proposal, replaced when the owner deletes it.
    """

    class Scope(models.TextChoices):
        READ = "read", "read"
        PROPOSE = "propose", "propose"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mcp_tokens"
    )
    name = models.CharField(max_length=TOKEN_NAME_MAX)
    key_digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=16, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    scope = models.CharField(max_length=16, choices=Scope.choices, default=Scope.PROPOSE)
    conversation = models.ForeignKey(
        "agent.AgentSession",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def may_propose(self) -> bool:
        return self.scope == self.Scope.PROPOSE


class McpSession(models.Model):
    """One MCP client session, and the agent session its cards belong to (its token's
    conversation, from its first proposal on; none before).

    ``key`` names the session on its transport: the stdio process, the streamable HTTP
    ``Mcp-Session-Id``, or the token itself for stateless HTTP requests.
    """

    class Transport(models.TextChoices):
        STDIO = "stdio", "stdio"
        HTTP = "http", "streamable HTTP"
        MEMORY = "memory", "in-process"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    key = models.CharField(max_length=200, unique=True)
    token = models.ForeignKey(McpToken, on_delete=models.CASCADE, related_name="sessions")
    agent_session = models.ForeignKey(
        "agent.AgentSession",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="mcp_sessions",
    )
    transport = models.CharField(max_length=16, choices=Transport.choices)
    client_name = models.CharField(max_length=200, blank=True, default="")
    client_version = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_seen_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"mcp session {self.id} ({self.client_name or 'unnamed client'})"


class McpCard(models.Model):
    """A card proposed through MCP: who may see it, and its confirm token, sealed.

    The token is encrypted with a key derived from the server secret (see ``sealing``) and
    is opened only by the confirmation page, for the card's owner. It never leaves the
    server: the MCP side gets the ``card_id`` and a link, nothing that could confirm.
    """

    card_id = models.UUIDField(primary_key=True, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    mcp_session = models.ForeignKey(McpSession, on_delete=models.CASCADE, related_name="cards")
    tool = models.CharField(max_length=64)
    capability = models.CharField(max_length=64)
    risk = models.CharField(max_length=8)
    sealed_token = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"mcp card {self.card_id} ({self.tool})"
