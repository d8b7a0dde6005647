"""Whether a user's email address is proven theirs (they opened the link mailed to it)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class EmailVerification(models.Model):
    """The address a user proved, and when: mail other than a password reset goes only to
    ``user.email`` when it equals ``email`` here (a changed address must be proven again)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="email_verification",
        verbose_name=_("user"),
    )
    email = models.EmailField(_("verified address"))
    verified_at = models.DateTimeField(_("verified at"))

    class Meta:
        verbose_name = _("email verification")
        verbose_name_plural = _("email verifications")

    def __str__(self) -> str:
        return self.email
