"""Conversations and the receipts of confirmed actions (the audit log: lightnote.models)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

TITLE_MAX = 120
# The longest message a user may send (the API's body and the chat page's form).
MESSAGE_MAX = 4000


class AgentSessionQuerySet(models.QuerySet["AgentSession"]):
    def live(self) -> AgentSessionQuerySet:
        """Sessions that were not deleted (a deleted session is 404 everywhere)."""
        return self.filter(deleted_at__isnull=True)


class AgentSession(models.Model):
    """A conversation, owned by the user who opened it.

    ``title`` is the first user message (cut to ``TITLE_MAX``) until the owner renames it;
    ``updated_at`` moves with every turn, so the list shows the latest conversation first.
    Deleting is soft (``deleted_at``): the rows stay for the audit trail and receipts.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agent_sessions"
    )
    title = models.CharField(max_length=TITLE_MAX, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)
    # Until when a pending question or choice of this conversation may wait in the store
    # (``agent.conversation.pending``), written by the turn that asked it; null when the last turn
    # asked
    # nothing. A hint, read with the session: a turn reads the store only while it may hold
    # one (the store's record, with its own expiry, stays the truth).
    pending_until = models.DateTimeField(null=True, blank=True)
    # Set for a staff member's read-only conversation inside an admin context: owned by the
    # staff member, it reads the context's subject's data and is usable only inside that
    # context (never listed, never reachable without it). Null for every ordinary one.
    admin_context = models.ForeignKey(
        "lightnote.AdminContext",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="agent_sessions",
        verbose_name=_("admin context"),
    )

    objects = AgentSessionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        # The list's filter and sort (``session_list``: live, ordinary — no admin context —,
        # latest activity first, then id descending), owner first: a page reads its rows
        # straight off the index.
        indexes = [
            models.Index(
                fields=["owner", "deleted_at", "admin_context", "-updated_at", "-id"],
                name="session_owner_live_idx",
            )
        ]
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")

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
    # For assistant turns: the stored items read on the turn (type, id, title), which later
    # turns' cards name as their provenance. A column of its own: every message turn reads
    # it for the recent history, which then never parses a payload (cards, facts, notices).
    reads = models.JSONField(null=True, blank=True, editable=False)
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
        SUCCEEDED = "succeeded", _("succeeded")
        VOIDED = "voided", _("voided (not executed)")

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
        verbose_name = _("action receipt")
        verbose_name_plural = _("action receipts")

    def __str__(self) -> str:
        return f"{self.tool} {self.action_id} {self.status}"


class ActionCard(models.Model):
    """The lifecycle of one confirmation card, kept in the database (never a raw token).

    The id is the card id = the action id = the receipt's ``action_id``. Redis holds the
    live control record (claim, lease, replayable outcome); this row is what history shows,
    so it never depends on Redis still holding the card:

    - ``ready``: issued with its prepared args and preview; it reads as *expired* once
      ``expires_at`` has passed (nothing else writes an expiry);
    - ``rejected``: the owner rejected it;
    - ``settled``: executed or resolved; ``outcome_kind`` is ``succeeded`` (``receipt`` links
      the receipt, written in the same transaction), ``failed`` or ``unknown`` (until the
      receipt table resolves it);
    - ``voided``: withdrawn before any execution — its session was deleted, it failed its
      integrity check, or a newer card supersedes it (``void_reason``).

    ``parent`` names the card this one was derived from (an edit, a choice, an "ask again");
    ``compensates`` names the settled card an undo reverses.
    """

    class State(models.TextChoices):
        READY = "ready", _("ready")
        REJECTED = "rejected", _("rejected")
        SETTLED = "settled", _("settled")
        VOIDED = "voided", _("voided")

    class OutcomeKind(models.TextChoices):
        SUCCEEDED = "succeeded", _("succeeded")
        FAILED = "failed", _("failed")
        UNKNOWN = "unknown", _("unknown")

    class VoidReason(models.TextChoices):
        SESSION_DELETED = "session_deleted", _("session deleted")
        INVALID = "invalid", _("failed its integrity check")
        SUPERSEDED = "superseded", _("superseded by a newer card")

    id = models.UUIDField(primary_key=True, editable=False)
    session = models.ForeignKey(AgentSession, on_delete=models.CASCADE, related_name="cards")
    message = models.ForeignKey(
        Message, null=True, blank=True, on_delete=models.CASCADE, related_name="cards"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    tool = models.CharField(max_length=64)
    capability = models.CharField(max_length=64)
    risk = models.CharField(max_length=8)
    args = models.JSONField(default=dict)
    preview = models.JSONField(default=dict)
    # SHA-256 digests only (the Redis record's name): enough to void the live record, never
    # enough to confirm it.
    token_digest = models.CharField(max_length=64, unique=True)
    continuation_digest = models.CharField(max_length=64, blank=True, default="")
    state = models.CharField(max_length=16, choices=State.choices, default=State.READY)
    outcome_kind = models.CharField(
        max_length=16, choices=OutcomeKind.choices, blank=True, default=""
    )
    # {"code", "message", "params"?} of a failed or unknown outcome, as first answered.
    error = models.JSONField(null=True, blank=True)
    receipt = models.OneToOneField(
        ActionReceipt, null=True, blank=True, on_delete=models.PROTECT, related_name="card"
    )
    void_reason = models.CharField(
        max_length=32, choices=VoidReason.choices, blank=True, default=""
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    compensates = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="undos"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    rejected_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        # No index may pair ``session`` with ``state``: InnoDB would then check the session
        # foreign key on every state change (a shared lock on the session row), and a
        # settle would deadlock with a delete that holds that row and voids the card.
        indexes = [models.Index(fields=["state", "outcome_kind", "settled_at"])]
        verbose_name = _("action card")
        verbose_name_plural = _("action cards")

    def __str__(self) -> str:
        return f"card {self.id} {self.state} {self.outcome_kind}".rstrip()


class Choice(models.Model):
    """A choice card: which of several items a proposal meant, kept in the database.

    Issued when a proposal's target (a todo or note named by title or description) matches
    several of the owner's items. The live, sealed record (with each candidate's prepared
    args) is in Redis (``agent.choices.choose``); this row is what history shows:

    - ``ready``: waiting for a pick; it reads as *expired* once ``expires_at`` has passed;
    - ``chosen``: a candidate was picked (``chosen_id``) and ``card`` is the ordinary card
      issued for it (never an execution);
    - ``voided``: withdrawn (its session was deleted).
    """

    class State(models.TextChoices):
        READY = "ready", "ready"
        CHOSEN = "chosen", "chosen"
        VOIDED = "voided", "voided"

    id = models.UUIDField(primary_key=True, editable=False)
    session = models.ForeignKey(AgentSession, on_delete=models.CASCADE, related_name="choices")
    message = models.ForeignKey(
        Message, null=True, blank=True, on_delete=models.CASCADE, related_name="choices"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    tool = models.CharField(max_length=64)
    capability = models.CharField(max_length=64)
    # The public candidates, as shown: [{"id", "title", "status", "due_at", "excerpt"}, ...]
    candidates = models.JSONField(default=list)
    token_digest = models.CharField(max_length=64, unique=True)
    state = models.CharField(max_length=16, choices=State.choices, default=State.READY)
    chosen_id = models.CharField(max_length=64, blank=True, default="")
    card = models.ForeignKey(
        ActionCard, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField()
    chosen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"choice {self.id} {self.state}"
