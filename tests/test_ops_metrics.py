"""``/metrics``: who may scrape it, what moves after real actions, and many processes summed."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client
from django.utils import timezone

from agent.cards import history as lifecycle
from agent.models import ActionCard
from lightnote.ops import gunicorn_hooks, metrics
from tests.agent_helpers import (
    CREATE_TODO_TEXT,
    chat_in,
    confirm,
    flow_with_card,
    send_message,
    store_down,
)
from tests.ops_helpers import METRICS_TOKEN, scrape, total, value

pytestmark = pytest.mark.django_db

MESSAGES_ROUTE = "/api/v1/agent/sessions/<uuid:session_id>/messages/"


@pytest.fixture(autouse=True)
def _metrics_token(settings: Any) -> None:
    settings.LIGHTNOTE_METRICS_TOKEN = METRICS_TOKEN


# --- who may scrape ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Token {METRICS_TOKEN}", "Bearer ", METRICS_TOKEN],
)
def test_metrics_is_404_without_the_right_bearer_token(authorization: str | None) -> None:
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization is not None else {}

    response = Client().get("/metrics", **headers)

    assert response.status_code == 404
    assert b"lightnote_" not in response.content


def test_metrics_is_404_when_no_token_is_configured_even_for_an_empty_bearer(
    settings: Any,
) -> None:
    settings.LIGHTNOTE_METRICS_TOKEN = ""

    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404
    assert Client().get("/metrics").status_code == 404


def test_metrics_with_the_token_is_the_prometheus_text_format() -> None:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {METRICS_TOKEN}")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert b"# TYPE lightnote_cards_issued_total counter" in response.content


def test_every_metric_of_the_table_is_exported_under_its_name() -> None:
    content = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {METRICS_TOKEN}").content
    for spec in metrics.METRICS:
        kind = "histogram" if spec.kind == "histogram" else "counter"
        assert f"# TYPE {spec.name} {kind}".encode() in content, spec.name


# --- counters move after real actions -----------------------------------------------------


def test_issuing_a_card_counts_it_by_capability_and_the_request_by_route(user: Any) -> None:
    before = scrape()

    flow_with_card(user)

    after = scrape()
    issued = "lightnote_cards_issued_total"
    assert value(after, issued, capability="todo.create") == (
        value(before, issued, capability="todo.create") + 1
    )
    requests = "lightnote_http_requests_total"
    labels = {"route": MESSAGES_ROUTE, "method": "POST", "status": 200}
    assert value(after, requests, **labels) == value(before, requests, **labels) + 1
    count = "lightnote_http_request_duration_seconds_count"
    route = {"route": MESSAGES_ROUTE, "method": "POST"}
    assert value(after, count, **route) == value(before, count, **route) + 1


def test_route_labels_are_patterns_never_paths_with_ids(user: Any) -> None:
    flow = flow_with_card(user)
    Client().get(f"/api/v1/agent/sessions/{flow.session_id}/nothing-here/")

    routes = {
        dict(labels)["route"]
        for (name, labels) in scrape()
        if name == "lightnote_http_requests_total"
    }

    assert MESSAGES_ROUTE in routes
    assert "unmatched" in routes
    assert not any(flow.session_id in route for route in routes)


def test_a_deleted_conversation_counts_its_ready_cards_as_voided(user: Any) -> None:
    flow = flow_with_card(user)
    before = value(scrape(), "lightnote_cards_voided_total", reason="session_deleted")

    response = flow.client.delete(f"/api/v1/agent/sessions/{flow.session_id}/")

    assert response.status_code == 204, response.content
    assert ActionCard.objects.get().state == ActionCard.State.VOIDED
    after = value(scrape(), "lightnote_cards_voided_total", reason="session_deleted")
    assert after == before + 1


def test_the_reconciler_counts_an_unknown_outcome_settled_as_not_executed(
    user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    flow = flow_with_card(user)
    long_ago = timezone.now() - timedelta(seconds=django_settings.LIGHTNOTE_EXECUTION_LEASE + 60)
    ActionCard.objects.update(  # a confirm whose COMMIT reply was lost, its lease long over
        state=ActionCard.State.SETTLED,
        outcome_kind=ActionCard.OutcomeKind.UNKNOWN,
        settled_at=long_ago,
    )
    before = scrape()

    with django_capture_on_commit_callbacks(execute=True):
        assert lifecycle.reconcile_unknown_rows() == 1

    after = scrape()
    settled = "lightnote_reconciler_settlements_total"
    assert value(after, settled, outcome="not_executed") == (
        value(before, settled, outcome="not_executed") + 1
    )
    voided = {"capability": flow.card["capability"], "status": "voided"}
    receipts = "lightnote_receipts_total"
    assert value(after, receipts, **voided) == value(before, receipts, **voided) + 1


def test_a_confirm_of_an_unknown_or_expired_card_counts_an_expired_card(user: Any) -> None:
    flow = flow_with_card(user)
    route = {"route": "/api/v1/agent/confirmations/confirm/"}
    before = value(scrape(), "lightnote_cards_expired_total", **route)

    response = confirm(flow.client, "not-a-token-" + "x" * 31, flow.session_id)

    assert response.status_code == 410, response.content
    assert value(scrape(), "lightnote_cards_expired_total", **route) == before + 1


def test_a_clarifying_question_is_counted_by_the_slot_it_asks_for(user: Any) -> None:
    client, session_id = chat_in(user)
    before = total(scrape(), "lightnote_planner_clarifications_total")

    body = send_message(client, session_id, "帮我创建一条待办")

    assert [notice["status"] for notice in body["notices"]] == ["clarify"]
    slot = body["notices"][0]["slot"]
    after = scrape()
    assert total(after, "lightnote_planner_clarifications_total") == before + 1
    assert value(after, "lightnote_planner_clarifications_total", reason=slot) >= 1


def test_a_store_outage_counts_the_503_by_route_and_code(user: Any) -> None:
    client, session_id = chat_in(user)
    labels = {"route": MESSAGES_ROUTE, "code": "CONFIRMATION_STORE_UNAVAILABLE"}
    before = value(scrape(), "lightnote_http_unavailable_total", **labels)

    with store_down():
        response = client.post(
            f"/api/v1/agent/sessions/{session_id}/messages/",
            {"text": CREATE_TODO_TEXT},
            format="json",
        )

    assert response.status_code == 503, response.content
    assert value(scrape(), "lightnote_http_unavailable_total", **labels) == before + 1


def test_a_refused_card_over_the_limit_counts_a_429_by_route(user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/d"
    client, session_id = chat_in(user)
    before = value(scrape(), "lightnote_http_rate_limited_total", route=MESSAGES_ROUTE)

    send_message(client, session_id, CREATE_TODO_TEXT)
    refused = client.post(
        f"/api/v1/agent/sessions/{session_id}/messages/", {"text": CREATE_TODO_TEXT}, format="json"
    )

    assert refused.status_code == 429, refused.content
    after = value(scrape(), "lightnote_http_rate_limited_total", route=MESSAGES_ROUTE)
    assert after == before + 1


# --- the model ---------------------------------------------------------------------------


def test_model_calls_are_timed_and_their_failures_counted(user: Any, fake_openai: Any) -> None:
    client, session_id = chat_in(user)
    model = {"model": "fake-model", "purpose": "plan"}
    before = scrape()

    fake_openai.reply_text("你好！")
    send_message(client, session_id, "你好")
    fake_openai.reply_error(500)
    fake_openai.reply_error(500)  # the client's one retry
    send_message(client, session_id, "你好")

    after = scrape()
    calls = "lightnote_llm_call_duration_seconds_count"
    assert value(after, calls, **model) == value(before, calls, **model) + 2
    errors = "lightnote_llm_call_errors_total"
    failed = {**model, "error": "unavailable"}
    assert value(after, errors, **failed) == value(before, errors, **failed) + 1


def test_a_reply_the_guard_cuts_is_counted_as_a_turn_reply_removal(
    user: Any, fake_openai: Any
) -> None:
    client, session_id = chat_in(user)
    before = value(scrape(), "lightnote_guard_removals_total", situation="turn_reply")

    fake_openai.reply_text("已经帮你创建好了「买牛奶」这条待办。")
    body = send_message(client, session_id, "帮我记一下买牛奶")

    assert [notice["status"] for notice in body["notices"]] == ["guarded"]
    after = value(scrape(), "lightnote_guard_removals_total", situation="turn_reply")
    assert after == before + 1


def test_no_label_carries_a_user_id_a_title_or_a_token(user: Any, fake_openai: Any) -> None:
    fake_openai.reply_text("已经帮你创建好了「买牛奶」这条待办。")
    client, session_id = chat_in(user)
    send_message(client, session_id, "帮我记一下买牛奶")

    ours = [dict(pairs) for (name, pairs) in scrape() if name.startswith("lightnote_")]
    names = {key for labels in ours for key in labels} - {"le"}
    values = " ".join(v for labels in ours for k, v in labels.items() if k != "le")

    assert names <= {spec_label for spec in metrics.METRICS for spec_label in spec.labels}
    assert not names & {"user", "user_id", "session", "session_id", "token", "title", "path"}
    assert "买牛奶" not in values
    assert session_id not in values
    assert user.username not in values


# --- many processes, one scrape ------------------------------------------------------------


_WRITER = """
from lightnote.ops import metrics
metrics.card_issued(capability="todo.create")
metrics.card_issued(capability="todo.create")
metrics.claim_refused(reason="not_ready")
"""


def test_a_scrape_sums_every_process_writing_to_the_multiprocess_directory(
    tmp_path: Path, monkeypatch: Any
) -> None:
    environment = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):  # two worker processes, one after the other, each with its own file
        subprocess.run(
            [sys.executable, "-c", _WRITER],
            cwd=Path(django_settings.BASE_DIR),
            env=environment,
            check=True,
            timeout=60,
        )
    assert len(list(tmp_path.glob("counter_*.db"))) == 2
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))

    samples = scrape()

    assert value(samples, "lightnote_cards_issued_total", capability="todo.create") == 4
    assert value(samples, "lightnote_claims_refused_total", reason="not_ready") == 2


def test_gunicorn_start_gives_the_workers_a_metrics_directory(
    tmp_path: Path, monkeypatch: Any
) -> None:
    # Recorded first, so the variable the hook sets is taken back at the end.
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    gunicorn_hooks.on_starting(server=None)
    made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    assert made.is_dir()
    made.rmdir()

    wanted = tmp_path / "metrics"
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(wanted))
    gunicorn_hooks.on_starting(server=None)
    assert wanted.is_dir()


# --- the confirm path -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # a receipt is counted once its COMMIT happened
def test_after_confirms_executions_equal_receipts_and_repeats_count_as_not_ready(
    user: Any,
) -> None:
    before = scrape()
    flows = [flow_with_card(user) for _ in range(2)]
    for flow in flows:
        assert flow.confirm().json()["outcome"]["ok"] is True
    assert flows[0].confirm().status_code == 200  # a repeat: no claim, no execution

    after = scrape()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    create = {"capability": "todo.create"}
    assert moved("lightnote_cards_confirmed_total", **create) == 2
    assert moved("lightnote_executions_total", **create) == 2
    assert moved("lightnote_receipts_total", **create, status="succeeded") == 2
    assert moved("lightnote_claims_refused_total", reason="not_ready") == 1
