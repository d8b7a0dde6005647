"""The admin read-only view: who may view whom, and a header that is there but names nothing.

Only a superuser may view a superuser; an empty or blank ``X-Admin-Context`` is refused like
an unknown one (403 ``ADMIN_CONTEXT_INVALID``), never read as "no header" — over the API,
the pages and the MCP server alike.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from lightnote.errors import LightNoteError
from lightnote.impersonation.contexts import admin_context_start
from lightnote.models import AdminContext
from mcpserver import callers
from mcpserver.models import McpSession
from tests.mcp_helpers import mcp_key
from todos import services as todo_services

pytestmark = pytest.mark.django_db

START = "/api/v1/admin/impersonation/"


def _code(response: Any) -> str:
    return response.json()["error"]["code"]


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("staff", is_staff=True)


def test_a_staff_member_who_is_not_a_superuser_cannot_view_a_superuser(
    client_for: Any, staff: Any, make_user: Any
) -> None:
    root = make_user("root", is_staff=True, is_superuser=True)
    response = client_for(staff).post(START, {"user_id": root.id}, format="json")
    assert (response.status_code, _code(response)) == (403, "ADMIN_SUBJECT_FORBIDDEN")
    assert not AdminContext.objects.exists()
    with pytest.raises(LightNoteError) as refused:
        admin_context_start(staff=staff, subject_id=root.id)
    assert refused.value.code == "ADMIN_SUBJECT_FORBIDDEN"


def test_a_superuser_may_view_a_superuser(make_user: Any) -> None:
    root = make_user("root", is_staff=True, is_superuser=True)
    other_root = make_user("root2", is_staff=True, is_superuser=True)
    context = admin_context_start(staff=root, subject_id=other_root.id)
    assert context.subject == other_root


@pytest.mark.parametrize("value", [""])
@pytest.mark.parametrize("who", ["staff", "user"])
def test_an_empty_admin_context_header_is_refused_on_the_api(
    client_for: Any, staff: Any, user: Any, value: str, who: str
) -> None:
    todo_services.todo_create(owner=user, title="alice's")
    caller = staff if who == "staff" else user
    response = client_for(caller, **{"X-Admin-Context": value}).get("/api/v1/todos/")
    assert response.status_code == 403
    expected = "ADMIN_CONTEXT_INVALID" if who == "staff" else "ADMIN_ONLY"
    assert _code(response) == expected


def test_an_empty_admin_context_header_is_refused_on_a_page(staff: Any) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    response = client.get("/todos/", HTTP_X_ADMIN_CONTEXT="")
    assert response.status_code == 403


def test_an_empty_admin_context_is_refused_by_the_mcp_server(staff: Any) -> None:
    with pytest.raises(LightNoteError) as refused:
        callers.authenticate_caller(
            raw_key=mcp_key(staff),
            session_key="memory:empty-context",
            transport=McpSession.Transport.MEMORY,
            client=callers.ClientInfo(),
            admin_context_id="",
        )
    assert refused.value.code == "ADMIN_CONTEXT_INVALID"


def test_the_admin_page_refuses_a_staff_member_viewing_a_superuser(
    staff: Any, make_user: Any
) -> None:
    root = make_user("root", is_staff=True, is_superuser=True)
    client = Client(raise_request_exception=False)
    client.force_login(staff)
    response = client.post(f"/admin/lightnote/user/{root.id}/impersonate/", {"reason": "look"})
    assert response.status_code == 403
    assert not AdminContext.objects.exists()
