"""The control store: typed, atomic primitives over one Redis hash per token.

This is the only module that runs commands or Lua scripts against control records
(the agent's confirmation cards and continuations, Idempotency-Key claims). It knows no
record kind: callers name their keys and their states. A record is one
HASH; its key carries the SHA-256 digest of the token inside ``{...}``, the Redis Cluster
hash tag, so every script touches exactly one slot. The raw token is never stored.

Fields every record has: ``state``, ``attempt``, ``lease_until`` (ms since the epoch, ``0``
for none) and ``record`` (the immutable part, a JSON string the scripts never rewrite, so
its bytes survive exactly; a transition may decode it to compare values, ``expect_record``).
Settling adds ``outcome`` (JSON string), ``outcome_kind`` and ``settled_at`` (ms).

Fail closed: every error that means "the store could not answer" becomes
:class:`StoreUnavailable`; it is never read as "no record". Each caller maps it to its own
error code (a confirmation's 503 is not an Idempotency-Key's 503).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeVar

from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from lightnote.redis import STORE_ERRORS, get_redis
from lightnote.redis_scripts import script_text

logger = logging.getLogger(__name__)

T = TypeVar("T")

UNAVAILABLE_ERRORS = STORE_ERRORS  # every error that means "the store could not answer"


class StoreUnavailable(Exception):
    """The control store could not answer. Never "no record": callers fail closed and map
    it to their own error code (e.g. ``CONFIRMATION_STORE_UNAVAILABLE``, 503)."""


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


@contextmanager
def store_call() -> Iterator[None]:
    """Turn "the store could not answer" into :class:`StoreUnavailable`; never into "no record"."""
    try:
        yield
    except UNAVAILABLE_ERRORS as exc:
        logger.warning("control store unavailable: %s: %s", type(exc).__name__, exc)
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc


_scripts: dict[str, Script] = {}

# Best-effort scripts waiting to ride along with the next pipelined script (see ``riding``).
_riders: ContextVar[list[tuple[str, str, list[str]]] | None] = ContextVar(
    "store_riders", default=None
)


@contextmanager
def riding_context() -> Iterator[None]:
    """Inside, best-effort scripts sent with :func:`ride` wait for the next script that goes
    in a pipeline (a settle with its index update) and travel in its round trip; whatever
    is still waiting at the end is sent then, one round trip each. Outside, ``ride`` sends
    at once."""
    reset = _riders.set([])
    try:
        yield
    finally:
        waiting = _riders.get() or []
        _riders.reset(reset)
        for name, key, args in waiting:
            try:
                _run_script(name, key=key, args=args)
            except StoreUnavailable:
                logger.warning("best-effort script %s on %s not sent", name, key)


def riding(func: Callable[..., T]) -> Callable[..., T]:
    """Run ``func`` inside :func:`riding_context`."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        with riding_context():
            return func(*args, **kwargs)

    return wrapper


def ride(name: str, *, key: str, args: list[str]) -> None:
    """Send the best-effort script ``name`` now, or with the next pipeline inside
    :func:`riding_context`. Its reply is not read; an error is logged, never raised
    (outside a riding context: :class:`StoreUnavailable`, as for any call)."""
    waiting = _riders.get()
    if waiting is None:
        _run_script(name, key=key, args=args)
    else:
        waiting.append((name, key, args))


@dataclass(frozen=True)
class IndexUpdate:
    """A change to a sorted-set index that a record's transition makes when it applies.

    ``score_ms`` None removes ``member``; otherwise it is added (or moved) with that score.
    Only a transition that applies changes the index (a claim that won adds its entry, a
    refused one adds nothing), so requests that find the record in any state leave no stale
    entries. On a single Redis the script itself makes the change (the index is its second
    key): no extra round trip, not even a pipeline. On Cluster the index lives in another
    slot, so no script may touch it: the change follows the script's reply as its own
    command. An index is a hint either way: readers re-check each record it lists.
    """

    index_key: str
    member: str
    score_ms: int | None = None

    def script_args(self) -> list[str]:
        """The script's index arguments (``record_transition.lua``'s ARGV[13..15])."""
        if self.score_ms is None:
            return ["remove", self.member, ""]
        return ["add", self.member, str(self.score_ms)]


_NO_INDEX_ARGS = ["", "", ""]


@dataclass(frozen=True)
class CounterUnit:
    """One unit of a windowed counter (a rate limit, as :func:`counter_take` takes it) that a
    record's transition takes in its own script, only when it transitions.

    On a single Redis whose limiter shares the records' connection
    (:func:`counter_in_script`), ``record_transition.lua`` checks the counter after every
    other condition: the limit reached, nothing is written and the result is LIMITED with
    the window's remaining time; else the unit is counted with the transition, atomically.
    Elsewhere (Cluster: another slot; another connection) the caller takes it on its own.
    """

    key: str
    limit: int
    ttl_ms: int

    def script_args(self) -> list[str]:
        """The script's limit arguments (``record_transition.lua``'s ARGV[16..17])."""
        if self.limit < 0 or self.ttl_ms <= 0:
            raise ValueError("limit must be >= 0 and ttl_ms > 0")
        return [str(self.limit), str(self.ttl_ms)]


_NO_LIMIT_ARGS = ["", ""]


def counter_in_script(alias: str = "default") -> bool:
    """True when a record's transition may take a unit of a counter kept through ``alias``
    in its own script: a single Redis, and the same connection as the records'."""
    return pipelines_scripts(alias)


def _script(name: str, client: Any) -> Script:
    script = _scripts.get(name)
    if script is None:
        script = _scripts[name] = client.register_script(script_text(name))
    return script


def _run_script(
    name: str,
    *,
    key: str,
    args: list[str],
    index: IndexUpdate | None = None,
    applied: Callable[[Any], bool] | None = None,
    alias: str = "default",
    counter_key: str | None = None,
) -> Any:
    """Run the script ``name`` on ``key`` (loaded once; re-sent by SHA afterwards).

    With ``index`` (a ``record_transition``): on a single Redis the index is the script's
    second key and ``args`` already carry the change, so one call does both; best-effort
    scripts waiting to ride (:func:`riding_context`) travel in the same round trip (a
    pipeline). On Cluster the script names only ``key``, and the index change follows as its
    own command when ``applied(reply)`` says the transition applied.

    With ``counter_key`` (a :class:`CounterUnit`'s, single Redis only) the script's keys are
    ``key``, the index's (or ``key`` again when there is none: unused) and the counter.
    """
    with store_call():
        client = get_redis(alias)
        script = _script(name, client)
        if counter_key is not None:
            if isinstance(client, RedisCluster):
                raise ValueError("a counter rides in a script only on a single Redis")
            keys = [key, index.index_key if index is not None else key, counter_key]
            return script(keys=keys, args=args, client=client)
        if index is None:
            # ``client=`` matters: settings may point at another server (tests, a cluster).
            return script(keys=[key], args=args, client=client)
        if isinstance(client, RedisCluster):
            # The index lives in another slot: the script on the record alone, then the
            # index change (two round trips on Cluster).
            reply = script(keys=[key], args=args, client=client)
            if applied is None or applied(reply):
                _update_index(client, index)
            return reply
        keys = [key, index.index_key]
        riders = _riders.get() or []
        boarded = list(riders)
        riders.clear()
        if not boarded:
            return script(keys=keys, args=args, client=client)
        pipe = client.pipeline(transaction=False)
        # EVALSHA by hand: a redis-py Script in a pipeline costs a SCRIPT EXISTS round trip
        # on every execute. A server that lacks the script answers NOSCRIPT without running
        # it; then it is loaded and run once more (rare: after a restart or SCRIPT FLUSH).
        pipe.evalsha(script.sha, len(keys), *keys, *args)
        for rider, rider_key, rider_args in boarded:
            pipe.evalsha(_script(rider, client).sha, 1, rider_key, *rider_args)
        reply, *rider_replies = pipe.execute(raise_on_error=False)
        for (rider, rider_key, rider_args), rider_reply in zip(boarded, rider_replies, strict=True):
            if isinstance(rider_reply, NoScriptError):  # not loaded yet: once more, alone
                riders.append((rider, rider_key, rider_args))
            elif isinstance(rider_reply, Exception):
                logger.warning("best-effort script %s on %s: %s", rider, rider_key, rider_reply)
        if isinstance(reply, NoScriptError):
            return script(keys=keys, args=args, client=client)
        if isinstance(reply, Exception):
            raise reply
        return reply


@dataclass(frozen=True)
class ScriptCall:
    """One script on one key, to be sent with others in one round trip (:func:`scripts_run`)."""

    name: str
    key: str
    args: tuple[str, ...]


def pipelines_scripts(alias: str = "default") -> bool:
    """Return True when scripts sent through ``alias`` share the records' round trip: the
    same client as ``default``'s, and not a Redis Cluster (whose pipelines take no script)."""
    with store_call():
        client = get_redis(alias)
        return (alias == "default" or client is get_redis()) and not isinstance(
            client, RedisCluster
        )


def scripts_run(calls: Iterable[ScriptCall], *, alias: str = "default") -> list[Any]:
    """Run independent one-key scripts in one round trip; return their replies in order.

    Each script is atomic on its own key (one slot, so Redis Cluster keeps working); together
    they are not a transaction: Redis runs them one after another, and each one's writes
    stand whatever the others answer. On Redis Cluster, whose pipelines take no script,
    they run one after another, one round trip each, stopping at the first failure.
    Scripts are sent by ``EVALSHA`` (see :func:`_run_script`); one the server lacks is
    loaded and run once more, alone. The first error reply is raised after every reply
    was read (:class:`StoreUnavailable` when the store could not answer).
    """
    batch = list(calls)
    with store_call():
        client = get_redis(alias)
        if isinstance(client, RedisCluster) or len(batch) < 2:
            return [
                _script(call.name, client)(keys=[call.key], args=list(call.args), client=client)
                for call in batch
            ]
        pipe = client.pipeline(transaction=False)
        for call in batch:
            pipe.evalsha(_script(call.name, client).sha, 1, call.key, *call.args)
        replies = pipe.execute(raise_on_error=False)
        for position, (call, reply) in enumerate(zip(batch, replies, strict=True)):
            if isinstance(reply, NoScriptError):  # not loaded yet: once more, alone
                script = _script(call.name, client)
                replies[position] = script(keys=[call.key], args=list(call.args), client=client)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return list(replies)


def _queue_index(client: Any, index: IndexUpdate) -> None:
    """Send (or, on a pipeline, queue) the command that applies ``index``."""
    if index.score_ms is None:
        client.zrem(index.index_key, index.member)
    else:
        client.zadd(index.index_key, {index.member: index.score_ms})


def _update_index(client: Any, index: IndexUpdate) -> None:
    """Apply ``index`` on its own (best effort: the index is a hint)."""
    try:
        _queue_index(client, index)
    except UNAVAILABLE_ERRORS as exc:
        logger.warning("index %s not updated: %s", index.index_key, exc)


def _decode_fields(flat: list[Any]) -> dict[str, str]:
    """Turn a flat HGETALL reply ``[field, value, ...]`` into a dict of strings."""
    values = [item.decode("utf-8") if isinstance(item, bytes) else str(item) for item in flat]
    return dict(zip(values[0::2], values[1::2], strict=True))


def _check_state_name(name: str) -> None:
    if not name or any(char.isspace() for char in name):
        raise ValueError(f"a state name must be one non-empty word, got {name!r}")


class TransitionStatus(StrEnum):
    TRANSITIONED = "transitioned"
    ALREADY = "already"  # the same attempt already made this transition (a re-sent call)
    REFUSED = "refused"
    MISSING = "missing"
    LIMITED = "limited"  # every condition held, but the counter's limit is reached


_TRANSITION_CODES = {
    1: TransitionStatus.TRANSITIONED,
    2: TransitionStatus.ALREADY,
    0: TransitionStatus.REFUSED,
    -1: TransitionStatus.MISSING,
    3: TransitionStatus.LIMITED,
}


@dataclass(frozen=True)
class CreateResult:
    """``created`` False means the key existed; ``fields`` are then the existing ones."""

    created: bool
    fields: dict[str, str]


@dataclass(frozen=True)
class TransitionResult:
    """The outcome of one compare-and-set; ``fields`` are the record after it (None if missing)."""

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
    with others, :func:`scripts_run`) and :meth:`result` reads its reply."""

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
        return CreateResult(created=False, fields=_decode_fields(reply[1:]))


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
    return create.result(_run_script("record_create", key=key, args=list(create.call.args)))


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


def record_transition(
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
) -> TransitionResult:
    """Move the record from one of ``from_states`` to ``to_state`` in one compare-and-set.

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

    ``index`` is sent in the same round trip (see :class:`IndexUpdate`).

    ``take`` (only where :func:`counter_in_script` says so, else ValueError) is one unit of a
    rate limit, counted by the same script only when it transitions (not on ALREADY): when
    the limit is reached nothing is written and the status is LIMITED, with
    ``retry_after_ms``.
    """
    states = list(from_states)
    if not states:
        raise ValueError("from_states must name at least one state")
    for name in [*states, to_state]:
        _check_state_name(name)
    if require_attempt and not attempt:
        raise ValueError("require_attempt needs an attempt")
    if (outcome is None) != (outcome_kind is None):
        raise ValueError("outcome and outcome_kind go together")
    if ttl_ms < 0 or now_ms < 0 or (lease_ms is not None and lease_ms < 0):
        raise ValueError("ttl_ms, lease_ms and now_ms must not be negative")
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
        *(index.script_args() if index is not None and _index_in_script() else _NO_INDEX_ARGS),
        *(take.script_args() if take is not None else _NO_LIMIT_ARGS),
    ]
    for name, value in (expect_record or {}).items():
        if not isinstance(name, str) or not name or not isinstance(value, str):
            raise ValueError("expect_record maps non-empty names to strings")
        args += [name, value]
    reply = _run_script(
        "record_transition",
        key=key,
        args=args,
        index=index,
        applied=_transition_applied,
        counter_key=take.key if take is not None else None,
    )
    status = _TRANSITION_CODES[int(reply[0])]
    if status is TransitionStatus.MISSING:
        return TransitionResult(status=status, fields=None)
    if status is TransitionStatus.LIMITED and take is not None:  # 3 comes only with a limit
        remaining = int(reply[1])
        return TransitionResult(
            status=status,
            fields=_decode_fields(reply[2:]),
            retry_after_ms=remaining if remaining > 0 else take.ttl_ms,
        )
    return TransitionResult(status=status, fields=_decode_fields(reply[1:]))


def _index_in_script(alias: str = "default") -> bool:
    """True when a script may change an index itself: a single Redis (see IndexUpdate)."""
    with store_call():
        return not isinstance(get_redis(alias), RedisCluster)


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


# Plain values with a lifetime (the pending-request records of ``agent.pending``): one
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


# Counters. A windowed counter is a rate limit's one atomic check-and-count; a counters hash
# collects tallies (e.g. repeated confirms) that a periodic job moves to the database.


@dataclass(frozen=True)
class CounterTake:
    """``taken`` False: the limit was reached and nothing was counted; ``retry_after_ms``
    then says when the window ends."""

    taken: bool
    count: int
    retry_after_ms: int


def counter_take_call(key: str, *, limit: int, ttl_ms: int) -> ScriptCall:
    """Return :func:`counter_take`'s script, unsent (to travel with others, :func:`scripts_run`);
    read its reply with :func:`counter_take_result`."""
    if limit < 0 or ttl_ms <= 0:
        raise ValueError("limit must be >= 0 and ttl_ms > 0")
    return ScriptCall("counter_take", key, (str(limit), str(ttl_ms)))


def counter_take_result(reply: Any, *, limit: int, ttl_ms: int) -> CounterTake:
    """Return the :class:`CounterTake` of a ``counter_take`` script's ``reply``."""
    if int(reply[0]) == 1:
        return CounterTake(taken=True, count=int(reply[1]), retry_after_ms=0)
    remaining = int(reply[1])
    return CounterTake(
        taken=False, count=limit, retry_after_ms=remaining if remaining > 0 else ttl_ms
    )


def counter_take(key: str, *, limit: int, ttl_ms: int, alias: str = "default") -> CounterTake:
    """Count one unit at ``key`` unless ``limit`` units were counted already (one round trip).

    The key expires ``ttl_ms`` after its first unit. ``alias`` names the Redis connection
    (a cache alias), so the limiter's store can be another server than the records'.
    """
    call = counter_take_call(key, limit=limit, ttl_ms=ttl_ms)
    reply = _run_script(call.name, key=key, args=list(call.args), alias=alias)
    return counter_take_result(reply, limit=limit, ttl_ms=ttl_ms)


def counter_give_back(key: str) -> None:
    """Return one unit taken at ``key`` (a :class:`CounterUnit` counted by a transition whose
    request then did not go on): one less, never below zero, and nothing when the window
    ended (one round trip)."""
    _run_script("counter_give_back", key=key, args=[])


def counter_add(hash_key: str, field: str, amount: int = 1) -> None:
    """Add ``amount`` to the tally ``field`` of the counters hash (one round trip)."""
    with store_call():
        get_redis().hincrby(hash_key, field, amount)


def counters_take_all(hash_key: str) -> dict[str, int]:
    """Return every tally of the counters hash and delete it, atomically."""
    flat = _run_script("counters_take_all", key=hash_key, args=[])
    return {name: int(value) for name, value in _decode_fields(flat).items()}


# --- Generations: marks that a change voids ------------------------------------------------


def generation_read(key: str, field: str) -> tuple[str, str | None]:
    """Return (the hash's generation, ``"0"`` when absent; the mark ``field``) in one trip."""
    with store_call():
        generation, mark = get_redis().hmget(key, ["gen", field])
    decode = lambda value: value.decode() if isinstance(value, bytes) else value  # noqa: E731
    return decode(generation) or "0", decode(mark)


def generation_mark(key: str, field: str, *, generation: str, ttl_ms: int) -> bool:
    """Set ``field`` = ``generation`` if the hash is still at ``generation`` (atomic)."""
    reply = _run_script("generation_mark", key=key, args=[field, generation, str(ttl_ms)])
    return int(reply) == 1


def generation_bump(key: str, *, ttl_ms: int) -> None:
    """Move the hash to its next generation (voids every mark). Best effort, and it may
    ride with the next pipelined script (:func:`ride`)."""
    ride("generation_bump", key=key, args=[str(ttl_ms)])
