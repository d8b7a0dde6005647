"""docs/api.md names only operations that exist: every path it mentions is in the schema."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
PATH = re.compile(r"/api/v1/[A-Za-z0-9_{}/.-]*")


def _pattern(path: str) -> re.Pattern[str]:
    """A schema path template matching ``path`` (``{id}`` and ``<...>`` stand for any segment)."""
    parts = [re.escape(part) if not part.startswith("{") else "[^/]+" for part in path.split("/")]
    return re.compile("^" + "/".join(parts) + "$")


def test_every_path_the_api_doc_names_is_in_the_openapi_schema(db) -> None:
    response = Client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    schema_paths = list(response.json()["paths"])
    named = sorted(set(PATH.findall(DOC.read_text(encoding="utf-8"))))
    assert named, "docs/api.md names no path"
    missing = []
    for path in named:
        wanted = path.rstrip(".")
        if not any(
            _pattern(template).match(wanted) or template == wanted for template in schema_paths
        ):
            missing.append(wanted)
    assert missing == []
