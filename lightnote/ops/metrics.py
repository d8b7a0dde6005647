"""Every Prometheus metric LightNote exports: one table of names, help texts and labels.

The table (:data:`METRICS`) is the only place a metric is defined; ``docs/operations.md``
lists the same names. Call sites use the typed helpers below, one line each, never the
``prometheus_client`` objects. Label values are bounded sets chosen by the server
(capabilities, reasons, route patterns, error codes): never a user id, a title, a path
with ids in it, or a token.

Under gunicorn every worker process writes its samples to files in
``PROMETHEUS_MULTIPROC_DIR`` (``prometheus_client``'s multiprocess mode, chosen when that
variable is set before ``prometheus_client`` is first imported: see
``lightnote.ops.gunicorn_hooks``); :func:`exposition` sums them over all processes. Without
the variable (``make run``, tests) the samples live in this process. An increment is an
in-process operation (or a write to a memory-mapped file): no SQL, no Redis.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter
from typing import Any, Literal

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

Kind = Literal["counter", "histogram"]

# Seconds: a request is mostly a few milliseconds; a model call one to tens of seconds.
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LLM_BUCKETS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0)


@dataclass(frozen=True)
class MetricSpec:
    """One exported metric: its full exposed name, what it counts, and its labels."""

    kind: Kind
    name: str
    help: str
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()


METRICS: tuple[MetricSpec, ...] = (
    # --- HTTP ---------------------------------------------------------------------------
    MetricSpec(
        "histogram",
        "lightnote_http_request_duration_seconds",
        "Time from a request entering the app to its response leaving it, by route pattern.",
        ("route", "method"),
        REQUEST_BUCKETS,
    ),
    MetricSpec(
        "counter",
        "lightnote_http_requests_total",
        "Responses by route pattern, method and status code.",
        ("route", "method", "status"),
    ),
    MetricSpec(
        "counter",
        "lightnote_http_rate_limited_total",
        "429 responses (a rate limit or a login lockout refused the request), by route.",
        ("route",),
    ),
    MetricSpec(
        "counter",
        "lightnote_http_unavailable_total",
        "503 responses (a store, the database or the model could not answer), by route and code.",
        ("route", "code"),
    ),
    # --- cards ---------------------------------------------------------------------------
    MetricSpec(
        "counter",
        "lightnote_cards_issued_total",
        "Confirmation cards issued (stored, shown to the user), by capability.",
        ("capability",),
    ),
    MetricSpec(
        "counter",
        "lightnote_cards_confirmed_total",
        "Cards whose one-time claim a confirm took (the card went ready -> running).",
        ("capability",),
    ),
    MetricSpec(
        "counter",
        "lightnote_cards_rejected_total",
        "Cards the user rejected (ready -> rejected).",
        ("capability",),
    ),
    MetricSpec(
        "counter",
        "lightnote_cards_expired_total",
        "Answers 410 CONFIRMATION_EXPIRED (the card expired, was used up or is unknown), by "
        "route; an expired card's record is gone, so its capability is not known.",
        ("route",),
    ),
    MetricSpec(
        "counter",
        "lightnote_cards_voided_total",
        "Ready cards withdrawn before any execution, by reason "
        "(session_deleted, invalid, superseded).",
        ("reason",),
    ),
    MetricSpec(
        "counter",
        "lightnote_claims_refused_total",
        "Confirms that did not get the claim, by reason (not_ready, rate_limited, forbidden, ...).",
        ("reason",),
    ),
    # --- execution and receipts ---------------------------------------------------------
    MetricSpec(
        "counter",
        "lightnote_executions_total",
        "Actions whose tool ran to its end inside the execution transaction, by capability.",
        ("capability",),
    ),
    MetricSpec(
        "counter",
        "lightnote_receipts_total",
        "Receipt rows committed, by capability and status (succeeded, voided). "
        "executions_total equals receipts_total{status=succeeded}.",
        ("capability", "status"),
    ),
    MetricSpec(
        "counter",
        "lightnote_reconciler_settlements_total",
        "Cards the reconciler settled from the receipt table, by outcome "
        "(succeeded, not_executed, invalid).",
        ("outcome",),
    ),
    # --- agent text ---------------------------------------------------------------------
    MetricSpec(
        "counter",
        "lightnote_guard_removals_total",
        "Replies from which the truthfulness guard removed unbacked claims, by situation "
        "(turn_reply, final_reply).",
        ("situation",),
    ),
    MetricSpec(
        "counter",
        "lightnote_planner_clarifications_total",
        "Clarifying questions asked instead of a card, by the slot asked for.",
        ("reason",),
    ),
    MetricSpec(
        "histogram",
        "lightnote_llm_call_duration_seconds",
        "Model calls' latency, by model and purpose (plan, final_reply), failures included.",
        ("model", "purpose"),
        LLM_BUCKETS,
    ),
    MetricSpec(
        "counter",
        "lightnote_llm_call_errors_total",
        "Model calls that failed, by model, purpose and error (timeout, unavailable).",
        ("model", "purpose", "error"),
    ),
    # --- reminders ----------------------------------------------------------------------
    MetricSpec(
        "counter",
        "lightnote_reminder_deliveries_total",
        "Reminders the worker handed on, by outcome (delivered, failed).",
        ("outcome",),
    ),
)


def _build(spec: MetricSpec) -> Any:
    if spec.kind == "histogram":
        return Histogram(spec.name, spec.help, spec.labels, buckets=spec.buckets)
    return Counter(spec.name, spec.help, spec.labels)


_metrics: dict[str, Any] = {spec.name: _build(spec) for spec in METRICS}


def _inc(name: str, **labels: str) -> None:
    _metrics[name].labels(**labels).inc()


# --- helpers: one per call site kind ---------------------------------------------------


def http_response(*, route: str, method: str, status: int, seconds: float, code: str) -> None:
    """Count one response and its latency; a 429, a 503 and an expired card's 410 also
    on their own (``code``: the body's error code, read only for those statuses)."""
    _metrics["lightnote_http_request_duration_seconds"].labels(route=route, method=method).observe(
        seconds
    )
    _inc("lightnote_http_requests_total", route=route, method=method, status=str(status))
    if status == 429:
        _inc("lightnote_http_rate_limited_total", route=route)
    elif status == 503:
        _inc("lightnote_http_unavailable_total", route=route, code=code or "unknown")
    elif status == 410 and code == "CONFIRMATION_EXPIRED":
        _inc("lightnote_cards_expired_total", route=route)


def card_issued(*, capability: str) -> None:
    """A card was stored and is shown."""
    _inc("lightnote_cards_issued_total", capability=capability)


def card_confirmed(*, capability: str) -> None:
    """A confirm took the card's one-time claim."""
    _inc("lightnote_cards_confirmed_total", capability=capability)


def card_rejected(*, capability: str) -> None:
    """The user rejected a ready card."""
    _inc("lightnote_cards_rejected_total", capability=capability)


def cards_voided(*, reason: str, count: int = 1) -> None:
    """``count`` ready cards were withdrawn before any execution."""
    if count > 0:
        _metrics["lightnote_cards_voided_total"].labels(reason=reason).inc(count)


def claim_refused(*, reason: str) -> None:
    """A confirm did not get the claim (``reason``: a short fixed word, e.g. ``not_ready``)."""
    _inc("lightnote_claims_refused_total", reason=reason)


def execution_done(*, capability: str) -> None:
    """An action's tool ran to its end inside its transaction (before the COMMIT)."""
    _inc("lightnote_executions_total", capability=capability)


def receipt_committed(*, capability: str, status: str) -> None:
    """A receipt row committed (call from ``transaction.on_commit``)."""
    _inc("lightnote_receipts_total", capability=capability, status=status)


def reconciler_settled(*, outcome: str) -> None:
    """The reconciler settled a card from the receipt table."""
    _inc("lightnote_reconciler_settlements_total", outcome=outcome)


def guard_removed(*, situation: str) -> None:
    """The guard removed unbacked claims from one reply."""
    _inc("lightnote_guard_removals_total", situation=situation)


def clarification_asked(*, reason: str) -> None:
    """A turn asked a clarifying question instead of issuing a card."""
    _inc("lightnote_planner_clarifications_total", reason=reason)


def reminder_delivered(*, outcome: str) -> None:
    """The worker handed on one reminder (``delivered``) or gave up on it (``failed``)."""
    _inc("lightnote_reminder_deliveries_total", outcome=outcome)


class LlmCall:
    """What :func:`llm_call` yields: mark the failure, if any, with :meth:`failed`."""

    def __init__(self) -> None:
        self.error = ""

    def failed(self, error: str) -> None:
        self.error = error


@contextmanager
def llm_call(*, model: str, purpose: str) -> Iterator[LlmCall]:
    """Time one model call; an exception, or :meth:`LlmCall.failed`, counts as an error."""
    call = LlmCall()
    started = perf_counter()
    try:
        yield call
    except BaseException:
        call.error = call.error or "unavailable"
        raise
    finally:
        _metrics["lightnote_llm_call_duration_seconds"].labels(
            model=model, purpose=purpose
        ).observe(perf_counter() - started)
        if call.error:
            _inc("lightnote_llm_call_errors_total", model=model, purpose=purpose, error=call.error)


# --- exposition ------------------------------------------------------------------------


def exposition() -> tuple[bytes, str]:
    """The text format of every metric (summed over the processes in multiprocess mode)."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=directory)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
