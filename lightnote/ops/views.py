"""``/healthz``, ``/readyz`` and ``/metrics`` (API.md, "Health and metrics").

None needs a session or a user: they are plain Django views that read neither (no SQL
beyond the readiness probes' own, no Redis beyond its PING).
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from lightnote.ops import health, metrics


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process serves; no dependency is checked."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when every check passes, else 503 naming the failing ones."""
    ready, checks = health.readiness()
    body = {"status": "ok" if ready else "unavailable", "checks": checks}
    return JsonResponse(body, status=200 if ready else 503)


def _bearer_matches(request: HttpRequest) -> bool:
    expected = settings.LIGHTNOTE_METRICS_TOKEN
    if not expected:
        return False
    scheme, _, given = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected.encode())


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """The Prometheus text format, only with the metrics token; else the ordinary 404."""
    if not _bearer_matches(request):
        raise Http404
    payload, content_type = metrics.exposition()
    return HttpResponse(payload, content_type=content_type)
