"""The user (with time zone and language from creation on), admin impersonation contexts and
the audit log every layer appends to."""

from __future__ import annotations

import uuid
import zoneinfo

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from lightnote.times import is_allowed_time_zone

LANGUAGE_CHOICES = [("zh-CN", "简体中文"), ("en", "English")]


def default_time_zone() -> str:
    """Return the configured default zone (``LIGHTNOTE_TIME_ZONE``)."""
    return settings.LIGHTNOTE_TIME_ZONE


def validate_time_zone(value: str) -> None:
    """Reject anything but a zone a person can live in (:func:`lightnote.times.allowed_time_zones`:
    no ``posix/``, ``right/``, ``localtime``, ``posixrules``, ``Factory``). Used by the model,
    the API, the settings page and the admin alike."""
    if not is_allowed_time_zone(value):
        raise ValidationError(f"{value!r} is not an IANA time zone")


class User(AbstractUser):
    """A LightNote user. Every user has a zone and a language as column defaults, so a user
    made by any path (sign-up, admin, ``createsuperuser``, ``bulk_create``) has them."""

    time_zone = models.CharField(
        max_length=64, default=default_time_zone, validators=[validate_time_zone]
    )
    language = models.CharField(max_length=8, choices=LANGUAGE_CHOICES, default="zh-CN")

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class AdminContext(models.Model):
    """A staff member's read-only view of another user's data, for a limited time."""

    class Mode(models.TextChoices):
        READONLY = "readonly", "read-only"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="admin_contexts"
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.READONLY)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["staff", "expires_at"])]

    def __str__(self) -> str:
        return f"{self.staff} as {self.subject} ({self.mode})"

    @property
    def is_active(self) -> bool:
        return self.ended_at is None and self.expires_at > timezone.now()


class AuditEvent(models.Model):
    """An append-only record of who did (or was refused) what. Never holds a raw token.

    Written only through :func:`lightnote.audit.audit_event`. The table keeps the name it had
    when the agent app owned the model (``agent_auditevent``).
    """

    created_at = models.DateTimeField(default=timezone.now, editable=False, db_index=True)
    event_type = models.CharField(max_length=64, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    session_id = models.UUIDField(null=True, blank=True)
    capability = models.CharField(max_length=64, blank=True, default="")
    tool = models.CharField(max_length=64, blank=True, default="")
    action_id = models.UUIDField(null=True, blank=True, db_index=True)
    code = models.CharField(max_length=64, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "agent_auditevent"
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.event_type} {self.code}"
