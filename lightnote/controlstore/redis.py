"""The Redis connection behind the django-redis cache and every control-state caller.

``LIGHTNOTE_REDIS_URL`` picks the server: ``fakeredis://...`` is an in-process server (the
embedded default, with Lua through lupa), ``redis://`` / ``rediss://`` a real one, and with
``LIGHTNOTE_REDIS_CLUSTER=1`` a Redis Cluster reached through that URL.
"""

from __future__ import annotations

import threading
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
