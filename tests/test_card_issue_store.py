"""A message turn's card in the control store: the card limit's count, the continuation
and the card travel in one round trip (``agent.cards.issue.CardIssuer.issue_prepared``).

Each is still its own one-key script (Redis Cluster: ``tests/test_cards_cluster.py``); the
limit is checked before the card is shown, a refused card leaves nothing behind, and a
store that fails leaves no half turn. The costs are pinned in
``tests/test_card_issue_costs.py``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from agent import control
from agent.cards import records as cards
from agent.models import ActionCard, Message
from lightnote.controlstore import counters as store_counters
from lightnote.controlstore import scripts as store_scripts
from lightnote.controlstore import store
from lightnote.controlstore.redis import get_redis
from lightnote.errors import LightNoteError
from lightnote.models import AuditEvent
from tests.agent_helpers import drop_pooled_redis_connections, error_code, ratelimit_store_down
from tests.test_conversation_api import new_session, say, send

pytestmark = pytest.mark.django_db

CARD_TEXT = "帮我创建一条明天下午三点开会的待办"
SECOND_CARD_TEXT = "帮我创建一条明天下午五点交报告的待办"


def keys(prefix: str) -> list[str]:
    return sorted(key.decode() for key in get_redis().scan_iter(match=f"{prefix}*"))


def card_counters() -> dict[str, int]:
    return {key: int(get_redis().get(key) or 0) for key in keys("ln:rate:agent.cards:")}


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[list[store_scripts.ScriptCall]]:
    """Record every ``store_scripts.scripts_run`` batch (its calls), still running it."""
    sent: list[list[store_scripts.ScriptCall]] = []
    original = store_scripts.scripts_run

    def spy(calls: Iterable[store_scripts.ScriptCall], **kwargs: Any) -> list[Any]:
        batch = list(calls)
        sent.append(batch)
        return original(batch, **kwargs)

    monkeypatch.setattr(store_scripts, "scripts_run", spy)
    return sent


def test_the_limit_the_continuation_and_the_card_are_stored_in_one_batch(
    alice_api: Any, batches: list[list[store_scripts.ScriptCall]]
) -> None:
    session_id = new_session(alice_api)
    body = say(alice_api, session_id, CARD_TEXT)

    [card] = body["cards"]
    [batch] = batches
    assert [call.name for call in batch] == ["counter_take", "record_create", "record_create"]
    counter, continuation_key, card_key = (call.key for call in batch)
    assert counter.startswith("ln:rate:agent.cards:")
    assert continuation_key == control.continuation_key(
        store.token_digest(card["continuation_token"])
    )
    assert card_key == control.card_key(store.token_digest(card["token"]))
    stored = cards.card_get(card["token"])
    assert stored is not None
    assert stored.state == "ready"
    assert stored.continuation_digest == store.token_digest(card["continuation_token"])
    assert get_redis().hget(continuation_key, "state") == b"pending"
    assert card_counters() == {counter: 1}
    row = ActionCard.objects.get(id=card["card_id"])
    assert row.continuation_digest == store.token_digest(card["continuation_token"])


def test_over_the_limit_the_records_stored_with_the_count_are_deleted_and_the_turn_is_429(
    alice_api: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/d"
    session_id = new_session(alice_api)
    say(alice_api, session_id, CARD_TEXT)
    before = (keys("ln:card:"), keys("ln:cont:"))
    deleted: list[list[str]] = []
    original = store.records_delete
    monkeypatch.setattr(
        store, "records_delete", lambda keys: deleted.append(list(keys)) or original(keys)
    )

    limited = send(alice_api, session_id, SECOND_CARD_TEXT)

    assert limited.status_code == 429
    assert error_code(limited) == "RATE_LIMITED"
    retry_after = int(limited["Retry-After"])
    assert retry_after >= 1
    [refused] = deleted  # the two records the refused count travelled with
    assert [key.split("{")[0] for key in refused] == ["ln:cont:", "ln:card:"]
    assert (keys("ln:card:"), keys("ln:cont:")) == before  # nothing confirmable is left
    assert list(card_counters().values()) == [1]  # the refused card counted nothing
    assert not Message.objects.filter(text=SECOND_CARD_TEXT).exists()
    assert ActionCard.objects.count() == 1
    [event] = AuditEvent.objects.filter(event_type="rate.limited")
    assert event.code == "RATE_LIMITED"
    assert event.details == {"group": "agent.cards", "rate": "1/d", "retry_after": retry_after}
    assert AuditEvent.objects.filter(event_type="card.issued").count() == 1


def test_a_refused_card_whose_records_cannot_be_deleted_still_answers_429(
    alice_api: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Their tokens never left the process: nothing can confirm them, and they expire."""
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/d"
    session_id = new_session(alice_api)
    say(alice_api, session_id, CARD_TEXT)

    def unavailable(keys: Iterable[str]) -> None:
        raise store.StoreUnavailable("gone")

    monkeypatch.setattr(store, "records_delete", unavailable)
    limited = send(alice_api, session_id, SECOND_CARD_TEXT)

    assert limited.status_code == 429
    assert not Message.objects.filter(text=SECOND_CARD_TEXT).exists()


@pytest.mark.parametrize("reply_lost", [False, True])
def test_a_store_failing_while_the_card_is_stored_leaves_no_half_turn(
    alice_api: Any, monkeypatch: pytest.MonkeyPatch, reply_lost: bool
) -> None:
    """The store fails before the batch ran, or after it ran with its reply lost: 503,
    and no message, card row or ``card.issued`` row is written."""
    session_id = new_session(alice_api)
    original = store_scripts.scripts_run

    def failing(calls: Iterable[store_scripts.ScriptCall], **kwargs: Any) -> list[Any]:
        batch = list(calls)
        if any(call.name == "record_create" for call in batch):
            if reply_lost:
                original(batch, **kwargs)
            raise store.StoreUnavailable("connection lost")
        return original(batch, **kwargs)

    monkeypatch.setattr(store_scripts, "scripts_run", failing)
    response = send(alice_api, session_id, CARD_TEXT)

    assert response.status_code == 503
    assert error_code(response) == "CONFIRMATION_STORE_UNAVAILABLE"
    assert Message.objects.count() == 0
    assert ActionCard.objects.count() == 0
    assert not AuditEvent.objects.filter(event_type="card.issued").exists()


def test_a_limiter_on_its_own_connection_is_counted_alone_before_the_records(
    alice_api: Any, batches: list[list[store_scripts.ScriptCall]]
) -> None:
    caches = {name: dict(config) for name, config in settings.CACHES.items()}
    caches["ratelimit"] = dict(settings.CACHES["default"])
    session_id = new_session(alice_api)
    with override_settings(CACHES=caches, LIGHTNOTE_RATE_LIMIT_CACHE="ratelimit"):
        body = say(alice_api, session_id, CARD_TEXT)

    assert len(body["cards"]) == 1
    assert [[call.name for call in batch] for batch in batches] == [
        ["counter_take"],
        ["record_create", "record_create"],
    ]
    assert list(card_counters().values()) == [1]


def test_a_limiter_that_cannot_answer_is_a_503_before_any_record(alice_api: Any) -> None:
    session_id = new_session(alice_api)
    with ratelimit_store_down():
        response = send(alice_api, session_id, CARD_TEXT)

    assert response.status_code == 503
    assert error_code(response) == "CONFIRMATION_STORE_UNAVAILABLE"
    assert keys("ln:card:") == keys("ln:cont:") == []
    assert Message.objects.count() == 0


def _too_large(**card: Any) -> Any:
    raise LightNoteError("CARD_PREVIEW_TOO_LARGE", params={"limit_kb": 64})


def test_a_card_too_large_to_store_still_counts_against_the_limit_as_before(
    alice_api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit is counted before the sizes are checked (as when the limit was its own call):
    the card is refused with a notice and the turn is written."""
    monkeypatch.setattr(cards, "card_prepare", _too_large)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, CARD_TEXT)

    assert body["cards"] == []
    assert [notice["code"] for notice in body["notices"]] == ["CARD_PREVIEW_TOO_LARGE"]
    assert list(card_counters().values()) == [1]
    assert keys("ln:card:") == keys("ln:cont:") == []


def test_a_card_too_large_to_store_over_the_limit_is_a_429_as_before(
    alice_api: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/d"
    session_id = new_session(alice_api)
    say(alice_api, session_id, CARD_TEXT)
    monkeypatch.setattr(cards, "card_prepare", _too_large)

    limited = send(alice_api, session_id, SECOND_CARD_TEXT)

    assert limited.status_code == 429
    assert error_code(limited) == "RATE_LIMITED"
    assert AuditEvent.objects.filter(event_type="rate.limited").count() == 1


# --- the history a turn reads --------------------------------------------------------------


def test_the_history_query_reads_the_session_and_only_each_message_s_reads(user: Any) -> None:
    from agent.conversation import sessions
    from agent.models import AgentSession

    session = sessions.session_create(owner=user)
    sessions.session_rename(session=session, title="计划")
    reads = [{"type": "note", "id": "n1", "title": "周报"}]
    Message.objects.create(session=session, role=Message.Role.USER, text="问", payload={})
    Message.objects.create(
        session=session,
        role=Message.Role.ASSISTANT,
        text="答",
        reads=reads,
        payload={"cards": [{"args": {"title": "x" * 5000}}], "facts": []},
    )
    Message.objects.create(
        session=session, role=Message.Role.ASSISTANT, text="旧", payload={"facts": []}
    )

    found, recent = sessions.session_get_with_recent(session_id=session.id, owner=user, limit=20)

    expected = AgentSession.objects.get(id=session.id)
    names = [field.attname for field in AgentSession._meta.concrete_fields]
    assert [getattr(found, name) for name in names] == [getattr(expected, name) for name in names]
    assert found._state.adding is False
    assert [(m.role, m.text, m.reads) for m in recent] == [
        ("assistant", "旧", None),
        ("assistant", "答", reads),
        ("user", "问", None),
    ]
    assert sessions.recent_messages(session=session, limit=20) == recent


# --- store_scripts.scripts_run -----------------------------------------------------------


def _create(key: str) -> store.RecordCreate:
    return store.record_create_call(key, state="ready", record_json="{}", ttl_ms=60_000)


def test_scripts_in_one_batch_answer_in_order_each_on_its_own_key() -> None:
    first, second = _create("ln:test:{a}"), _create("ln:test:{b}")
    counter = store_counters.counter_take_call("ln:test:{n}", limit=1, ttl_ms=60_000)

    replies = store_scripts.scripts_run([counter, first.call, second.call, counter])

    taken, refused = (
        store_counters.counter_take_result(reply, limit=1, ttl_ms=60_000)
        for reply in (replies[0], replies[3])
    )
    assert (taken.taken, refused.taken) == (True, False)
    assert first.result(replies[1]).created
    assert second.result(replies[2]).created
    assert not first.result(store_scripts.scripts_run([first.call])[0]).created  # it exists now
    assert get_redis().hget("ln:test:{a}", "state") == b"ready"


def test_a_batch_sent_to_a_server_that_lost_its_scripts_still_runs_each_once() -> None:
    """A server that answers NOSCRIPT (restarted, flushed) ran nothing: each such script is
    loaded and run once more, alone. (A wrong SHA stands in for a flushed server, which
    would disturb every other user of a shared one.)"""
    script = store_scripts._script("counter_take", get_redis())
    script.sha = "0" * 40
    counter = store_counters.counter_take_call("ln:test:{n}", limit=5, ttl_ms=60_000)

    replies = store_scripts.scripts_run([counter, _create("ln:test:{c}").call])

    assert store_counters.counter_take_result(replies[0], limit=5, ttl_ms=60_000).count == 1
    assert get_redis().get("ln:test:{n}") == b"1"
    assert get_redis().hget("ln:test:{c}", "state") == b"ready"
    assert script.sha != "0" * 40  # it was loaded again


def test_an_error_reply_in_a_batch_is_raised_after_the_others_ran() -> None:
    bad = store_scripts.ScriptCall("counter_take", "ln:test:{bad}", ("x", "1"))

    with pytest.raises(Exception, match="counter_take: limit"):
        store_scripts.scripts_run([_create("ln:test:{d}").call, bad])

    assert get_redis().hget("ln:test:{d}", "state") == b"ready"


def test_an_error_reply_mid_batch_leaves_the_connection_in_step() -> None:
    """Every reply is read, the failing one's included: the next call on the same pooled
    connection gets its own reply, not a leftover."""
    bad = store_scripts.ScriptCall("counter_take", "ln:test:{bad2}", ("x", "1"))
    with pytest.raises(Exception, match="counter_take: limit"):
        store_scripts.scripts_run([_create("ln:test:{g}").call, bad, _create("ln:test:{h}").call])
    assert get_redis().hget("ln:test:{g}", "state") == b"ready"
    assert get_redis().hget("ln:test:{h}", "state") == b"ready"
    again = _create("ln:test:{i}")
    counter = store_counters.counter_take_call("ln:test:{m}", limit=3, ttl_ms=60_000)
    replies = store_scripts.scripts_run([again.call, counter])
    assert again.result(replies[0]).created
    assert store_counters.counter_take_result(replies[1], limit=3, ttl_ms=60_000).count == 1


@pytest.mark.services
def test_a_batch_on_real_redis_is_one_pipeline_and_survives_dropped_connections() -> None:
    """A batch is one redis-py pipeline; connections the server dropped are replaced and
    each script runs once (a record created twice would answer "existing")."""
    store_scripts.scripts_run([_create("ln:test:{w1}").call, _create("ln:test:{w2}").call])
    dropped = drop_pooled_redis_connections()
    assert dropped
    assert all(count == 1 for count in dropped)  # each named connection was closed

    first, second = _create("ln:test:{p1}"), _create("ln:test:{p2}")
    counter = store_counters.counter_take_call("ln:test:{pn}", limit=5, ttl_ms=60_000)
    replies = store_scripts.scripts_run([counter, first.call, second.call])

    assert store_counters.counter_take_result(replies[0], limit=5, ttl_ms=60_000).count == 1
    assert first.result(replies[1]).created
    assert second.result(replies[2]).created


def test_records_delete_removes_every_key_in_one_batch() -> None:
    store_scripts.scripts_run([_create("ln:test:{e}").call, _create("ln:test:{f}").call])

    store.records_delete(["ln:test:{e}", "ln:test:{f}", "ln:test:{absent}"])

    assert keys("ln:test:") == []
