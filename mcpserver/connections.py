"""Database connection hygiene for the long-running MCP server process."""

from __future__ import annotations

from django.db import connections


def refresh_connections() -> None:
    """Close broken or too-old connections, as Django does around each web request.

    A connection inside a transaction is left alone (the test suite runs each test in
    one; Django's own request signal handler is disconnected there for the same reason).
    """
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()
