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
from django.utils.translation import gettext_lazy as _

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
        # In the request's language (Django's active one), like every field message.
        raise ValidationError(
            _("%(value)s is not a time zone; choose one such as Asia/Shanghai."),
            code="invalid_time_zone",
            params={"value": value},
        )


class User(AbstractUser):
    """A LightNote user. Every user has a zone and a language as column defaults, so a user
    made by any path (sign-up, admin, ``createsuperuser``, ``bulk_create``) has them."""

    time_zone = models.CharField(
        _("time zone"), max_length=64, default=default_time_zone, validators=[validate_time_zone]
    )
    language = models.CharField(
        _("language"), max_length=8, choices=LANGUAGE_CHOICES, default="zh-CN"
    )

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class AdminContext(models.Model):
    """A staff member's read-only view of another user's data, for a limited time."""

    class Mode(models.TextChoices):
        READONLY = "readonly", _("read-only")

    REASON_MAX = 500

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="admin_contexts",
        verbose_name=_("staff member"),
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("viewed user"),
    )
    mode = models.CharField(_("mode"), max_length=16, choices=Mode.choices, default=Mode.READONLY)
    # Why the staff member looked (required when started from the admin; optional in the API).
    reason = models.CharField(_("reason"), max_length=REASON_MAX, blank=True, default="")
    created_at = models.DateTimeField(_("started at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["staff", "expires_at"])]
        verbose_name = _("admin context")
        verbose_name_plural = _("admin contexts")

    def __str__(self) -> str:
        return f"{self.staff} → {self.subject} ({self.get_mode_display()})"

    @property
    def is_active(self) -> bool:
        return self.ended_at is None and self.expires_at > timezone.now()


class AuditEvent(models.Model):
    """An append-only record of who did (or was refused) what. Never holds a raw token.

    Written only through :func:`lightnote.audit.audit_event`. The table keeps the name it had
    when the agent app owned the model (``agent_auditevent``).
    """

    created_at = models.DateTimeField(
        _("time"), default=timezone.now, editable=False, db_index=True
    )
    event_type = models.CharField(_("event"), max_length=64, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("actor"),
    )
    subject = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("subject"),
    )
    session_id = models.UUIDField(_("conversation"), null=True, blank=True)
    capability = models.CharField(_("capability"), max_length=64, blank=True, default="")
    tool = models.CharField(_("tool"), max_length=64, blank=True, default="")
    action_id = models.UUIDField(_("action id"), null=True, blank=True, db_index=True)
    code = models.CharField(_("code"), max_length=64, blank=True, default="")
    details = models.JSONField(_("details"), default=dict, blank=True)

    class Meta:
        db_table = "agent_auditevent"
        ordering = ["-created_at", "-id"]
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")

    def __str__(self) -> str:
        # In the active zone (the staff member's on admin screens), as every other time.
        return (
            f"{timezone.localtime(self.created_at):%Y-%m-%d %H:%M:%S} {self.event_type} {self.code}"
        )
