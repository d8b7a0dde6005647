"""Every write is an audit event, whatever the channel: the page, the REST API, a confirmed
card (the chat's or an MCP client's) and the admin.

The domain service records it in the write's own transaction, naming the actor, the subject
(the owner), the item by type and id (never its title or content) and the channel its entry
point passed down. A refused write (bad input, the cap reached) records no write event.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from lightnote.models import AuditEvent
from notes import services as note_services
from notes.models import Note
from tests.agent_helpers import flow_with_card
from tests.mcp_helpers import confirm_on_page, mcp_key, memory_server, page_client, propose
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

WRITE_PREFIXES = ("todo.", "note.", "user.", "account.")


def write_events() -> list[AuditEvent]:
    return [
        event
        for event in AuditEvent.objects.order_by("id")
        if event.event_type.startswith(WRITE_PREFIXES)
    ]


def only_write(event_type: str) -> AuditEvent:
    [event] = [event for event in write_events() if event.event_type == event_type]
    return event


def assert_write(event: AuditEvent, *, actor: Any, subject: Any, item: Any, channel: str) -> None:
    assert (event.actor_id, event.subject_id) == (actor.pk, subject.pk)
    assert event.details["channel"] == channel
    assert event.details["item_type"] == item._meta.model_name
    assert event.details["item_id"] == str(item.pk)


@pytest.fixture
def browser(user: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


# --- one test per channel --------------------------------------------------------------------


def test_a_todo_made_done_and_trashed_on_the_pages_is_audited_on_the_page_channel(
    user: Any, browser: Client
) -> None:
    assert browser.post("/todos/", {"title": "Secret plan", "priority": "1"}).status_code == 302
    todo = Todo.objects.get()
    form = {"version": todo.version}
    assert browser.post(f"/todos/{todo.id}/", {**form, "action": "done"}).status_code == 302
    todo.refresh_from_db()
    assert browser.post(f"/todos/{todo.id}/", {"version": todo.version, "action": "delete"})

    events = write_events()

    assert [event.event_type for event in events] == [
        "todo.created",
        "todo.completed",
        "todo.deleted",
    ]
    for event in events:
        assert_write(event, actor=user, subject=user, item=todo, channel="page")
    assert "Secret plan" not in json.dumps([event.details for event in events])


def test_notes_written_through_the_rest_api_are_audited_on_the_api_channel(
    user: Any, alice_api: Any
) -> None:
    created = alice_api.post(
        "/api/v1/notes/", {"title": "Diary", "content": "private"}, format="json"
    )
    assert created.status_code == 201, created.content
    note = Note.objects.get()
    changed = alice_api.patch(
        f"/api/v1/notes/{note.id}/", {"version": note.version, "title": "Diary 2"}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert alice_api.delete(f"/api/v1/notes/{note.id}/").status_code == 204
    assert alice_api.post(f"/api/v1/notes/{note.id}/restore/").status_code == 200

    events = write_events()

    assert [event.event_type for event in events] == [
        "note.created",
        "note.updated",
        "note.deleted",
        "note.restored",
    ]
    for event in events:
        assert_write(event, actor=user, subject=user, item=note, channel="api")
    assert "private" not in json.dumps([event.details for event in events])


def test_a_confirmed_chat_card_audits_its_write_in_the_confirms_own_insert(user: Any) -> None:
    flow = flow_with_card(user)

    assert flow.confirm().status_code == 200

    todo = Todo.objects.get()
    event = only_write("todo.created")
    assert_write(event, actor=user, subject=user, item=todo, channel="agent")
    claimed = AuditEvent.objects.get(event_type="confirm.claimed")
    assert claimed.action_id == AuditEvent.objects.get(event_type="action.executed").action_id
    # One bulk_create: the protocol's rows and the service's row are consecutive ids.
    assert event.id == claimed.id + 2


def test_an_mcp_card_confirmed_on_its_page_is_audited_on_the_mcp_channel(user: Any) -> None:
    card_id = propose(memory_server(mcp_key(user)))["card_id"]

    assert confirm_on_page(page_client(user), card_id).status_code == 200

    todo = Todo.objects.get()
    event = only_write("todo.created")
    assert_write(event, actor=user, subject=user, item=todo, channel="mcp")
    assert event.details["via"] == "card_page"


def test_a_user_deleted_in_the_admin_is_audited_on_the_admin_channel(
    make_user: Any, user: Any
) -> None:
    staff = make_user("root", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    user_id = user.pk

    response = admin.post(f"/admin/lightnote/user/{user_id}/delete/", {"post": "yes"})

    assert response.status_code == 302
    event = only_write("account.deleted")
    assert (event.actor_id, event.subject_id) == (staff.pk, None)  # the subject went with them
    assert event.details == {"channel": "admin", "item_type": "user", "item_id": str(user_id)}


# --- refused writes leave no write event ----------------------------------------------------


def test_a_refused_write_records_no_write_event(user: Any, alice_api: Any, settings: Any) -> None:
    blank = alice_api.post("/api/v1/todos/", {"title": "   "}, format="json")
    assert blank.status_code == 400
    settings.LIGHTNOTE_MAX_NOTES = 1
    note_services.note_create(owner=user, title="the one")
    AuditEvent.objects.all().delete()

    capped = alice_api.post("/api/v1/notes/", {"title": "one more"}, format="json")
    todo = todo_services.todo_create(owner=user, title="t")
    stale = alice_api.patch(
        f"/api/v1/todos/{todo.id}/", {"version": todo.version + 5, "title": "x"}, format="json"
    )

    assert capped.json()["error"]["code"] == "NOTE_LIMIT_REACHED"
    assert stale.status_code == 409
    assert [event.event_type for event in write_events()] == ["todo.created"]
    assert only_write("todo.created").details["channel"] == "system"


def test_completing_an_occurrence_audits_the_next_one_it_creates(user: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    first = todo_services.todo_create(
        owner=user,
        title="water",
        due_at=timezone.now() + timedelta(days=1),
        recurrence="FREQ=DAILY",
    )

    todo_services.todo_set_status(owner=user, todo_id=first.id, status="done", channel="page")

    following = Todo.objects.exclude(pk=first.pk).get()
    assert_write(
        only_write("todo.next_occurrence_created"),
        actor=user,
        subject=user,
        item=following,
        channel="page",
    )
    assert_write(only_write("todo.completed"), actor=user, subject=user, item=first, channel="page")


def test_a_card_confirmed_after_the_cap_filled_records_no_write_of_its_own(
    user: Any, settings: Any
) -> None:
    flow = flow_with_card(user)
    settings.LIGHTNOTE_MAX_TODOS = 1
    todo_services.todo_create(owner=user, title="filled on the page", channel="page")

    outcome = flow.confirm().json()["outcome"]

    assert outcome["error"]["code"] == "TODO_LIMIT_REACHED"
    assert [event.details["channel"] for event in write_events()] == ["page"]


@pytest.mark.parametrize(
    ("language", "event", "channel"),
    [("zh-hans", "待办已创建", "网页"), ("en", "todo created", "web page")],
)
def test_the_admins_audit_list_names_write_events_and_channels_in_its_language(
    make_user: Any, user: Any, language: str, event: str, channel: str
) -> None:
    todo_services.todo_create(owner=user, title="t", channel="page")
    staff = Client()
    staff.force_login(make_user("root", is_staff=True, is_superuser=True))
    staff.cookies["django_language"] = language

    html = staff.get("/admin/lightnote/auditevent/").content.decode()
    cells = html[html.index("<tbody>") : html.index("</tbody>")]

    assert event in cells
    assert channel in cells
    assert "todo.created" not in cells


# --- the account's other writes ---------------------------------------------------------------


def test_preferences_and_the_calendar_address_are_audited_on_their_channels(
    user: Any, alice_api: Any, browser: Client
) -> None:
    assert browser.post("/settings/", {"time_zone": "Asia/Tokyo", "language": "en"}).status_code
    assert alice_api.patch("/api/v1/me/", {"language": "zh-CN"}, format="json").status_code == 200
    assert alice_api.post("/api/v1/calendar/feed/", {}, format="json").status_code == 201
    assert alice_api.delete("/api/v1/calendar/feed/").status_code == 204
    assert alice_api.delete("/api/v1/calendar/feed/").status_code == 204  # none left: no event

    events = [(e.event_type, e.details["channel"], e.subject_id) for e in write_events()]
    calendar = [e for e in AuditEvent.objects.order_by("id") if e.event_type.startswith("cal")]

    assert events == [
        ("user.preferences_updated", "page", user.pk),
        ("user.preferences_updated", "api", user.pk),
    ]
    assert [(e.event_type, e.details["channel"]) for e in calendar] == [
        ("calendar_feed.created", "api"),
        ("calendar_feed.revoked", "api"),
    ]
    assert calendar[0].details["item_id"] == calendar[1].details["item_id"]


def test_a_password_set_in_the_admin_is_audited_with_the_staff_member(
    make_user: Any, user: Any
) -> None:
    staff = make_user("root", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    url = f"/admin/lightnote/user/{user.pk}/password/"
    form = {"password1": "a-New-pw-7391", "password2": "a-New-pw-7391", "usable_password": "true"}

    response = admin.post(url, {**form, "set-password": "1"})

    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("a-New-pw-7391")
    event = only_write("user.password_changed")
    assert (event.actor_id, event.subject_id, event.details["channel"]) == (
        staff.pk,
        user.pk,
        "admin",
    )


def test_a_sign_up_on_the_page_and_through_the_api_is_audited_on_its_channel() -> None:
    from rest_framework.test import APIClient

    from lightnote.models import User

    password = "tulip-harbor-9431"
    page = Client().post(
        "/accounts/signup/", {"username": "carol", "email": "c@example.com", "password": password}
    )
    api = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "dave", "email": "d@example.com", "password": password},
        format="json",
    )

    assert (page.status_code, api.status_code) == (200, 201)  # the page shows "check your mail"
    carol, dave = User.objects.get(username="carol"), User.objects.get(username="dave")
    assert [(e.event_type, e.subject_id, e.details["channel"]) for e in write_events()] == [
        ("user.created", carol.pk, "page"),
        ("user.created", dave.pk, "api"),
    ]
