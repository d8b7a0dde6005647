"""Aggregated audit rows: events too frequent to write one by one are tallied in the store.

A caller counts an event under an identity (a JSON-safe mapping, never a token) with
:func:`tally`: one round trip, best effort (a store that cannot answer loses the count,
never the caller's answer). :func:`tallies_flush` takes every tally of a counters hash and
clears it atomically, turns each into one audit row (``entry_of(identity, count)``) and writes
the rows in one INSERT.

Races: a tally added after the take lands in a fresh hash, for the next flush; if the
database refuses the rows they are put back, so a successful flush records each tally once.
An unreadable tally is dropped (logged), never retried forever.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from django.db import DatabaseError

from lightnote.audit import audit_events
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import store
from lightnote.controlstore.binding import canonical_json
from lightnote.models import AuditEvent

logger = logging.getLogger(__name__)


def tally(key: str, identity: Mapping[str, Any], *, what: str) -> None:
    """Count one event of ``identity`` in the counters hash ``key`` (best effort)."""
    try:
        store_counters.counter_add(key, canonical_json(identity))
    except store.StoreUnavailable:
        logger.warning("%s not tallied: the store is unavailable", what)


def tallies_flush(
    key: str,
    entry_of: Callable[[dict[str, Any], int], AuditEvent],
    *,
    what: str,
    write: Callable[[list[AuditEvent]], None] = audit_events,
) -> int:
    """Move the tallies of ``key`` into the audit log through ``write``; return the rows.

    ``entry_of`` builds the row of one identity and its count; one that raises ``ValueError``,
    ``TypeError``, ``KeyError`` or ``AttributeError`` drops that tally. A ``DatabaseError``
    from ``write`` puts every tally back and is raised again.
    """
    try:
        tallies = store_counters.counters_take_all(key)
    except store.StoreUnavailable:
        logger.warning("%s tallies not flushed: the store is unavailable", what)
        return 0
    entries = []
    for identity_json, count in tallies.items():
        try:
            entries.append(entry_of(json.loads(identity_json), count))
        except (ValueError, TypeError, KeyError, AttributeError):
            logger.error("unreadable %s tally %r dropped", what, identity_json[:200])
    try:
        write(entries)
    except DatabaseError:
        logger.exception("%s tallies not written; putting them back", what)
        for identity_json, count in tallies.items():
            store_counters.counter_add(key, identity_json, count)
        raise
    return len(entries)
