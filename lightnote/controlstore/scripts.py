"""How the control store's commands and Lua scripts reach Redis.

:mod:`lightnote.controlstore.store` (records, indexes, values, generations) and
:mod:`lightnote.controlstore.counters` (counters, tallies) are built on what this module sends: one
script on one key (registered once with redis-py's ``register_script``, sent by SHA:
:func:`run_script`), which on a single Redis also makes a sorted-set index change
(:class:`IndexUpdate`) or takes a counter unit in the same call, and on Cluster, where the
index lives in another slot, is followed by the index change; independent one-key scripts in
one redis-py pipeline (:func:`scripts_run`; one after another on Cluster, whose pipelines
take no script); best-effort scripts that ride with the next pipeline
(:func:`riding_context`, :func:`ride`). Every key passes through ``KEYS``; a script names
keys of one hash tag only (Cluster keeps working).

Fail closed: every error that means "the store could not answer" becomes
:class:`StoreUnavailable` (:func:`store_call`); it is never read as "no record".
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from lightnote.controlstore.redis import STORE_ERRORS, get_redis
from lightnote.controlstore.redis_scripts import script_text

logger = logging.getLogger(__name__)

T = TypeVar("T")

UNAVAILABLE_ERRORS = STORE_ERRORS  # every error that means "the store could not answer"


class StoreUnavailable(Exception):
    """The control store could not answer. Never "no record": callers fail closed and map
    it to their own error code (e.g. ``CONFIRMATION_STORE_UNAVAILABLE``, 503)."""


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
                run_script(name, key=key, args=args)
            except StoreUnavailable:
                logger.warning("best-effort script %s on %s not sent", name, key)


def _run_inside(
    context: Callable[[], AbstractContextManager[None]],
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """A decorator running its function inside ``context()``."""

    def decorator(func: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> T:
            with context():
                return func(*args, **kwargs)

        return wrapper

    return decorator


riding = _run_inside(riding_context)  # run a function inside :func:`riding_context`


def ride(name: str, *, key: str, args: list[str]) -> None:
    """Send the best-effort script ``name`` now, or with the next pipeline inside
    :func:`riding_context`. Its reply is not read; an error is logged, never raised
    (outside a riding context: :class:`StoreUnavailable`, as for any call)."""
    waiting = _riders.get()
    if waiting is None:
        run_script(name, key=key, args=args)
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


def _script(name: str, client: Any) -> Script:
    script = _scripts.get(name)
    if script is None:
        script = _scripts[name] = client.register_script(script_text(name))
    return script


def _call(script: Script, keys: list[str], args: list[str], client: Any) -> Any:
    """Run ``script`` once on ``client`` (redis-py's ``Script``: EVALSHA, loading it on
    NOSCRIPT)."""
    return script(keys=keys, args=args, client=client)


def _pipelined(calls: list[tuple[Script, list[str], list[str]]], client: Any) -> list[Any]:
    """Run ``calls`` (script, keys, args) in one redis-py pipeline without a transaction;
    return each reply in order, an error reply as its exception (``NoScriptError`` for a
    script the server lacks, which it did not run).

    ``EVALSHA`` by name: a redis-py ``Script`` queued in a pipeline asks ``SCRIPT EXISTS``
    in a round trip of its own on every execute."""
    pipe = client.pipeline(transaction=False)
    for script, keys, args in calls:
        pipe.evalsha(script.sha, len(keys), *keys, *args)
    return list(pipe.execute(raise_on_error=False))


def run_script(
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

    With ``counter_key`` (a :class:`~lightnote.controlstore.counters.CounterUnit`'s, single Redis
    only) the script's keys are ``key``, the index's (or ``key`` again when there is none:
    unused) and the counter.
    """
    with store_call():
        client = get_redis(alias)
        script = _script(name, client)
        if counter_key is not None:
            if isinstance(client, RedisCluster):
                raise ValueError("a counter rides in a script only on a single Redis")
            keys = [key, index.index_key if index is not None else key, counter_key]
            return _call(script, keys, args, client)
        if index is None:
            # ``client=`` matters: settings may point at another server (tests, a cluster).
            return _call(script, [key], args, client)
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
            return _call(script, keys, args, client)
        # A server that lacks a script answers NOSCRIPT without running it; then it is
        # loaded and run once more (rare: after a restart or SCRIPT FLUSH).
        reply, *rider_replies = _pipelined(
            [
                (script, keys, args),
                *(
                    (_script(rider, client), [rider_key], list(rider_args))
                    for rider, rider_key, rider_args in boarded
                ),
            ],
            client,
        )
        for (rider, rider_key, rider_args), rider_reply in zip(boarded, rider_replies, strict=True):
            if isinstance(rider_reply, NoScriptError):  # not loaded yet: once more, alone
                riders.append((rider, rider_key, rider_args))
            elif isinstance(rider_reply, Exception):
                logger.warning("best-effort script %s on %s: %s", rider, rider_key, rider_reply)
        if isinstance(reply, NoScriptError):
            return _call(script, keys, args, client)
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
    Scripts are sent by ``EVALSHA`` (see :func:`run_script`); one the server lacks is
    loaded and run once more, alone. The first error reply is raised after every reply
    was read (:class:`StoreUnavailable` when the store could not answer).
    """
    batch = list(calls)
    with store_call():
        client = get_redis(alias)
        if isinstance(client, RedisCluster) or len(batch) < 2:
            return [
                _call(_script(call.name, client), [call.key], list(call.args), client)
                for call in batch
            ]
        replies = _pipelined(
            [(_script(call.name, client), [call.key], list(call.args)) for call in batch], client
        )
        for position, (call, reply) in enumerate(zip(batch, replies, strict=True)):
            if isinstance(reply, NoScriptError):  # not loaded yet: once more, alone
                script = _script(call.name, client)
                replies[position] = script(keys=[call.key], args=list(call.args), client=client)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return list(replies)


def index_in_script(alias: str = "default") -> bool:
    """True when a script may change an index itself: a single Redis (see IndexUpdate)."""
    with store_call():
        return not isinstance(get_redis(alias), RedisCluster)


def _update_index(client: Any, index: IndexUpdate) -> None:
    """Apply ``index`` on its own (best effort: the index is a hint)."""
    try:
        if index.score_ms is None:
            client.zrem(index.index_key, index.member)
        else:
            client.zadd(index.index_key, {index.member: index.score_ms})
    except UNAVAILABLE_ERRORS as exc:
        logger.warning("index %s not updated: %s", index.index_key, exc)


def decode_fields(flat: list[Any]) -> dict[str, str]:
    """Turn a flat HGETALL reply ``[field, value, ...]`` into a dict of strings."""
    values = [item.decode("utf-8") if isinstance(item, bytes) else str(item) for item in flat]
    return dict(zip(values[0::2], values[1::2], strict=True))
