"""Traces: a request is one trace; the product's spans, Redis and SQL nest under it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from lightnote.ops import tracing
from tests.agent_helpers import chat_in, flow_with_card, send_message
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.django_db

_exporter = InMemorySpanExporter()
_configured: list[bool] = []


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """The SDK's in-memory exporter behind the real instrumentation, for this test only."""
    if not _configured:  # the global tracer provider can be set once per process
        tracing.configure(exporter=_exporter, batch=False)
        _configured.append(True)
    else:
        tracing.instrument()
    _exporter.clear()
    try:
        yield _exporter
    finally:
        tracing.uninstrument()
        _exporter.clear()


def _ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[ReadableSpan]:
    chain = []
    parent = span.parent
    while parent is not None and parent.span_id in by_id:
        span = by_id[parent.span_id]
        chain.append(span)
        parent = span.parent
    return chain


def _request_span(finished: tuple[ReadableSpan, ...], route: str) -> ReadableSpan:
    [server] = [
        span
        for span in finished
        if span.kind == SpanKind.SERVER and (span.attributes or {}).get("http.route") == route
    ]
    return server


def test_a_card_turn_is_one_trace_with_the_issue_redis_and_sql_spans_under_it(
    user: Any, spans: InMemorySpanExporter
) -> None:
    flow = flow_with_card(user)

    finished = spans.get_finished_spans()
    by_id = {span.context.span_id: span for span in finished}
    request = _request_span(finished, "api/v1/agent/sessions/<uuid:session_id>/messages/")
    [issue] = [span for span in finished if span.name == "card.issue"]
    assert request in _ancestors(issue, by_id)
    assert issue.context.trace_id == request.context.trace_id
    assert (issue.attributes or {})["capability"] == "todo.create"
    assert (issue.attributes or {})["card_id"] == flow.card["card_id"]
    inside = [
        span
        for span in finished
        if span.context.trace_id == request.context.trace_id and span is not request
    ]
    sql = [span for span in inside if "db.system.name" in (span.attributes or {})]
    assert sql, [span.name for span in inside]
    assert {(span.attributes or {})["db.operation.name"] for span in sql} >= {"SELECT"}


def test_a_redis_command_is_a_span_under_the_current_one(spans: InMemorySpanExporter) -> None:
    from lightnote.controlstore.redis import get_redis

    with tracing.span("outer"):
        get_redis().ping()

    finished = spans.get_finished_spans()
    [outer] = [span for span in finished if span.name == "outer"]
    [ping] = [span for span in finished if (span.attributes or {}).get("db.system") == "redis"]
    assert ping.parent is not None
    assert ping.parent.span_id == outer.context.span_id


def test_the_helper_span_nests_under_the_current_span_and_marks_a_failure(
    spans: InMemorySpanExporter,
) -> None:
    with tracing.span("outer", capability="todo.create"), tracing.span("inner", attempt=1):
        pass
    with pytest.raises(RuntimeError), tracing.span("failing"):
        raise RuntimeError("boom")

    named = {span.name: span for span in spans.get_finished_spans()}
    assert named["inner"].parent is not None
    assert named["inner"].parent.span_id == named["outer"].context.span_id
    assert named["failing"].status.status_code == StatusCode.ERROR


def test_a_model_call_is_a_span_with_its_model_and_no_prompt_text(
    user: Any, settings: Any, spans: InMemorySpanExporter
) -> None:
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        server.reply_text("你好，有什么可以帮你？")
        client, session_id = chat_in(user)
        send_message(client, session_id, "你好，请帮我看看今天的安排")

    finished = spans.get_finished_spans()
    by_id = {span.context.span_id: span for span in finished}
    [call] = [span for span in finished if span.name == "llm.chat_completion"]
    attributes = dict(call.attributes or {})
    assert attributes["gen_ai.request.model"] == "fake-model"
    assert attributes["lightnote.llm.purpose"] == "plan"
    assert call.end_time is not None
    assert call.start_time is not None
    assert call.end_time > call.start_time
    request = _request_span(finished, "api/v1/agent/sessions/<uuid:session_id>/messages/")
    assert request in _ancestors(call, by_id)
    everything = json.dumps([dict(span.attributes or {}) for span in finished], default=str)
    assert "今天的安排" not in everything
    assert "你好" not in everything


def test_probes_make_no_trace(spans: InMemorySpanExporter) -> None:
    from django.test import Client

    Client().get("/healthz")

    assert not [span for span in spans.get_finished_spans() if span.kind == SpanKind.SERVER]


def test_a_confirm_is_one_trace_with_its_claim_execute_receipt_and_settle_spans(
    user: Any, spans: InMemorySpanExporter
) -> None:
    flow = flow_with_card(user)
    spans.clear()
    assert flow.confirm().json()["outcome"]["ok"] is True

    finished = spans.get_finished_spans()
    by_id = {span.context.span_id: span for span in finished}
    server = _request_span(finished, "api/v1/agent/confirmations/confirm/")
    steps = {
        span.name: span
        for span in finished
        if span.name in {"confirm.claim", "confirm.execute", "confirm.receipt", "confirm.settle"}
    }
    assert set(steps) == {"confirm.claim", "confirm.execute", "confirm.receipt", "confirm.settle"}
    for span in steps.values():
        assert server in _ancestors(span, by_id)
        assert span.context.trace_id == server.context.trace_id
        assert (span.attributes or {})["card_id"] == flow.card_id()
    assert steps["confirm.execute"] in _ancestors(steps["confirm.receipt"], by_id)
    order = sorted(steps.values(), key=lambda span: span.start_time or 0)
    assert [span.name for span in order] == [
        "confirm.claim",
        "confirm.execute",
        "confirm.receipt",
        "confirm.settle",
    ]
