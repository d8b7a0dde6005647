"""Cards in flight survive the upgrade to claims with a deadline.

A process of the earlier version claimed and settled cards with the 18-argument transition
script (kept in tests/data/legacy/); its records have the same fields as today's. Each test
moves a card the old way, then finishes it with the current code: a card issued before
confirms after; a card claimed and settled before replays its outcome; a card left running
by a process that died is reconciled from the receipt table after its lease, never run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from agent.cards import execute as executor
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.control import card_key
from agent.models import ActionReceipt
from lightnote.controlstore import store
from lightnote.controlstore.binding import owner_hash
from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.redis_scripts import script_text
from lightnote.impersonation.context import ActorContext
from tests.agent_helpers import StoreClock, flow_with_card, token_client
from todos.models import Todo

pytestmark = pytest.mark.django_db

LEGACY = Path(__file__).parent / "data" / "legacy" / "record_transition_before_deadline.lua"
OLD_ATTEMPT = "attempt-of-the-old-process"


def _old_transition(token: str, args: list[str], *, index: bool = True) -> list[Any]:
    """Run the old script as an old process sent it (its keys: the record, the index)."""
    digest = store.token_digest(token)
    keys = [card_key(digest), card_transitions.RUNNING_INDEX_KEY] if index else [card_key(digest)]
    return get_redis().eval(LEGACY.read_text(), len(keys), *keys, *args)


def _old_claim(token: str, *, owner_id: int, session_id: str) -> None:
    digest = store.token_digest(token)
    now = store.now_ms()
    lease_ms = settings.LIGHTNOTE_EXECUTION_LEASE * 1000
    args = ["ready", "running", OLD_ATTEMPT, "0", "", str(lease_ms)]
    args += [str(settings.LIGHTNOTE_SETTLED_TTL * 1000), "0", "", "", "0", str(now)]
    args += ["add", digest, str(now + lease_ms), "", "", "1"]
    args += ["owner_hash", owner_hash(owner_id), "session_id", session_id]
    assert int(_old_transition(token, args)[0]) == 1


def _old_settle(token: str, kind: str, outcome: dict[str, Any]) -> None:
    digest = store.token_digest(token)
    outcome_json = json.dumps(outcome, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    args = [
        "running",
        "settled",
        OLD_ATTEMPT,
        "1",
        "",
        "",
        str(settings.LIGHTNOTE_SETTLED_TTL * 1000),
    ]
    args += ["1", outcome_json, kind, "0", str(store.now_ms()), "remove", digest, "", "", "", "0"]
    assert int(_old_transition(token, args)[0]) == 1


def test_the_issue_script_is_unchanged_so_a_card_issued_before_confirms_after(user: Any) -> None:
    # A ready card's record is written by record_create.lua, which the upgrade left as it was.
    assert "ARGV[19]" not in script_text("record_create")
    flow = flow_with_card(user)
    assert flow.confirm().json()["outcome"]["ok"] is True
    assert Todo.objects.count() == 1


def test_a_card_claimed_and_settled_the_old_way_replays_its_outcome(user: Any) -> None:
    flow = flow_with_card(user)
    _old_claim(flow.token, owner_id=user.pk, session_id=str(flow.session_id))
    running = cards.card_get(flow.token)
    assert running is not None
    assert running.state == "running"
    client = token_client(user)
    assert (
        client.post(
            "/api/v1/agent/confirmations/confirm/",
            {"token": flow.token, "session_id": str(flow.session_id)},
            format="json",
        ).status_code
        == 202
    )  # the old process holds it: the new one never claims it
    # The old process executes (its receipt is the same row) and settles with its script.
    actor = ActorContext(actor=user, subject=user)
    kind, outcome = executor.execute_claimed(running, actor=actor, locale="zh-CN")
    _old_settle(flow.token, kind, outcome)

    replay = flow.confirm()

    assert replay.status_code == 200
    assert replay.json() == {"state": "settled", "outcome": outcome}
    assert Todo.objects.count() == 1
    assert ActionReceipt.objects.filter(action_id=flow.card_id()).count() == 1


def test_a_card_left_running_by_the_old_way_is_reconciled_never_run(user: Any) -> None:
    flow = flow_with_card(user)
    _old_claim(flow.token, owner_id=user.pk, session_id=str(flow.session_id))
    clock = StoreClock().start()
    try:
        clock.past_lease()  # the old process died holding it
        answer = flow.status()
        resolved = card_transitions.cards_running_with_expired_lease()
    finally:
        clock.stop()

    assert answer.json()["state"] == "settled"
    assert answer.json()["outcome"]["ok"] is False
    assert answer.json()["outcome"]["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert resolved == []  # settled: nothing left running
    assert Todo.objects.count() == 0
    assert flow.confirm().json() == answer.json()  # final: a confirm never runs it
