"""The todo, note and settings pages, driven with Django's test client.

They write through the same services as the API, with the version each form was rendered
at; they show only the owner's items (another user's id is a 404), read every time in the
owner's zone, refuse writes inside an admin read-only context, and answer bad input with a
sentence in the page's language and a 4xx status — never a 500 and never a partial write.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.test import Client

from lightnote.impersonation.context import ADMIN_CONTEXT_SESSION_KEY
from lightnote.impersonation.contexts import admin_context_start
from notes import services as note_services
from notes.models import Note
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user: object) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)  # type: ignore[arg-type]
    return client


def _html(response: object) -> str:
    return response.content.decode()  # type: ignore[attr-defined]


# --- Todos ---------------------------------------------------------------------------------


def test_pages_require_login() -> None:
    for path in (
        "/todos/",
        "/notes/",
        "/settings/",
        "/todos/00000000-0000-0000-0000-000000000000/",
    ):
        response = Client().get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")


def test_todo_list_shows_only_the_owners_todos(browser: Client, user, other_user) -> None:
    todo_services.todo_create(owner=user, title="Mine")
    todo_services.todo_create(owner=other_user, title="Theirs")
    page = _html(browser.get("/todos/"))
    assert "Mine" in page
    assert "Theirs" not in page


def test_empty_todo_list_explains_what_to_do(browser: Client) -> None:
    page = _html(browser.get("/todos/"))
    assert "No todos yet" in page


def test_create_todo_reads_the_picker_in_the_owners_zone(browser: Client, user) -> None:
    user.time_zone = "America/New_York"
    user.save(update_fields=["time_zone"])
    response = browser.post(
        "/todos/", {"title": " Send the report ", "priority": "2", "due_at": "2026-12-02T21:00"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/todos/"
    todo = Todo.objects.get(owner=user)
    assert todo.title == "Send the report"
    assert todo.priority == 2
    assert todo.due_at == datetime(2026, 12, 2, 21, 0, tzinfo=ZoneInfo("America/New_York"))
    follow = _html(browser.get("/todos/"))
    assert "Todo “Send the report” added." in follow
    assert "2026-12-02 21:00" in follow  # shown in the owner's zone, not the server's


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": "   "}, "A todo needs a title."),
        ({"title": "x" * 201}, "A todo title has at most 200 characters."),
        ({"title": "ok", "priority": "7"}, "Priority must be 0 (low), 1 (normal) or 2 (high)."),
        ({"title": "ok", "priority": "high"}, "Priority must be 0 (low), 1 (normal) or 2 (high)."),
        ({"title": "ok", "due_at": "tomorrow-ish"}, "The due time is not clear"),
    ],
)
def test_create_todo_refuses_bad_input_with_a_sentence(
    browser: Client, user, fields: dict[str, str], message: str
) -> None:
    response = browser.post("/todos/", fields)
    assert response.status_code == 400
    assert message in _html(response)
    assert not Todo.objects.filter(owner=user).exists()


def test_create_todo_message_follows_the_page_language(user) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-CN")
    client.force_login(user)
    response = client.post("/todos/", {"title": ""})
    assert response.status_code == 400
    assert "待办标题不能为空。" in _html(response)


def test_todo_filters_and_search(browser: Client, user) -> None:
    todo_services.todo_create(owner=user, title="Buy milk")
    done = todo_services.todo_create(owner=user, title="Call mom")
    todo_services.todo_set_status(owner=user, todo_id=done.id, status="done")
    assert "Call mom" not in _html(browser.get("/todos/?status=open"))
    assert "Buy milk" not in _html(browser.get("/todos/?status=done"))
    searched = _html(browser.get("/todos/?q=milk"))
    assert "Buy milk" in searched
    assert "Call mom" not in searched
    assert "No todo matches these filters." in _html(browser.get("/todos/?q=nothing-like-it"))


def test_todo_pages_page_through_without_counting(
    browser: Client, user, django_assert_max_num_queries
) -> None:
    for number in range(45):
        todo_services.todo_create(owner=user, title=f"Item {number:02d}")
    with django_assert_max_num_queries(8):
        first = _html(browser.get("/todos/"))
    assert "Item 44" in first
    assert "Item 24" not in first
    assert 'rel="next"' in first
    assert 'rel="prev"' not in first
    third = _html(browser.get("/todos/?page=3"))
    assert "Item 04" in third
    assert 'rel="next"' not in third
    assert 'rel="prev"' in third
    assert browser.get("/todos/?page=banana").status_code == 200


def test_other_users_todo_is_not_found(browser: Client, other_user) -> None:
    theirs = todo_services.todo_create(owner=other_user, title="Secret")
    response = browser.get(f"/todos/{theirs.id}/")
    assert response.status_code == 404
    assert "Secret" not in _html(response)
    post = browser.post(f"/todos/{theirs.id}/", {"action": "delete", "version": "1"})
    assert post.status_code == 404
    assert Todo.objects.filter(id=theirs.id).exists()
    assert browser.get("/todos/not-a-uuid/").status_code == 404


def test_edit_todo_is_version_checked(browser: Client, user) -> None:
    todo = todo_services.todo_create(owner=user, title="Draft")
    response = browser.post(
        f"/todos/{todo.id}/",
        {
            "action": "save",
            "version": "1",
            "title": "Final",
            "description": "a\r\nb",
            "priority": "0",
            "due_at": "",
        },
    )
    assert response.status_code == 302
    todo.refresh_from_db()
    assert (todo.title, todo.description, todo.priority, todo.version) == ("Final", "a\nb", 0, 2)
    stale = browser.post(
        f"/todos/{todo.id}/",
        {"action": "save", "version": "1", "title": "Lost update", "priority": "1"},
    )
    assert stale.status_code == 409
    assert "changed meanwhile" in _html(stale)
    todo.refresh_from_db()
    assert todo.title == "Final"


def test_saving_an_untouched_form_keeps_the_stored_due_instant(browser: Client, user) -> None:
    due = datetime(2026, 12, 2, 21, 0, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
    todo = todo_services.todo_create(owner=user, title="Report", due_at=due)
    page = _html(browser.get(f"/todos/{todo.id}/"))
    assert 'value="2026-12-02T21:00"' in page
    browser.post(
        f"/todos/{todo.id}/",
        {
            "action": "save",
            "version": "1",
            "title": "Report",
            "priority": "1",
            "due_at": "2026-12-02T21:00",
        },
    )
    todo.refresh_from_db()
    assert todo.due_at == due


def test_complete_reopen_and_delete_a_todo(browser: Client, user) -> None:
    todo = todo_services.todo_create(owner=user, title="Walk")
    assert browser.post(f"/todos/{todo.id}/", {"action": "done", "version": "1"}).status_code == 302
    todo.refresh_from_db()
    assert (todo.status, todo.version) == ("done", 2)
    assert "Reopen" in _html(browser.get(f"/todos/{todo.id}/"))
    browser.post(f"/todos/{todo.id}/", {"action": "open", "version": "2"})
    todo.refresh_from_db()
    assert todo.status == "open"
    confirm = _html(browser.get(f"/todos/{todo.id}/?confirm=delete"))
    assert "Delete this todo?" in confirm
    stale = browser.post(f"/todos/{todo.id}/", {"action": "delete", "version": "1"})
    assert stale.status_code == 409
    assert Todo.objects.filter(id=todo.id).exists()
    deleted = browser.post(f"/todos/{todo.id}/", {"action": "delete", "version": "3"})
    assert deleted.status_code == 302
    assert deleted["Location"] == "/todos/"
    assert not Todo.objects.filter(id=todo.id).exists()
    assert "Todo “Walk” deleted." in _html(browser.get("/todos/"))


@pytest.mark.parametrize(
    "fields",
    [{"action": "done"}, {"action": "done", "version": "x"}, {"action": "explode", "version": "1"}],
)
def test_todo_actions_refuse_a_missing_version_or_unknown_action(
    browser: Client, user, fields: dict[str, str]
) -> None:
    todo = todo_services.todo_create(owner=user, title="Keep")
    response = browser.post(f"/todos/{todo.id}/", fields)
    assert response.status_code == 400
    todo.refresh_from_db()
    assert (todo.status, todo.version) == ("open", 1)


def test_page_forms_need_csrf(user) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.post("/todos/", {"title": "x"}).status_code == 403
    assert not Todo.objects.exists()


# --- Notes ---------------------------------------------------------------------------------


def test_create_note_with_tags_and_filter_by_tag(browser: Client, user) -> None:
    response = browser.post(
        "/notes/",
        {"title": "Weekly", "content": "line one\r\nline two", "tags": "work，meeting, work"},
    )
    assert response.status_code == 302
    note = Note.objects.get(owner=user)
    assert note.content == "line one\nline two"
    assert note.tags == ["work", "meeting"]
    note_services.note_create(owner=user, title="Recipe", tags=["home"])
    tagged = _html(browser.get("/notes/?tag=meeting"))
    assert "Weekly" in tagged
    assert "Recipe" not in tagged
    searched = _html(browser.get("/notes/?q=two"))
    assert "Weekly" in searched
    assert "Recipe" not in searched


def test_edit_and_delete_a_note(browser: Client, user, other_user) -> None:
    note = note_services.note_create(owner=user, title="Plan", content="v1")
    browser.post(
        f"/notes/{note.id}/",
        {"action": "save", "version": "1", "title": "Plan", "content": "v2", "tags": ""},
    )
    note.refresh_from_db()
    assert (note.content, note.version) == ("v2", 2)
    stale = browser.post(
        f"/notes/{note.id}/", {"action": "save", "version": "1", "title": "x", "content": "x"}
    )
    assert stale.status_code == 409
    theirs = note_services.note_create(owner=other_user, title="Diary")
    assert browser.get(f"/notes/{theirs.id}/").status_code == 404
    browser.post(f"/notes/{note.id}/", {"action": "delete", "version": "2"})
    assert not Note.objects.filter(id=note.id).exists()


def test_note_refuses_an_empty_title(browser: Client, user) -> None:
    response = browser.post("/notes/", {"title": "", "content": "text"})
    assert response.status_code == 400
    assert not Note.objects.exists()


# --- Settings ------------------------------------------------------------------------------


def test_settings_change_zone_and_language(browser: Client, user) -> None:
    page = _html(browser.get("/settings/"))
    assert 'value="Asia/Shanghai" selected' in page
    response = browser.post("/settings/", {"time_zone": "America/New_York", "language": "en"})
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.time_zone, user.language) == ("America/New_York", "en")
    assert response.cookies["django_language"].value == "en"
    assert "America/New_York" in _html(browser.get("/todos/"))  # the header shows the zone
    again = browser.post("/settings/", {"time_zone": "Asia/Tokyo", "language": "en"})
    assert "django_language" not in again.cookies  # only a changed language switches pages


@pytest.mark.parametrize(
    "fields",
    [
        {"time_zone": "Mars/Olympus", "language": "en"},
        {"time_zone": "", "language": "en"},
        {"time_zone": "Asia/Tokyo", "language": "fr"},
    ],
)
def test_settings_refuse_unknown_values(browser: Client, user, fields: dict[str, str]) -> None:
    response = browser.post("/settings/", fields)
    assert response.status_code == 400
    user.refresh_from_db()
    assert (user.time_zone, user.language) == ("Asia/Shanghai", "zh-CN")


# --- Admin read-only context ---------------------------------------------------------------


def _impersonating(make_user, subject) -> Client:
    staff = make_user("staffer", is_staff=True, is_superuser=True)
    context = admin_context_start(staff=staff, subject_id=subject.pk)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(staff)
    session = client.session
    session[ADMIN_CONTEXT_SESSION_KEY] = str(context.id)
    session.save()
    return client


def test_admin_context_shows_the_subjects_items_read_only(make_user, user) -> None:
    todo = todo_services.todo_create(owner=user, title="Subject's todo")
    note = note_services.note_create(owner=user, title="Subject's note")
    client = _impersonating(make_user, user)
    listing = _html(client.get("/todos/"))
    assert "Subject&#x27;s todo" in listing
    assert "Read-only view" in listing
    assert 'name="title"' not in listing  # no create form
    detail = _html(client.get(f"/todos/{todo.id}/"))
    assert 'name="action"' not in detail
    assert 'name="action"' not in _html(client.get(f"/notes/{note.id}/"))
    for path, fields in (
        ("/todos/", {"title": "planted"}),
        (f"/todos/{todo.id}/", {"action": "delete", "version": "1"}),
        (f"/notes/{note.id}/", {"action": "delete", "version": "1"}),
        ("/settings/", {"time_zone": "UTC", "language": "en"}),
    ):
        assert client.post(path, fields).status_code == 403
    assert Todo.objects.filter(owner=user).count() == 1
    assert Note.objects.filter(id=note.id).exists()
    user.refresh_from_db()
    assert user.time_zone == "Asia/Shanghai"


def test_deleted_items_can_be_restored_from_the_trash_page(browser: Client, user) -> None:
    todo = todo_services.todo_create(owner=user, title="Oops")
    browser.post(f"/todos/{todo.id}/", {"action": "delete", "version": "1"})
    assert f"/todos/{todo.id}/" not in _html(browser.get("/todos/"))
    trash = _html(browser.get("/todos/trash/"))
    assert "Oops" in trash
    stale = browser.post("/todos/trash/", {"id": str(todo.id), "version": "1"})
    assert stale.status_code == 409
    restored = browser.post("/todos/trash/", {"id": str(todo.id), "version": "2"})
    assert restored.status_code == 302
    assert "“Oops” is back from the trash." in _html(browser.get(f"/todos/{todo.id}/"))
    assert "The trash is empty." in _html(browser.get("/todos/trash/"))
    note = note_services.note_create(owner=user, title="Lost note")
    browser.post(f"/notes/{note.id}/", {"action": "delete", "version": "1"})
    assert "Lost note" in _html(browser.get("/notes/trash/"))
    browser.post("/notes/trash/", {"id": str(note.id), "version": "2"})
    assert Note.objects.filter(id=note.id).exists()


def test_the_top_bar_marks_the_section_on_every_page_of_it(browser: Client, user) -> None:
    todo = todo_services.todo_create(owner=user, title="Mine")
    note = note_services.note_create(owner=user, title="Mine", content="")
    sections = {
        "/todos/": "/todos/",
        "/todos/trash/": "/todos/",
        f"/todos/{todo.id}/": "/todos/",
        "/notes/": "/notes/",
        "/notes/trash/": "/notes/",
        f"/notes/{note.id}/": "/notes/",
        "/settings/": "/settings/",
    }
    for url, section in sections.items():
        html = browser.get(url).content.decode()
        nav = html.split('class="site-nav"', 1)[1].split("</nav>", 1)[0]
        assert nav.count('aria-current="page"') == 1, url
        assert f'href="{section}" aria-current="page"' in nav, url
