"""Who may use a card, a choice or a continuation: owner -> session -> seal, in that order.

The three protocols store a record bound to an owner (an HMAC of the user id), a session and
a seal over the whole record. Each asks :func:`record_access` the same question, in the
same order, and answers the verdict with its own codes and audit events: the caller's own
deleted conversation is a 404 everywhere, another user's record or session a 403, an
altered record a 409. :func:`session_access` and :func:`live_session` are the two session
reads every check needs (one query each).
"""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Any

from django.core.exceptions import ValidationError

from agent.models import AgentSession
from lightnote.controlstore.binding import digests_equal, owner_hash
from lightnote.errors import LightNoteError


class SessionAccess(StrEnum):
    OWN = "own"
    DELETED = "deleted"  # the caller's own, soft-deleted: 404
    NONE = "none"  # unknown or another user's


class Verdict(StrEnum):
    ALLOWED = "allowed"
    SESSION_DELETED = "session_deleted"  # 404 SESSION_NOT_FOUND
    FORBIDDEN = "forbidden"  # 403: another owner, another session, or not the caller's
    INVALID = "invalid"  # 409: the record fails its seal


def session_access(*, session_id: Any, owner: Any) -> SessionAccess:
    """Say whether ``session_id`` is ``owner``'s live session, their deleted one, or neither
    (one query)."""
    try:
        row = (
            AgentSession.objects.filter(id=session_id, owner=owner)
            .values_list("id", "deleted_at")
            .first()
        )
    except (ValidationError, ValueError):
        return SessionAccess.NONE
    if row is None:
        return SessionAccess.NONE
    return SessionAccess.OWN if row[1] is None else SessionAccess.DELETED


def live_session(*, session_id: Any, owner: Any, admin_context: Any = None) -> AgentSession:
    """Return ``owner``'s live session; unknown, deleted or another user's: 404.

    Without ``admin_context`` only ordinary conversations are found; with it, only the
    staff member's read-only conversations bound to that context.
    """
    try:
        session = (
            AgentSession.objects.live()
            .filter(id=session_id, owner=owner, admin_context=admin_context)
            .first()
        )
    except (ValidationError, ValueError):
        session = None
    if session is None:
        raise LightNoteError("SESSION_NOT_FOUND", status=404)
    return session


def record_access(
    *,
    intact: bool,
    record_owner_hash: str,
    record_session_id: str,
    sealed: bool,
    owner: Any,
    session_id: uuid.UUID | str,
    access: SessionAccess | None = None,
) -> Verdict:
    """Judge a stored record for ``owner`` in ``session_id``: the first failing check wins.

    ``intact``: the record could be read; ``sealed``: it matches its seal (the caller
    computes it, since each protocol seals its own fields). ``access``: the session's
    answer when the caller has it already; else it is asked here (one query).
    """
    if access is None:
        access = session_access(session_id=session_id, owner=owner)
    if access is SessionAccess.DELETED:
        return Verdict.SESSION_DELETED
    if (
        not intact
        or not digests_equal(owner_hash(owner.pk), record_owner_hash)
        or not digests_equal(str(session_id), record_session_id)
        or access is not SessionAccess.OWN
    ):
        return Verdict.FORBIDDEN
    return Verdict.ALLOWED if sealed else Verdict.INVALID
