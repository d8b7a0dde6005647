"""Writes of the user's own preferences."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.models import User


@transaction.atomic
def user_update_preferences(
    *,
    user: User,
    time_zone: str | None = None,
    language: str | None = None,
    channel: str = CHANNEL_SYSTEM,
) -> Any:
    """Set the user's time zone and/or language (audited ``user.preferences_updated``)."""
    fields = []
    if time_zone is not None:
        user.time_zone = time_zone
        fields.append("time_zone")
    if language is not None:
        user.language = language
        fields.append("language")
    if fields:
        user.save(update_fields=fields)
        audit_write(
            "user.preferences_updated",
            item_type="user",
            item_id=user.pk,
            owner=user,
            channel=channel,
        )
    return user
