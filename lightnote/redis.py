"""The Redis connection behind the django-redis cache and every control-state caller.

``LIGHTNOTE_REDIS_URL`` picks the server: ``fakeredis://...`` is an in-process server (the
embedded default, with Lua through lupa), ``redis://`` / ``rediss://`` a real one, and with
``LIGHTNOTE_REDIS_CLUSTER=1`` a Redis Cluster reached through that URL.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import fakeredis
import redis
from django.conf import settings
from django_redis.exceptions import ConnectionInterrupted
from django_redis.pool import ConnectionFactory as DjangoRedisConnectionFactory
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

_fake_servers: dict[str, fakeredis.FakeServer] = {}
_fake_lock = threading.Lock()


def fake_server(name: str) -> fakeredis.FakeServer:
    """Return the process-wide in-process server called ``name``."""
    with _fake_lock:
        if name not in _fake_servers:
            _fake_servers[name] = fakeredis.FakeServer()
        return _fake_servers[name]


def _retry() -> Retry:
    """One quick retry, no backoff: redis-py's default retries with exponential backoff would
    turn an outage into a 5+ second wait before the fail-closed 503."""
    return Retry(NoBackoff(), 1)


# The pooled connection each pool lends the current context (:func:`one_connection`):
# ``id(pool) -> (pool, connection)``; None outside such a context.
_held: ContextVar[dict[int, tuple[Any, Any]] | None] = ContextVar(
    "lightnote_redis_held", default=None
)


class ConnectionPool(redis.ConnectionPool):
    """redis-py's pool (``CONNECTION_POOL_CLASS``), which inside :func:`one_connection` lends
    the context one connection for every command sent through it (script calls, plain
    commands, pipelines): taken at the first checkout, its returns ignored until the context
    ends. Outside, it is redis-py's pool unchanged."""

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        held = _held.get()
        if held is None:
            return super().get_connection(*args, **kwargs)
        lent = held.get(id(self))
        if lent is None:
            lent = held[id(self)] = (self, super().get_connection(*args, **kwargs))
        return lent[1]

    def release(self, connection: Any) -> None:
        held = _held.get()
        if held is not None and held.get(id(self), (None, None))[1] is connection:
            return  # lent to this context until it ends
        super().release(connection)


@contextmanager
def one_connection() -> Iterator[None]:
    """Inside, every command on a pool of :class:`ConnectionPool` (the store's, for a
    ``redis://`` URL) uses one connection of it, taken at the first and given back at the
    end: a confirm's claim, its settle and whatever else it sends (a repeat's tally) cost
    one checkout, and a request never holds two connections of one pool at once (redis-py
    caps a pool at 100: a request holding a second while others held their first could
    find it empty). A script call that fails on it closes it
    (``store_scripts``), and redis-py closes it on a connection error, so no reply is left
    unread for the next command. fakeredis and Cluster clients have no such pool: each
    command there takes its own, as outside."""
    holder: dict[int, tuple[Any, Any]] = {}
    reset = _held.set(holder)
    try:
        yield
    finally:
        _held.reset(reset)
        for pool, connection in holder.values():
            pool.release(connection)


def take_connection(pool: Any) -> Any:
    """A connection of ``pool`` that the caller gives back itself (``pool.release``), later
    than the context it was taken in may end: inside :func:`one_connection`, the one lent to
    the context, which the context then neither gives back nor lends again (its next command
    takes another); elsewhere an ordinary checkout."""
    connection = pool.get_connection()
    held = _held.get()
    if held is not None and held.get(id(pool), (None, None))[1] is connection:
        del held[id(pool)]
    return connection


class ConnectionFactory(DjangoRedisConnectionFactory):
    """django-redis connection factory that also speaks fakeredis and Redis Cluster."""

    _clients: dict[str, Any] = {}

    def make_connection_params(self, url: str) -> dict[str, Any]:
        params = super().make_connection_params(url)
        params["retry"] = _retry()
        return params

    def connect(self, url: str) -> Any:
        if url.startswith("fakeredis://"):
            return fakeredis.FakeRedis(server=fake_server(url), decode_responses=False)
        if settings.REDIS_CLUSTER:
            # One cluster client per URL and process: it holds its own node pools.
            if url not in self._clients:
                self._clients[url] = RedisCluster.from_url(
                    url,
                    socket_timeout=settings.REDIS_SOCKET_TIMEOUT,
                    socket_connect_timeout=settings.REDIS_SOCKET_TIMEOUT,
                    retry=_retry(),
                )
            return self._clients[url]
        return super().connect(url)

    def disconnect(self, connection: Any) -> None:
        if isinstance(connection, fakeredis.FakeRedis | RedisCluster):
            return
        super().disconnect(connection)


def get_redis(alias: str = "default") -> redis.Redis:
    """Return the shared Redis client of the cache ``alias`` (raw, not the cache wrapper)."""
    from django_redis import get_redis_connection

    return get_redis_connection(alias)


# Errors that mean "the store could not answer": callers turn them into a 503 and never
# proceed as if the store had said yes.
STORE_ERRORS: tuple[type[BaseException], ...] = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.BusyLoadingError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.OutOfMemoryError,
    redis.exceptions.MasterDownError,
    redis.exceptions.TryAgainError,
    redis.exceptions.ClusterError,
    redis.exceptions.RedisClusterException,
    TimeoutError,
    ConnectionInterrupted,
)
