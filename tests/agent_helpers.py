"""Shared helpers for the agent's protocol tests: sessions, cards, confirming, faults.

Cards are made the way production makes them: through the messages endpoint (planner ->
policy -> ``card_issue``) or, where a test needs a particular tool and args, through
``agent.policy`` + ``agent.cards.records.card_issue`` directly. Confirming always goes through the
HTTP endpoints. The fault helpers (a lost COMMIT, an unreachable store, a moved clock) act on
the real components, never on the code under test.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest import mock

import redis
from django.conf import settings
from django.db import connections
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent import control
from agent.cards import records as cards
from agent.models import ActionReceipt, AgentSession
from agent.policy import enforce_tool_policy
from agent.tools import ToolContext
from lightnote.controlstore import store
from lightnote.controlstore.redis import get_redis
from lightnote.impersonation.context import ActorContext
from lightnote.models import AuditEvent

SESSIONS_URL = "/api/v1/agent/sessions/"
CONFIRM_URL = "/api/v1/agent/confirmations/confirm/"
REJECT_URL = "/api/v1/agent/confirmations/reject/"
STATUS_URL = "/api/v1/agent/confirmations/status/"
UNDO_URL = "/api/v1/agent/confirmations/undo/"
TODOS_URL = "/api/v1/todos/"
CLOSED_PORT_URL = "redis://127.0.0.1:1/0"  # nothing listens there: connections are refused

# A Chinese sentence the rules planner turns into exactly one create_todo proposal.
CREATE_TODO_TEXT = "帮我创建一条明天下午3点提交周报的待办"


def messages_url(session_id: str | uuid.UUID) -> str:
    return f"/api/v1/agent/sessions/{session_id}/messages/"


# --- clients, sessions, cards ----------------------------------------------------------


def token_client(user: Any, **headers: str) -> APIClient:
    """Return a fresh APIClient authenticated as ``user`` by DRF token."""
    client = APIClient(headers=headers or None)
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def open_session(client: APIClient) -> str:
    """Open a conversation through the API and return its id."""
    response = client.post(SESSIONS_URL, {}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def chat_in(user: Any, language: str = "zh-CN") -> tuple[APIClient, str]:
    """A token client of ``user`` speaking ``language``, and a new conversation of theirs."""
    client = token_client(user, **{"Accept-Language": language})
    return client, open_session(client)


def send_message(client: APIClient, session_id: str, text: str) -> dict[str, Any]:
    """Send one message through the API and return the 200 body."""
    response = client.post(messages_url(session_id), {"text": text}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def card_via_message(client: APIClient, session_id: str, text: str = CREATE_TODO_TEXT) -> dict:
    """Send ``text`` and return the one card it produced (the API's Card object)."""
    body = send_message(client, session_id, text)
    assert len(body["cards"]) == 1, body
    return body["cards"][0]


@dataclass
class Flow:
    """A user with a token client, an open session and (optionally) a card of theirs."""

    user: Any
    client: APIClient
    session_id: str
    card: dict[str, Any] = field(default_factory=dict)

    @property
    def token(self) -> str:
        return self.card["token"]

    def confirm(self, **extra: Any) -> Any:
        return confirm(self.client, self.token, self.session_id, **extra)

    def reject(self) -> Any:
        return reject(self.client, self.token, self.session_id)

    def status(self) -> Any:
        return status(self.client, self.token, self.session_id)

    def card_id(self) -> str:
        current = cards.card_get(self.token)
        assert current is not None
        return current.id


def flow_with_card(user: Any, text: str = CREATE_TODO_TEXT) -> Flow:
    """Open a session for ``user`` and get one card through the messages endpoint."""
    client = token_client(user)
    session_id = open_session(client)
    return Flow(
        user=user,
        client=client,
        session_id=session_id,
        card=card_via_message(client, session_id, text),
    )


def issue_card(
    user: Any,
    *,
    session_id: str | uuid.UUID | None = None,
    tool: str = "create_todo",
    args: dict[str, Any] | None = None,
    locale: str = "zh-CN",
) -> cards.IssuedCard:
    """Prepare ``tool`` for ``user`` through the tool policy and issue its card directly.

    The same steps as a message turn, without the planner: ``enforce_tool_policy`` at
    ``phase="prepare"``, then ``card_issue`` with every binding. A session is created when
    none is given (read it back from ``issued.card.session_id``).
    """
    if session_id is None:
        session_id = AgentSession.objects.create(owner=user).id
    context = ToolContext.from_actor_context(
        ActorContext(actor=user, subject=user), session_id=str(session_id), locale=locale
    )
    prepared = enforce_tool_policy(
        tool_name=tool,
        args=args if args is not None else {"title": f"task {uuid.uuid4().hex[:8]}"},
        context=context,
        phase="prepare",
    )
    return cards.card_issue(
        owner_id=user.pk,
        session_id=str(session_id),
        subject_id=user.pk,
        actor_id=user.pk,
        tool=prepared.tool.name,
        capability=prepared.capability.id,
        risk=prepared.capability.risk or "low",
        args=prepared.args,
        preview=prepared.preview or {},
        admin_context_id=None,
        admin_mode=None,
        request_id=f"test-{uuid.uuid4().hex}",
    )


def _post(client: APIClient, url: str, token: str, session_id: str, **extra: Any) -> Any:
    return client.post(url, {"token": token, "session_id": str(session_id)}, format="json", **extra)


def confirm(client: APIClient, token: str, session_id: str | uuid.UUID, **extra: Any) -> Any:
    """POST the confirm endpoint."""
    return _post(client, CONFIRM_URL, token, str(session_id), **extra)


def reject(client: APIClient, token: str, session_id: str | uuid.UUID, **extra: Any) -> Any:
    """POST the reject endpoint."""
    return _post(client, REJECT_URL, token, str(session_id), **extra)


def status(client: APIClient, token: str, session_id: str | uuid.UUID, **extra: Any) -> Any:
    """POST the status endpoint."""
    return _post(client, STATUS_URL, token, str(session_id), **extra)


def error_code(response: Any) -> str:
    return response.json()["error"]["code"]


# --- the control store, as a party with raw access sees it -----------------------------


def card_key_of(token: str) -> str:
    return control.card_key(store.token_digest(token))


def raw_fields(token: str) -> dict[str, str]:
    """Return the card's Redis hash as stored (decoded)."""
    flat = get_redis().hgetall(card_key_of(token))
    return {name.decode(): value.decode() for name, value in flat.items()}


def rewrite_record(token: str, change: Callable[[dict[str, Any]], None]) -> None:
    """Alter the stored ``record`` JSON in place with a raw Redis client."""
    key = card_key_of(token)
    record = json.loads(get_redis().hget(key, "record"))
    change(record)
    get_redis().hset(key, "record", json.dumps(record, ensure_ascii=False))


def restore_as_ready(token: str) -> None:
    """Write the card back as ``ready`` with its same record, as a failover that lost the
    claim and the settle would leave it (a replica that only saw the issue)."""
    key = card_key_of(token)
    redis = get_redis()
    redis.hdel(key, "outcome", "outcome_kind", "settled_at")
    redis.hset(key, mapping={"state": "ready", "attempt": "", "lease_until": "0"})


def card_keys() -> list[str]:
    return [key.decode() for key in get_redis().scan_iter(match=f"{control.CARD_KEY_PREFIX}*")]


def store_outage(alias: str = "default") -> override_settings:
    """Return an override pointing the cache ``alias`` at a closed port.

    Use it as a context manager, or ``enable()`` it in the middle of a request (the store
    goes away while an execution is running) and ``disable()`` it afterwards.
    """
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches[alias] = {**settings.CACHES["default"], "LOCATION": CLOSED_PORT_URL}
    return override_settings(CACHES=caches)


def drop_pooled_redis_connections() -> list[int]:
    """Close this process's idle pooled Redis connections from the server's side (a restart
    would), and only those: other clients of the server are left alone. Returns how many
    connections each kill closed (real Redis only)."""
    pooled = get_redis().connection_pool._available_connections
    addresses = {
        ":".join(str(part) for part in each._sock.getsockname()[:2])
        for each in pooled
        if each._sock is not None
    }
    killer = redis.Redis.from_url(settings.REDIS_URL)
    try:
        return [
            killer.client_kill_filter(_id=client["id"])
            for client in killer.client_list()
            if client["addr"] in addresses
        ]
    finally:
        killer.close()


@contextmanager
def store_down(alias: str = "default") -> Iterator[None]:
    """Make the control store (the cache ``alias``) unreachable for the block."""
    with store_outage(alias):
        yield


@contextmanager
def ratelimit_store_down() -> Iterator[None]:
    """Keep the control store up but make the rate limiter's cache unreachable."""
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["ratelimit"] = {**settings.CACHES["default"], "LOCATION": CLOSED_PORT_URL}
    with override_settings(CACHES=caches, LIGHTNOTE_RATE_LIMIT_CACHE="ratelimit"):
        yield


class StoreClock:
    """Move the control store's clock (``lightnote.controlstore.store.now_ms``) forward, e.g. past
    a lease.

    Leases are compared with the application's clock, never Redis's ``TIME``, so moving
    ``now_ms`` is exactly what a late request sees. Redis TTLs are not affected.
    ``frozen=True`` stops the clock between moves, for exact lease arithmetic.
    """

    def __init__(self, *, frozen: bool = False) -> None:
        self.offset_ms = 0
        self._real = store.now_ms
        self._frozen_at = self._real() if frozen else None
        self._patch = mock.patch.object(store, "now_ms", self.now_ms)

    def now_ms(self) -> int:
        base = self._frozen_at if self._frozen_at is not None else self._real()
        return base + self.offset_ms

    def advance(self, seconds: float) -> None:
        self.offset_ms += int(seconds * 1000)

    def past_lease(self) -> None:
        self.advance(settings.LIGHTNOTE_EXECUTION_LEASE + 1)

    def to_window_start(self, window_seconds: int) -> StoreClock:
        """Move to the start of the next rate window of ``window_seconds``: a window's
        counter lives in Redis (real time) for the rest of the window as this clock sees
        it, so a clock frozen in a window's last moments would let it expire mid-test."""
        if self._frozen_at is None:
            raise ValueError("only a frozen clock stays at a window's start")
        window_ms = window_seconds * 1000
        self.offset_ms += window_ms - self.now_ms() % window_ms  # whole ms: no float rounding
        return self

    def start(self) -> StoreClock:
        self._patch.start()
        return self

    def stop(self) -> None:
        self._patch.stop()


# --- the database, and a COMMIT whose reply is lost -------------------------------------


LOST_CONNECTION = (2013, "Lost connection to server during query")


@contextmanager
def commit_reply_lost(*, committed: bool, alias: str = "default") -> Iterator[list[str]]:
    """Make the next COMMIT on ``alias`` raise the driver's OperationalError 2013.

    ``committed=True``: the COMMIT reaches the server and is durable, then the client sees
    the error (the reply was lost). ``committed=False``: the error comes before the server
    got it (the transaction is then rolled back). The error is raised by the DB-API module
    of the backend (MySQLdb or sqlite3) inside Django's error wrapper, exactly as a real
    failure surfaces: ``django.db.OperationalError``. Only the first COMMIT is affected;
    the yielded list records what happened.
    """
    wrapper_class = type(connections[alias])
    original = wrapper_class._commit
    events: list[str] = []

    def lose(connection: Any) -> Any:
        with connection.wrap_database_errors:
            raise connection.Database.OperationalError(*LOST_CONNECTION)

    def _commit(self: Any) -> Any:
        if events or self.alias != alias:
            return original(self)
        if committed:
            original(self)
            events.append("committed, reply lost")
        else:
            events.append("lost before the server")
        lose(self)

    with mock.patch.object(wrapper_class, "_commit", _commit):
        yield events


# --- counts ------------------------------------------------------------------------------


def receipts_for(action_id: str) -> list[ActionReceipt]:
    return list(ActionReceipt.objects.filter(action_id=action_id))


def audit_types(**filters: Any) -> list[str]:
    return list(
        AuditEvent.objects.filter(**filters).order_by("id").values_list("event_type", flat=True)
    )


def audit_codes(event_type: str) -> list[str]:
    return list(
        AuditEvent.objects.filter(event_type=event_type)
        .order_by("id")
        .values_list("code", flat=True)
    )


def spy_on(monkeypatch: Any, module: Any, name: str) -> list[dict[str, Any]]:
    """Wrap ``module.name`` so every call is recorded (its keyword arguments) and still runs."""
    original = getattr(module, name)
    calls: list[dict[str, Any]] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return calls
