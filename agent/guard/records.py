"""What the guard reads and writes in the database: receipts in, audit events out."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from agent.guard import GUARDED_CODE, GuardVerdict
from agent.guard.backing import Backing, backing_for
from agent.models import ActionReceipt
from lightnote.audit import audit_event
from lightnote.impersonation.context import ActorContext


def session_backings(
    session_id: uuid.UUID | str, *, before: datetime | None = None
) -> list[Backing]:
    """Return a backing for each succeeded receipt of the session (settled before ``before``)."""
    receipts = ActionReceipt.objects.filter(
        session_id=session_id, status=ActionReceipt.Status.SUCCEEDED
    )
    if before is not None:
        receipts = receipts.filter(settled_at__lte=before)
    backings = []
    for receipt in receipts.order_by("settled_at", "id"):
        backing = receipt_backing(receipt)
        if backing is not None:
            backings.append(backing)
    return backings


def receipt_backing(receipt: ActionReceipt) -> Backing | None:
    """Return what one receipt backs (None when it is not a success)."""
    if receipt.status != ActionReceipt.Status.SUCCEEDED:
        return None
    return backing_for(
        action_id=receipt.action_id,
        capability=receipt.capability,
        resource_type=receipt.resource_type,
        result=receipt.result if isinstance(receipt.result, dict) else {},
    )


def audit_guard(
    verdict: GuardVerdict, *, actor: ActorContext, session_id: Any, original: str, **fields: Any
) -> None:
    """Record that the guard removed unbacked claims, naming the phrases it matched."""
    audit_event(
        "guard.replaced",
        actor=actor.actor,
        subject=actor.subject,
        session_id=session_id,
        code=GUARDED_CODE,
        details={
            "matched": verdict.matched,
            "removed": list(verdict.removed),
            "original": original[:500],
        },
        **fields,
    )
