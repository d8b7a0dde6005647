"""OpenTelemetry traces: a span per request, per Redis command, per SQL statement.

Off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set: then :func:`configure_from_environment`
(called from the ``ops`` app's ``ready``, so in each serving process after gunicorn's fork)
exports over OTLP/HTTP in batches, with the Django and Redis instrumentations and a span
per SQL statement (Django's ``execute_wrapper``, whatever the database backend; the
statement's text is not recorded, only its operation, since a statement may carry values).
The other ``OTEL_*`` variables (``OTEL_SERVICE_NAME``, ``OTEL_EXPORTER_OTLP_HEADERS``, ...)
are read by the SDK itself.

:func:`span` is the helper for the product's own spans (a claim, an execution, a model
call): it nests under the current span, and costs next to nothing while tracing is off.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from opentelemetry.trace import Span, SpanKind

_tracer = trace.get_tracer("lightnote")

Attribute = str | bool | int | float

# A batch of statements sent as one may open with a comment naming it.
_LEADING_COMMENTS = re.compile(r"^\s*(?:/\*.*?\*/\s*)+", re.DOTALL)

# Probes and scrapes are not worth a trace each.
EXCLUDED_URLS = "healthz,readyz,metrics"


@contextmanager
def span(name: str, **attributes: Attribute | None) -> Iterator[Span]:
    """A span named ``name`` under the current one; an exception marks it failed.

    ``attributes``: ids and fixed words only (``capability="todo.create"``), never text a
    user wrote. A None value is left out.
    """
    given = {key: value for key, value in attributes.items() if value is not None}
    with _tracer.start_as_current_span(name, attributes=given) as current:
        yield current


def annotate(**attributes: Attribute | None) -> None:
    """Add ``attributes`` (ids and fixed words only) to the current span, if one records."""
    current = trace.get_current_span()
    if current.is_recording():
        current.set_attributes({k: v for k, v in attributes.items() if v is not None})


def configure_from_environment() -> None:
    """Export traces over OTLP/HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set."""
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    configure(exporter=OTLPSpanExporter(), batch=True)


def configure(*, exporter: SpanExporter, batch: bool = True) -> None:
    """Send spans to ``exporter`` and instrument Django, Redis and SQL (idempotent)."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        service = os.environ.get("OTEL_SERVICE_NAME") or "lightnote"
        provider = TracerProvider(resource=Resource.create({"service.name": service}))
        trace.set_tracer_provider(provider)
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    instrument()


def instrument() -> None:
    """Turn on the Django and Redis instrumentations and the SQL statement spans."""
    from django.db import connections
    from django.db.backends.signals import connection_created
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    if not DjangoInstrumentor().is_instrumented_by_opentelemetry:
        DjangoInstrumentor().instrument(excluded_urls=EXCLUDED_URLS)
    if not RedisInstrumentor().is_instrumented_by_opentelemetry:
        RedisInstrumentor().instrument()
    connection_created.connect(_add_statement_spans, dispatch_uid="lightnote-ops-sql-spans")
    for connection in connections.all(initialized_only=True):
        _add_statement_spans(sender=None, connection=connection)


def uninstrument() -> None:
    """Undo :func:`instrument` (tests that turned it on for themselves)."""
    from django.db import connections
    from django.db.backends.signals import connection_created
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    DjangoInstrumentor().uninstrument()
    RedisInstrumentor().uninstrument()
    connection_created.disconnect(dispatch_uid="lightnote-ops-sql-spans")
    for connection in connections.all(initialized_only=True):
        if _statement_span in connection.execute_wrappers:
            connection.execute_wrappers.remove(_statement_span)


def _add_statement_spans(sender: Any, connection: Any, **kwargs: Any) -> None:
    if _statement_span not in connection.execute_wrappers:
        connection.execute_wrappers.append(_statement_span)


def _statement_span(
    execute: Callable[..., Any], sql: str, params: Any, many: bool, context: dict[str, Any]
) -> Any:
    """One CLIENT span per statement: the backend and the operation (SELECT, INSERT...)."""
    words = _LEADING_COMMENTS.sub("", sql).split(None, 1)
    operation = (words[0] if words else "SQL").upper()[:16]
    connection = context["connection"]
    attributes = {
        "db.system.name": connection.vendor,
        "db.operation.name": operation,
        "db.namespace": str(connection.alias),
    }
    with _tracer.start_as_current_span(
        f"{operation} {connection.vendor}", kind=SpanKind.CLIENT, attributes=attributes
    ):
        return execute(sql, params, many, context)
