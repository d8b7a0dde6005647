"""Every page and form endpoint against generated input: never a 5xx.

The routes are read from the URL configuration (so a new page is fuzzed the day it is added;
the API, the admin and static files have their own tests). Hypothesis sends GET and POST,
with and without ``HX-Request``, as a logged-in user: form fields the pages read (and
unknown ones) with generated values, odd strings and the user's real ids and card tokens,
and path ids that are real, someone else's, or garbage. Each answer must be below 500.

Size: ``LIGHTNOTE_FUZZ_EXAMPLES`` per route (``tests.test_api_fuzz.FUZZ``).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from hypothesis import given
from hypothesis import strategies as st

from tests.agent_helpers import card_via_message, open_session
from tests.test_api_fuzz import FUZZ, ODD_STRINGS
from tests.test_security_corpus import FORM_FIELDS

pytestmark = pytest.mark.django_db

FIELDS = FORM_FIELDS  # the fields the pages read (tests/test_security_corpus.py)


def _walk(patterns: list[Any], prefix: str = "") -> list[str]:
    routes: list[str] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            routes += _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            routes.append(prefix + str(pattern.pattern))
    return routes


ROUTES = sorted(
    "/" + route
    for route in _walk(get_resolver().url_patterns)
    if not route.startswith(("api/", "admin/", "static/", "mcp/", "^"))
)
CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")


@pytest.fixture
def world(user: Any, other_user: Any, client_for: Any) -> dict[str, list[str]]:
    from todos import services as todos

    api = client_for(user)
    session_id = open_session(api)
    card = card_via_message(api, session_id)
    theirs = todos.todo_create(owner=other_user, title="别人的")
    return {
        "ids": [
            str(todos.todo_create(owner=user, title="交周报").id),
            session_id,
            card["card_id"],
            str(theirs.id),
            str(uuid.uuid4()),
        ],
        "tokens": [card["token"], card.get("continuation_token") or card["token"]],
    }


def test_the_routes_are_read_from_the_url_configuration() -> None:
    for route in ("/chat/message/", "/chat/<uuid:session_id>/rename/", "/todos/<str:item_id>/"):
        assert route in ROUTES
    assert len(ROUTES) >= 25


@pytest.mark.parametrize("route", ROUTES)
def test_no_generated_page_request_is_a_5xx(
    route: str, user: Any, world: dict[str, list[str]]
) -> None:
    browser = Client(raise_request_exception=False)
    browser.force_login(user)
    known = [*world["ids"], *world["tokens"]]
    values = st.one_of(
        st.sampled_from(ODD_STRINGS + known + ["1", "2", "done", "open", "en", "zh-hans"]),
        st.text(max_size=60),
    )
    ids = st.one_of(st.sampled_from(world["ids"]), st.sampled_from(["0", "x", "-1", "9" * 30]))

    @FUZZ
    @given(
        method=st.sampled_from(["get", "post"]),
        htmx=st.booleans(),
        form=st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), values, max_size=6),
        path_values=st.fixed_dictionaries({name: ids for _, name in CONVERTER.findall(route)}),
    )
    def one_request(
        method: str, htmx: bool, form: dict[str, str], path_values: dict[str, str]
    ) -> None:
        path = route
        for converter, name in CONVERTER.findall(route):
            value = path_values[name]
            if converter == "int" and not value.isdigit():
                value = "7"  # the route would not match at all
            if converter == "uuid":
                value = value if _is_uuid(value) else str(uuid.uuid4())
            path = path.replace(f"<{converter + ':' if converter else ''}{name}>", value)
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        # Form values travel as text; NUL and lone surrogates cannot be encoded by the client.
        sendable = {k: v for k, v in form.items() if _encodable(k) and _encodable(v)}
        response = getattr(browser, method)(path, sendable, **headers)
        assert response.status_code < 500, (method, path, sendable, response.status_code)

    one_request()


def _is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
