"""One input policy for every text, whichever channel it comes through.

NUL and the other C0 controls except TAB, LF and CR (and DEL, C1) are refused with
``VALIDATION_ERROR``; CRLF and CR become LF; bidi embedding, override and isolate controls
are refused in one-line texts (titles, tags, names) and stripped from multi-line ones
(descriptions, contents); everything is stored in Unicode NFC. The services apply it, so
the REST API, the item pages, the agent's proposals and card edits, the MCP server and the
MCP token form all get the same answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from agent.models import AgentSession
from lightnote.errors import LightNoteError
from mcpserver.models import McpToken
from notes import services as note_services
from notes.models import Note
from tests.agent_helpers import error_code, flow_with_card
from tests.mcp_helpers import call, mcp_key, memory_server
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

CONTROLS = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x1b", "\x1f", "\x7f", "\x85", "\x9b"]
BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


def _refused(call_service: Any) -> str:
    with pytest.raises(LightNoteError) as refused:
        call_service()
    return refused.value.code


@pytest.mark.parametrize("char", CONTROLS)
def test_a_control_character_is_refused_by_every_item_service(user: Any, char: str) -> None:
    text = f"a{char}b"
    todo = todo_services.todo_create(owner=user, title="ok")
    note = note_services.note_create(owner=user, title="ok")
    attempts = [
        lambda: todo_services.todo_create(owner=user, title=text),
        lambda: todo_services.todo_create(owner=user, title="ok", description=text),
        lambda: todo_services.todo_update(
            owner=user, todo_id=todo.id, expected_version=1, title=text
        ),
        lambda: note_services.note_create(owner=user, title=text),
        lambda: note_services.note_create(owner=user, title="ok", content=text),
        lambda: note_services.note_create(owner=user, title="ok", tags=[text]),
        lambda: note_services.note_update(
            owner=user, note_id=note.id, expected_version=1, content=text
        ),
    ]
    assert [_refused(attempt) for attempt in attempts] == ["VALIDATION_ERROR"] * len(attempts)
    assert Todo.objects.count() == 1
    assert Note.objects.count() == 1


@pytest.mark.parametrize("char", BIDI)
def test_a_bidi_control_is_refused_in_a_title_and_stripped_from_a_content(
    user: Any, char: str
) -> None:
    assert _refused(lambda: todo_services.todo_create(owner=user, title=f"abc{char}def")) == (
        "VALIDATION_ERROR"
    )
    assert _refused(
        lambda: note_services.note_create(owner=user, title="ok", tags=[f"x{char}"])
    ) == ("VALIDATION_ERROR")
    todo = todo_services.todo_create(owner=user, title="ok", description=f"abc{char}def")
    note = note_services.note_create(owner=user, title="ok", content=f"abc{char}def")
    assert (todo.description, note.content) == ("abcdef", "abcdef")


def test_line_breaks_become_lf_and_text_is_stored_in_nfc(user: Any) -> None:
    note = note_services.note_create(
        owner=user, title="Cafe\u0301", content="one\r\ntwo\rthree\n\tfour", tags=["cafe\u0301"]
    )
    assert note.title == "Café"
    assert note.content == "one\ntwo\nthree\n\tfour"  # TAB and LF are kept
    assert note.tags == ["café"]
    todo = todo_services.todo_create(owner=user, title="a\tb", description="x\r\ny")
    assert (todo.title, todo.description) == ("a b", "x\ny")


def test_the_rules_are_one_table_per_field_kind() -> None:
    from lightnote import text_policy

    assert set(text_policy.RULES) == {text_policy.Kind.LINE, text_policy.Kind.TEXT}
    for kind, rules in text_policy.RULES.items():
        refused = {point for rule in rules if rule.action == "refuse" for point in rule.points}
        assert {0x00, 0x1F, 0x7F} <= refused, kind
        assert not refused & {0x09, 0x0A, 0x0D}, kind
    line_refused = {
        p
        for r in text_policy.RULES[text_policy.Kind.LINE]
        if r.action == "refuse"
        for p in r.points
    }
    text_stripped = {
        p for r in text_policy.RULES[text_policy.Kind.TEXT] if r.action == "strip" for p in r.points
    }
    assert {0x202E, 0x2066} <= line_refused
    assert {0x202E, 0x2066} <= text_stripped


# --- every channel ---------------------------------------------------------------------


@pytest.mark.parametrize("char", ["\x01", "\u202e"])
def test_the_rest_api_refuses_them_with_validation_error(alice_api: Any, char: str) -> None:
    response = alice_api.post("/api/v1/todos/", {"title": f"a{char}b"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    assert not Todo.objects.exists()


def test_the_item_page_refuses_a_nul(user: Any) -> None:
    client = Client()
    client.force_login(user)
    response = client.post("/todos/", {"title": "a\x00b"})
    assert response.status_code == 400
    assert b"\x00" not in response.content
    assert not Todo.objects.exists()


def test_the_item_page_stores_a_textarea_crlf_as_lf(user: Any) -> None:
    client = Client()
    client.force_login(user)
    response = client.post("/notes/", {"title": "n", "content": "one\r\ntwo"})
    assert response.status_code == 302
    assert Note.objects.get().content == "one\ntwo"


@pytest.mark.django_db(transaction=True)
def test_a_card_edit_refuses_a_nul(user: Any) -> None:
    flow = flow_with_card(user)
    response = flow.client.post(
        "/api/v1/agent/confirmations/edit/",
        {"token": flow.token, "session_id": flow.session_id, "args": {"title": "a\x00b"}},
        format="json",
    )
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"


@pytest.mark.parametrize("char", ["\x00", "\u202e"])
def test_an_mcp_proposal_is_refused(user: Any, char: str) -> None:
    result = call(memory_server(mcp_key(user)), "create_todo", {"title": f"a{char}b"})
    assert result.is_error
    assert result.structured_content["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("char", ["\x00", "\u202e"])
def test_the_mcp_token_form_refuses_it(user: Any, char: str) -> None:
    client = Client()
    client.force_login(user)
    response = client.post("/settings/mcp/", {"name": f"a{char}b"})
    assert response.status_code == 400
    assert not McpToken.objects.exists()


def test_a_conversation_title_refuses_a_bidi_override(user: Any) -> None:
    from agent.conversation.sessions import session_rename

    session = AgentSession.objects.create(owner=user)
    assert _refused(lambda: session_rename(session=session, title="a\u202eb")) == (
        "VALIDATION_ERROR"
    )
