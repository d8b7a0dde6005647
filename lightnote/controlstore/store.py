"""The control store: typed, atomic primitives over one Redis hash per token.

Three modules are the only ones that run commands or Lua scripts against the control store:
this one (records, their sorted-set indexes, plain values with a lifetime, generations),
:mod:`lightnote.controlstore.counters` (windowed counters and tallies) and
:mod:`lightnote.controlstore.scripts` (how both send their commands and scripts). The control
records are the agent's confirmation cards and continuations and Idempotency-Key claims.
This module knows no record kind: callers name their keys and their states. A record is one
HASH; its key carries the SHA-256 digest of the token inside ``{...}``, the Redis Cluster
hash tag, so every script touches exactly one slot. The raw token is never stored.

Fields every record has: ``state``, ``attempt``, ``lease_until`` (ms since the epoch, ``0``
for none) and ``record`` (the immutable part, a JSON string the scripts never rewrite, so
its bytes survive exactly; a transition may decode it to compare values, ``expect_record``).
Settling adds ``outcome`` (JSON string), ``outcome_kind`` and ``settled_at`` (ms).

Fail closed: every error that means "the store could not answer" becomes
:class:`StoreUnavailable` (raised where commands are sent, :mod:`lightnote.controlstore.scripts`,
and part of this module's API); it is never read as "no record". Each caller maps it to its
own error code (a confirmation's 503 is not an Idempotency-Key's 503).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, ParamSpec

from lightnote.controlstore.counters import CounterUnit
from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.scripts import (
    IndexUpdate,
    ScriptCall,
    StoreUnavailable,
    decode_fields,
    index_in_script,
    ride,
    run_script,
    store_call,
)

logger = logging.getLogger(__name__)

__all__ = [
    "CreateResult",
    "RecordCreate",
    "StoreUnavailable",
    "TransitionCall",
    "TransitionResult",
    "TransitionStatus",
    "generation_bump",
    "generation_mark",
    "generation_read",
    "index_add",
    "index_due",
    "index_remove",
    "ms_to_datetime",
    "now_datetime",
    "now_ms",
    "read_record",
    "record_create",
    "record_create_call",
    "record_delete",
    "record_get",
    "record_key",
    "record_read",
    "record_transition",
    "records_delete",
    "run_transition",
    "token_digest",
    "transition_call",
    "value_get",
    "value_put",
]


def token_digest(token: str) -> str:
    """Return the SHA-256 hex digest that names a token's record."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def record_key(prefix: str, digest: str) -> str:
    """Return the key ``<prefix>{<digest>}``; the braces are the Cluster hash tag, so every
    script on the record touches exactly one slot."""
    return f"{prefix}{{{digest}}}"


def now_ms() -> int:
    """Return the application's clock in milliseconds since the epoch.

    Scripts take ``now_ms`` from the caller instead of calling Redis ``TIME``: tests can then
    move the clock, and one cluster shard's clock is no better than the app's. This assumes
    app servers are NTP-synchronised (skew well under a second against 30-60 s leases). Skew
    can only make a lease look passed a little early or late; a takeover after a lease never
    re-executes a write (cards are resolved from the receipt table, whose unique action id
    fences a late executor), so skew cannot cause a second write.
    """
    return time.time_ns() // 1_000_000


def now_datetime() -> datetime:
    """Return :func:`now_ms` as an aware UTC datetime (the same clock, for comparisons)."""
    return ms_to_datetime(now_ms()) or datetime.fromtimestamp(0, tz=UTC)


def ms_to_datetime(value: str | int | None) -> datetime | None:
    """Read a stored time in ms (``lease_until``, ``settled_at``); ``0`` or empty is None."""
    if value is None or str(value) in ("", "0"):
        return None
    return datetime.fromtimestamp(int(value) / 1000, tz=UTC)


def read_record(fields: Mapping[str, str], *, required: Iterable[str] = ()) -> dict[str, Any]:
    """Return the record's immutable part (its ``record`` JSON object).

    Raises ValueError when it is missing, not a JSON object, or lacks a ``required`` key:
    callers treat such a record as unreadable (never as valid, never as "no record").
    """
    record = json.loads(fields.get("record", ""))
    if not isinstance(record, dict):
        raise ValueError("the record is not a JSON object")
    missing = set(required) - record.keys()
    if missing:
        raise ValueError(f"the record lacks {sorted(missing)}")
    return record


# ``record_transition.lua``'s index and limit arguments when the transition carries none.
_NO_INDEX_ARGS = ["", "", ""]
_NO_LIMIT_ARGS = ["", ""]


def _check_state_name(name: str) -> None:
    if not name or any(char.isspace() for char in name):
        raise ValueError(f"a state name must be one non-empty word, got {name!r}")


class TransitionStatus(StrEnum):
    TRANSITIONED = "transitioned"
    ALREADY = "already"  # the same attempt already made this transition (a re-sent call)
    REFUSED = "refused"
    MISSING = "missing"
    LIMITED = "limited"  # every condition held, but the counter's limit is reached
    LATE = "late"  # every condition held, but the call's deadline had passed when it arrived


_TRANSITION_CODES = {
    1: TransitionStatus.TRANSITIONED,
    2: TransitionStatus.ALREADY,
    0: TransitionStatus.REFUSED,
    -1: TransitionStatus.MISSING,
    3: TransitionStatus.LIMITED,
    4: TransitionStatus.LATE,
}


@dataclass(frozen=True)
class CreateResult:
    """``created`` False means the key existed; ``fields`` are then the existing ones."""

    created: bool
    fields: dict[str, str]


@dataclass(frozen=True)
class TransitionResult:
    """The outcome of one compare-and-set; ``fields`` are the record after it (None if missing,
    or not asked for)."""

    status: TransitionStatus
    fields: dict[str, str] | None
    # LIMITED: the milliseconds until the counter's window ends (nothing was written).
    retry_after_ms: int = 0

    @property
    def applied(self) -> bool:
        """Return True when the record is now in the wanted state by this caller's hand."""
        return self.status in (TransitionStatus.TRANSITIONED, TransitionStatus.ALREADY)

    @property
    def state(self) -> str | None:
        return self.fields.get("state") if self.fields else None


@dataclass(frozen=True)
class RecordCreate:
    """A checked :func:`record_create`, not sent yet: ``call`` is its script (to run alone or
    with others, :func:`~lightnote.controlstore.scripts.scripts_run`) and :meth:`result` reads its
    reply."""

    call: ScriptCall
    state: str
    record_json: str
    extra_fields: dict[str, str]

    def result(self, reply: Any) -> CreateResult:
        """Return the :class:`CreateResult` of the script's ``reply``."""
        if int(reply[0]) == 1:
            fields = {
                "state": str(self.state),
                "record": self.record_json,
                "attempt": "",
                "lease_until": "0",
            }
            return CreateResult(created=True, fields={**fields, **self.extra_fields})
        return CreateResult(created=False, fields=decode_fields(reply[1:]))


def record_create_call(
    key: str,
    *,
    state: str,
    record_json: str,
    ttl_ms: int,
    extra_fields: Mapping[str, str] | None = None,
) -> RecordCreate:
    """Check the arguments of :func:`record_create` (ValueError) and return it unsent."""
    _check_state_name(state)
    if ttl_ms <= 0:
        raise ValueError("ttl_ms must be positive")
    extras = dict(extra_fields or {})
    reserved = {"state", "record", "attempt", "lease_until"} & extras.keys()
    if reserved:
        raise ValueError(f"extra_fields may not set {sorted(reserved)}")
    args = [state, record_json, str(ttl_ms)]
    for field, value in extras.items():
        args += [field, value]
    return RecordCreate(
        call=ScriptCall("record_create", key, tuple(args)),
        state=state,
        record_json=record_json,
        extra_fields=extras,
    )


def record_create(
    key: str,
    *,
    state: str,
    record_json: str,
    ttl_ms: int,
    extra_fields: Mapping[str, str] | None = None,
) -> CreateResult:
    """Create the record at ``key`` unless it exists (atomic); the key expires after ``ttl_ms``."""
    create = record_create_call(
        key, state=state, record_json=record_json, ttl_ms=ttl_ms, extra_fields=extra_fields
    )
    return create.result(run_script("record_create", key=key, args=list(create.call.args)))


@dataclass(frozen=True)
class RecordRead:
    """A record's fields (None when unknown or expired) and the server's clock when it was
    read, in milliseconds since the epoch."""

    fields: dict[str, str] | None
    server_ms: int


def record_read(key: str) -> RecordRead:
    """Read the record at ``key`` and the server's clock in one round trip (a script)."""
    reply = run_script("record_read", key=key, args=[])
    seconds, microseconds, *flat = reply
    fields = decode_fields(flat) if flat else None
    return RecordRead(fields=fields, server_ms=int(seconds) * 1000 + int(microseconds) // 1000)


def record_get(key: str) -> dict[str, str] | None:
    """Return the record's fields, or None when it is unknown or expired."""
    with store_call():
        flat = get_redis().hgetall(key)
    if not flat:
        return None
    return {
        (name.decode("utf-8") if isinstance(name, bytes) else name): (
            value.decode("utf-8") if isinstance(value, bytes) else value
        )
        for name, value in flat.items()
    }


@dataclass(frozen=True)
class TransitionCall:
    """A transition built but not sent (:func:`transition_call`; :func:`run_transition`)."""

    key: str
    args: list[str]
    index: IndexUpdate | None
    take: CounterUnit | None
    with_fields: bool


def transition_call(
    key: str,
    *,
    from_states: Iterable[str],
    to_state: str,
    attempt: str | None = None,
    require_attempt: bool = False,
    expect_outcome_kind: str | None = None,
    lease_ms: int | None = None,
    ttl_ms: int = 0,
    outcome: str | None = None,
    outcome_kind: str | None = None,
    takeover_expired_lease: bool = False,
    now_ms: int,
    index: IndexUpdate | None = None,
    expect_record: Mapping[str, str] | None = None,
    take: CounterUnit | None = None,
    with_fields: bool = True,
    deadline_ms: int | None = None,
) -> TransitionCall:
    """Build the one compare-and-set that moves the record from one of ``from_states`` to
    ``to_state``, checked (``ValueError``) but not sent (:func:`run_transition` sends it;
    :func:`record_transition` does both at once).

    Conditions, all checked before any write: the current state is in ``from_states``; with
    ``require_attempt`` the stored attempt equals ``attempt``; with ``expect_outcome_kind``
    the stored kind equals it; with ``takeover_expired_lease`` the current lease has passed
    (``lease_until <= now_ms``). On success ``attempt`` is stored when given; ``lease_ms``
    None keeps ``lease_until``, 0 clears it, N sets it to ``now_ms + N``; ``outcome`` (with
    ``outcome_kind``) is stored with ``settled_at = now_ms``; ``ttl_ms`` > 0 resets the TTL.

    A call whose record is already in ``to_state`` under the same ``attempt`` (and the same
    outcome, when one is given) answers ALREADY without writing: redis-py re-sends a command
    whose reply was lost, and that re-sent claim must not look like a second claimer.

    ``expect_record`` adds conditions on the record's immutable part: each name must be a
    top-level key of its JSON with exactly that string value (the script decodes the JSON to
    read it, never rewrites it; one that cannot be decoded matches nothing). A caller can so
    check and transition in one round trip, and still re-check the returned fields itself.

    ``index`` travels in the same round trip (:class:`~lightnote.controlstore.scripts.
    IndexUpdate`); ``take`` is a rate limit's unit counted by the same script only when it
    transitions (LIMITED, nothing written, when the limit is reached; single Redis only);
    ``with_fields=False`` replies with the status alone. ``deadline_ms`` (the *server's*
    clock, e.g. :func:`record_read`'s ``server_ms`` plus a budget): a transition that would
    apply but arrives later is refused with LATE and writes nothing, so a call queued behind
    a stalled server never moves the record (a repeat by the same attempt is still ALREADY).
    """
    states = list(from_states)
    _check_transition(
        states,
        to_state,
        attempt_required=require_attempt and not attempt,
        outcome_paired=(outcome is None) == (outcome_kind is None),
        times=(ttl_ms, now_ms, lease_ms, deadline_ms),
    )
    args = [
        " ".join(states),
        to_state,
        attempt or "",
        "1" if require_attempt else "0",
        expect_outcome_kind or "",
        "" if lease_ms is None else str(lease_ms),
        str(ttl_ms),
        "0" if outcome is None else "1",
        outcome or "",
        outcome_kind or "",
        "1" if takeover_expired_lease else "0",
        str(now_ms),
        *(index.script_args() if index is not None and index_in_script() else _NO_INDEX_ARGS),
        *(take.script_args() if take is not None else _NO_LIMIT_ARGS),
        "1" if with_fields else "0",
        "" if deadline_ms is None else str(deadline_ms),
    ]
    for name, value in (expect_record or {}).items():
        if not isinstance(name, str) or not name or not isinstance(value, str):
            raise ValueError("expect_record maps non-empty names to strings")
        args += [name, value]
    return TransitionCall(key=key, args=args, index=index, take=take, with_fields=with_fields)


def _check_transition(
    states: list[str],
    to_state: str,
    *,
    attempt_required: bool,
    outcome_paired: bool,
    times: tuple[int | None, ...],
) -> None:
    """Raise ``ValueError`` for a transition the script would refuse (before any write)."""
    if not states:
        raise ValueError("from_states must name at least one state")
    for name in [*states, to_state]:
        _check_state_name(name)
    if attempt_required:
        raise ValueError("require_attempt needs an attempt")
    if not outcome_paired:
        raise ValueError("outcome and outcome_kind go together")
    if any(value is not None and value < 0 for value in times):
        raise ValueError("ttl_ms, lease_ms, now_ms and deadline_ms must not be negative")


def run_transition(call: TransitionCall) -> TransitionResult:
    """Send a :func:`transition_call` (one round trip) and read its reply."""
    take = call.take
    reply = run_script(
        "record_transition",
        key=call.key,
        args=call.args,
        index=call.index,
        applied=_transition_applied,
        counter_key=take.key if take is not None else None,
    )
    return _transition_result(call, reply)


def _transition_result(call: TransitionCall, reply: Any) -> TransitionResult:
    take = call.take
    status = _TRANSITION_CODES[int(reply[0])]
    retry_after_ms, first_field = 0, 1
    if status is TransitionStatus.LIMITED and take is not None:  # 3 comes only with a limit
        remaining = int(reply[1])
        retry_after_ms, first_field = (remaining if remaining > 0 else take.ttl_ms), 2
    if status is TransitionStatus.MISSING or not call.with_fields:
        return TransitionResult(status=status, fields=None, retry_after_ms=retry_after_ms)
    return TransitionResult(
        status=status, fields=decode_fields(reply[first_field:]), retry_after_ms=retry_after_ms
    )


P = ParamSpec("P")


def _sent_at_once(build: Callable[P, TransitionCall]) -> Callable[P, TransitionResult]:
    def send(*args: P.args, **kwargs: P.kwargs) -> TransitionResult:
        return run_transition(build(*args, **kwargs))

    return send


# :func:`transition_call`, sent at once (one round trip): the arguments are its own.
record_transition = _sent_at_once(transition_call)


def _transition_applied(reply: Any) -> bool:
    """Read a ``record_transition`` reply: did the record end up transitioned by this call?"""
    return _TRANSITION_CODES.get(int(reply[0])) in (
        TransitionStatus.TRANSITIONED,
        TransitionStatus.ALREADY,
    )


def record_delete(key: str) -> bool:
    """Delete the record; return True when it existed."""
    with store_call():
        return bool(get_redis().delete(key))


def records_delete(keys: Iterable[str]) -> None:
    """Delete the records, all in one round trip (a pipeline of one-key commands, so it
    also works across Redis Cluster slots)."""
    with store_call():
        pipe = get_redis().pipeline(transaction=False)
        for key in keys:
            pipe.delete(key)
        pipe.execute()


# A sorted-set index (member -> a time in ms). Updated beside the record's script (in its
# pipeline, see IndexUpdate, or by these commands), never inside it: on Cluster the index
# lives in another slot. Readers must treat it as a hint and re-check each record.


def index_add(index_key: str, member: str, *, score_ms: int) -> None:
    """Add or move ``member`` in the index."""
    with store_call():
        get_redis().zadd(index_key, {member: score_ms})


def index_remove(index_key: str, member: str) -> None:
    """Drop ``member`` from the index."""
    with store_call():
        get_redis().zrem(index_key, member)


def index_due(index_key: str, *, now_ms: int, limit: int = 100) -> list[str]:
    """Return up to ``limit`` members whose score is at most ``now_ms``, oldest first."""
    with store_call():
        members = get_redis().zrangebyscore(index_key, "-inf", now_ms, start=0, num=limit)
    return [m.decode("utf-8") if isinstance(m, bytes) else str(m) for m in members]


# Plain values with a lifetime (the pending-request records of ``agent.conversation.pending``): one
# string per key, replaced whole, gone after ``ttl_ms``.


def value_put(key: str, value: str, *, ttl_ms: int) -> None:
    """Store ``value`` under ``key`` for ``ttl_ms`` milliseconds, replacing any older one."""
    with store_call():
        get_redis().set(key, value, px=ttl_ms)


def value_get(key: str) -> str | None:
    """Return the value under ``key``, or None when there is none (or it expired)."""
    with store_call():
        raw = get_redis().get(key)
    if raw is None:
        return None
    return raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)


# --- Generations: marks that a change voids ------------------------------------------------


def generation_read(key: str, field: str) -> tuple[str, str | None]:
    """Return (the hash's generation, ``"0"`` when absent; the mark ``field``) in one trip."""
    with store_call():
        generation, mark = get_redis().hmget(key, ["gen", field])
    decode = lambda value: value.decode() if isinstance(value, bytes) else value  # noqa: E731
    return decode(generation) or "0", decode(mark)


def generation_mark(key: str, field: str, *, generation: str, ttl_ms: int) -> bool:
    """Set ``field`` = ``generation`` if the hash is still at ``generation`` (atomic)."""
    reply = run_script("generation_mark", key=key, args=[field, generation, str(ttl_ms)])
    return int(reply) == 1


def generation_bump(key: str, *, ttl_ms: int) -> None:
    """Move the hash to its next generation (voids every mark). Best effort, and it may
    ride with the next pipelined script (:func:`~lightnote.controlstore.scripts.ride`)."""
    ride("generation_bump", key=key, args=[str(ttl_ms)])
