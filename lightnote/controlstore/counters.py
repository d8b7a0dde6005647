"""Counters in the control store: windowed counters and tallies.

A windowed counter is a rate limit's one atomic check-and-count (:func:`counter_take`); a
transition may take a unit of one in its own script (:class:`CounterUnit`, where
:func:`counter_in_script`) and give it back when its request does not go on
(:func:`counter_give_back`). A counters hash collects tallies (e.g. repeated confirms) that a
periodic job moves to the database (:func:`counter_add`, :func:`counters_take_all`). Keys
are the callers'; failures raise :class:`~lightnote.controlstore.store.StoreUnavailable`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.scripts import (
    ScriptCall,
    decode_fields,
    pipelines_scripts,
    run_script,
    store_call,
)


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


def counter_in_script(alias: str = "default") -> bool:
    """True when a record's transition may take a unit of a counter kept through ``alias``
    in its own script: a single Redis, and the same connection as the records'."""
    return pipelines_scripts(alias)


@dataclass(frozen=True)
class CounterTake:
    """``taken`` False: the limit was reached and nothing was counted; ``retry_after_ms``
    then says when the window ends."""

    taken: bool
    count: int
    retry_after_ms: int


def counter_take_call(key: str, *, limit: int, ttl_ms: int) -> ScriptCall:
    """Return :func:`counter_take`'s script, unsent (to travel with others:
    :func:`~lightnote.controlstore.scripts.scripts_run`); read its reply with
    :func:`counter_take_result`."""
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
    reply = run_script(call.name, key=key, args=list(call.args), alias=alias)
    return counter_take_result(reply, limit=limit, ttl_ms=ttl_ms)


def counter_give_back(key: str) -> None:
    """Return one unit taken at ``key`` (a :class:`CounterUnit` counted by a transition whose
    request then did not go on): one less, never below zero, and nothing when the window
    ended (one round trip)."""
    run_script("counter_give_back", key=key, args=[])


def counter_add(hash_key: str, field: str, amount: int = 1) -> None:
    """Add ``amount`` to the tally ``field`` of the counters hash (one round trip)."""
    with store_call():
        get_redis().hincrby(hash_key, field, amount)


def counters_take_all(hash_key: str) -> dict[str, int]:
    """Return every tally of the counters hash and delete it, atomically."""
    flat = run_script("counters_take_all", key=hash_key, args=[])
    return {name: int(value) for name, value in decode_fields(flat).items()}
