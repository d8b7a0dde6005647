"""Issue 10, the admin-console half: read-only impersonation by construction, started from the
admin (contract: docs/api.md and docs/security.md, "Admin read-only impersonation").

Rows 1 and 2 of the issue, the one-place gate for every entry, the admin's start -> banner
-> end flow with a reason, the record of requests made under a context, the translated
admin in one time zone, and the chat page showing the subject's conversations read-only.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from agent.models import AgentSession, Message
from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
from lightnote.impersonation.contexts import CONTEXT_LIFETIME, admin_context_start
from lightnote.models import AdminContext, AuditEvent
from mcpserver.models import McpToken
from notes import services as note_services
from tests.agent_helpers import CREATE_TODO_TEXT, open_session, send_message
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

START = "/api/v1/admin/impersonation/"
HTMX = {"HTTP_HX_REQUEST": "true"}


def code(response: Any) -> str:
    return response.json()["error"]["code"]


def refusals() -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(event_type="admin.write_refused"))


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("staff", is_staff=True, is_superuser=True, time_zone="Europe/London")


def api_context(client_for: Any, staff: Any, subject: Any, **body: Any) -> tuple[Any, str]:
    started = client_for(staff).post(START, {"user_id": subject.id, **body}, format="json")
    assert started.status_code == 201, started.content
    context_id = started.json()["context_id"]
    return client_for(staff, **{"X-Admin-Context": context_id}), context_id


def browser_context(staff: Any, subject: Any, **client_kwargs: Any) -> tuple[Client, str]:
    """A logged-in staff browser holding a context on ``subject`` (as the admin starts it)."""
    context = admin_context_start(staff=staff, subject_id=subject.pk, reason="ticket 42")
    browser = Client(**client_kwargs)
    browser.force_login(staff)
    session = browser.session
    session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    session.save()
    return browser, str(context.id)


# --- row 1: never into the subject's conversation ------------------------------------------


def test_row1_api_message_to_the_subjects_session_is_403_and_writes_nothing(
    alice_api, client_for, staff, user
) -> None:
    subject_session = open_session(alice_api)
    send_message(alice_api, subject_session, "最近没完成的待办")
    before = Message.objects.filter(session_id=subject_session).count()
    admin, context_id = api_context(client_for, staff, user)

    response = admin.post(
        f"/api/v1/agent/sessions/{subject_session}/messages/",
        {"text": "please delete everything"},
        format="json",
    )

    assert (response.status_code, code(response)) == (403, "ADMIN_READONLY")
    assert Message.objects.filter(session_id=subject_session).count() == before
    assert not Message.objects.filter(text="please delete everything").exists()
    (refused,) = refusals()
    assert (refused.actor, refused.subject, refused.code) == (staff, user, "ADMIN_READONLY")
    assert refused.details["context_id"] == context_id
    assert refused.details["path"] == f"/api/v1/agent/sessions/{subject_session}/messages/"


def test_row1_staff_messages_go_to_a_staff_owned_session_bound_to_the_context(
    alice_api, client_for, staff, user
) -> None:
    todo_services.todo_create(owner=user, title="交报告")
    subject_session = open_session(alice_api)
    admin, context_id = api_context(client_for, staff, user)

    own = open_session(admin)
    session = AgentSession.objects.get(id=own)
    assert (session.owner, str(session.admin_context_id)) == (staff, context_id)
    write = send_message(admin, own, CREATE_TODO_TEXT)
    assert write["cards"] == []
    assert [(n["status"], n["code"]) for n in write["notices"]] == [("rejected", "ADMIN_READONLY")]
    read = send_message(admin, own, "最近没完成的待办")
    assert "交报告" in read["reply"]  # reads the subject's data through the context
    assert Todo.objects.filter(owner=user).count() == 1
    # Readable in the context; the list stays the subject's own conversations.
    assert admin.get(f"/api/v1/agent/sessions/{own}/messages/").status_code == 200
    listed = [row["id"] for row in admin.get("/api/v1/agent/sessions/").json()["results"]]
    assert listed == [subject_session]
    assert not Message.objects.filter(session_id=subject_session).exists()

    # Without the context the conversation is nobody's to use, and never listed.
    assert admin.delete(START).status_code == 204
    staff_api = client_for(staff)
    assert staff_api.get("/api/v1/agent/sessions/").json()["results"] == []
    for response in (
        staff_api.get(f"/api/v1/agent/sessions/{own}/messages/"),
        staff_api.post(f"/api/v1/agent/sessions/{own}/messages/", {"text": "hi"}, format="json"),
    ):
        assert (response.status_code, code(response)) == (404, "SESSION_NOT_FOUND")


def test_row1_another_context_cannot_use_the_first_contexts_session(
    client_for, staff, user, other_user
) -> None:
    first, _ = api_context(client_for, staff, user)
    own = open_session(first)
    second, _ = api_context(client_for, staff, other_user)
    response = second.post(f"/api/v1/agent/sessions/{own}/messages/", {"text": "hi"}, format="json")
    assert (response.status_code, code(response)) == (403, "ADMIN_READONLY")


@pytest.mark.parametrize("htmx", [False, True], ids=["no-js", "htmx"])
def test_row1_chat_page_message_to_the_subjects_session_is_403(staff, user, htmx) -> None:
    subject_session = AgentSession.objects.create(owner=user)
    browser, context_id = browser_context(staff, user)

    response = browser.post(
        "/chat/message/",
        {"text": "plant this", "session_id": str(subject_session.id)},
        **(HTMX if htmx else {}),
    )

    assert response.status_code == 403
    assert 'data-code="ADMIN_READONLY"' in response.content.decode()
    assert not Message.objects.exists()
    (refused,) = refusals()
    assert (refused.actor, refused.subject, refused.details["context_id"]) == (
        staff,
        user,
        context_id,
    )


def test_chat_page_messages_in_a_context_go_to_the_context_session(staff, user) -> None:
    browser, context_id = browser_context(staff, user)
    browser.get("/")
    own = browser.session["lightnote_agent_session"]
    response = browser.post(
        "/chat/message/", {"text": "最近没完成的待办", "session_id": own}, **HTMX
    )
    assert response.status_code == 200
    session = AgentSession.objects.get(id=own)
    assert (session.owner, str(session.admin_context_id)) == (staff, context_id)
    assert Message.objects.filter(session=session).count() == 2
    assert not AgentSession.objects.filter(owner=user).exists()


# --- row 2: the Django admin's forms --------------------------------------------------------


def test_row2_admin_forms_are_refused_while_a_context_is_active(staff, user) -> None:
    browser, context_id = browser_context(staff, user)
    change = f"/admin/lightnote/user/{user.id}/change/"
    form = {
        "username": user.username,
        "time_zone": "UTC",
        "language": "en",
        "is_active": "on",
        "is_staff": "on",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
    }

    refused = browser.post(change, form)
    deleted = browser.post(f"/admin/lightnote/user/{user.id}/delete/", {"post": "yes"})

    assert (refused.status_code, deleted.status_code) == (403, 403)
    page = refused.content.decode()
    assert 'data-code="ADMIN_READONLY"' in page
    assert "admin-context-banner" in page  # the page says why, with the way out
    user.refresh_from_db()
    assert (user.time_zone, user.language, user.is_staff, user.is_active) == (
        "Asia/Shanghai",
        "zh-CN",
        False,
        True,
    )
    events = refusals()
    assert len(events) == 2
    assert {(e.actor_id, e.subject_id, e.details["context_id"]) for e in events} == {
        (staff.id, user.id, context_id)
    }
    assert {e.details["what"] for e in events} == {
        "admin:lightnote_user_change",
        "admin:lightnote_user_delete",
    }

    # Ending it is the one admin POST that passes; then the form works again.
    ended = browser.post("/admin/lightnote/admincontext/end/")
    assert ended.status_code == 302
    assert AdminContext.objects.get(id=context_id).ended_at is not None
    assert browser.post(change, form).status_code == 302
    user.refresh_from_db()
    assert user.time_zone == "UTC"


# --- one place for every entry ------------------------------------------------------------


def test_every_entry_is_refused_in_one_place_and_audited(staff, user) -> None:
    todo = todo_services.todo_create(owner=user, title="keep")
    note = note_services.note_create(owner=user, title="keep")
    subject_session = AgentSession.objects.create(owner=user)
    browser, context_id = browser_context(staff, user)
    attempts = [
        ("REST", "post", "/api/v1/todos/", {"title": "planted"}),
        ("REST session", "patch", f"/api/v1/agent/sessions/{subject_session.id}/", {"title": "x"}),
        ("chat confirm", "post", "/chat/confirm/", {"token": "t" * 43}),
        ("chat reissue", "post", "/chat/reissue/", {"card_id": str(uuid.uuid4())}),
        ("todo page", "post", "/todos/", {"title": "planted"}),
        ("todo item", "post", f"/todos/{todo.id}/", {"action": "delete", "version": "1"}),
        ("note item", "post", f"/notes/{note.id}/", {"action": "delete", "version": "1"}),
        ("settings", "post", "/settings/", {"time_zone": "UTC", "language": "en"}),
        ("MCP settings", "post", "/settings/mcp/", {"name": "planted"}),
        ("Django admin", "post", "/admin/todos/todo/add/", {"title": "planted"}),
    ]
    answers = {}
    for name, method, path, data in attempts:
        if path.startswith("/api/"):
            response = getattr(browser, method)(
                path, json.dumps(data), content_type="application/json"
            )
            answers[name] = (response.status_code, code(response))
        else:
            response = getattr(browser, method)(path, data)
            found = re.search(r'data-code="([A-Z_]+)"', response.content.decode())
            answers[name] = (response.status_code, found and found.group(1))
    assert answers == {name: (403, "ADMIN_READONLY") for name, *_ in attempts}
    assert not Todo.objects.filter(title="planted").exists()
    assert Todo.objects.filter(id=todo.id, deleted_at__isnull=True).exists()
    assert note.__class__.objects.filter(id=note.id, deleted_at__isnull=True).exists()
    assert not McpToken.objects.exists()
    events = refusals()
    assert len(events) == len(attempts)
    assert {(e.actor_id, e.subject_id, e.details["context_id"]) for e in events} == {
        (staff.id, user.id, context_id)
    }


def test_a_future_view_is_covered_without_any_check_of_its_own(settings, staff, user) -> None:
    settings.ROOT_URLCONF = "tests.readonly_future_urls"
    browser, _ = browser_context(staff, user)
    assert browser.get("/future/").status_code == 200
    response = browser.post("/future/", {"title": "planted"})
    assert response.status_code == 403
    assert not Todo.objects.exists()
    assert len(refusals()) == 1


def test_ending_logging_out_and_the_language_pass(staff, user) -> None:
    browser, context_id = browser_context(staff, user)
    language = browser.post("/chat/language/", {"language": "en", "next": "/todos/"})
    assert (language.status_code, language["Location"]) == (302, "/todos/")
    ended = browser.post("/admin/lightnote/admincontext/end/")
    assert ended.status_code == 302
    assert ended["Location"] == f"/admin/lightnote/admincontext/{context_id}/change/"
    again, second_id = browser_context(staff, user)
    assert again.post("/accounts/logout/").status_code == 302
    assert AdminContext.objects.get(id=second_id).ended_at is not None  # logging out ends it
    assert refusals() == []


# --- check order --------------------------------------------------------------------------


TOKEN_BODY = {"token": "t" * 43, "session_id": str(uuid.uuid4())}
CARD_BODY = {"card_id": str(uuid.uuid4()), "session_id": str(uuid.uuid4())}


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/api/v1/agent/confirmations/confirm/", TOKEN_BODY),
        ("/api/v1/agent/confirmations/edit/", {**TOKEN_BODY, "args": {"title": "x"}}),
        ("/api/v1/agent/confirmations/undo/", CARD_BODY),
        ("/api/v1/agent/confirmations/reissue/", CARD_BODY),
        ("/api/v1/agent/continuations/reply/", TOKEN_BODY),
    ],
)
def test_body_shape_then_authentication_then_admin_readonly(url, body, client_for, staff, user):
    from rest_framework.test import APIClient

    admin, _ = api_context(client_for, staff, user)
    malformed = admin.post(url, {"bogus": 1}, format="json")
    assert (malformed.status_code, code(malformed)) == (400, "VALIDATION_ERROR")
    assert refusals() == []  # a 400 is not a refusal
    anonymous = APIClient().post(url, body, format="json")
    assert (anonymous.status_code, code(anonymous)) == (401, "NOT_AUTHENTICATED")
    refused = admin.post(url, body, format="json")
    assert (refused.status_code, code(refused)) == (403, "ADMIN_READONLY")
    assert len(refusals()) == 1


# --- starting from the admin, the banner, ending ------------------------------------------


def test_admin_user_page_and_list_offer_the_read_only_view(staff, user) -> None:
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(staff)
    start_url = f"/admin/lightnote/user/{user.id}/impersonate/"
    assert start_url in browser.get(f"/admin/lightnote/user/{user.id}/change/").content.decode()
    assert start_url in browser.get("/admin/lightnote/user/").content.decode()
    chosen = browser.post(
        "/admin/lightnote/user/",
        {"action": "view_as_action", "_selected_action": [str(user.id)]},
    )
    assert (chosen.status_code, chosen["Location"]) == (302, start_url)
    confirmation = browser.get(start_url).content.decode()
    assert 'name="reason"' in confirmation
    assert "alice" in confirmation
    # The step names the context's real lifetime (the one admin_context_start gives it).
    assert f"for at most {CONTEXT_LIFETIME.total_seconds() / 60:.0f} minutes" in confirmation
    assert not AdminContext.objects.exists()  # showing the step starts nothing


def test_start_needs_a_reason_then_banner_everywhere_then_end_returns_to_the_admin(
    staff, user
) -> None:
    todo = todo_services.todo_create(owner=user, title="alice's todo")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(staff)
    start_url = f"/admin/lightnote/user/{user.id}/impersonate/"

    missing = browser.post(start_url, {"reason": "   "})
    assert missing.status_code == 400
    assert not AdminContext.objects.exists()

    started = browser.post(start_url, {"reason": "Support ticket 42"})
    assert (started.status_code, started["Location"]) == (302, "/")
    context = AdminContext.objects.get()
    assert (context.staff, context.subject, context.reason) == (staff, user, "Support ticket 42")
    assert browser.session[ADMIN_CONTEXT_SESSION_KEY] == str(context.id)
    event = AuditEvent.objects.get(event_type="admin.context_started")
    assert (event.actor, event.subject, event.details["reason"]) == (
        staff,
        user,
        "Support ticket 42",
    )

    for path in ("/", "/todos/", f"/todos/{todo.id}/", "/notes/", "/settings/", "/settings/mcp/"):
        html = browser.get(path).content.decode()
        assert "admin-context-banner" in html, path
        assert "staff is viewing alice" in html, path
        assert 'action="/admin/lightnote/admincontext/end/"' in html, path
    admin_html = browser.get("/admin/").content.decode()
    assert re.search(r"<strong>staff</strong>.*<strong>alice</strong>", admin_html, re.S)
    assert 'action="/admin/lightnote/admincontext/end/"' in admin_html
    assert "Support ticket 42" in admin_html

    ended = browser.post("/admin/lightnote/admincontext/end/")
    assert ended["Location"] == f"/admin/lightnote/admincontext/{context.id}/change/"
    context.refresh_from_db()
    assert context.ended_at is not None
    assert ADMIN_CONTEXT_SESSION_KEY not in browser.session
    assert "admin-context-banner" not in browser.get("/").content.decode()

    # The admin shows the context with its reason, times and the requests made under it.
    detail = browser.get(ended["Location"]).content.decode()
    assert "Support ticket 42" in detail
    for path in ("/todos/", f"/todos/{todo.id}/", "/settings/mcp/"):
        assert f"<td>{path}</td>" in detail, path
    assert "admin.context_ended" in detail
    listing = browser.get("/admin/lightnote/admincontext/").content.decode()
    assert "Support ticket 42" in listing
    assert '<td class="field-status">ended</td>' in listing


def test_requests_under_a_context_are_recorded(client_for, staff, user) -> None:
    admin, context_id = api_context(client_for, staff, user, reason="audit")
    admin.get("/api/v1/todos/")
    admin.post("/api/v1/todos/", {"title": "x"}, format="json")
    recorded = AuditEvent.objects.filter(details__context_id=context_id).order_by("id")
    assert [(e.event_type, e.details.get("method"), e.details.get("status")) for e in recorded] == [
        ("admin.context_started", None, None),
        ("admin.request", "GET", 200),
        ("admin.write_refused", "POST", None),
    ]
    assert AdminContext.objects.get(id=context_id).reason == "audit"


def test_api_reason_is_optional_and_bounded(client_for, staff, user) -> None:
    staff_api = client_for(staff)
    assert staff_api.post(START, {"user_id": user.id}, format="json").status_code == 201
    too_long = staff_api.post(START, {"user_id": user.id, "reason": "x" * 501}, format="json")
    assert (too_long.status_code, list(too_long.json()["error"]["fields"])) == (400, ["reason"])
    assert list(AdminContext.objects.values_list("reason", flat=True)) == [""]


def test_a_context_expires_on_its_own_and_the_banner_goes(staff, user) -> None:
    browser, _ = browser_context(staff, user)
    assert "admin-context-banner" in browser.get("/todos/").content.decode()
    started = timezone.now()
    with time_machine.travel(started + CONTEXT_LIFETIME - dt.timedelta(minutes=1), tick=False):
        assert "admin-context-banner" in browser.get("/todos/").content.decode()
    with time_machine.travel(started + CONTEXT_LIFETIME + dt.timedelta(minutes=1), tick=False):
        assert "admin-context-banner" not in browser.get("/todos/").content.decode()
        assert browser.post("/todos/", {"title": "mine"}).status_code in (302, 200)
    assert Todo.objects.filter(owner=staff, title="mine").exists()


# --- the chat page shows the subject's conversations read-only ------------------------------


def test_chat_page_in_a_context_lists_and_shows_the_subjects_conversations(
    alice_api, staff, user
) -> None:
    subject_session = open_session(alice_api)
    send_message(alice_api, subject_session, "最近没完成的待办")
    AgentSession.objects.filter(id=subject_session).update(title="alice's question")
    untitled = open_session(alice_api)
    browser, _ = browser_context(staff, user, HTTP_ACCEPT_LANGUAGE="en")

    home = browser.get("/").content.decode()
    assert "alice&#x27;s conversations (read-only)" in home
    assert f'href="/?conversation={subject_session}"' in home
    # An untitled one is named as in the user's own list, never by a piece of its id.
    assert f'href="/?conversation={untitled}">Untitled conversation</a>' in home
    assert 'id="conversations"' not in home  # the staff member's own list is not shown
    assert 'id="composer"' in home  # the staff member's own read-only conversation
    assert "never offers a card" in home

    viewed = browser.get(f"/?conversation={subject_session}").content.decode()
    assert "最近没完成的待办" in viewed  # the subject's history
    assert 'id="composer"' not in viewed
    assert "nothing can be sent into it" in viewed


def _subject_links(page: str) -> list[str]:
    """The conversation ids the admin context's list links to, in order."""
    nav = page.split('class="subject-conversations"', 1)[1].split("</nav>", 1)[0]
    return re.findall(r'<li><a href="/\?conversation=([0-9a-f-]{36})[&"]', nav)


def _older_link(page: str) -> str | None:
    found = re.search(r'class="conversations-older" href="([^"]+)"', page)
    return found.group(1).replace("&amp;", "&") if found else None


def test_the_subjects_conversations_page_past_50_and_keep_the_one_viewed(staff, user) -> None:
    from agent.conversation import sessions

    created = [str(sessions.session_create(owner=user).id) for _ in range(55)]
    browser, _ = browser_context(staff, user, HTTP_ACCEPT_LANGUAGE="en")

    first = browser.get("/").content.decode()
    first_ids = _subject_links(first)
    older = _older_link(first)
    assert len(first_ids) == 50
    assert older is not None
    assert "Back to the newest conversations" not in first

    second = browser.get(older).content.decode()
    second_ids = _subject_links(second)
    assert len(second_ids) == 5
    assert _older_link(second) is None
    assert sorted(first_ids + second_ids) == sorted(created)  # each exactly once

    # A conversation opened from the second page is viewed there, the list still from there.
    cursor = older.split("older=", 1)[1]
    viewed = browser.get(f"/?conversation={second_ids[0]}&older={cursor}").content.decode()
    assert _subject_links(viewed) == second_ids
    assert f'?conversation={second_ids[0]}&amp;older={cursor}" aria-current="page"' in viewed
    assert f'class="conversations-newest" href="/?conversation={second_ids[0]}"' in viewed
    assert 'id="composer"' not in viewed

    # A cursor that is not one shows the newest.
    assert _subject_links(browser.get("/?older=not-a-cursor").content.decode()) == first_ids


# --- translated admin, one time zone ----------------------------------------------------------


def test_admin_is_translated(staff, user) -> None:
    admin_context_start(staff=staff, subject_id=user.id, reason="r")
    browser = Client()
    browser.force_login(staff)
    zh = browser.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    en = browser.get("/admin/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for text in ("管理员查看记录", "审计事件", "确认卡", "操作回执"):
        assert text in zh, text
    for text in ("Admin contexts", "Audit events", "Action cards"):
        assert text in en, text
    listing = browser.get("/admin/lightnote/admincontext/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "进行中" in listing.content.decode()


def test_the_todo_and_note_admin_is_translated(staff, user) -> None:
    from todos import services as todo_services

    todo_services.todo_create(owner=user, title="交报告", priority=2)
    browser = Client()
    browser.force_login(staff)
    index = browser.get("/admin/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    todos = browser.get("/admin/todos/todo/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    english = browser.get("/admin/todos/todo/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert "待办" in index  # the model names
    assert "笔记" in index
    for text in ("未完成", "高", "优先级", "已完成"):  # statuses, a priority, a column, a filter
        assert text in todos, text
    assert ">open<" not in todos  # the status filter speaks Chinese too
    done_only = browser.get("/admin/todos/todo/?status=done", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "交报告" not in done_only.content.decode()
    garbage = browser.get("/admin/todos/todo/?priority=x", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert garbage.status_code == 200
    assert ">open<" in english
    assert ">high<" in english


def test_every_admin_screen_shows_the_staff_members_zone(staff, user) -> None:
    moment = dt.datetime(2026, 7, 1, 12, 0, tzinfo=dt.UTC)  # 13:00 in London (BST)
    with time_machine.travel(moment, tick=False):
        context = admin_context_start(staff=staff, subject_id=user.id, reason="r")
    event = AuditEvent.objects.get(event_type="admin.context_started")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en")
    browser.force_login(staff)
    shown = "2026-07-01 13:00:00 (Europe/London)"
    expires = "2026-07-01 13:20:00 (Europe/London)"
    listing = browser.get("/admin/lightnote/auditevent/").content.decode()
    detail = browser.get(f"/admin/lightnote/auditevent/{event.id}/change/").content.decode()
    contexts = browser.get("/admin/lightnote/admincontext/").content.decode()
    context_page = browser.get(f"/admin/lightnote/admincontext/{context.id}/change/")
    assert shown in listing
    assert shown in detail
    assert expires in detail  # the details' times too, never raw UTC
    assert "12:00" not in detail
    assert shown in contexts
    assert expires in contexts
    assert shown in context_page.content.decode()


def _po_entries(text: str) -> dict[tuple[str | None, str], str]:
    """(msgctxt, msgid) -> msgstr of a .po file (continuation lines joined)."""

    def joined(block: str) -> str:
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', block)
        return "".join(parts).replace('\\"', '"').replace("\\n", "\n")

    pattern = re.compile(r'^(?:msgctxt (".*")\n)?msgid ((?:".*"\n)+)msgstr ((?:".*"\n)+)', re.M)
    return {
        (joined(m.group(1)) if m.group(1) else None, joined(m.group(2))): joined(m.group(3))
        for m in pattern.finditer(text)
    }


def test_the_admin_translations_are_complete_and_compiled() -> None:
    import gettext
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "locale" / "zh_Hans" / "LC_MESSAGES"
    text = (folder / "django.po").read_text(encoding="utf-8")
    assert "#, fuzzy" not in text
    entries = _po_entries(text)
    entries.pop((None, ""))  # the header
    assert entries
    assert [key for key, msgstr in entries.items() if not msgstr] == []
    with (folder / "django.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)

    def compiled_text(context: str | None, msgid: str) -> str:
        return catalog.pgettext(context, msgid) if context else catalog.gettext(msgid)

    stale = [key for key, msgstr in entries.items() if compiled_text(*key) != msgstr]
    assert stale == []  # run `manage.py compilemessages -l zh_Hans` after editing the .po


def test_the_admin_keeps_djangos_own_words(staff, user) -> None:
    """Our catalogue must not re-translate Django's: a user's "active" stays 有效."""
    browser = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    browser.force_login(staff)
    page = browser.get(f"/admin/lightnote/user/{user.id}/change/").content.decode()
    assert "有效" in page
    assert "进行中" not in page
