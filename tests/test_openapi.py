"""The OpenAPI schema declares every status each operation can return, with the error body."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command

ERROR_BODY = "#/components/schemas/ErrorBody"
WRITE_METHODS = {"post", "put", "patch", "delete"}

# path -> method -> statuses it must declare (contract: docs/api.md).
EXPECTED: dict[str, dict[str, set[int]]] = {
    "/api/v1/auth/token/": {"post": {200, 400}},
    "/api/v1/me/": {"get": {200, 401, 403}, "patch": {200, 400, 401, 403}},
    "/api/v1/todos/": {"get": {200, 400, 401, 403, 404}, "post": {201, 400, 401, 403}},
    "/api/v1/todos/{todo_id}/": {
        "get": {200, 401, 403, 404},
        "patch": {200, 400, 401, 403, 404, 409},
        "delete": {204, 400, 401, 403, 404, 409},
    },
    "/api/v1/notes/": {"get": {200, 400, 401, 403, 404}, "post": {201, 400, 401, 403}},
    "/api/v1/notes/{note_id}/": {
        "get": {200, 401, 403, 404},
        "patch": {200, 400, 401, 403, 404, 409},
        "delete": {204, 400, 401, 403, 404, 409},
    },
    "/api/v1/admin/impersonation/": {
        "post": {201, 400, 401, 403, 404},
        "delete": {204, 401, 403},
    },
    "/api/v1/agent/sessions/": {"get": {200, 401, 403}, "post": {201, 400, 401, 403}},
    "/api/v1/agent/sessions/{session_id}/": {
        "get": {200, 401, 403, 404},
        "patch": {200, 400, 401, 403, 404},
        "delete": {204, 401, 403, 404},
    },
    "/api/v1/agent/sessions/{session_id}/messages/": {
        "get": {200, 401, 403, 404},
        "post": {200, 400, 401, 403, 404, 429, 503},
    },
    "/api/v1/agent/confirmations/reissue/": {"post": {200, 400, 401, 403, 404, 409, 410, 429, 503}},
    "/api/v1/agent/confirmations/confirm/": {
        "post": {200, 202, 400, 401, 403, 404, 409, 410, 429, 503}
    },
    "/api/v1/agent/continuations/reply/": {
        "post": {200, 202, 400, 401, 403, 404, 409, 410, 429, 503}
    },
    "/api/v1/agent/confirmations/edit/": {"post": {200, 400, 401, 403, 404, 409, 410, 429, 503}},
}


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Generate the schema the way CI does: validated, and any warning is a failure."""
    path = Path(tmp_path_factory.mktemp("schema")) / "schema.json"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", path
    )
    return json.loads(path.read_text())


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]


@pytest.mark.parametrize(
    ("path", "method"),
    [(path, method) for path, methods in EXPECTED.items() for method in methods],
)
def test_operation_declares_every_status_it_can_return(schema, path, method) -> None:
    operation = schema["paths"][path][method]
    declared = {int(status) for status in operation["responses"]}
    assert EXPECTED[path][method] <= declared, f"{method.upper()} {path} declares {declared}"


@pytest.mark.parametrize(
    ("path", "method"),
    [
        (path, method)
        for path, methods in EXPECTED.items()
        for method in methods
        if path != "/api/v1/auth/token/"
    ],
)
def test_authenticated_operation_declares_the_admin_context_header(schema, path, method) -> None:
    parameters = schema["paths"][path][method].get("parameters", [])
    headers = {p["name"] for p in parameters if p["in"] == "header"}
    assert "X-Admin-Context" in headers


def test_every_error_status_of_every_operation_has_the_error_body(schema) -> None:
    for path, method, operation in _operations(schema):
        for status, response in operation["responses"].items():
            if int(status) >= 400:
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert ref == ERROR_BODY, f"{method.upper()} {path} {status}"


def test_every_authenticated_operation_declares_401_and_writes_declare_403(schema) -> None:
    for path, method, operation in _operations(schema):
        if not operation.get("security") or operation["security"] == [{}]:
            continue  # public, e.g. the token login
        declared = {int(status) for status in operation["responses"]}
        assert 401 in declared, f"{method.upper()} {path}"
        if method in WRITE_METHODS:
            assert 403 in declared, f"{method.upper()} {path} (ADMIN_READONLY)"


def test_write_403_names_admin_readonly(schema) -> None:
    for path, methods in EXPECTED.items():
        for method in methods.keys() & WRITE_METHODS:
            if path in {"/api/v1/auth/token/", "/api/v1/admin/impersonation/"}:
                continue
            description = schema["paths"][path][method]["responses"]["403"]["description"]
            assert "ADMIN_READONLY" in description, f"{method.upper()} {path}"


def test_patch_bodies_require_the_version(schema) -> None:
    components = schema["components"]["schemas"]
    for path in ("/api/v1/todos/{todo_id}/", "/api/v1/notes/{note_id}/"):
        body = schema["paths"][path]["patch"]["requestBody"]
        assert body["required"] is True
        ref = body["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert components[ref]["required"] == ["version"]


def test_lists_are_documented_as_pages(schema) -> None:
    for path in (
        "/api/v1/todos/",
        "/api/v1/notes/",
        "/api/v1/agent/sessions/",
        "/api/v1/agent/sessions/{session_id}/messages/",
    ):
        ok = schema["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]
        page = schema["components"]["schemas"][ok["schema"]["$ref"].rsplit("/", 1)[-1]]
        assert {"count", "next", "previous", "results"} <= set(page["properties"])
        names = {p["name"] for p in schema["paths"][path]["get"]["parameters"]}
        assert {"page", "page_size"} <= names


def test_todo_status_filter_is_an_enum(schema) -> None:
    parameters = schema["paths"]["/api/v1/todos/"]["get"]["parameters"]
    status = next(p for p in parameters if p["name"] == "status")
    assert sorted(status["schema"]["enum"]) == ["done", "open"]


@pytest.mark.django_db
def test_swagger_ui_is_served_from_our_own_static_files(client) -> None:
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    sources = re.findall(r"<script[^>]*\ssrc=\"([^\"]+)\"", page)
    links = re.findall(r"<link[^>]*\shref=\"([^\"]+)\"", page)
    assert len(sources) >= 2
    # The init script is the split view's own same-origin URL (no inline script: the CSP).
    init = [url for url in sources if url.startswith("/api/docs/?") and "script=" in url]
    assert len(init) == 1, sources
    assert not re.search(r"<script(?![^>]*\ssrc=)[^>]*>", page), "inline script"
    assert client.get(init[0]).status_code == 200
    for url in [url for url in sources if url not in init] + links:
        assert not re.match(r"^(https?:)?//", url), f"external asset {url}"
        assert url.startswith("/static/")
        assert finders.find(url.removeprefix("/static/")), f"{url} is not shipped"


@pytest.mark.django_db
def test_schema_endpoint_serves_the_schema(client) -> None:
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    assert "/api/v1/todos/{todo_id}/" in json.loads(response.content)["paths"]


# --- the agent's contract for mobile clients (issue 14, deliverable 6) ----------------------


def _component(schema: dict[str, Any], ref_holder: dict[str, Any]) -> dict[str, Any]:
    if "allOf" in ref_holder:
        ref_holder = ref_holder["allOf"][0]
    ref = ref_holder.get("$ref") or ref_holder["items"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]


def _ok_body(schema: dict[str, Any], path: str, method: str) -> dict[str, Any]:
    response = schema["paths"][path][method]["responses"]["200"]
    return _component(schema, response["content"]["application/json"]["schema"])


def test_message_response_facts_notices_and_preview_details_are_typed(schema) -> None:
    body = _ok_body(schema, "/api/v1/agent/sessions/{session_id}/messages/", "post")
    fact = _component(schema, body["properties"]["facts"])
    item = _component(schema, fact["properties"]["items"])
    assert {"id", "type", "title"} <= set(item["required"])
    assert item["properties"]["id"]["format"] == "uuid"
    notice = _component(schema, body["properties"]["notices"])
    assert {"capability", "status", "message"} <= set(notice["properties"])
    card = _component(schema, body["properties"]["cards"])
    assert {"card_id", "token", "continuation_token"} <= set(card["required"])
    preview = _component(schema, card["properties"]["preview"])
    detail = _component(schema, preview["properties"]["details"])
    assert set(detail["required"]) == {"key", "label", "value"}


def test_history_cards_are_typed_and_never_carry_a_token(schema) -> None:
    page = _ok_body(schema, "/api/v1/agent/sessions/{session_id}/messages/", "get")
    message = _component(schema, page["properties"]["results"])
    card = _component(schema, message["properties"]["cards"])
    assert "token" not in card["properties"]
    assert "continuation_token" not in card["properties"]
    state = _component(schema, card["properties"]["state"])
    assert {"ready", "expired", "rejected", "settled"} <= set(state["enum"])
    assert "outcome" in card["properties"]


def test_the_reply_endpoint_says_it_takes_the_continuation_token(schema) -> None:
    operation = schema["paths"]["/api/v1/agent/continuations/reply/"]["post"]
    assert "continuation_token" in operation["description"]


@pytest.mark.parametrize(
    "path", ["/api/v1/agent/confirmations/confirm/", "/api/v1/agent/continuations/reply/"]
)
def test_a_202_running_says_how_to_poll(schema, path) -> None:
    description = schema["paths"][path]["post"]["responses"]["202"]["description"]
    assert "Retry-After" in description
    assert "poll" in description


def test_agent_errors_have_real_examples(schema) -> None:
    for path, item in schema["paths"].items():
        if not path.startswith("/api/v1/agent/"):
            continue
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                examples = response["content"]["application/json"]["examples"]
                for example in examples.values():
                    error = example["value"]["error"]
                    assert error["code"] != "...", f"{method.upper()} {path} {status}"
                    assert error["message"] not in ("...", error["code"])


def test_agent_tags_follow_the_flow_in_order(schema) -> None:
    names = [tag["name"] for tag in schema["tags"] if tag["name"].startswith("agent")]
    assert names == sorted(names)
    assert len(names) == 5
    used = {
        tag
        for item in schema["paths"].values()
        for operation in item.values()
        for tag in operation.get("tags", [])
    }
    assert set(names) <= used
    confirm = schema["paths"]["/api/v1/agent/confirmations/confirm/"]["post"]["tags"]
    assert confirm == [names[2]]
