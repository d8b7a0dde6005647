"""Shared helpers for the operations tests: scraping ``/metrics`` the way Prometheus does."""

from __future__ import annotations

from typing import Any

from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

METRICS_TOKEN = "metrics-token-for-tests-0123456789"


def scrape(token: str = METRICS_TOKEN) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """GET /metrics with the token; return every sample as (name, labels) -> value."""
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: Any
) -> float:
    """The sample ``name`` with exactly ``labels`` (0 when it was never counted)."""
    key = (name, frozenset((k, str(v)) for k, v in labels.items()))
    return samples.get(key, 0.0)


def total(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str) -> float:
    """The sum of ``name`` over all its label values."""
    return sum(v for (sample, _), v in samples.items() if sample == name)
