"""A hostile-input corpus against every operation of the OpenAPI schema (issue 10).

The operations come from drf-spectacular's own generator, so a new endpoint is covered the
day it is added. Each one is called, authenticated as a real user (token), with:

- path parameters: the user's real ids and garbage ids;
- every declared query parameter and header empty and with garbage;
- raw bodies: JSON nested 1000 (objects) and 100 000 (arrays) deep, a body over the upload
  limit, invalid UTF-8, NUL bytes, non-objects, truncated JSON, NaN, wrong content types;
- for every field of the request schema: wrong JSON types, over-long strings, NUL bytes,
  lone surrogates, odd zone names and implausible times, one field at a time on an
  otherwise plausible body.

Every answer must be below 500, and every 4xx must be the documented error body
``{"error": {"code", "message"}}``. ``LIGHTNOTE_SECURITY_CORPUS=full`` sends every hostile
value to every field (several thousand requests); the default CI size rotates through them
so each value still reaches each operation, and sends every odd zone name to each zone field
and every odd instant to each date-time field. Runs in both passes (SQLite + fakeredis, and
MariaDB + Redis).
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import AgentSession
from lightnote.times import is_allowed_time_zone, is_plausible
from notes import services as note_services
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

FULL = os.environ.get("LIGHTNOTE_SECURITY_CORPUS", "ci") == "full"

# JSON values a hostile client (or a hostile model relaying one) sends in a field.
HOSTILE_VALUES: list[Any] = [
    None,
    True,
    0,
    -1,
    2**63,
    -(2**63) - 1,
    1e308,
    1.5,
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",  # a lone surrogate: valid JSON, not encodable as UTF-8
    "x" * 100_000,
    "9" * 400,
    [],
    [[[[]]]],
    ["x"] * 1000,
    {},
    {"__proto__": {"a": 1}},
    # The same hostile text one level down (a list item, an object key or value).
    ["\x00"],
    ["\ud800"],
    {"\ud800": 1},
    {"a": "\x00", "b": [None, 2**63]},
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
    "{0.__class__}",
    "%s%n%x",
]

# Zone names the zone database (or ``zoneinfo``) knows or half-knows, but no one lives in:
# each is also sent to every zone field, whatever the rotation (see ``aimed``).
HOSTILE_ZONES: list[str] = [
    "posix/Asia/Shanghai",
    "right/UTC",
    "localtime",
    "posixrules",
    "Factory",
    "asia/shanghai",
    " Asia/Shanghai",
    "Asia/Shanghai\x00",
    "Asia/../Asia/Shanghai",
    "/usr/share/zoneinfo/UTC",
    "Asia/Shanghai/",
    "+08:00",
]

# Instants out of range, with odd offsets, or not quite ISO 8601: each also sent to every
# date-time field.
HOSTILE_TIMES: list[str] = [
    "1480-02-09T08:59:17.59-19:05",
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-23:59",
    "2026-12-02T21:00:00+08:05:43",
    "2026-12-24T09:00:00+24:00",
    "2026-12-24T09:00:00-99:99",
    "2026-02-30T09:00:00+08:00",
    "2026-12-24T24:00:00+08:00",
    "2026-12-24T23:59:60+08:00",
    "2026-12-24T09:00:00",
    "2026-12-24",
    "+12026-12-24T09:00:00Z",
    "2026-12-24T09:00:00.1234567890123456789+08:00",
    "\uff12\uff10\uff12\uff16-12-24T09:00:00+08:00",  # full-width digits
    "2026-12-24T09:00:00+08:00[Asia/Shanghai]",
]

HOSTILE_VALUES += HOSTILE_ZONES + HOSTILE_TIMES

GARBAGE_IDS = [
    "0",
    "-1",
    "x",
    "00000000-0000-0000-0000-000000000000",
    "a" * 1000,
    "%00",
    "..%2F..",
    "1%20OR%201=1",
    "%FF%FE",
    "%F0%9F%92%A9",
]

GARBAGE_QUERY_VALUES = ["", "\x00", "x" * 5000, "-1", "0", "[]", "1e309", "%FF", "true", "null"]
GARBAGE_HEADER_VALUES = ["", "x" * 5000, "\x7f", "00000000-0000-0000-0000-000000000000", "-1"]


def deep_objects(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


def deep_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def raw_bodies() -> list[tuple[bytes | str, str]]:
    """(body, content type) pairs that are hostile whatever the operation expects."""
    return [
        (deep_objects(1000), "application/json"),
        (deep_arrays(100_000), "application/json"),
        ('{"x": "' + "y" * (settings.LIGHTNOTE_MAX_BODY_BYTES + 1) + '"}', "application/json"),
        (b'{"title": "\xff\xfe\xfd"}', "application/json"),
        (b'{"title": "a\x00b"}', "application/json"),
        ('{"title": "a\\u0000b", "text": "\\u0000"}', "application/json"),
        ("null", "application/json"),
        ("[]", "application/json"),
        ("[1, 2, 3]", "application/json"),
        ("1", "application/json"),
        ('"x"', "application/json"),
        ("", "application/json"),
        ("{", "application/json"),
        ('{"a": NaN, "b": Infinity}', "application/json"),
        ('{"a": 1, "a": {"b": 2}}', "application/json"),
        ("title=x&text=y", "application/x-www-form-urlencoded"),
        ("title=x", "text/plain"),
        ("<a>x</a>", "application/xml"),
        ("--x\r\n\r\n--x--", "multipart/form-data; boundary=x"),
        ("{}", "multipart/form-data"),  # no boundary
        ('{"title": "x"}', "application/json; charset=latin-1"),
        ('{"title": "x"}', "application/json; charset=nonsense"),
    ]


# --- the schema ---------------------------------------------------------------------------


def load_schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


SCHEMA = None


def schema() -> dict[str, Any]:
    global SCHEMA
    if SCHEMA is None:
        SCHEMA = load_schema()
    return SCHEMA


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = schema()["components"]["schemas"][name]
    if "allOf" in node and len(node["allOf"]) == 1:
        return resolve(node["allOf"][0])
    return node


def operations() -> list[tuple[str, str]]:
    return [
        (path, method)
        for path, methods in sorted(load_schema()["paths"].items())
        for method in sorted(methods)
        if method in {"get", "post", "put", "patch", "delete"}
    ]


def plausible(prop: dict[str, Any]) -> Any:
    """A value of the right type for a schema property (not necessarily a valid one)."""
    prop = resolve(prop)
    if "enum" in prop:
        return prop["enum"][0]
    kind = prop.get("type")
    if kind == "integer":
        return max(1, int(prop.get("minimum", 1)))
    if kind == "number":
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if prop.get("format") == "date-time":
        return "2026-12-24T09:00:00+08:00"
    if prop.get("format") == "uuid":
        return str(uuid.uuid4())
    return "x"


def aimed(name: str, prop: dict[str, Any]) -> list[Any]:
    """The hostile values made for this field's kind (a zone name, a date-time)."""
    if resolve(prop).get("format") == "date-time":
        return HOSTILE_TIMES
    if "zone" in name:
        return HOSTILE_ZONES
    return []


def request_fields(operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    content = operation.get("requestBody", {}).get("content", {})
    body = content.get("application/json")
    if body is None:
        return {}
    return dict(resolve(body["schema"]).get("properties", {}))


# --- the calls ----------------------------------------------------------------------------


class Findings:
    """Every request that answered a 5xx or a 4xx without the error body."""

    def __init__(self) -> None:
        self.sent = 0
        self.bad: list[str] = []

    def check(self, what: str, response: Any) -> None:
        self.sent += 1
        status = response.status_code
        if status >= 500:
            self.bad.append(f"{status} {what}")
            return
        if status < 400:
            return
        try:
            error = json.loads(response.content)["error"]
        except (ValueError, KeyError, TypeError):
            self.bad.append(f"{status} without the error body: {what}: {response.content[:120]!r}")
            return
        if not (isinstance(error.get("code"), str) and isinstance(error.get("message"), str)):
            self.bad.append(f"{status} malformed error body: {what}: {error!r}")


JSON = "application/json"


def as_json(body: Any) -> str:
    """Encode like a client may: ASCII escapes, so a lone surrogate travels as ``\\ud800``."""
    return json.dumps(body)


def short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


@pytest.fixture
def corpus_user(make_user: Any) -> Any:
    return make_user("mallory")


@pytest.fixture
def real_ids(corpus_user: Any) -> dict[str, list[str]]:
    todo = todo_services.todo_create(owner=corpus_user, title="a real todo")
    note = note_services.note_create(owner=corpus_user, title="a real note")
    session = AgentSession.objects.create(owner=corpus_user)
    return {
        "todo_id": [str(todo.id)],
        "note_id": [str(note.id)],
        "session_id": [str(session.id)],
    }


def fill(path: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    return path


@pytest.mark.parametrize(("path", "method"), operations())
def test_no_operation_answers_hostile_input_with_a_5xx_or_a_bare_error(
    corpus_user: Any, real_ids: dict[str, list[str]], path: str, method: str
) -> None:
    operation = schema()["paths"][path][method]
    client = APIClient(raise_request_exception=False)
    token, _ = Token.objects.get_or_create(user=corpus_user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    findings = Findings()
    bare = APIClient(raise_request_exception=False)  # its own Authorization header is sent
    params = operation.get("parameters", [])
    path_names = [p["name"] for p in params if p["in"] == "path"]
    query_names = [p["name"] for p in params if p["in"] == "query"]
    header_names = [p["name"] for p in params if p["in"] == "header"]
    fields = request_fields(operation)
    has_body = method in {"post", "put", "patch", "delete"}
    call = getattr(client, method)

    # 1. Path parameters: real ids and garbage (every name at once gets each garbage id).
    real = {name: real_ids.get(name, [str(uuid.uuid4())])[0] for name in path_names}
    targets = [fill(path, real)]
    for garbage in GARBAGE_IDS if path_names else []:
        targets.append(fill(path, dict.fromkeys(path_names, garbage)))
    plausible_body = {name: plausible(prop) for name, prop in fields.items()}
    for target in targets:
        if has_body:
            response = call(target, as_json(plausible_body), content_type=JSON)
        else:
            response = call(target)
        findings.check(f"{method.upper()} {target}", response)

    url = targets[0]
    # 2. Query parameters and headers: each one empty and with garbage.
    for name in query_names:
        for value in GARBAGE_QUERY_VALUES:
            response = (
                call(url, {name: value}) if method == "get" else call(f"{url}?{name}={value}")
            )
            findings.check(f"{method.upper()} {url}?{name}={short(value)}", response)
    for name in header_names:
        meta = "HTTP_" + name.upper().replace("-", "_")
        for value in GARBAGE_HEADER_VALUES:
            response = call(url, **{meta: value})
            findings.check(f"{method.upper()} {url} {name}: {short(value)}", response)
    for value in ("", "x" * 5000, "zz;q=abc, *;q=-1"):
        response = call(url, HTTP_ACCEPT_LANGUAGE=value)
        findings.check(f"{method.upper()} {url} Accept-Language: {short(value)}", response)
    for value in ("", "Token", "Token " + "x" * 5000, "Token a b", "Bearer \x7f", "Basic Og=="):
        response = getattr(bare, method)(url, HTTP_AUTHORIZATION=value)
        findings.check(f"{method.upper()} {url} Authorization: {short(value)}", response)
    for value in ("", "x" * 5000, "evil.example", "a b", "[::1"):
        response = call(url, HTTP_HOST=value)
        findings.check(f"{method.upper()} {url} Host: {short(value)}", response)

    # 3. Raw bodies and content types (also to methods that take no body).
    if has_body:
        for body, content_type in raw_bodies():
            response = call(url, body, content_type=content_type)
            findings.check(f"{method.upper()} {url} [{content_type}] {short(body)[:40]}", response)

    # 4. One hostile value per field, the rest plausible.
    if fields:
        values = HOSTILE_VALUES
        rotation = itertools.cycle(range(len(values)))
        # At CI size each field takes the next share of the rotation, large enough for
        # every value to reach the operation, plus every value aimed at its kind.
        share = max(8, -(-len(values) // len(fields)))
        for name, prop in fields.items():
            rotated = [values[next(rotation)] for _ in range(share)]
            chosen = values if FULL else rotated + aimed(name, prop)
            for value in chosen:
                body = {**plausible_body, name: value}
                response = call(url, as_json(body), content_type=JSON)
                findings.check(f"{method.upper()} {url} {name}={short(value)}", response)
        # Unknown fields and a body of only garbage names.
        unknown = {**plausible_body, "is_staff": True, "owner": 1}
        response = call(url, as_json(unknown), content_type=JSON)
        findings.check(f"{method.upper()} {url} + unknown fields", response)

    assert findings.sent > 0
    assert not findings.bad, "\n".join(findings.bad[:40])


def test_the_corpus_covers_every_operation_of_the_schema() -> None:
    """The parametrisation above is the schema's whole list (nothing skipped)."""
    documented = {
        (path, method)
        for path, methods in load_schema()["paths"].items()
        for method in methods
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert set(operations()) == documented
    assert len(documented) >= 30


# --- the browser's form endpoints (not in the schema: pages, chat, settings) ----------------

FORM_PATHS = [
    "/",
    "/chat/message/",
    "/chat/confirm/",
    "/chat/reject/",
    "/chat/status/",
    "/chat/reissue/",
    "/chat/reply/",
    "/chat/choose/",
    "/chat/edit/",
    "/chat/undo/",
    "/chat/new/",
    "/chat/language/",
    "/chat/conversations/older/",
    "/chat/{session_id}/",
    "/chat/{session_id}/rename/",
    "/chat/{session_id}/delete/",
    "/todos/",
    "/todos/trash/",
    "/todos/{todo_id}/",
    "/notes/",
    "/notes/trash/",
    "/notes/{note_id}/",
    "/settings/",
    "/settings/mcp/",
]
FORM_FIELDS = [
    "text",
    "token",
    "session_id",
    "continuation_token",
    "title",
    "description",
    "content",
    "tags",
    "due_at",
    "priority",
    "version",
    "action",
    "time_zone",
    "language",
    "next",
    "name",
    "q",
    "status",
    "page",
    "card_id",
    "candidate_id",
    "cursor",
    "older",
    "conversation",
]
QUERY_FIELDS = ["q", "status", "page", "cursor", "older", "conversation"]
FORM_VALUES = ["", "\x00", "x" * 100_000, "-1", "1480-02-09T08:59", "posix/Asia/Shanghai", "%FF"]


def test_no_form_endpoint_answers_hostile_input_with_a_5xx(
    corpus_user: Any, real_ids: dict[str, list[str]]
) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(corpus_user)
    bad: list[str] = []
    sent = 0
    for template in FORM_PATHS:
        for ids in ({k: v[0] for k, v in real_ids.items()}, dict.fromkeys(real_ids, "x%00")):
            path = fill(template, ids)
            for value in FORM_VALUES:
                form = dict.fromkeys(FORM_FIELDS, value)
                for response in (
                    browser.get(path, dict.fromkeys(QUERY_FIELDS, value)),
                    browser.post(path, form),
                    browser.post(path, form, HTTP_HX_REQUEST="true"),
                ):
                    sent += 1
                    if response.status_code >= 500:
                        bad.append(f"{response.status_code} {path} {short(value)}")
            response = browser.post(path, b"\xff\xfe\x00", content_type="text/plain")
            sent += 1
            if response.status_code >= 500:
                bad.append(f"{response.status_code} {path} raw bytes")
    # Every odd zone to the settings form, every odd instant (and its local form, as the
    # page's datetime-local input sends it) to the todo forms.
    todo_id = real_ids["todo_id"][0]
    aimed_forms = [
        ("/settings/", "time_zone", HOSTILE_ZONES, {"language": "en"}),
        ("/todos/", "due_at", HOSTILE_TIMES, {"title": "x"}),
        (f"/todos/{todo_id}/", "due_at", HOSTILE_TIMES, {"action": "save", "title": "x"}),
    ]
    for path, field, values, rest in aimed_forms:
        for value in values:
            for sent_value in {value, value[:16]}:
                response = browser.post(path, {**rest, "version": "1", field: sent_value})
                sent += 1
                if response.status_code >= 500:
                    bad.append(f"{response.status_code} {path} {field}={short(sent_value)}")
    assert sent > 500
    assert not bad, "\n".join(bad[:40])
    # Whatever got through left only a zone a person lives in and no implausible due time.
    corpus_user.refresh_from_db()
    assert is_allowed_time_zone(corpus_user.time_zone), corpus_user.time_zone
    dues = Todo.objects.filter(owner=corpus_user).exclude(due_at=None).values_list("due_at")
    assert all(is_plausible(due, now=timezone.now()) for (due,) in dues), list(dues)
