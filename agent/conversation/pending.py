"""Pending requests: the one request per session that waits for the user's next message.

When the agent asks a clarifying question ("具体几点？", "which one?"), the request it
understood so far is kept here, server-side, so the next message ("10点", "the second one")
can complete it. Choice cards reuse the same record (``kind``) for their candidates.

Contract:

- **One record per session**: saving replaces the previous one; a new request that is not
  an answer clears it (the caller decides, see ``agent.conversation.followups``).
- **Server-side, expiring**: one Redis value in the control store (``lightnote.controlstore.store``)
  under ``ln:pending:{<sha256 of the session id>}``, with a TTL of ``LIGHTNOTE_PENDING_TTL``
  seconds (default 900). Nothing is sent to the client but the question.
- **Sealed and bound**: the stored JSON carries an HMAC (the binding key, its own label
  inside the payload) over the record, the owner's keyed hash and the session id. A record
  that fails the seal, or belongs to another owner or session, reads as absent and is
  deleted, so a party able to write Redis cannot plant a request.
- **Never a write by itself**: a pending record holds raw proposal args; completing it only
  yields a proposal, which goes through the tool policy, ``prepare`` and a card like any other.

API: :func:`pending_save`, :func:`pending_get`, :func:`pending_clear`. Store failures raise
``CONFIRMATION_STORE_UNAVAILABLE`` (503) like every control-store call; the caller chooses
to read an unavailable store as "no pending request" (a lost follow-up, never a wrong write).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings

from agent.control import confirmation_store
from lightnote.controlstore import store
from lightnote.controlstore.binding import args_hmac, digests_equal, owner_hash

PENDING_KEY_PREFIX = "ln:pending:"
KIND_CLARIFY = "clarify"  # a clarifying question waits for a slot
KIND_CHOICE = "choice"  # a choice card waits for a pick (``choice``: its token's digest)
_SEAL_LABEL = "pending-request/v1"  # inside the HMAC payload: no other record verifies here


@dataclass(frozen=True)
class PendingRequest:
    """What a question waits to complete: ``tool`` with ``args`` so far, missing ``slot``."""

    tool: str
    args: dict[str, Any]
    slot: str
    kind: str = KIND_CLARIFY
    candidates: list[dict[str, Any]] = field(default_factory=list)  # [{"id", "title", ...}]
    locale: str = "zh-CN"
    created_ms: int = 0
    # For ``kind`` choice: the digest of the choice card's token (never the token itself),
    # so a follow-up pick ("第二个") uses the choice's own prepared args.
    choice: str = ""


def _key(session_id: str) -> str:
    digest = hashlib.sha256(str(session_id).encode("utf-8")).hexdigest()
    return store.record_key(PENDING_KEY_PREFIX, digest)


def _seal(record: dict[str, Any], owner: str, session_id: str) -> str:
    return args_hmac(
        {"label": _SEAL_LABEL, "record": record, "owner": owner, "session": str(session_id)}
    )


@confirmation_store()
def pending_save(*, owner_id: int, session_id: str, request: PendingRequest) -> None:
    """Keep ``request`` as the session's one pending request (replacing any older one)."""
    record = asdict(request)
    record["created_ms"] = request.created_ms or time.time_ns() // 1_000_000
    owner = owner_hash(owner_id)
    payload = {
        "record": record,
        "owner": owner,
        "session": str(session_id),
        "seal": _seal(record, owner, session_id),
    }
    store.value_put(
        _key(session_id),
        json.dumps(payload, ensure_ascii=False, separators=(",", ":")),
        ttl_ms=int(settings.LIGHTNOTE_PENDING_TTL) * 1000,
    )


@confirmation_store()
def pending_get(*, owner_id: int, session_id: str) -> PendingRequest | None:
    """Return the session's pending request, or None (none, expired, or not verifiable)."""
    key = _key(session_id)
    raw = store.value_get(key)
    if raw is None:
        return None
    try:
        payload = json.loads(raw)
        record = payload["record"]
        owner = owner_hash(owner_id)
        valid = (
            isinstance(record, dict)
            and digests_equal(str(payload["owner"]), owner)
            and str(payload["session"]) == str(session_id)
            and digests_equal(str(payload["seal"]), _seal(record, owner, session_id))
        )
        request = PendingRequest(**record) if valid else None
    except (ValueError, KeyError, TypeError):
        request = None
    if request is None:
        store.record_delete(key)  # altered or foreign: never used, never kept
    return request


@confirmation_store()
def pending_clear(*, session_id: str) -> None:
    """Forget the session's pending request (answered, cancelled or replaced)."""
    store.record_delete(_key(session_id))
