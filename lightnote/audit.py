"""Append audit events. Called inside the caller's transaction when there is one."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from lightnote.models import AuditEvent

logger = logging.getLogger(__name__)

# Fields every event recorded inside ``audit_channel`` carries in its details (e.g. the MCP
# channel, client and session), so protocol events need not know which channel called them.
_channel_fields: ContextVar[dict[str, Any] | None] = ContextVar("audit_channel", default=None)


@contextmanager
def audit_channel(**fields: Any) -> Iterator[None]:
    """Add ``fields`` (JSON-safe, never a token) to the details of every event inside."""
    reset = _channel_fields.set({**(_channel_fields.get() or {}), **fields})
    try:
        yield
    finally:
        _channel_fields.reset(reset)


def audit_entry(
    event_type: str,
    *,
    actor: Any = None,
    subject: Any = None,
    session_id: uuid.UUID | str | None = None,
    capability: str = "",
    tool: str = "",
    action_id: uuid.UUID | str | None = None,
    code: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Build one event, unsaved (see :func:`audit_events`)."""
    return AuditEvent(
        event_type=event_type,
        actor=actor if getattr(actor, "pk", None) else None,
        subject=subject if getattr(subject, "pk", None) else None,
        session_id=session_id,
        capability=capability,
        tool=tool,
        action_id=action_id,
        code=code,
        details={**(_channel_fields.get() or {}), **(details or {})},
    )


def audit_events(events: list[AuditEvent]) -> None:
    """Record several events in one INSERT; ``details`` JSON-safe, never a raw token."""
    if not events:
        return
    AuditEvent.objects.bulk_create(events)
    for event in events:
        _log(event.event_type, event.code, event.action_id, event.capability)


def audit_event(
    event_type: str,
    *,
    actor: Any = None,
    subject: Any = None,
    session_id: uuid.UUID | str | None = None,
    capability: str = "",
    tool: str = "",
    action_id: uuid.UUID | str | None = None,
    code: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Record one event; ``details`` must be JSON-safe and never contain a raw token."""
    event = audit_entry(
        event_type,
        actor=actor,
        subject=subject,
        session_id=session_id,
        capability=capability,
        tool=tool,
        action_id=action_id,
        code=code,
        details=details,
    )
    event.save(force_insert=True)
    _log(event_type, code, action_id, capability)
    return event


def _log(event_type: str, code: str, action_id: Any, capability: str) -> None:
    """One log line per written event, its ids as fields (``lightnote.ops.logs``)."""
    fields = {"event": event_type, "code": code, "capability": capability}
    if action_id:
        fields["action_id"] = str(action_id)
    logger.info(
        "audit %s code=%s action=%s",
        event_type,
        code,
        action_id,
        extra={key: value for key, value in fields.items() if value},
    )
