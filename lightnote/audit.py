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

# The channels a write arrives through, recorded on every write event as ``details.channel``.
# Each entry point names its own; ``system`` is a write no person made through a channel
# (management commands, seed data, the recurrence worker's own calls).
CHANNEL_PAGE = "page"
CHANNEL_API = "api"
CHANNEL_AGENT = "agent"
CHANNEL_MCP = "mcp"
CHANNEL_ADMIN = "admin"
CHANNEL_SYSTEM = "system"
CHANNELS = (CHANNEL_PAGE, CHANNEL_API, CHANNEL_AGENT, CHANNEL_MCP, CHANNEL_ADMIN, CHANNEL_SYSTEM)

# Write events recorded while a caller collects them (``audit_writes_collected``) wait here
# for the caller's own INSERT instead of costing one of their own.
_collected_writes: ContextVar[list[AuditEvent] | None] = ContextVar(
    "audit_collected_writes", default=None
)


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


@contextmanager
def audit_writes_collected() -> Iterator[list[AuditEvent]]:
    """Collect the write events recorded inside, unsaved, for the caller's own INSERT.

    The confirm path runs a service inside its durable transaction and writes the service's
    event in the same ``bulk_create`` as its own rows (one statement for all of them). The
    caller must record the yielded events before its transaction ends.
    """
    collected: list[AuditEvent] = []
    reset = _collected_writes.set(collected)
    try:
        yield collected
    finally:
        _collected_writes.reset(reset)


def audit_write(
    event_type: str,
    *,
    item_type: str,
    item_id: Any,
    owner: Any,
    actor: Any = None,
    channel: str,
) -> None:
    """Record a write of the owner's item by ``actor`` (default: the owner) via ``channel``.

    The event names the item by type and id only, never its title or content. Called by the
    domain service inside the write's own transaction, after the write, so a refused or
    rolled-back write leaves no event. Inside :func:`audit_writes_collected` it is collected
    instead of inserted.
    """
    if channel not in CHANNELS:
        raise ValueError(f"unknown audit channel {channel!r}")
    event = audit_entry(
        event_type,
        actor=actor if actor is not None else owner,
        subject=owner,
        details={
            "channel": channel,
            "item_type": item_type,
            "item_id": str(item_id),
        },
    )
    collected = _collected_writes.get()
    if collected is not None:
        collected.append(event)
    else:
        audit_events([event])


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
