"""The todo pages' reminder and repeat fields: set them on create, see them on the list and
the item, change or clear them on edit (the same services and codes as the API)."""

from __future__ import annotations

from typing import Any

import pytest

from todos.models import Todo

pytestmark = pytest.mark.django_db


def _create(client: Any, **fields: str) -> Any:
    return client.post(
        "/todos/",
        {"title": "开周会", "priority": "1", "due_at": "2027-01-04T09:00", **fields},
    )


def test_a_todo_made_on_the_page_gets_its_reminder_and_rule(user: Any, client: Any) -> None:
    client.force_login(user)
    form = client.get("/todos/").content.decode()
    assert 'name="remind_at"' in form
    assert '<option value="FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR" >每个工作日</option>' in form
    answer = _create(client, remind_at="2027-01-04T08:50", recurrence="FREQ=WEEKLY")
    assert answer.status_code == 302
    todo = Todo.objects.get()
    assert todo.recurrence == "FREQ=WEEKLY"
    assert todo.remind_at.astimezone(user.zone).strftime("%Y-%m-%d %H:%M") == "2027-01-04 08:50"
    listed = client.get("/todos/").content.decode()
    assert "重复：每周" in listed
    detail = client.get(f"/todos/{todo.id}/", headers={"Accept-Language": "en"})
    page = detail.content.decode()
    assert "2027-01-04 08:50" in page
    assert 'value="2027-01-04T08:50"' in page


def test_the_edit_form_keeps_a_custom_rule_and_clears_it_when_asked(user: Any, client: Any) -> None:
    from datetime import datetime

    from todos.services import todo_create

    todo = todo_create(
        owner=user,
        title="房租",
        due_at=datetime(2027, 1, 31, 9, tzinfo=user.zone),
        recurrence="FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12",
    )
    client.force_login(user)
    page = client.get(f"/todos/{todo.id}/").content.decode()
    assert "每月最后一天，共 12 次" in page
    assert 'value="FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12" selected' in page
    answer = client.post(
        f"/todos/{todo.id}/",
        {
            "action": "save",
            "version": str(todo.version),
            "title": "房租",
            "priority": "1",
            "due_at": "2027-01-31T09:00",
            "remind_at": "",
            "recurrence": "",
        },
    )
    assert answer.status_code == 302
    todo.refresh_from_db()
    assert todo.recurrence is None


def test_a_rule_without_a_due_time_is_refused_on_the_page(user: Any, client: Any) -> None:
    client.force_login(user)
    answer = client.post("/todos/", {"title": "随时", "priority": "1", "recurrence": "FREQ=DAILY"})
    assert answer.status_code == 400
    assert "重复的待办需要一个截止时间" in answer.content.decode()
    unsupported = _create(client, recurrence="FREQ=HOURLY")
    assert unsupported.status_code == 400
    assert Todo.objects.count() == 0
