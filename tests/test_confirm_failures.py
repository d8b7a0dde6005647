"""Faults around a confirmed action: nothing runs twice, every request learns what happened.

The article's scenario 6 (the COMMIT's reply is lost) in both forms, an unknown outcome
resolved by a later call, the store failing after the claim, a Redis failover that lost the
claim (the receipt's unique action id is the fence), a process that died while running
(lease -> reconcile -> voided receipt) and ``manage.py reconcile_cards``.

Runs in both passes; the COMMIT fault raises the backend driver's own error (MySQLdb's
``OperationalError(2013, "Lost connection to server during query")`` on MariaDB).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from agent.cards import execute as executor
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.models import ActionReceipt
from lightnote.impersonation.context import ActorContext
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    StoreClock,
    audit_codes,
    commit_reply_lost,
    flow_with_card,
    issue_card,
    receipts_for,
    restore_as_ready,
    rewrite_record,
    spy_on,
    status,
    store_outage,
    token_client,
)
from tests.agent_helpers import confirm as confirm_token
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def clock() -> Iterator[StoreClock]:
    running = StoreClock().start()
    yield running
    running.stop()


@pytest.fixture
def service_calls(monkeypatch: Any) -> list[dict[str, Any]]:
    return spy_on(monkeypatch, todo_services, "todo_create")


def outcome_of(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "settled"
    return body["outcome"]


def execute_as_a_worker(user: Any, token: str, attempt_id: str) -> tuple[str, dict[str, Any]]:
    """Claim ``token`` and run it the way a confirm request does, but never settle it: a
    worker that died (or lost Redis) right after its COMMIT."""
    claim = card_transitions.card_claim(token, attempt_id=attempt_id)
    assert claim.status == "claimed"
    assert claim.card is not None
    return executor.execute_claimed(
        claim.card, actor=ActorContext(actor=user, subject=user), locale="zh-CN"
    )


# --- scenario 6: the COMMIT's reply is lost ----------------------------------------------


def test_scenario_6_commit_reached_the_database_but_its_reply_was_lost_settles_from_the_receipt(
    user: Any, clock: StoreClock, service_calls: list[dict[str, Any]]
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()

    with commit_reply_lost(committed=True) as events:
        response = flow.confirm()

    assert events == ["committed, reply lost"]
    outcome = outcome_of(response)
    assert outcome["ok"] is True
    assert outcome["receipt"]["action_id"] == card_id
    todo = Todo.objects.get()
    assert outcome["receipt"]["resource"] == {"type": "todo", "id": str(todo.id)}
    assert [receipt.status for receipt in receipts_for(card_id)] == ["succeeded"]
    assert len(service_calls) == 1  # looked up, never re-run
    assert "COMMIT_CONFIRMED_BY_RECEIPT" in audit_codes("action.executed")
    clock.past_lease()
    assert flow.confirm().content == response.content
    assert flow.status().content == response.content
    assert (Todo.objects.count(), len(service_calls)) == (1, 1)


def test_a_connection_error_after_commit_is_marked_outcome_unknown_and_never_rerun(
    user: Any, service_calls: list[dict[str, Any]]
) -> None:
    flow = flow_with_card(user)

    with commit_reply_lost(committed=False) as events:
        response = flow.confirm()

    assert events == ["lost before the server"]
    outcome = outcome_of(response)
    assert outcome["ok"] is None
    assert outcome["error"]["code"] == "ACTION_OUTCOME_UNKNOWN"
    assert audit_codes("action.outcome_unknown") == ["ACTION_OUTCOME_UNKNOWN"]
    # Within the lease a repeat is answered from the record, and nothing runs again.
    assert flow.confirm().content == response.content
    assert flow.status().content == response.content
    assert len(service_calls) == 1
    assert Todo.objects.count() == 0


def test_scenario_6_without_a_receipt_resolves_to_not_executed_and_fences_a_late_executor(
    user: Any, clock: StoreClock, service_calls: list[dict[str, Any]]
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    with commit_reply_lost(committed=False):
        unknown = flow.confirm()
    assert outcome_of(unknown)["ok"] is None

    clock.past_lease()
    resolved = flow.status()

    outcome = outcome_of(resolved)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert [receipt.status for receipt in receipts_for(card_id)] == ["voided"]
    assert flow.confirm().content == resolved.content  # final from now on
    assert audit_codes("confirm.reconciled") == ["ACTION_NOT_EXECUTED"]

    # A late executor of the same card (e.g. a worker that still held it) cannot commit:
    # its receipt insert meets the voided row, and its todo is rolled back with it.
    late = cards.card_get(flow.token)
    assert late is not None
    kind, late_outcome = executor.execute_claimed(
        late, actor=ActorContext(actor=user, subject=user), locale="zh-CN"
    )
    assert (kind, late_outcome["error"]["code"]) == ("failed", "ACTION_NOT_EXECUTED")
    with pytest.raises(IntegrityError), transaction.atomic():
        ActionReceipt.objects.create(
            action_id=card_id,
            tool="create_todo",
            capability="todo.create",
            args_hmac="x",
            owner=user,
            subject=user,
            actor=user,
            resource_type="todo",
            resource_id="late",
            summary="late",
        )
    assert Todo.objects.count() == 0
    assert len(receipts_for(card_id)) == 1
    assert len(service_calls) == 2  # the first attempt and the fenced late one


def test_an_unknown_outcome_resolves_to_succeeded_when_the_commit_landed_after_all(
    user: Any, service_calls: list[dict[str, Any]]
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    with commit_reply_lost(committed=False):
        assert outcome_of(flow.confirm())["ok"] is None
    # The "lost" transaction did reach the server after all (a slow in-flight COMMIT):
    # its receipt now exists, within the lease.
    late = cards.card_get(flow.token)
    assert late is not None
    kind, _ = executor.execute_claimed(
        late, actor=ActorContext(actor=user, subject=user), locale="zh-CN"
    )
    assert kind == "succeeded"

    resolved = flow.status()

    outcome = outcome_of(resolved)
    assert outcome["ok"] is True
    assert outcome["receipt"]["action_id"] == card_id
    assert flow.confirm().content == resolved.content
    assert Todo.objects.count() == 1
    assert audit_codes("confirm.reconciled") == [""]


# --- the store fails after the claim -------------------------------------------------------


def test_the_store_failing_after_the_claim_still_answers_from_the_receipt_and_never_reruns(
    user: Any, clock: StoreClock, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    outage = store_outage()
    original = todo_services.todo_create
    calls: list[str] = []

    def create_then_lose_the_store(**kwargs: Any) -> Any:
        calls.append(kwargs["title"])
        todo = original(**kwargs)
        outage.enable()  # Redis goes away while the transaction is still open
        return todo

    monkeypatch.setattr(todo_services, "todo_create", create_then_lose_the_store)
    try:
        response = flow.confirm()
    finally:
        outage.disable()

    outcome = outcome_of(response)
    assert outcome["ok"] is True  # the receipt is the truth; settling was best effort
    assert cards.card_get(flow.token).state == "running"  # type: ignore[union-attr]
    running = flow.confirm()
    assert (running.status_code, running.json()) == (202, {"state": "running"})
    clock.past_lease()
    resolved = flow.confirm()
    assert resolved.json()["outcome"]["ok"] is True
    assert resolved.json()["outcome"]["receipt"] == outcome["receipt"]
    assert (Todo.objects.count(), len(calls)) == (1, 1)


# --- a failover that lost the claim: the receipt's unique key is the fence ----------------


def test_a_failover_that_lost_the_settled_record_returns_the_first_receipt_on_reconfirm(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    first = outcome_of(flow.confirm())
    restore_as_ready(flow.token)  # the replica only ever saw the card as issued
    assert cards.card_get(flow.token).state == "ready"  # type: ignore[union-attr]

    second = outcome_of(flow.confirm())

    assert second == first  # the FIRST receipt, not a second execution
    assert Todo.objects.count() == 1
    assert len(receipts_for(card_id)) == 1
    fenced = AuditEvent.objects.filter(event_type="confirm.duplicate_execution_fenced")
    assert [str(event.action_id) for event in fenced] == [card_id]


def test_a_failover_that_lost_a_running_claim_after_the_commit_is_fenced_too(user: Any) -> None:
    issued = issue_card(user, args={"title": "周报"})
    client = token_client(user)
    session_id = issued.card.session_id
    kind, first = execute_as_a_worker(user, issued.token, "worker-before-failover")
    assert kind == "succeeded"
    restore_as_ready(issued.token)

    response = confirm_token(client, issued.token, session_id)

    assert outcome_of(response) == first
    assert Todo.objects.count() == 1
    assert len(receipts_for(issued.card.id)) == 1


# --- a process that died while running ------------------------------------------------------


def test_a_running_card_whose_worker_died_before_executing_resolves_to_not_executed(
    user: Any, clock: StoreClock, service_calls: list[dict[str, Any]]
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    assert card_transitions.card_claim(flow.token, attempt_id="dead-worker").status == "claimed"
    assert flow.confirm().status_code == 202  # within the lease: someone holds it

    clock.past_lease()
    response = flow.confirm()

    outcome = outcome_of(response)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert [receipt.status for receipt in receipts_for(card_id)] == ["voided"]
    assert service_calls == []  # resolved, never executed
    assert flow.status().content == response.content


def test_a_running_card_whose_worker_died_after_commit_resolves_to_its_receipt(
    user: Any, clock: StoreClock, service_calls: list[dict[str, Any]]
) -> None:
    issued = issue_card(user, args={"title": "周报"})
    client = token_client(user)
    kind, first = execute_as_a_worker(user, issued.token, "dead-after-commit")
    assert kind == "succeeded"

    clock.past_lease()
    response = confirm_token(client, issued.token, issued.card.session_id)

    assert outcome_of(response) == first
    assert len(service_calls) == 1
    assert Todo.objects.count() == 1


def test_reconcile_cards_resolves_stuck_cards_from_receipts_and_never_executes(
    user: Any, clock: StoreClock, service_calls: list[dict[str, Any]]
) -> None:
    session_id = issue_card(user).card.session_id
    died_before = issue_card(user, session_id=session_id, args={"title": "没执行"})
    died_after = issue_card(user, session_id=session_id, args={"title": "已执行"})
    card_transitions.card_claim(died_before.token, attempt_id="dead-1")
    execute_as_a_worker(user, died_after.token, "dead-2")
    clock.past_lease()
    fresh = issue_card(user, session_id=session_id, args={"title": "刚开始"})
    card_transitions.card_claim(fresh.token, attempt_id="alive")  # lease still running: left alone

    out = io.StringIO()
    call_command("reconcile_cards", stdout=out)

    assert out.getvalue().strip() == "reconciled 2 card(s)"
    client = token_client(user)
    before = outcome_of(status(client, died_before.token, session_id))
    after = outcome_of(status(client, died_after.token, session_id))
    assert (before["ok"], before["error"]["code"]) == (False, "ACTION_NOT_EXECUTED")
    assert after["ok"] is True
    assert after["receipt"]["action_id"] == died_after.card.id
    assert status(client, fresh.token, session_id).json() == {"state": "running"}
    assert [r.status for r in receipts_for(died_before.card.id)] == ["voided"]
    assert len(service_calls) == 1  # only the worker that died after its commit ever ran
    assert list(Todo.objects.values_list("title", flat=True)) == ["已执行"]
    again = io.StringIO()
    call_command("reconcile_cards", stdout=again)
    assert again.getvalue().strip() == "reconciled 0 card(s)"
    assert sorted(audit_codes("confirm.reconciled")) == ["", "ACTION_NOT_EXECUTED"]


def test_reconcile_cards_destroys_a_tampered_running_card_instead_of_resolving_it(
    user: Any, other_user: Any, clock: StoreClock
) -> None:
    victim = issue_card(other_user, args={"title": "别人的"})
    victim_receipt_slot = victim.card.id
    flow = flow_with_card(user)
    card_transitions.card_claim(flow.token, attempt_id="dead-worker")
    # Someone with write access to Redis points the stuck card at another action's slot.
    rewrite_record(flow.token, lambda record: record.update(id=victim_receipt_slot))
    clock.past_lease()

    out = io.StringIO()
    call_command("reconcile_cards", stdout=out)

    assert out.getvalue().strip() == "reconciled 0 card(s)"
    assert cards.card_get(flow.token) is None  # destroyed, as a confirm would
    assert ActionReceipt.objects.count() == 0  # the victim's slot was not voided
    assert audit_codes("confirm.invalid") == ["CONFIRMATION_INVALID"]
    assert outcome_of(
        confirm_token(token_client(other_user), victim.token, victim.card.session_id)
    )["ok"]


def test_unknown_outcome_and_reconciliation_audit_events_never_hold_a_token(
    user: Any, clock: StoreClock
) -> None:
    flow = flow_with_card(user)
    with commit_reply_lost(committed=False):
        flow.confirm()
    clock.past_lease()
    flow.status()

    events = AuditEvent.objects.all()
    assert {"action.outcome_unknown", "confirm.reconciled"} <= {e.event_type for e in events}
    dumped = json.dumps([[e.event_type, e.code, e.details] for e in events], ensure_ascii=False)
    assert flow.token not in dumped
    assert flow.card["continuation_token"] not in dumped


# --- a programming error inside the tool ----------------------------------------------------


def test_an_unexpected_error_inside_the_tool_is_rolled_back_and_settled_as_failed(
    user: Any, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    original = todo_services.todo_create

    def create_then_crash(**kwargs: Any) -> Any:
        original(**kwargs)
        raise RuntimeError("a bug after the write, inside the transaction")

    monkeypatch.setattr(todo_services, "todo_create", create_then_crash)
    response = flow.confirm()

    outcome = outcome_of(response)
    assert (outcome["ok"], outcome["error"]["code"]) == (False, "ACTION_EXECUTION_FAILED")
    assert Todo.objects.count() == 0  # the partial write was rolled back
    assert receipts_for(flow.card_id()) == []
    assert audit_codes("action.failed") == ["ACTION_EXECUTION_FAILED"]
    assert flow.confirm().content == response.content  # settled: never left running


@pytest.mark.parametrize("committed", [False, True], ids=["void-rolled-back", "void-committed"])
def test_a_lost_commit_while_voiding_leaves_the_card_open_and_the_next_call_resolves_it(
    user: Any, clock: StoreClock, committed: bool
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    card_transitions.card_claim(flow.token, attempt_id="dead-worker")
    clock.past_lease()

    with commit_reply_lost(committed=committed) as events:
        during = flow.status()

    assert events  # the void's own COMMIT was the one that failed
    assert (during.status_code, during.json()) == (200, {"state": "running"})
    resolved = outcome_of(flow.confirm())
    assert (resolved["ok"], resolved["error"]["code"]) == (False, "ACTION_NOT_EXECUTED")
    assert [receipt.status for receipt in receipts_for(card_id)] == ["voided"]
    assert Todo.objects.count() == 0
