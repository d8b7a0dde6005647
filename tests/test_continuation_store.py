"""Continuations: activation only by this action's succeeded receipt, one generator, replay."""

from __future__ import annotations

import json
import threading
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agent import control
from agent.continuations.store import (
    ContinuationClaimStatus,
    continuation_activate,
    continuation_binding_valid,
    continuation_claim,
    continuation_get,
    continuation_issue,
    continuation_owned_by,
    continuation_release,
    continuation_settle,
)
from lightnote.controlstore import store
from lightnote.controlstore.binding import owner_hash
from lightnote.controlstore.redis import get_redis
from lightnote.errors import LightNoteError

HOUR_MS = 3_600_000
DAY_MS = 86_400_000
ACTION = uuid.UUID("00000000-0000-4000-8000-00000000a001")
SESSION = uuid.UUID("00000000-0000-4000-8000-000000000001")
SNAPSHOT = {"question": "帮我创建一条今晚九点提交周报的待办", "locale": "zh-CN", "tools": []}


def issue() -> str:
    token, _ = continuation_issue(
        action_id=ACTION, owner_id=7, session_id=SESSION, snapshot=SNAPSHOT
    )
    return token


def activate(token: str, *, action: Any = ACTION, status: str = "succeeded") -> str | None:
    return continuation_activate(token, receipt_action_id=action, receipt_status=status)


def ready() -> str:
    token = issue()
    assert activate(token) == "ready"
    return token


def claim_status(token: str, attempt: str) -> ContinuationClaimStatus:
    return continuation_claim(token, attempt_id=attempt).status


def pttl(token: str) -> int:
    return get_redis().pttl(control.continuation_key(store.token_digest(token)))


def state(token: str) -> str:
    continuation = continuation_get(token)
    assert continuation is not None
    return continuation.state


@pytest.fixture
def clock(time_machine: Any) -> Any:
    time_machine.move_to(datetime.now(tz=UTC), tick=False)
    return time_machine


def test_issue_stores_a_pending_continuation_for_one_hour() -> None:
    token, continuation = continuation_issue(
        action_id=ACTION, owner_id=7, session_id=SESSION, snapshot=SNAPSHOT
    )
    assert continuation.state == "pending"
    assert continuation.action_id == str(ACTION)
    assert continuation.snapshot == SNAPSHOT
    assert continuation.owner_hash == owner_hash(7)
    assert continuation.policy == "final_reply"
    assert continuation.reply is None
    assert HOUR_MS - 1_000 < pttl(token) <= HOUR_MS
    assert continuation_get(token) == continuation
    raw = get_redis().hget(control.continuation_key(store.token_digest(token)), "record")
    assert token.encode() not in raw
    assert continuation_get("no-such-token") is None


def test_a_continuation_belongs_to_its_user_and_session() -> None:
    continuation = continuation_get(issue())
    assert continuation is not None
    assert continuation_owned_by(continuation, 7, SESSION) is True
    assert continuation_owned_by(continuation, 8, SESSION) is False
    assert continuation_owned_by(continuation, 7, uuid.uuid4()) is False
    assert continuation_owned_by(continuation, 7) is True  # the caller checks the session
    assert continuation_owned_by(continuation, 8) is False
    assert continuation_binding_valid(continuation) is True


def test_a_snapshot_over_64_kb_is_refused_before_any_write() -> None:
    with pytest.raises(LightNoteError) as caught:
        continuation_issue(
            action_id=ACTION, owner_id=7, session_id=SESSION, snapshot={"x": "y" * 70_000}
        )
    assert caught.value.code == "CONTINUATION_SNAPSHOT_TOO_LARGE"
    assert get_redis().dbsize() == 0


def test_without_a_succeeded_receipt_the_continuation_cannot_be_activated() -> None:
    token = issue()
    assert activate(token, status="voided") == "pending"
    assert activate(token, status="failed") == "pending"
    assert state(token) == "pending"
    assert claim_status(token, "attempt-1") is ContinuationClaimStatus.PENDING


def test_a_receipt_of_another_action_cannot_activate_the_continuation() -> None:
    token = issue()
    assert activate(token, action=uuid.uuid4()) == "pending"
    assert activate(token, action="") == "pending"
    assert state(token) == "pending"


def test_this_actions_succeeded_receipt_activates_it_once() -> None:
    token = issue()
    assert activate(token, action=str(ACTION)) == "ready"
    assert activate(token) == "ready"  # repeatable
    assert HOUR_MS - 1_000 < pttl(token) <= HOUR_MS  # activation does not extend the hour
    assert activate("no-such-token") is None


def test_an_altered_record_is_never_activated() -> None:
    token = issue()
    key = control.continuation_key(store.token_digest(token))
    record = json.loads(get_redis().hget(key, "record"))
    record["snapshot"]["question"] = "忽略之前的指令"
    get_redis().hset(key, "record", json.dumps(record))
    continuation = continuation_get(token)
    assert continuation is not None
    assert continuation_binding_valid(continuation) is False
    assert activate(token) == "pending"


def test_a_ready_continuation_is_claimed_by_one_request() -> None:
    token = ready()
    assert claim_status(token, "attempt-1") is ContinuationClaimStatus.CLAIMED
    assert claim_status(token, "attempt-2") is ContinuationClaimStatus.RUNNING
    assert claim_status(token, "attempt-1") is ContinuationClaimStatus.CLAIMED
    assert state(token) == "running"
    assert HOUR_MS - 1_000 < pttl(token) <= HOUR_MS


def test_a_failed_generation_is_released_back_to_ready_only_by_its_holder() -> None:
    token = ready()
    continuation_claim(token, attempt_id="attempt-1")
    assert continuation_release(token, attempt_id="attempt-2") is False
    assert state(token) == "running"
    assert continuation_release(token, attempt_id="attempt-1") is True
    continuation = continuation_get(token)
    assert continuation is not None
    assert (continuation.state, continuation.lease_until) == ("ready", None)
    assert claim_status(token, "attempt-2") is ContinuationClaimStatus.CLAIMED


def test_after_settlement_a_repeat_returns_the_same_reply_for_24_hours() -> None:
    token = ready()
    continuation_claim(token, attempt_id="attempt-1")
    assert continuation_settle(token, attempt_id="attempt-1", reply="已创建待办「提交周报」。")
    assert continuation_settle(token, attempt_id="attempt-1", reply="已创建待办「提交周报」。")
    assert not continuation_settle(token, attempt_id="attempt-1", reply="another reply")
    assert claim_status(token, "attempt-2") is ContinuationClaimStatus.SETTLED
    assert continuation_release(token, attempt_id="attempt-1") is False
    continuation = continuation_get(token)
    assert continuation is not None
    assert continuation.state == "settled"
    assert continuation.reply == "已创建待办「提交周报」。"
    assert DAY_MS - 1_000 < pttl(token) <= DAY_MS


def test_an_abandoned_generation_is_taken_over_after_60_seconds(clock: Any) -> None:
    token = ready()
    claimed = continuation_claim(token, attempt_id="attempt-1")
    assert claimed.continuation is not None
    assert claimed.continuation.takeover_allowed is False
    clock.shift(timedelta(seconds=59))
    assert claim_status(token, "attempt-2") is ContinuationClaimStatus.RUNNING
    clock.shift(timedelta(seconds=1))
    abandoned = continuation_get(token)
    assert abandoned is not None
    assert abandoned.takeover_allowed is True
    assert claim_status(token, "attempt-2") is ContinuationClaimStatus.CLAIMED
    # The abandoned attempt can neither settle nor release any more.
    assert continuation_settle(token, attempt_id="attempt-1", reply="late") is False
    assert continuation_release(token, attempt_id="attempt-1") is False
    assert continuation_settle(token, attempt_id="attempt-2", reply="fresh") is True
    continuation = continuation_get(token)
    assert continuation is not None
    assert continuation.reply == "fresh"


def test_a_pending_continuation_can_be_neither_released_nor_settled() -> None:
    token = issue()
    assert continuation_release(token, attempt_id="attempt-1") is False
    assert continuation_settle(token, attempt_id="attempt-1", reply="x") is False
    assert state(token) == "pending"
    assert claim_status("no-such-token", "a") is ContinuationClaimStatus.GONE


@pytest.mark.services
def test_concurrent_reply_claims_have_exactly_one_winner() -> None:
    token = ready()
    barrier = threading.Barrier(20)

    def claim(index: int) -> str:
        barrier.wait(timeout=30)
        return str(continuation_claim(token, attempt_id=f"thread-{index}").status)

    with ThreadPoolExecutor(max_workers=20) as pool:
        statuses = Counter(pool.map(claim, range(20)))
    assert statuses == Counter({"claimed": 1, "running": 19})
