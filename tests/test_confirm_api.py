"""The confirmation protocol through its HTTP endpoints (docs/api.md "Confirming").

The article's scenarios 1-5, its "确认令牌测试" and "业务执行测试" lists, every status code of
the confirm / reject / status endpoints and the order of their checks. Scenario 6 (COMMIT
lost) and the other faults are in ``test_confirm_failures.py``; races in
``test_confirm_concurrency.py``; rate limits in ``test_confirm_ratelimit.py``.

Every test runs in both passes: SQLite + fakeredis, then MariaDB + Redis. Execution commits
in a durable transaction, so these tests use real transactions (``transaction=True``).
"""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings as django_settings

from agent.cards import transitions as card_transitions
from agent.cards.confirm import flush_repeat_tallies
from agent.models import ActionReceipt
from lightnote.controlstore.redis import get_redis
from lightnote.controlstore.store import token_digest
from lightnote.models import AuditEvent
from tests.agent_helpers import (
    CONFIRM_URL,
    REJECT_URL,
    STATUS_URL,
    TODOS_URL,
    audit_codes,
    audit_types,
    card_key_of,
    card_keys,
    card_via_message,
    confirm,
    error_code,
    flow_with_card,
    issue_card,
    open_session,
    raw_fields,
    reject,
    rewrite_record,
    send_message,
    spy_on,
    status,
    store_down,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

ENDPOINTS = [CONFIRM_URL, REJECT_URL, STATUS_URL]
SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("staff", is_staff=True)


def settled_ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["state"] == "settled"
    assert body["outcome"]["ok"] is True, body
    return body["outcome"]["receipt"]


def assert_nothing_of_the_card(response: Any, flow: Any) -> None:
    """A refusal body holds the error and nothing else: no state, args, preview or token."""
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    raw = response.content.decode()
    for secret in (flow.token, flow.card["args"]["title"], flow.card["tool"], flow.card_id()):
        assert secret not in raw


# --- the article's scenarios 1-5 (section 16) ------------------------------------------


def test_scenario_1_double_confirm_runs_the_service_once_and_replays_the_settled_body(
    user: Any, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    service_calls = spy_on(monkeypatch, todo_services, "todo_create")

    first = flow.confirm()
    second = flow.confirm()

    receipt = settled_ok(first)
    assert second.status_code == 200
    assert second.content == first.content  # byte-identical
    assert len(service_calls) == 1
    todo = Todo.objects.get(owner=user)
    assert receipt["resource"] == {"type": "todo", "id": str(todo.id)}
    assert receipt["action_id"] == flow.card_id()
    assert ActionReceipt.objects.count() == 1
    # The repeat wrote nothing to the database; its tally reaches the audit log when the
    # periodic job (reconcile_cards) flushes it.
    assert audit_types(event_type__startswith="confirm.") == ["confirm.claimed"]
    assert flush_repeat_tallies() == 1
    assert audit_types(event_type__startswith="confirm.") == [
        "confirm.claimed",
        "confirm.duplicate",
    ]
    duplicate = AuditEvent.objects.get(event_type="confirm.duplicate")
    assert duplicate.details == {"state": "settled", "count": 1}
    assert (duplicate.actor, duplicate.subject) == (user, user)
    assert str(duplicate.action_id) == flow.card_id()


def test_scenario_2_another_accounts_token_is_403_and_reveals_nothing(
    user: Any, other_user: Any
) -> None:
    flow = flow_with_card(user)
    thief = token_client(other_user)
    thief_session = open_session(thief)

    for session_id in (flow.session_id, thief_session):
        response = confirm(thief, flow.token, session_id)
        assert response.status_code == 403
        assert error_code(response) == "CONFIRMATION_FORBIDDEN"
        assert_nothing_of_the_card(response, flow)

    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0
    assert flow.status().json() == {"state": "ready"}  # the owner's card is untouched
    assert audit_codes("confirm.forbidden") == ["CONFIRMATION_FORBIDDEN"] * 2
    # From the thief's own session the card was read by the claiming script, which claimed
    # nothing: no attempt, no lease, still a ready card's lifetime; its owner confirms it.
    assert_unclaimed(flow)
    settled_ok(flow.confirm())
    assert Todo.objects.count() == 1


def test_scenario_3_same_account_in_another_session_is_refused(user: Any) -> None:
    flow = flow_with_card(user)
    other_session = open_session(flow.client)

    response = confirm(flow.client, flow.token, other_session)

    assert response.status_code == 403
    assert error_code(response) == "CONFIRMATION_FORBIDDEN"
    assert_nothing_of_the_card(response, flow)
    assert Todo.objects.count() == 0
    assert_unclaimed(flow)
    settled_ok(flow.confirm())  # the refusal did not burn the card for its own session
    assert Todo.objects.count() == 1


def assert_unclaimed(flow: Any) -> None:
    """The card is as issued: ready, no attempt, no lease, within its ready lifetime."""
    fields = raw_fields(flow.token)
    assert (fields["state"], fields["attempt"], fields["lease_until"]) == ("ready", "", "0")
    ttl_ms = get_redis().pttl(card_key_of(flow.token))
    assert 0 < ttl_ms <= django_settings.LIGHTNOTE_CONFIRMATION_TTL * 1000  # not a claim's 24 h


@pytest.mark.parametrize(
    "alteration",
    [
        pytest.param(lambda record: record["args"].update(title="转账给攻击者"), id="args-title"),
        pytest.param(
            lambda record: record["args"].update(due_at="2026-12-31T23:59:00+08:00"),
            id="args-due_at",
        ),
        pytest.param(lambda record: record.update(tool="delete_todo"), id="tool"),
        pytest.param(lambda record: record.update(risk="high"), id="risk"),
    ],
)
def test_scenario_4_a_record_altered_in_redis_is_invalid_destroyed_and_audited(
    user: Any, alteration: Any, monkeypatch: Any
) -> None:
    flow = flow_with_card(user)
    card_id = flow.card_id()
    rewrite_record(flow.token, alteration)

    service_calls = spy_on(monkeypatch, todo_services, "todo_create")

    response = flow.confirm()

    assert response.status_code == 409
    assert error_code(response) == "CONFIRMATION_INVALID"
    assert not get_redis().exists(card_key_of(flow.token))  # destroyed
    # The owner's request claimed it in the same script as the read; the failed binding
    # destroyed it before anything ran, and its running-index entry went with it.
    assert service_calls == []
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, token_digest(flow.token)) is None
    again = flow.confirm()
    assert again.status_code == 410
    assert error_code(again) == "CONFIRMATION_EXPIRED"
    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0
    event = AuditEvent.objects.get(event_type="confirm.invalid")
    assert (event.code, str(event.action_id), event.actor) == (
        "CONFIRMATION_INVALID",
        card_id,
        user,
    )


def test_scenario_5_a_todo_changed_after_the_card_is_a_version_conflict_and_keeps_new_values(
    user: Any,
) -> None:
    client = token_client(user)
    created = client.post(TODOS_URL, {"title": "提交周报"}, format="json")
    assert created.status_code == 201
    todo_id = created.json()["id"]
    session_id = open_session(client)
    card = card_via_message(client, session_id, "把待办「提交周报」标记为完成")
    assert card["tool"] == "set_todo_status"
    assert card["args"]["expected_version"] == 1

    patched = client.patch(
        f"{TODOS_URL}{todo_id}/", {"version": 1, "title": "提交周报（终稿）"}, format="json"
    )
    assert patched.status_code == 200
    response = confirm(client, card["token"], session_id)

    assert response.status_code == 200
    outcome = response.json()["outcome"]
    assert response.json()["state"] == "settled"
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "TODO_VERSION_CONFLICT"
    todo = Todo.objects.get(id=todo_id)
    assert (todo.title, todo.status, todo.version) == ("提交周报（终稿）", "open", 2)
    assert ActionReceipt.objects.count() == 0
    assert audit_codes("action.failed") == ["TODO_VERSION_CONFLICT"]
    assert confirm(client, card["token"], session_id).content == response.content


def test_a_todo_deleted_after_the_card_settles_as_not_found_and_nothing_is_written(
    user: Any,
) -> None:
    client = token_client(user)
    todo_id = client.post(TODOS_URL, {"title": "周会"}, format="json").json()["id"]
    session_id = open_session(client)
    card = card_via_message(client, session_id, "把待办「周会」标记为完成")
    assert client.delete(f"{TODOS_URL}{todo_id}/").status_code == 204

    response = confirm(client, card["token"], session_id)

    assert response.json()["outcome"]["ok"] is False
    assert response.json()["outcome"]["error"]["code"] == "TODO_NOT_FOUND"
    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0


# --- 确认令牌测试 (confirmation tokens) --------------------------------------------------


def test_the_token_is_bound_to_user_and_session_on_every_endpoint(
    user: Any, other_user: Any
) -> None:
    flow = flow_with_card(user)
    stranger = token_client(other_user)
    own_other_session = open_session(flow.client)
    for url in ENDPOINTS:
        for client, session_id in (
            (stranger, flow.session_id),
            (stranger, open_session(stranger)),
            (flow.client, own_other_session),
        ):
            response = client.post(
                url, {"token": flow.token, "session_id": session_id}, format="json"
            )
            assert (response.status_code, error_code(response)) == (
                403,
                "CONFIRMATION_FORBIDDEN",
            ), url
    assert flow.status().json() == {"state": "ready"}
    assert Todo.objects.count() == 0


def test_an_args_hmac_mismatch_is_refused(user: Any) -> None:
    flow = flow_with_card(user)
    fields = raw_fields(flow.token)
    record = json.loads(fields["record"])
    record["args_hmac"] = "0" * 64  # a forged seal on untouched args
    get_redis().hset(card_key_of(flow.token), "record", json.dumps(record))

    response = flow.confirm()

    assert (response.status_code, error_code(response)) == (409, "CONFIRMATION_INVALID")
    assert Todo.objects.count() == 0


def test_an_expired_token_returns_410(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_CONFIRMATION_TTL = 1
    flow = flow_with_card(user)
    deadline = time.monotonic() + 3
    while get_redis().exists(card_key_of(flow.token)) and time.monotonic() < deadline:
        time.sleep(0.05)  # Redis's own expiry, not a deletion by the test

    for url in ENDPOINTS:
        response = flow.client.post(
            url, {"token": flow.token, "session_id": flow.session_id}, format="json"
        )
        assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")
    assert Todo.objects.count() == 0
    assert audit_codes("confirm.expired") == ["CONFIRMATION_EXPIRED"] * 3


def test_an_unknown_token_returns_410(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    response = confirm(client, "x" * 43, session_id)
    assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")


def test_a_repeat_confirm_after_completion_returns_the_original_settled_result(user: Any) -> None:
    flow = flow_with_card(user)
    first = flow.confirm()
    settled_ok(first)

    replays = [flow.confirm() for _ in range(3)]
    state = flow.status()

    assert {reply.content for reply in replays} == {first.content}
    assert state.status_code == 200
    assert state.content == first.content  # status answers with the same settled body
    assert Todo.objects.count() == 1


def test_a_repeat_confirm_of_a_failed_action_returns_the_same_failure(user: Any) -> None:
    client = token_client(user)
    todo_id = client.post(TODOS_URL, {"title": "对账"}, format="json").json()["id"]
    session_id = open_session(client)
    card = card_via_message(client, session_id, "把待办「对账」标记为完成")
    client.patch(f"{TODOS_URL}{todo_id}/", {"version": 1, "priority": 2}, format="json")

    first = confirm(client, card["token"], session_id)
    second = confirm(client, card["token"], session_id)

    assert first.json()["outcome"]["error"]["code"] == "TODO_VERSION_CONFLICT"
    assert second.content == first.content


# --- 业务执行测试 (business execution) ----------------------------------------------------


def test_the_card_shows_the_concrete_time_prepare_produced_and_that_time_is_written(
    user: Any,
) -> None:
    with time_machine.travel(datetime(2026, 12, 2, 10, 0, tzinfo=SHANGHAI), tick=True):
        flow = flow_with_card(user, "帮我创建一条明天下午3点提交周报的高优先级待办")
        assert flow.card["args"] == {
            "title": "提交周报",
            "description": "",
            "priority": 2,
            "due_at": "2026-12-03T15:00:00+08:00",
            "due_at_said": "明天下午3点",
        }
        shown = {item["key"]: item["value"] for item in flow.card["preview"]["details"]}
        assert shown["due_at"].startswith("2026-12-03 15:00")
        assert shown["due_at_reading"] == "明天下午3点 (Asia/Shanghai) → 2026-12-03 (周四) 15:00"
        settled_ok(flow.confirm())

    todo = Todo.objects.get(owner=user)
    assert todo.due_at == datetime(2026, 12, 3, 15, 0, tzinfo=SHANGHAI)
    assert todo.priority == 2


def test_an_implausible_year_is_refused_before_any_card_exists(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)

    body = send_message(client, session_id, "记一个待办：2099-01-01交报告")

    assert body["cards"] == []
    assert [(n["capability"], n["status"], n["code"]) for n in body["notices"]] == [
        ("todo.create", "rejected", "TODO_DUE_AT_SUSPICIOUS")
    ]
    assert "2099" in body["reply"]
    assert card_keys() == []
    assert audit_codes("card.refused") == ["TODO_DUE_AT_SUSPICIOUS"]
    assert audit_types(event_type="card.issued") == []
    assert Todo.objects.count() == 0


def test_the_confirmed_write_runs_through_the_domain_service(user: Any, monkeypatch: Any) -> None:
    flow = flow_with_card(user)
    service_calls = spy_on(monkeypatch, todo_services, "todo_create")

    receipt = settled_ok(flow.confirm())

    assert len(service_calls) == 1
    call = service_calls[0]
    assert call["owner"] == user
    assert call["title"] == flow.card["args"]["title"]
    assert call["due_at"] == datetime.fromisoformat(flow.card["args"]["due_at"])
    assert receipt["resource"]["id"] == str(Todo.objects.get().id)


# --- status codes and the order of the checks (docs/api.md) ---------------------------------


@pytest.mark.parametrize("url", ENDPOINTS)
@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"token": "t" * 43},
        {"token": "t" * 43, "session_id": "not-a-uuid"},
        {"token": "t" * 43, "session_id": str(uuid.uuid4()), "extra": 1},
        {"token": "", "session_id": str(uuid.uuid4())},
    ],
)
def test_a_bad_body_is_400_before_authentication(url: str, payload: dict[str, Any]) -> None:
    from rest_framework.test import APIClient

    response = APIClient().post(url, payload, format="json")

    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"


@pytest.mark.parametrize("url", ENDPOINTS)
def test_a_good_body_without_authentication_is_401(url: str) -> None:
    from rest_framework.test import APIClient

    response = APIClient().post(
        url, {"token": "t" * 43, "session_id": str(uuid.uuid4())}, format="json"
    )

    assert response.status_code == 401
    assert error_code(response) == "NOT_AUTHENTICATED"


def test_staff_in_a_readonly_context_cannot_confirm_the_subjects_card(
    user: Any, staff: Any
) -> None:
    flow = flow_with_card(user)
    staff_client = token_client(staff)
    started = staff_client.post(
        "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
    )
    assert started.status_code == 201
    as_subject = token_client(staff, **{"X-Admin-Context": started.json()["context_id"]})

    for url in ENDPOINTS:
        response = as_subject.post(
            url, {"token": flow.token, "session_id": flow.session_id}, format="json"
        )
        assert (response.status_code, error_code(response)) == (403, "ADMIN_READONLY"), url

    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0
    assert flow.status().json() == {"state": "ready"}
    refused = AuditEvent.objects.filter(event_type="admin.write_refused")
    assert refused.count() == 3
    assert {(event.actor, event.subject) for event in refused} == {(staff, user)}


def test_admin_readonly_is_checked_before_the_store(user: Any, staff: Any) -> None:
    flow = flow_with_card(user)
    context_id = (
        token_client(staff)
        .post(
            "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
        )
        .json()["context_id"]
    )
    as_subject = token_client(staff, **{"X-Admin-Context": context_id})
    with store_down():
        response = confirm(as_subject, flow.token, flow.session_id)
    assert (response.status_code, error_code(response)) == (403, "ADMIN_READONLY")


def test_an_unreachable_store_is_503_and_nothing_executes(user: Any) -> None:
    flow = flow_with_card(user)
    with store_down():
        answers = [
            flow.client.post(
                url, {"token": flow.token, "session_id": flow.session_id}, format="json"
            )
            for url in ENDPOINTS
        ]
        unknown = confirm(flow.client, "y" * 43, flow.session_id)  # 503 comes before 410
    for response in [*answers, unknown]:
        assert (response.status_code, error_code(response)) == (
            503,
            "CONFIRMATION_STORE_UNAVAILABLE",
        )
    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0
    assert flow.status().json() == {"state": "ready"}  # the store is back: nothing happened


def test_issuing_a_card_with_the_store_down_is_503_and_no_card(user: Any) -> None:
    client = token_client(user)
    session_id = open_session(client)
    with store_down():
        response = client.post(
            f"/api/v1/agent/sessions/{session_id}/messages/",
            {"text": "帮我创建一条明天下午3点提交周报的待办"},
            format="json",
        )
    assert (response.status_code, error_code(response)) == (503, "CONFIRMATION_STORE_UNAVAILABLE")
    assert card_keys() == []


def test_an_unknown_token_is_410_before_the_session_check(user: Any, other_user: Any) -> None:
    other_session = open_session(token_client(other_user))
    response = confirm(token_client(user), "z" * 43, other_session)
    assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")


def test_ownership_is_checked_before_the_binding_and_leaves_a_tampered_card_alone(
    user: Any, other_user: Any
) -> None:
    flow = flow_with_card(user)
    rewrite_record(flow.token, lambda record: record["args"].update(title="改过"))
    stranger = token_client(other_user)

    response = confirm(stranger, flow.token, open_session(stranger))

    assert (response.status_code, error_code(response)) == (403, "CONFIRMATION_FORBIDDEN")
    assert get_redis().exists(card_key_of(flow.token))  # only its owner's request destroys it
    assert (flow.confirm().status_code, Todo.objects.count()) == (409, 0)


def test_a_card_whose_record_the_owner_check_refuses_is_never_claimed(
    user: Any, monkeypatch: Any
) -> None:
    """Python's owner check also needs a readable record. A record with the right owner but
    args that are not an object is refused 403 before any claim: nothing is claimed,
    counted or run, and the card stays as it was."""
    flow = flow_with_card(user)
    rewrite_record(flow.token, lambda record: record.update(args=["not", "an", "object"]))
    service_calls = spy_on(monkeypatch, todo_services, "todo_create")
    claims = spy_on(monkeypatch, card_transitions, "card_claim")

    response = flow.confirm()

    assert (response.status_code, error_code(response)) == (403, "CONFIRMATION_FORBIDDEN")
    assert service_calls == []
    assert claims == []  # the checks come before the claim
    fields = raw_fields(flow.token)
    assert (fields["state"], fields["lease_until"]) == ("ready", "0")
    ttl_ms = get_redis().pttl(card_key_of(flow.token))
    assert 0 < ttl_ms <= django_settings.LIGHTNOTE_CONFIRMATION_TTL * 1000
    assert get_redis().zscore(card_transitions.RUNNING_INDEX_KEY, token_digest(flow.token)) is None
    counters = get_redis().keys(f"ln:rate:agent.claims:{user.pk}:*", target_nodes="primaries")
    assert sum(int(get_redis().get(key) or 0) for key in counters) == 0  # nothing counted
    assert Todo.objects.count() == 0


def test_the_binding_is_checked_before_the_state_even_for_a_settled_card(user: Any) -> None:
    flow = flow_with_card(user)
    settled_ok(flow.confirm())
    rewrite_record(flow.token, lambda record: record["args"].update(title="改过"))

    response = flow.confirm()

    assert (response.status_code, error_code(response)) == (409, "CONFIRMATION_INVALID")
    assert Todo.objects.count() == 1


def test_a_rejected_card_answers_409_rejected_and_never_runs(user: Any) -> None:
    flow = flow_with_card(user)
    assert flow.reject().json() == {"state": "rejected"}

    response = flow.confirm()

    assert (response.status_code, error_code(response)) == (409, "CONFIRMATION_REJECTED")
    assert Todo.objects.count() == 0
    assert ActionReceipt.objects.count() == 0


def test_a_card_another_request_holds_answers_202_running(user: Any) -> None:
    flow = flow_with_card(user)
    claim = card_transitions.card_claim(flow.token, attempt_id="another-request")
    assert claim.status == "claimed"

    response = flow.confirm()

    assert response.status_code == 202
    assert response.json() == {"state": "running"}
    assert response["Retry-After"] == "1"  # when to poll `status`
    assert Todo.objects.count() == 0


# --- reject --------------------------------------------------------------------------------


def test_reject_moves_a_ready_card_to_rejected_and_a_repeat_says_rejected_again(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    first = flow.reject()
    second = flow.reject()
    assert (first.status_code, first.json()) == (200, {"state": "rejected"})
    assert (second.status_code, second.json()) == (200, {"state": "rejected"})
    assert flow.status().json() == {"state": "rejected"}
    assert audit_types(event_type="confirm.rejected") == ["confirm.rejected"] * 2


def test_reject_of_a_running_card_is_409_already_claimed_with_its_state(user: Any) -> None:
    flow = flow_with_card(user)
    card_transitions.card_claim(flow.token, attempt_id="another-request")

    response = flow.reject()

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFIRMATION_ALREADY_CLAIMED"
    assert response.json()["state"] == "running"
    assert flow.status().json() == {"state": "running"}


def test_reject_of_a_settled_card_is_409_already_claimed_and_the_outcome_stands(
    user: Any,
) -> None:
    flow = flow_with_card(user)
    first = flow.confirm()

    response = flow.reject()

    assert response.status_code == 409
    assert set(response.json()) == {"error", "state"}
    assert response.json()["error"]["code"] == "CONFIRMATION_ALREADY_CLAIMED"
    assert response.json()["state"] == "settled"
    assert flow.confirm().content == first.content
    assert Todo.objects.count() == 1


# --- status --------------------------------------------------------------------------------


def test_status_reports_every_state_of_a_card(user: Any) -> None:
    ready = issue_card(user)
    session = ready.card.session_id
    running = issue_card(user, session_id=session)
    rejected = issue_card(user, session_id=session)
    settled = issue_card(user, session_id=session)
    client = token_client(user)
    card_transitions.card_claim(running.token, attempt_id="another-request")
    assert reject(client, rejected.token, session).status_code == 200
    settled_body = confirm(client, settled.token, session)

    answers = {
        name: status(client, issued.token, session)
        for name, issued in [
            ("ready", ready),
            ("running", running),
            ("rejected", rejected),
            ("settled", settled),
        ]
    }

    assert {name: response.status_code for name, response in answers.items()} == dict.fromkeys(
        answers, 200
    )
    assert answers["ready"].json() == {"state": "ready"}
    assert answers["running"].json() == {"state": "running"}
    assert answers["rejected"].json() == {"state": "rejected"}
    assert answers["settled"].content == settled_body.content
    assert ActionReceipt.objects.count() == 1  # status itself never executes
    gone = status(client, "g" * 43, session)
    assert (gone.status_code, error_code(gone)) == (410, "CONFIRMATION_EXPIRED")


# --- audit -----------------------------------------------------------------------------------


def test_the_audit_trail_names_each_protocol_event_and_never_holds_a_raw_token(
    user: Any, other_user: Any, settings: Any
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "2/h"
    tokens: list[str] = []
    client = token_client(user)
    session_id = open_session(client)

    def card() -> str:
        issued = card_via_message(client, session_id)
        tokens.extend([issued["token"], issued["continuation_token"]])
        return issued["token"]

    executed = card()
    confirm(client, executed, session_id)  # claimed, executed
    confirm(client, executed, session_id)  # duplicate
    stranger = token_client(other_user)
    confirm(stranger, executed, open_session(stranger))  # forbidden
    confirm(client, "q" * 43, session_id)  # expired
    tampered = card()
    rewrite_record(tampered, lambda record: record["args"].update(title="改过"))
    confirm(client, tampered, session_id)  # invalid
    rejected = card()
    reject(client, rejected, session_id)  # rejected
    send_message(client, session_id, "记一个待办：2099-01-01交报告")  # card refused
    todo_id = client.post(TODOS_URL, {"title": "对账"}, format="json").json()["id"]
    conflict = card_via_message(client, session_id, "把待办「对账」标记为完成")
    tokens.append(conflict["token"])
    client.patch(f"{TODOS_URL}{todo_id}/", {"version": 1, "priority": 0}, format="json")
    confirm(client, conflict["token"], session_id)  # failed
    over = card()
    limited = confirm(client, over, session_id)  # 3rd new claim this hour: rate limited
    assert limited.status_code == 429
    assert flush_repeat_tallies() == 1  # the periodic job writes the duplicate's tally

    types = set(audit_types())
    assert {
        "card.issued",
        "card.refused",
        "confirm.claimed",
        "confirm.duplicate",
        "confirm.forbidden",
        "confirm.expired",
        "confirm.invalid",
        "action.executed",
        "action.failed",
        "confirm.rejected",
        "rate.limited",
    } <= types
    assert audit_codes("card.refused") == ["TODO_DUE_AT_SUSPICIOUS"]
    assert audit_codes("rate.limited") == ["RATE_LIMITED"]
    dumped = [
        json.dumps(
            [event.event_type, event.code, event.capability, event.tool, event.details],
            ensure_ascii=False,
        )
        for event in AuditEvent.objects.all()
    ]
    for token in tokens:
        assert not any(token in text for text in dumped)
