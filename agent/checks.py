"""A system check for the Redis that holds confirmation cards and continuations.

Cards must never be evicted (an evicted running card would look "expired" while its write is
in flight) and the Lua scripts assume Redis 7. Registered when this module is imported (from
``AgentConfig.ready``); it probes the server with one INFO call and short timeouts.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import redis
from django.conf import settings
from django.core.checks import CheckMessage, Warning, register
from redis.cluster import RedisCluster

logger = logging.getLogger(__name__)

MINIMUM_VERSION = (7, 0)
PROBE_TIMEOUT_SECONDS = 1.0
REDIS_TAG = "redis"


def _version_tuple(text: str) -> tuple[int, ...]:
    parts: list[int] = []
    for piece in text.split("."):
        digits = "".join(char for char in piece if char.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def server_warnings(info: Mapping[str, Any], *, server: str) -> list[CheckMessage]:
    """Return the warnings for one server's ``INFO`` (sections server and memory)."""
    messages: list[CheckMessage] = []
    version = str(info.get("redis_version", ""))
    if version and _version_tuple(version) < MINIMUM_VERSION:
        messages.append(
            Warning(
                f"Redis {server} runs version {version}; LightNote needs Redis 7.0 or newer "
                "for its confirmation scripts.",
                hint="Upgrade Redis to 7.0 or newer.",
                id="agent.W001",
            )
        )
    policy = str(info.get("maxmemory_policy", ""))
    if policy != "noeviction":
        messages.append(
            Warning(
                f"Redis {server} has maxmemory-policy {policy or 'unknown'!r}: confirmation "
                "cards could be evicted under memory pressure.",
                hint="Set maxmemory-policy noeviction on the Redis that holds control state.",
                id="agent.W002",
            )
        )
    return messages


def _public(location: str) -> str:
    """Return the URL's host part, without credentials."""
    return location.rsplit("@", 1)[-1].split("://", 1)[-1]


def _probe() -> dict[str, Mapping[str, Any]]:
    """Return ``{server: INFO}`` for every primary the app talks to."""
    location = str(settings.CACHES["default"]["LOCATION"])
    options = {
        "socket_timeout": PROBE_TIMEOUT_SECONDS,
        "socket_connect_timeout": PROBE_TIMEOUT_SECONDS,
    }
    if settings.REDIS_CLUSTER:
        cluster = RedisCluster.from_url(location, **options)
        try:
            replies = cluster.info(target_nodes=RedisCluster.PRIMARIES)
        finally:
            cluster.close()
        if "redis_version" in replies:  # a one-node cluster answers with INFO itself
            return {_public(location): replies}
        return dict(replies)
    client = redis.Redis.from_url(location, retry=None, **options)
    try:
        return {_public(location): client.info()}  # the default sections include memory
    finally:
        client.close()


@register(REDIS_TAG)
def check_control_store(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """Warn when the control-store Redis is old, may evict keys, or cannot be reached."""
    location = str(settings.CACHES["default"]["LOCATION"])
    if location.startswith("fakeredis://"):
        return []  # the embedded in-process server: nothing to configure
    try:
        servers = _probe()
    except (redis.exceptions.RedisError, redis.exceptions.RedisClusterException, OSError) as exc:
        return [
            Warning(
                f"Redis at {_public(location)} could not be checked "
                f"({type(exc).__name__}): agent writes will answer 503 until it is reachable.",
                hint="Start Redis or fix LIGHTNOTE_REDIS_URL.",
                id="agent.W003",
            )
        ]
    messages: list[CheckMessage] = []
    for server, info in servers.items():
        if isinstance(info, Mapping) and "redis_version" in info:
            messages += server_warnings(info, server=str(server))
    return messages
