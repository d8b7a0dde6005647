"""Deleting an account: the person's password, then every row they own (cascaded)."""

from __future__ import annotations

from django.apps import apps
from django.db import transaction
from django.db.models import Q

from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.errors import LightNoteError
from lightnote.models import User


@transaction.atomic
def account_delete(*, user: User, password: str, channel: str = CHANNEL_SYSTEM) -> None:
    """Delete ``user`` and their data for good; 400 ``ACCOUNT_PASSWORD_WRONG`` otherwise.

    The audit trail keeps the event (its actor column becomes empty with the user)."""
    if not password or not user.check_password(password):
        raise LightNoteError("ACCOUNT_PASSWORD_WRONG")
    audit_write("account.deleted", item_type="user", item_id=user.pk, owner=user, channel=channel)
    # A card protects its receipt (agent.ActionCard.receipt): the cards go first, then the
    # user and, cascaded, everything else they own. By name: the base layer imports no app.
    cards = apps.get_model("agent.ActionCard")._default_manager
    cards.filter(Q(owner=user) | Q(actor=user)).delete()
    user.delete()
