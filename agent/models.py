"""Conversations and the receipts of confirmed actions (the audit log: lightnote.models)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class AgentSession(models.Model):
    """A conversation, owned by the user who opened it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_sessions"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"session {self.id}"


class Message(models.Model):
    """One turn of a conversation: the user's text or the agent's (guarded) reply."""

    class Role(models.TextChoices):
        USER = "user", "user"
        ASSISTANT = "assistant", "assistant"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    session = models.ForeignKey(AgentSession, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField()
    # For assistant turns: facts, card tokens' public parts, notices (never a raw token).
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["session", "created_at"])]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:40]}"


class ActionReceipt(models.Model):
    """Proof that a confirmed agent action happened — or, voided, that it never will.

    A ``succeeded`` row is written in the same transaction as the change itself, so "did it
    happen?" is always answerable from the database. ``action_id`` (the card id) is unique:
    it is the fence that stops a second execution even if Redis lost the claim. A ``voided``
    row is written by reconciliation when an execution's lease passed with no receipt: it
    takes the same unique slot, so a late, slow executor can no longer commit, and
    "not executed" stays true.
    """

    class Status(models.TextChoices):
        SUCCEEDED = "succeeded", "succeeded"
        VOIDED = "voided", "voided (not executed)"

    action_id = models.UUIDField(unique=True, editable=False)
    tool = models.CharField(max_length=64)
    capability = models.CharField(max_length=64)
    args_hmac = models.CharField(max_length=64)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    session_id = models.UUIDField(null=True, blank=True)
    resource_type = models.CharField(max_length=32)
    resource_id = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.SUCCEEDED)
    summary = models.TextField()
    # The transform()ed result the continuation and replays need (JSON-safe).
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    settled_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.tool} {self.action_id} {self.status}"

