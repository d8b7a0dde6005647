"""Django admin for the agent's records: receipts are read-only, like every record whose
writes must pass through a service."""

from __future__ import annotations

from django.contrib import admin

from agent.models import ActionCard, ActionReceipt
from lightnote.admin import ReadOnlyModelAdmin


@admin.register(ActionReceipt)
class ActionReceiptAdmin(ReadOnlyModelAdmin):
    """Proof that a confirmed action happened; written only with the change it proves."""

    list_display = ("settled_at", "tool", "capability", "status", "owner", "actor", "resource_id")
    list_filter = ("tool", "capability", "status")
    search_fields = ("action_id", "resource_id", "owner__username", "actor__username", "summary")
    list_select_related = ("owner", "actor")


@admin.register(ActionCard)
class ActionCardAdmin(ReadOnlyModelAdmin):
    """Each card's lifecycle (what history shows); written only by ``agent.cards.history``."""

    list_display = ("created_at", "tool", "state", "outcome_kind", "owner", "actor", "session")
    list_filter = ("tool", "state", "outcome_kind", "void_reason")
    search_fields = ("id", "owner__username", "actor__username")
    list_select_related = ("owner", "actor", "session")
    exclude = ("token_digest", "continuation_digest")
