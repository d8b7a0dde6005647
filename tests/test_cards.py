"""Confirmation cards: issue, binding, claim, settle, resolve, reject, and one winner under races.

The race scenarios (``race_claims_in_threads`` / ``race_claims_in_processes``) are reused
unchanged against a Redis Cluster by ``tests/test_cards_cluster.py``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import multiprocessing
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from agent import control
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.transitions import ClaimStatus, RejectStatus
from lightnote.controlstore import store
from lightnote.controlstore.binding import args_hmac, canonical_json, owner_hash
from lightnote.controlstore.redis import get_redis
from lightnote.errors import LightNoteError

DAY_MS = 86_400_000
SESSION = uuid.UUID("00000000-0000-4000-8000-000000000001")


def issue(**overrides: Any) -> cards.IssuedCard:
    fields: dict[str, Any] = dict(
        owner_id=7,
        session_id=SESSION,
        subject_id=7,
        actor_id=7,
        tool="create_todo",
        capability="todo.create",
        risk="low",
        args={"title": "提交周报", "due_at": "2026-12-02T21:00:00+08:00", "priority": 2},
        preview={"title": "创建待办", "target": "提交周报"},
        admin_context_id=None,
        admin_mode=None,
        request_id="req-1",
    )
    fields.update(overrides)
    return cards.card_issue(**fields)


def key_of(token: str) -> str:
    return control.card_key(store.token_digest(token))


def pttl(token: str) -> int:
    return get_redis().pttl(key_of(token))


def rewrite_record(token: str, change: Any) -> None:
    """Alter the stored record in place, as a party with write access to Redis could."""
    key = key_of(token)
    record = json.loads(get_redis().hget(key, "record"))
    change(record)
    get_redis().hset(key, "record", json.dumps(record))


@pytest.fixture
def clock(time_machine: Any) -> Any:
    """Freeze the application's clock at the real current time; tests then shift it."""
    time_machine.move_to(datetime.now(tz=UTC), tick=False)
    return time_machine


def settle(token: str, attempt: str, kind: str = "succeeded", **outcome: Any) -> bool:
    return card_transitions.card_settle(
        token, attempt_id=attempt, outcome_kind=kind, outcome=outcome or {"ok": True}
    )


# --- issue and read ----------------------------------------------------------------------


def test_issue_stores_a_ready_card_under_the_token_digest_with_the_confirmation_ttl() -> None:
    issued = issue()
    card = issued.card
    assert card.state == "ready"
    assert card.digest == store.token_digest(issued.token)
    assert card.args == {"title": "提交周报", "due_at": "2026-12-02T21:00:00+08:00", "priority": 2}
    assert card.expires_at is not None
    assert card.created_at is not None
    assert card.expires_at - card.created_at == timedelta(seconds=300)
    assert card.expires_at.tzinfo is not None
    assert card.owner_hash == owner_hash(7)
    assert 299_000 < pttl(issued.token) <= 300_000
    assert cards.card_get(issued.token) == card


def test_the_record_keeps_every_binding_and_no_raw_user_id_or_token() -> None:
    issued = issue(admin_context_id="ctx-1", admin_mode="readonly", continuation_digest="c" * 64)
    record = json.loads(get_redis().hget(key_of(issued.token), "record"))
    assert set(record) == {
        "id",
        "tool",
        "capability",
        "risk",
        "args",
        "preview",
        "owner_hash",
        "session_id",
        "subject_id",
        "actor_id",
        "admin_context_id",
        "admin_mode",
        "request_id",
        "continuation_digest",
        "created_at",
        "expires_at",
        "args_hmac",
    }
    assert "owner_id" not in record
    assert record["admin_context_id"] == "ctx-1"
    assert record["continuation_digest"] == "c" * 64
    uuid.UUID(record["id"])


def test_the_raw_token_is_never_stored_in_redis() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    settle(issued.token, "attempt-1")
    client = get_redis()
    stored: list[bytes] = []
    for key in client.scan_iter():
        stored.append(key)
        if client.type(key) == b"hash":
            stored += client.hgetall(key).values()
    assert stored
    assert all(issued.token.encode() not in item for item in stored)


def test_tokens_are_long_random_and_distinct() -> None:
    tokens = {issue().token for _ in range(20)}
    assert len(tokens) == 20
    assert all(len(token) >= 43 for token in tokens)  # 32 random bytes, url-safe base64


def test_card_get_of_an_unknown_token_is_none() -> None:
    assert cards.card_get("no-such-token") is None


@override_settings(LIGHTNOTE_CONFIRMATION_TTL=1)
def test_a_ready_card_expires_by_redis_ttl() -> None:
    issued = issue()
    assert 0 < pttl(issued.token) <= 1_000
    get_redis().pexpire(key_of(issued.token), 1)  # let Redis expire it now, not in a second
    time.sleep(0.05)
    assert cards.card_get(issued.token) is None
    assert card_transitions.card_claim(issued.token, attempt_id="late").status is ClaimStatus.GONE


def test_args_of_at_most_64_kb_are_accepted_and_larger_ones_refused_before_any_write() -> None:
    filler = 64 * 1024 - len('{"t":""}')
    assert issue(args={"t": "x" * filler}).card.state == "ready"
    get_redis().flushdb()
    with pytest.raises(LightNoteError) as caught:
        issue(args={"t": "x" * (filler + 1)})
    assert (caught.value.code, caught.value.status) == ("CARD_ARGS_TOO_LARGE", 400)
    assert get_redis().dbsize() == 0


def test_args_that_are_not_strict_json_are_refused_before_any_write() -> None:
    with pytest.raises(ValueError, match="JSON"):
        issue(args={"priority": float("nan")})
    assert get_redis().dbsize() == 0


def test_an_unknown_risk_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="risk"):
        issue(risk="extreme")
    assert get_redis().dbsize() == 0


# --- binding -----------------------------------------------------------------------------


def test_canonical_json_is_sorted_compact_and_keeps_unicode() -> None:
    assert canonical_json({"b": 1, "a": [1.5, "周报"]}) == '{"a":[1.5,"周报"],"b":1}'


def test_owner_hash_and_args_hmac_are_keyed_by_the_secret_with_distinct_labels() -> None:
    assert owner_hash(7) == owner_hash("7") != owner_hash(8)
    assert len(owner_hash(7)) == 64
    assert args_hmac({"a": 1}) == args_hmac({"a": 1}) != args_hmac({"a": 2})
    # The very same message bytes under the two labels give unrelated values.
    assert owner_hash('{"a":1}') != args_hmac({"a": 1})
    before = (owner_hash(7), args_hmac({"a": 1}))
    with override_settings(SECRET_KEY="another-secret-key-0123456789-0123456789-0123456789"):
        assert owner_hash(7) != before[0]
        assert args_hmac({"a": 1}) != before[1]
    assert (owner_hash(7), args_hmac({"a": 1})) == before  # remembered per secret, not stale


def test_owner_hash_is_the_hmac_of_the_id_under_the_owner_label_s_key() -> None:
    """What a record stores, computed by hand: HMAC-SHA256 of the id under the key derived
    from SECRET_KEY and the owner label; asked again (remembered), the same."""
    key = hmac.new(
        settings.SECRET_KEY.encode("utf-8"), b"lightnote/owner-hash/v1", hashlib.sha256
    ).digest()
    expected = hmac.new(key, b"7", hashlib.sha256).hexdigest()
    assert owner_hash(7) == expected
    assert owner_hash("7") == expected


def test_the_card_is_bound_to_its_owner_and_session() -> None:
    card = issue().card
    assert cards.card_owned_by(card, 7) is True
    assert cards.card_owned_by(card, "7") is True
    assert cards.card_owned_by(card, 8) is False
    assert cards.card_in_session(card, SESSION) is True
    assert cards.card_in_session(card, str(SESSION)) is True
    assert cards.card_in_session(card, uuid.uuid4()) is False


def test_an_untouched_card_passes_its_binding_check() -> None:
    issued = issue()
    card = cards.card_get(issued.token)
    assert card is not None
    assert cards.card_binding_valid(card) is True


@pytest.mark.parametrize(
    "alteration",
    [
        pytest.param(lambda r: r["args"].update(title="删除全部"), id="args"),
        pytest.param(lambda r: r["args"].update(priority=0), id="args-number"),
        pytest.param(lambda r: r.update(tool="delete_todo"), id="tool"),
        pytest.param(lambda r: r.update(capability="todo.delete"), id="capability"),
        pytest.param(lambda r: r.update(owner_hash=owner_hash(8)), id="owner"),
        pytest.param(lambda r: r.update(session_id=str(uuid.uuid4())), id="session"),
        pytest.param(lambda r: r.update(subject_id=8), id="subject"),
        pytest.param(lambda r: r.update(admin_context_id="ctx-x"), id="admin-context"),
        pytest.param(lambda r: r.update(risk="high"), id="risk"),
        pytest.param(lambda r: r.update(args_hmac="0" * 64), id="hmac"),
    ],
)
def test_altering_the_stored_record_breaks_the_binding(alteration: Any) -> None:
    issued = issue()
    rewrite_record(issued.token, alteration)
    card = cards.card_get(issued.token)
    assert card is not None
    assert cards.card_binding_valid(card) is False


def test_the_binding_depends_on_the_server_secret() -> None:
    issued = issue()
    with override_settings(SECRET_KEY="another-secret-key-0123456789-0123456789-0123456789"):
        card = cards.card_get(issued.token)
        assert card is not None
        assert cards.card_binding_valid(card) is False
        assert cards.card_owned_by(card, 7) is False


def test_a_record_that_is_not_json_is_owned_by_nobody_and_never_valid() -> None:
    issued = issue()
    get_redis().hset(key_of(issued.token), "record", "{not json")
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.intact is False
    assert card.state == "ready"
    assert cards.card_binding_valid(card) is False
    assert cards.card_owned_by(card, 7) is False
    assert cards.card_in_session(card, SESSION) is False


# --- claim and settle --------------------------------------------------------------------


def test_claim_moves_ready_to_running_with_the_execution_lease_and_a_24h_ttl(clock: Any) -> None:
    issued = issue()
    result = card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert result.status is ClaimStatus.CLAIMED
    assert result.card is not None
    assert result.card.state == "running"
    assert result.card.attempt == "attempt-1"
    expected_lease_ms = store.now_ms() + 30_000  # the clock is frozen
    assert result.card.lease_until == datetime.fromtimestamp(expected_lease_ms / 1000, tz=UTC)
    assert DAY_MS - 1_000 < pttl(issued.token) <= DAY_MS


def test_a_second_claim_sees_running_and_a_re_sent_claim_of_the_same_attempt_sees_claimed() -> None:
    issued = issue()
    assert (
        card_transitions.card_claim(issued.token, attempt_id="attempt-1").status
        is ClaimStatus.CLAIMED
    )
    other = card_transitions.card_claim(issued.token, attempt_id="attempt-2")
    assert other.status is ClaimStatus.RUNNING
    assert other.lease_expired is False
    again = card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert again.status is ClaimStatus.CLAIMED
    assert again.card is not None
    assert again.card.attempt == "attempt-1"


def index_score(card: cards.Card) -> float | None:
    return get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, card.digest)


def test_a_claim_for_the_recorded_owner_and_session_reads_and_claims_in_one_call(
    clock: Any,
) -> None:
    issued = issue()
    result = card_transitions.card_claim(
        issued.token, attempt_id="attempt-1", owner_id=7, session_id=SESSION
    )
    assert result.status is ClaimStatus.CLAIMED
    assert result.card is not None
    assert (result.card.state, result.card.attempt) == ("running", "attempt-1")
    assert result.card.record == issued.card.record  # the record, for the caller's checks
    assert cards.card_binding_valid(result.card)
    assert index_score(issued.card) == store.now_ms() + 30_000
    assert DAY_MS - 1_000 < pttl(issued.token) <= DAY_MS
    again = card_transitions.card_claim(
        issued.token, attempt_id="attempt-1", owner_id=7, session_id=SESSION
    )
    assert again.status is ClaimStatus.CLAIMED  # a re-sent claim, not a second claimer


@pytest.mark.parametrize(
    ("owner_id", "session_id"),
    [
        pytest.param(8, SESSION, id="another-owner"),
        pytest.param(7, uuid.uuid4(), id="another-session"),
        pytest.param("7 ", SESSION, id="an-owner-id-that-only-looks-alike"),
    ],
)
def test_a_claim_for_another_owner_or_session_claims_nothing_and_returns_the_card(
    owner_id: Any, session_id: Any
) -> None:
    issued = issue()
    ttl_before = pttl(issued.token)
    result = card_transitions.card_claim(
        issued.token, attempt_id="thief", owner_id=owner_id, session_id=session_id
    )
    assert result.status is ClaimStatus.READY
    assert result.card == issued.card  # as stored: ready, no attempt, no lease
    assert 0 < pttl(issued.token) <= ttl_before  # still a ready card's lifetime, not 24 h
    owned = card_transitions.card_claim(
        issued.token, attempt_id="owner", owner_id=7, session_id=SESSION
    )
    assert owned.status is ClaimStatus.CLAIMED  # its owner can still confirm it


def test_a_claim_for_the_owner_answers_other_states_as_a_plain_claim_does() -> None:
    issued = issue()
    plain = card_transitions.card_claim(issued.token, attempt_id="holder")
    assert plain.status is ClaimStatus.CLAIMED
    score = index_score(issued.card)
    late = card_transitions.card_claim(
        issued.token, attempt_id="late", owner_id=7, session_id=SESSION
    )
    assert late.status is ClaimStatus.RUNNING
    assert index_score(issued.card) == score  # the holder's entry is never moved
    assert settle(issued.token, "holder")
    settled = card_transitions.card_claim(
        issued.token, attempt_id="late", owner_id=7, session_id=SESSION
    )
    assert settled.status is ClaimStatus.SETTLED
    assert settled.card is not None
    assert settled.card.outcome == {"ok": True}
    rejected = issue()
    card_transitions.card_reject(rejected.token)
    assert (
        card_transitions.card_claim(
            rejected.token, attempt_id="a", owner_id=7, session_id=SESSION
        ).status
        is ClaimStatus.REJECTED
    )
    voided = issue()
    assert card_transitions.card_void(voided.card.digest)
    gone = card_transitions.card_claim(voided.token, attempt_id="a", owner_id=7, session_id=SESSION)
    assert (gone.status, gone.card) == (ClaimStatus.GONE, None)
    unknown = card_transitions.card_claim(
        "no-such-token", attempt_id="a", owner_id=7, session_id=SESSION
    )
    assert (unknown.status, unknown.card) == (ClaimStatus.GONE, None)


def test_a_claim_names_both_the_expected_owner_and_session_or_neither() -> None:
    issued = issue()
    with pytest.raises(ValueError, match="both"):
        card_transitions.card_claim(issued.token, attempt_id="a", owner_id=7)
    with pytest.raises(ValueError, match="both"):
        card_transitions.card_claim(issued.token, attempt_id="a", session_id=SESSION)
    assert cards.card_get(issued.token) == issued.card


def test_a_claim_for_the_owner_of_an_altered_record_still_claims_for_the_caller_to_check() -> None:
    """The script only compares the owner and session; the binding is Python's check, made
    on the returned record (the confirm then destroys the card, see test_confirm_api)."""
    issued = issue()
    rewrite_record(issued.token, lambda record: record["args"].update(title="改过"))
    result = card_transitions.card_claim(
        issued.token, attempt_id="a", owner_id=7, session_id=SESSION
    )
    assert result.status is ClaimStatus.CLAIMED
    assert result.card is not None
    assert cards.card_binding_valid(result.card) is False


def test_a_claim_for_the_owner_of_an_unreadable_record_claims_nothing() -> None:
    issued = issue()
    get_redis().hset(key_of(issued.token), "record", "{not json")
    result = card_transitions.card_claim(
        issued.token, attempt_id="a", owner_id=7, session_id=SESSION
    )
    assert result.status is ClaimStatus.READY
    assert result.card is not None
    assert result.card.intact is False


def test_a_running_card_reports_when_its_lease_has_passed(clock: Any) -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    clock.shift(timedelta(seconds=29))
    assert card_transitions.card_claim(issued.token, attempt_id="attempt-2").lease_expired is False
    clock.shift(timedelta(seconds=1))
    late = card_transitions.card_claim(issued.token, attempt_id="attempt-3")
    assert late.status is ClaimStatus.RUNNING  # never a second claimer, lease or not
    assert late.lease_expired is True
    assert late.card is not None
    assert late.card.lease_passed() is True
    assert late.card.attempt == "attempt-1"


def test_settle_by_the_holder_stores_the_outcome_for_24_hours() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    get_redis().pexpire(key_of(issued.token), 5_000)  # settle must set the TTL afresh
    assert settle(issued.token, "attempt-1", ok=True, receipt={"action_id": "a-1"}) is True
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.state == "settled"
    assert card.outcome_kind == "succeeded"
    assert card.outcome == {"ok": True, "receipt": {"action_id": "a-1"}}
    assert card.settled_at is not None
    assert DAY_MS - 1_000 < pttl(issued.token) <= DAY_MS


def test_settle_is_a_compare_and_set_on_the_claiming_attempt() -> None:
    issued = issue()
    assert settle(issued.token, "attempt-1") is False  # ready: nobody claimed it
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert settle(issued.token, "attempt-2") is False
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.state == "running"
    assert settle(issued.token, "attempt-1", "failed", ok=False) is True
    assert settle(issued.token, "attempt-1", "failed", ok=False) is True  # a re-sent settle
    assert settle(issued.token, "attempt-1", "succeeded", ok=True) is False  # final
    card = cards.card_get(issued.token)
    assert card is not None
    assert (card.outcome_kind, card.outcome) == ("failed", {"ok": False})


def test_a_confirm_after_settlement_gets_the_original_outcome() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    settle(issued.token, "attempt-1", ok=True, receipt={"action_id": "a-1"})
    repeat = card_transitions.card_claim(issued.token, attempt_id="attempt-2")
    assert repeat.status is ClaimStatus.SETTLED
    assert repeat.card is not None
    assert repeat.card.outcome == {"ok": True, "receipt": {"action_id": "a-1"}}
    assert repeat.card.attempt == "attempt-1"


def test_settle_rejects_an_unknown_outcome_kind() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    with pytest.raises(ValueError, match="outcome_kind"):
        settle(issued.token, "attempt-1", "maybe")


# --- resolve (reconciliation) ------------------------------------------------------------


def test_an_unknown_outcome_resolves_to_succeeded_once_and_then_is_final() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    settle(issued.token, "attempt-1", "unknown", ok=None)
    assert card_transitions.card_resolve(
        issued.token, outcome_kind="succeeded", outcome={"ok": True}
    )
    assert not card_transitions.card_resolve(
        issued.token, outcome_kind="failed", outcome={"ok": False}
    )
    card = cards.card_get(issued.token)
    assert card is not None
    assert (card.state, card.outcome_kind, card.outcome) == ("settled", "succeeded", {"ok": True})


def test_an_unknown_outcome_resolves_to_failed_only_after_the_lease(clock: Any) -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    settle(issued.token, "attempt-1", "unknown", ok=None)
    not_yet = {"outcome_kind": "failed", "outcome": {"ok": False}}
    assert card_transitions.card_resolve(issued.token, **not_yet) is False
    clock.shift(timedelta(seconds=30))
    assert card_transitions.card_resolve(issued.token, **not_yet) is True
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.outcome_kind == "failed"


def test_a_running_card_is_resolved_only_after_its_lease(clock: Any) -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    resolution = {"outcome_kind": "failed", "outcome": {"ok": False}}
    assert card_transitions.card_resolve(issued.token, **resolution) is False
    clock.shift(timedelta(seconds=31))
    assert (
        card_transitions.card_resolve(digest=store.token_digest(issued.token), **resolution) is True
    )
    assert settle(issued.token, "attempt-1") is False  # the late executor cannot overwrite
    card = cards.card_get(issued.token)
    assert card is not None
    assert (card.state, card.outcome_kind) == ("settled", "failed")


def test_settled_succeeded_and_failed_outcomes_are_never_resolved_again(clock: Any) -> None:
    for kind in ("succeeded", "failed"):
        issued = issue()
        card_transitions.card_claim(issued.token, attempt_id="attempt-1")
        settle(issued.token, "attempt-1", kind)
        clock.shift(timedelta(seconds=31))
        for target in ("succeeded", "failed"):
            assert (
                card_transitions.card_resolve(issued.token, outcome_kind=target, outcome={})
                is False
            )
        card = cards.card_get(issued.token)
        assert card is not None
        assert card.outcome_kind == kind


def test_resolve_never_touches_a_ready_or_rejected_card_and_cannot_set_unknown() -> None:
    ready = issue()
    rejected = issue()
    card_transitions.card_reject(rejected.token)
    for token in (ready.token, rejected.token):
        assert card_transitions.card_resolve(token, outcome_kind="succeeded", outcome={}) is False
    assert cards.card_get(ready.token).state == "ready"  # type: ignore[union-attr]
    assert cards.card_get(rejected.token).state == "rejected"  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="outcome_kind"):
        card_transitions.card_resolve(ready.token, outcome_kind="unknown", outcome={})


# --- reject and destroy ------------------------------------------------------------------


def test_reject_moves_a_ready_card_to_rejected_for_24_hours_and_it_never_runs() -> None:
    issued = issue()
    assert card_transitions.card_reject(issued.token) == card_transitions.RejectResult(
        RejectStatus.REJECTED, "rejected"
    )
    assert DAY_MS - 1_000 < pttl(issued.token) <= DAY_MS
    assert card_transitions.card_reject(issued.token).status is RejectStatus.REJECTED  # repeatable
    claim = card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert claim.status is ClaimStatus.REJECTED
    assert cards.card_get(issued.token).state == "rejected"  # type: ignore[union-attr]


def test_reject_is_refused_for_running_and_settled_cards_with_their_state() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert card_transitions.card_reject(issued.token) == card_transitions.RejectResult(
        RejectStatus.REFUSED, "running"
    )
    settle(issued.token, "attempt-1")
    assert card_transitions.card_reject(issued.token) == card_transitions.RejectResult(
        RejectStatus.REFUSED, "settled"
    )
    assert card_transitions.card_reject("no-such-token") == card_transitions.RejectResult(
        RejectStatus.GONE, None
    )


def test_destroy_removes_the_card_and_its_index_entry() -> None:
    issued = issue()
    card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, issued.card.digest) is not None
    assert card_transitions.card_destroy(issued.token) is True
    assert cards.card_get(issued.token) is None
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, issued.card.digest) is None
    assert card_transitions.card_destroy(issued.token) is False


def test_running_cards_with_an_expired_lease_are_listed_for_reconciliation(clock: Any) -> None:
    stuck, settled, fresh, vanished = issue(), issue(), issue(), issue()
    for issued in (stuck, settled, vanished):
        card_transitions.card_claim(issued.token, attempt_id="attempt-1")
    settle(settled.token, "attempt-1")
    get_redis().delete(key_of(vanished.token))  # the index is now stale for this one
    clock.shift(timedelta(seconds=31))
    card_transitions.card_claim(fresh.token, attempt_id="attempt-1")
    listed = card_transitions.cards_running_with_expired_lease()
    assert [card.digest for card in listed] == [stuck.card.digest]
    assert listed[0].state == "running"
    index = {m.decode() for m in get_redis().zrange(card_transitions.RUNNING_INDEX_KEY, 0, -1)}
    assert index == {stuck.card.digest, fresh.card.digest}  # the vanished entry was dropped


# --- races (real Redis) ------------------------------------------------------------------


def race_claims_in_threads(token: str, *, threads: int = 50, owner_of: Any = None) -> Counter[str]:
    """Claim ``token`` from ``threads`` threads released together; count the statuses.

    With ``owner_of``, thread ``i`` claims as a confirm does, for the owner ``owner_of(i)``
    in ``SESSION`` (the card's read and claim in one script)."""
    barrier = threading.Barrier(threads)

    def claim(index: int) -> str:
        expected = {} if owner_of is None else {"owner_id": owner_of(index), "session_id": SESSION}
        barrier.wait(timeout=30)
        return str(
            card_transitions.card_claim(token, attempt_id=f"thread-{index}", **expected).status
        )

    with ThreadPoolExecutor(max_workers=threads) as pool:
        return Counter(pool.map(claim, range(threads)))


def _claim_in_child(token: str, attempt_id: str, barrier: Any, results: Any) -> None:
    # A forked child never reuses the parent's sockets: redis-py's pools notice the new pid
    # and open their own connections, so each process is its own client.
    try:
        barrier.wait(timeout=30)
        results.put(str(card_transitions.card_claim(token, attempt_id=attempt_id).status))
    except Exception as exc:  # reported to the parent, which fails the test
        results.put(f"error: {exc!r}")


def race_claims_in_processes(token: str, *, processes: int = 8) -> Counter[str]:
    """Claim ``token`` from ``processes`` forked processes released together."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(processes)
    results = context.Queue()
    children = [
        context.Process(target=_claim_in_child, args=(token, f"process-{i}", barrier, results))
        for i in range(processes)
    ]
    for child in children:
        child.start()
    try:
        statuses = [results.get(timeout=60) for _ in children]
    finally:
        for child in children:
            child.join(timeout=30)
    return Counter(statuses)


@pytest.mark.services
@pytest.mark.parametrize("owner_of", [None, lambda index: 7], ids=["plain", "owner-checked"])
def test_fifty_concurrent_claims_in_threads_have_exactly_one_winner(owner_of: Any) -> None:
    issued = issue()
    statuses = race_claims_in_threads(issued.token, threads=50, owner_of=owner_of)
    assert statuses == Counter({"claimed": 1, "running": 49})
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.state == "running"
    assert card.attempt is not None
    assert card.attempt.startswith("thread-")
    assert index_score(card) == card.lease_until.timestamp() * 1000  # type: ignore[union-attr]


@pytest.mark.services
def test_strangers_racing_the_owner_for_a_card_never_claim_it() -> None:
    issued = issue()
    statuses = race_claims_in_threads(
        issued.token, threads=50, owner_of=lambda index: 7 if index % 2 == 0 else 8
    )
    assert statuses["claimed"] == 1
    assert set(statuses) <= {"claimed", "running", "ready"}  # ready: a stranger, first
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.attempt is not None
    assert int(card.attempt.removeprefix("thread-")) % 2 == 0  # the owner's thread won


@pytest.mark.services
def test_concurrent_claims_from_separate_processes_have_exactly_one_winner() -> None:
    issued = issue()
    statuses = race_claims_in_processes(issued.token, processes=8)
    assert statuses == Counter({"claimed": 1, "running": 7})
    card = cards.card_get(issued.token)
    assert card is not None
    assert card.attempt is not None
    assert card.attempt.startswith("process-")
