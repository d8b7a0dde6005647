"""Every API operation against generated input: never a 500, always the error body.

The operations are read from the OpenAPI schema the server publishes (so a new endpoint is
fuzzed without a line here). For each one Hypothesis sends bodies built from the operation's
own field names with values of every JSON type (and odd strings: empty, NUL, 5,000
characters, impossible dates, huge numbers), whole bodies that are not objects, garbage path
ids, query values and headers (``Idempotency-Key``, ``Accept-Language``, ``X-Admin-Context``),
mixed with the real ids and card tokens of the user's own data so
that requests also get past the first checks. Each answer must be below 500, and every 4xx
must carry ``{"error": {"code", "message"}}`` with both non-empty (docs/api.md).

Size: ``LIGHTNOTE_FUZZ_EXAMPLES`` per operation (30 here; ``make reliability`` runs more).
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.agent_helpers import card_via_message, open_session

EXAMPLES = int(os.environ.get("LIGHTNOTE_FUZZ_EXAMPLES", "30"))
# Each test draws its examples inside, against fixtures built once per test.
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
METHODS = ("get", "post", "put", "patch", "delete")

pytestmark = pytest.mark.django_db


def _schema() -> dict[str, Any]:
    """The schema ``/api/schema/`` serves (the same generator, without a request)."""
    from drf_spectacular.generators import SchemaGenerator

    return dict(SchemaGenerator().get_schema(request=None, public=True))


def _operations() -> list[tuple[str, str]]:
    paths = _schema()["paths"]
    return sorted(
        (path, method)
        for path, operations in paths.items()
        if path.startswith("/api/v1/")
        for method in operations
        if method in METHODS
    )


OPERATIONS = _operations()


def _body_fields(schema: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    """The property names of the operation's JSON body (its component's), if it has one."""
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    reference = body.get("schema", {}).get("$ref", "")
    if not reference:
        return []
    component = schema["components"]["schemas"][reference.rsplit("/", 1)[-1]]
    return sorted(component.get("properties", {}))


ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "x" * 5000,
    "2026-02-30T25:61:00+08:00",
    "9999-12-31T23:59:59Z",
    "-1",
    "9" * 40,
    "1e309",
    "null",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "周报\u202e",
    "\ud7ff",
]


def json_values(strings: list[Any], *, non_finite: bool = False) -> st.SearchStrategy[Any]:
    """Any JSON value (nested a little), its strings often from ``strings``; with
    ``non_finite`` also NaN and infinities (a model's output, unlike a JSON body, has them)."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=non_finite, allow_infinity=non_finite),
        st.text(max_size=40),
        st.sampled_from(strings),
    )
    return st.recursive(
        leaves,
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=12), children, max_size=4)
        ),
        max_leaves=12,
    )


def _bodies(fields: list[str], known: list[str]) -> st.SearchStrategy[Any]:
    values = json_values(ODD_STRINGS + known)
    named = st.dictionaries(
        st.sampled_from(fields) if fields else st.text(max_size=12), values, max_size=6
    )
    with_a_stranger = st.builds(lambda body, key: {**body, key: 1}, named, st.text(max_size=12))
    return st.one_of(named, named, with_a_stranger, values)


@pytest.fixture
def world(user: Any, alice_api: Any) -> dict[str, Any]:
    """Alice's own data: a todo, a note, a conversation with a ready card."""
    todo = alice_api.post("/api/v1/todos/", {"title": "交周报"}, format="json").json()
    note = alice_api.post("/api/v1/notes/", {"title": "会议记录"}, format="json").json()
    session_id = open_session(alice_api)
    card = card_via_message(alice_api, session_id)
    return {
        "ids": [todo["id"], note["id"], session_id, card["card_id"]],
        "tokens": [card["token"], card.get("continuation_token") or card["token"]],
        "todo_id": todo["id"],
        "note_id": note["id"],
        "session_id": session_id,
    }


def _assert_answer(response: Any, request: str) -> None:
    assert response.status_code < 500, (request, response.status_code, response.content[:500])
    if response.status_code >= 400:
        body = json.loads(response.content)
        error = body.get("error") if isinstance(body, dict) else None
        assert isinstance(error, dict), (request, body)
        assert isinstance(error.get("code"), str), (request, body)
        assert error["code"], (request, body)
        assert isinstance(error.get("message"), str), (request, body)
        assert error["message"], (request, body)


@pytest.mark.parametrize(("path", "method"), OPERATIONS)
def test_no_generated_request_is_a_500_and_every_error_has_the_error_body(
    path: str, method: str, world: dict[str, Any], alice_api: Any
) -> None:
    schema = _schema()
    operation = schema["paths"][path][method]
    fields = _body_fields(schema, operation)
    query_names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
    path_names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "path"]
    known = [*world["ids"], *world["tokens"]]
    path_values = st.sampled_from(
        [world["todo_id"], world["note_id"], world["session_id"], str(uuid.uuid4()), "x", "0"]
    )
    queries = st.dictionaries(
        st.sampled_from(query_names) if query_names else st.text(max_size=8),
        st.one_of(st.sampled_from(ODD_STRINGS + known + ["1", "true", "done"]), st.text()),
        max_size=3,
    )

    header_values = st.one_of(st.sampled_from(ODD_STRINGS + known), st.text(max_size=80))
    headers = st.fixed_dictionaries(
        {},
        optional={
            "HTTP_IDEMPOTENCY_KEY": header_values,
            "HTTP_ACCEPT_LANGUAGE": st.one_of(header_values, st.sampled_from(["en", "zh-CN"])),
            "HTTP_X_ADMIN_CONTEXT": header_values,
        },
    )

    @FUZZ
    @given(
        body=_bodies(fields, known),
        query=queries,
        path_ids=st.fixed_dictionaries({name: path_values for name in path_names}),
        extra=headers,
    )
    def one_request(
        body: Any, query: dict[str, str], path_ids: dict[str, str], extra: dict[str, str]
    ) -> None:
        url = path
        for name, value in path_ids.items():
            url = url.replace("{" + name + "}", value)
        if query:
            url += "?" + urlencode(query)
        data = json.dumps(body) if method in ("post", "put", "patch") else None
        # Header values travel as latin-1 on the wire; others cannot be sent at all.
        sendable = {k: v for k, v in extra.items() if v.isprintable() and v.isascii()}
        response = alice_api.generic(
            method.upper(), url, data=data or "", content_type="application/json", **sendable
        )
        _assert_answer(response, f"{method.upper()} {url} {sendable} {data!r:.300}")

    one_request()
