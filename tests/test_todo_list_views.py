"""The todo list page: by due time (none last), overdue marked, Today / Upcoming / Overdue /
Done views, sorts, and a checkbox that completes a row (version-checked)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user: Any) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def titles(html: str) -> list[str]:
    return re.findall(r'class="item-title" href="[^"]+">([^<]+)</a>', html)


@pytest.fixture
def todos(user: Any) -> dict[str, Todo]:
    now = timezone.now()
    made = {}
    for title, due, priority in (
        ("no due", None, 2),
        ("next week", now + timedelta(days=7), 0),
        ("late", now - timedelta(days=2), 1),
        ("soon", now + timedelta(hours=26), 1),
    ):
        made[title] = todo_services.todo_create(
            owner=user, title=title, due_at=due, priority=priority
        )
    finished = todo_services.todo_create(owner=user, title="finished")
    todo_services.todo_set_status(owner=user, todo_id=finished.id, status="done")
    made["finished"] = finished
    return made


def test_open_todos_come_by_due_time_with_no_due_time_last(browser: Client, todos: Any) -> None:
    html = browser.get("/todos/").content.decode()

    assert titles(html) == ["late", "soon", "next week", "no due"]


def test_an_overdue_todo_is_marked(browser: Client, todos: Any) -> None:
    html = browser.get("/todos/").content.decode()

    (late,) = re.findall(r'<li class="item item-open item-overdue">.*?</li>', html, re.DOTALL)
    assert ">late<" in late
    assert "Overdue" in late
    assert html.count("item-overdue") == 1


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        ("overdue", ["late"]),
        ("upcoming", ["soon", "next week"]),
        ("done", ["finished"]),
    ],
)
def test_each_view_lists_its_todos(
    browser: Client, todos: Any, view: str, expected: list[str]
) -> None:
    html = browser.get(f"/todos/?view={view}").content.decode()

    assert titles(html) == expected
    assert f'href="?view={view}" aria-current="page"' in html


def test_today_lists_what_is_due_today_in_the_owners_zone(browser: Client, user: Any) -> None:
    local_noon = timezone.localtime(timezone.now(), user.zone).replace(hour=12, minute=0)
    todo_services.todo_create(owner=user, title="noon", due_at=local_noon)
    todo_services.todo_create(owner=user, title="tomorrow", due_at=local_noon + timedelta(days=1))

    html = browser.get("/todos/?view=today").content.decode()

    assert titles(html) == ["noon"]


def test_sort_by_priority_puts_high_first(browser: Client, todos: Any) -> None:
    html = browser.get("/todos/?sort=priority").content.decode()

    assert titles(html)[0] == "no due"


def test_the_checkbox_completes_the_todo_and_returns_to_the_same_list(
    browser: Client, todos: Any
) -> None:
    soon = todos["soon"]
    response = browser.post(
        f"/todos/{soon.id}/",
        {"action": "done", "version": soon.version, "back": "?view=upcoming"},
    )

    soon.refresh_from_db()
    assert response.status_code == 302
    assert response["Location"] == "/todos/?view=upcoming"
    assert soon.status == "done"


def test_a_checkbox_from_a_stale_list_is_refused_and_changes_nothing(
    browser: Client, user: Any, todos: Any
) -> None:
    soon = todos["soon"]
    todo_services.todo_update(
        owner=user, todo_id=soon.id, expected_version=soon.version, title="soon (edited)"
    )

    response = browser.post(
        f"/todos/{soon.id}/", {"action": "done", "version": soon.version, "back": "?"}
    )

    soon.refresh_from_db()
    assert response.status_code == 409
    assert soon.status == "open"


def test_back_never_leaves_the_list(browser: Client, todos: Any) -> None:
    soon = todos["soon"]
    response = browser.post(
        f"/todos/{soon.id}/",
        {"action": "done", "version": soon.version, "back": "https://evil.example/"},
    )

    assert response["Location"] == "/todos/"


def test_each_open_row_has_a_labelled_checkbox_form(browser: Client, todos: Any) -> None:
    html = browser.get("/todos/").content.decode()

    assert html.count('class="todo-check"') == 4
    assert "Mark as done: late" in html
