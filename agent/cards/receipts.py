"""The action's receipt row: its one slot (unique ``action_id``), written or looked up.

A receipt is the truth of an action: ``succeeded`` rows are inserted in the execution's
transaction with the change (``agent.cards.execute``), ``voided`` rows by reconciliation as a
fence (``agent.cards.history.receipt_slot_void``, for ``agent.cards.reconcile`` and the history
rows). Race: whichever inserts first holds the slot; the other gets an ``IntegrityError``
and reads the holder. After a lost connection, ``drop_connection`` makes the next lookup use
a fresh one.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from agent.cards import records as cards
from agent.models import ActionReceipt


def drop_connection() -> None:
    """Close this thread's connection after a lost one, so the next query opens a fresh one."""
    if not connection.in_atomic_block:
        connection.close()


def find_receipt(action_id: str) -> ActionReceipt | None:
    return ActionReceipt.objects.filter(action_id=action_id).first()


def receipt_row(
    card: cards.Card,
    *,
    status: str,
    subject: Any,
    actor: Any,
    summary: str,
    resource_type: str = "",
    resource_id: str = "",
    result: dict[str, Any] | None = None,
) -> ActionReceipt:
    """The action's receipt row, unsaved (the confirm inserts it with its bookkeeping in one
    round trip). ``subject`` (also the owner) and ``actor`` are users or their ids."""

    def person(field: str, value: Any) -> dict[str, Any]:
        return {field: value} if hasattr(value, "pk") else {f"{field}_id": value}

    return ActionReceipt(
        action_id=card.id,
        tool=card.tool,
        capability=card.capability,
        args_hmac=card.args_hmac,
        **person("owner", subject),
        **person("subject", subject),
        **person("actor", actor),
        session_id=card.session_id,
        resource_type=resource_type,
        resource_id=resource_id,
        status=status,
        summary=summary,
        result=result or {},
    )
