"""Reminders: which are due (an injected clock), delivery once per (todo, remind_at), the
notifications API and pages, reminder emails, and the private calendar feed."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core import mail
from icalendar import Calendar

from reminders import selectors, services
from reminders.models import Notification, ReminderDelivery
from reminders.scheduling import scan_waiting, schedule_scan
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db
NOW = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.UTC)
MINUTE = dt.timedelta(minutes=1)


def _todo(owner: Any, title: str = "Call mom", *, remind_at: Any = NOW, **fields: Any) -> Todo:
    return todo_services.todo_create(owner=owner, title=title, remind_at=remind_at, **fields)


# --- which are due ----------------------------------------------------------------------


def test_a_reminder_is_due_from_its_time_on_and_not_before(user: Any) -> None:
    todo = _todo(user)
    assert selectors.reminders_due(now=NOW - MINUTE) == []
    assert selectors.reminders_due(now=NOW) == [(todo.id, todo.remind_at)]
    assert selectors.reminders_due(now=NOW + 60 * MINUTE) == [(todo.id, todo.remind_at)]


def test_done_deleted_and_unreminded_todos_are_not_due(user: Any) -> None:
    done = _todo(user, "Done")
    todo_services.todo_set_status(owner=user, todo_id=done.id, status="done")
    deleted = _todo(user, "Deleted")
    todo_services.todo_delete(owner=user, todo_id=deleted.id)
    _todo(user, "No reminder", remind_at=None)
    assert selectors.reminders_due(now=NOW + MINUTE) == []


def test_due_reminders_come_oldest_first_in_bounded_batches(user: Any) -> None:
    later = _todo(user, "Later", remind_at=NOW)
    earlier = _todo(user, "Earlier", remind_at=NOW - MINUTE)
    assert [todo_id for todo_id, _ in selectors.reminders_due(now=NOW)] == [earlier.id, later.id]
    assert len(selectors.reminders_due(now=NOW, limit=1)) == 1


# --- delivery ---------------------------------------------------------------------------


def test_a_due_reminder_is_delivered_once_however_often_the_scan_runs(user: Any) -> None:
    todo = _todo(user, due_at=NOW + 30 * MINUTE)
    assert services.reminders_deliver_due(now=NOW) == 1
    assert services.reminders_deliver_due(now=NOW) == 0
    assert services.reminders_deliver_due(now=NOW + 5 * MINUTE) == 0
    notification = Notification.objects.get()
    assert notification.todo_id == todo.id
    assert notification.title == "Call mom"
    assert notification.text == "提醒：Call mom（截止 2026-12-07 17:30）"  # alice: Asia/Shanghai
    assert ReminderDelivery.objects.get().remind_at == NOW


def test_a_changed_remind_at_is_a_new_reminder(user: Any) -> None:
    todo = _todo(user)
    services.reminders_deliver_due(now=NOW)
    todo_services.todo_update(
        owner=user, todo_id=todo.id, expected_version=None, remind_at=NOW + MINUTE
    )
    assert services.reminders_deliver_due(now=NOW) == 0
    assert services.reminders_deliver_due(now=NOW + MINUTE) == 1
    assert Notification.objects.count() == 2


def test_a_completed_todo_gets_no_reminder(user: Any) -> None:
    todo = _todo(user)
    todo_services.todo_set_status(owner=user, todo_id=todo.id, status="done")
    assert services.reminders_deliver_due(now=NOW + MINUTE) == 0
    assert services.reminder_deliver(todo_id=todo.id, remind_at=NOW) is None
    assert Notification.objects.count() == 0


def test_a_deleted_todo_gets_no_reminder(user: Any) -> None:
    todo = _todo(user)
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    assert services.reminder_deliver(todo_id=todo.id, remind_at=NOW) is None
    assert Notification.objects.count() == 0


def test_the_notification_text_is_in_the_owners_language(make_user: Any) -> None:
    english = make_user("emma", language="en", time_zone="Europe/London")
    _todo(english, "Standup", due_at=NOW + 30 * MINUTE)
    services.reminders_deliver_due(now=NOW)
    assert Notification.objects.get().text == "Reminder: Standup (due 2026-12-07 09:30)"


# --- email ------------------------------------------------------------------------------


def test_an_opted_in_user_with_an_address_gets_one_email_after_commit(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_user("mia", email="mia@example.com", language="en")
    services.reminder_email_set(user=owner, enabled=True)
    _todo(owner)
    with django_capture_on_commit_callbacks(execute=True):
        services.reminders_deliver_due(now=NOW)
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["mia@example.com"]
    assert mail.outbox[0].subject == "LightNote reminder: Call mom"
    delivery = ReminderDelivery.objects.get()
    assert delivery.email_state == ReminderDelivery.EmailState.SENT
    assert delivery.email_attempted_at is not None
    with django_capture_on_commit_callbacks(execute=True):
        services.reminders_deliver_due(now=NOW + MINUTE)
    assert len(mail.outbox) == 1


def test_no_email_without_the_opt_in_or_without_an_address(
    make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    silent = make_user("sam", email="sam@example.com")
    no_address = make_user("noah")
    services.reminder_email_set(user=no_address, enabled=True)
    _todo(silent)
    _todo(no_address)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.reminders_deliver_due(now=NOW) == 2
    assert mail.outbox == []
    assert set(ReminderDelivery.objects.values_list("email_state", flat=True)) == {"none"}


def test_a_failed_email_is_recorded_and_not_retried(
    make_user: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    owner = make_user("lea", email="lea@example.com")
    services.reminder_email_set(user=owner, enabled=True)
    _todo(owner)
    with django_capture_on_commit_callbacks(execute=True):
        services.reminders_deliver_due(now=NOW)
    assert ReminderDelivery.objects.get().email_state == ReminderDelivery.EmailState.FAILED
    assert Notification.objects.count() == 1  # the notification stands


# --- the scan's schedule ----------------------------------------------------------------


def test_the_schedule_keeps_at_most_one_scan_waiting() -> None:
    from django_tasks_db.models import DBTaskResult

    assert not scan_waiting()
    assert schedule_scan() is True
    assert schedule_scan() is False
    assert DBTaskResult.objects.count() == 1


# --- the API ----------------------------------------------------------------------------


def _deliver(owner: Any, *titles: str) -> None:
    for offset, title in enumerate(titles):
        _todo(owner, title, remind_at=NOW + offset * MINUTE)
        services.reminders_deliver_due(now=NOW + offset * MINUTE)


def test_the_list_is_newest_first_with_the_documented_fields(user: Any, alice_api: Any) -> None:
    _deliver(user, "First", "Second", "Third")
    answer = alice_api.get("/api/v1/notifications/?page_size=2")
    assert answer.status_code == 200
    body = answer.json()
    assert set(body) >= {"count", "next", "previous", "results"}
    assert body["count"] == 3
    assert body["next"] is not None
    assert [item["title"] for item in body["results"]] == ["Third", "Second"]
    assert set(body["results"][0]) == {
        "id",
        "kind",
        "todo_id",
        "title",
        "text",
        "created_at",
        "read_at",
    }
    assert body["results"][0]["kind"] == "reminder"
    assert body["results"][0]["read_at"] is None
    assert body["results"][0]["created_at"].endswith("+08:00")


def test_read_and_read_all(user: Any, alice_api: Any) -> None:
    _deliver(user, "First", "Second")
    first, second = Notification.objects.order_by("created_at")
    answer = alice_api.post(f"/api/v1/notifications/{first.id}/read/", {}, format="json")
    assert answer.status_code == 200
    assert answer.json()["read_at"] is not None
    read_at = answer.json()["read_at"]
    again = alice_api.post(f"/api/v1/notifications/{first.id}/read/", {}, format="json")
    assert again.json()["read_at"] == read_at  # the first read time stays
    everything = alice_api.post("/api/v1/notifications/read-all/", {}, format="json")
    assert everything.status_code == 200
    assert everything.json() == {"read": 1, "unread_count": 0}
    second.refresh_from_db()
    assert second.read_at is not None


def test_another_users_notification_is_a_404_and_stays_unread(
    user: Any, other_user: Any, client_for: Any
) -> None:
    _deliver(user, "Mine")
    notification = Notification.objects.get()
    bob = client_for(other_user)
    answer = bob.post(f"/api/v1/notifications/{notification.id}/read/", {}, format="json")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "NOTIFICATION_NOT_FOUND"
    assert bob.post("/api/v1/notifications/not-a-uuid/read/", {}, format="json").status_code == 404
    assert bob.get("/api/v1/notifications/").json()["results"] == []
    assert bob.post("/api/v1/notifications/read-all/", {}, format="json").json()["read"] == 0
    notification.refresh_from_db()
    assert notification.read_at is None


def test_unknown_body_fields_and_no_login_are_refused(
    user: Any, alice_api: Any, api_client: Any
) -> None:
    answer = alice_api.post("/api/v1/notifications/read-all/", {"all": True}, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "VALIDATION_ERROR"
    assert alice_api.post("/api/v1/calendar/feed/", {"x": 1}, format="json").status_code == 400
    assert api_client.get("/api/v1/notifications/").status_code == 401
    assert api_client.post("/api/v1/calendar/feed/", {}, format="json").status_code == 401


def test_the_new_operations_declare_their_error_statuses(api_client: Any) -> None:
    schema = api_client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    expected = {
        ("/api/v1/notifications/", "get"): {"400", "401", "403", "404"},
        ("/api/v1/notifications/{notification_id}/read/", "post"): {"400", "401", "403", "404"},
        ("/api/v1/notifications/read-all/", "post"): {"400", "401", "403"},
        ("/api/v1/calendar/feed/", "post"): {"400", "401", "403"},
        ("/api/v1/calendar/feed/", "delete"): {"401", "403"},
    }
    for (path, method), statuses in expected.items():
        assert statuses <= set(paths[path][method]["responses"]), (path, method)


# --- pages ------------------------------------------------------------------------------


def test_every_signed_in_page_shows_the_bell_with_the_unread_count(user: Any, client: Any) -> None:
    _deliver(user, "First", "Second")
    client.force_login(user)
    for path in ("/", "/todos/", "/settings/", "/notifications/"):
        page = client.get(path).content.decode()
        assert 'id="notification-bell"' in page, path
        assert 'data-unread="2"' in page, path
    partial = client.get("/notifications/bell/").content.decode()
    assert 'hx-trigger="every 10s"' in partial
    assert "提醒：Second" in partial


def test_the_bell_stops_polling_once_signed_out(client: Any) -> None:
    assert client.get("/notifications/bell/").status_code == 286


def test_the_notifications_page_lists_and_marks_read(user: Any, client: Any) -> None:
    _deliver(user, "First")
    client.force_login(user)
    page = client.get("/notifications/", headers={"Accept-Language": "en"})
    assert "提醒：First" in page.content.decode()
    notification = Notification.objects.get()
    answer = client.post(f"/notifications/{notification.id}/read/")
    assert answer.status_code == 302
    notification.refresh_from_db()
    assert notification.read_at is not None
    assert 'data-unread="0"' in client.get("/notifications/").content.decode()


def test_the_settings_page_turns_reminder_emails_on_and_off(make_user: Any, client: Any) -> None:
    owner = make_user("ivy", email="ivy@example.com")
    client.force_login(owner)
    assert "ivy@example.com" in client.get("/settings/").content.decode()
    client.post("/notifications/email/", {"email": "on"})
    assert selectors.reminder_emails_on(user=owner)
    client.post("/notifications/email/", {})
    assert not selectors.reminder_emails_on(user=owner)


# --- the calendar feed ------------------------------------------------------------------


def _feed(client: Any, url: str) -> Any:
    path = url.split("://", 1)[1].split("/", 1)[1]
    return client.get("/" + path)


def test_the_feed_lists_each_open_dated_todo_once_with_rules_and_alarms(
    user: Any, other_user: Any, alice_api: Any, client: Any
) -> None:
    due = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=1)
    todo_services.todo_create(
        owner=user,
        title="Standup",
        due_at=due,
        remind_at=due - 10 * MINUTE,
        recurrence="FREQ=WEEKLY;BYDAY=MO",
    )
    todo_services.todo_create(owner=user, title="Dentist", due_at=due + dt.timedelta(hours=3))
    todo_services.todo_create(owner=user, title="Undated")
    done = todo_services.todo_create(owner=user, title="Finished", due_at=due)
    todo_services.todo_set_status(owner=user, todo_id=done.id, status="done")
    todo_services.todo_create(owner=other_user, title="Bob's secret", due_at=due)

    answer = alice_api.post("/api/v1/calendar/feed/", {}, format="json")
    assert answer.status_code == 201
    url = answer.json()["url"]
    secret = url.rsplit("/", 1)[1].removesuffix(".ics")
    assert len(secret) >= 22  # >= 128 bits in URL-safe base64
    feed = _feed(client, url)
    assert feed.status_code == 200
    assert feed["Content-Type"].startswith("text/calendar")
    calendar = Calendar.from_ical(feed.content)
    events = [str(event["summary"]) for event in calendar.walk("VEVENT")]
    todos = [str(item["summary"]) for item in calendar.walk("VTODO")]
    assert sorted(events) == ["Dentist", "Standup"]
    assert sorted(todos) == ["Dentist", "Standup"]
    standup = next(e for e in calendar.walk("VEVENT") if str(e["summary"]) == "Standup")
    assert standup["rrule"]["FREQ"] == ["WEEKLY"]
    assert standup["rrule"]["BYDAY"] == ["MO"]
    alarm = standup.walk("VALARM")[0]
    assert alarm["trigger"].dt == -10 * MINUTE
    assert standup["dtstart"].dt == due
    assert "Bob's secret" not in feed.content.decode()


def test_a_date_only_until_is_a_utc_date_time_in_the_feed(
    user: Any, alice_api: Any, client: Any
) -> None:
    due = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(days=1)
    todo_services.todo_create(
        owner=user, title="Pills", due_at=due, recurrence="FREQ=DAILY;UNTIL=20271231"
    )
    url = alice_api.post("/api/v1/calendar/feed/", {}, format="json").json()["url"]
    calendar = Calendar.from_ical(_feed(client, url).content)
    until = next(iter(calendar.walk("VEVENT")))["rrule"]["UNTIL"][0]
    assert until == dt.datetime(2027, 12, 31, 15, 59, tzinfo=dt.UTC)  # 23:59 in Shanghai


def test_the_secret_is_stored_hashed_and_a_new_post_replaces_the_url(
    user: Any, alice_api: Any, client: Any
) -> None:
    from reminders.models import CalendarFeed

    first = alice_api.post("/api/v1/calendar/feed/", {}, format="json").json()["url"]
    secret = first.rsplit("/", 1)[1].removesuffix(".ics")
    stored = CalendarFeed.objects.get(owner=user)
    assert secret not in stored.secret_hash
    assert stored.secret_hash == selectors.secret_digest(secret)
    second = alice_api.post("/api/v1/calendar/feed/", {}, format="json").json()["url"]
    assert second != first
    assert _feed(client, first).status_code == 404
    assert _feed(client, second).status_code == 200


def test_a_revoked_feed_answers_404(user: Any, alice_api: Any, client: Any) -> None:
    url = alice_api.post("/api/v1/calendar/feed/", {}, format="json").json()["url"]
    assert alice_api.delete("/api/v1/calendar/feed/").status_code == 204
    assert _feed(client, url).status_code == 404
    assert client.get("/calendar/not-a-secret.ics").status_code == 404
    assert alice_api.delete("/api/v1/calendar/feed/").status_code == 204


def test_old_finished_scans_are_pruned_and_waiting_ones_kept() -> None:
    from django_tasks_db.models import DBTaskResult

    from reminders.scheduling import prune_scans

    schedule_scan()
    waiting = DBTaskResult.objects.get()
    finished = DBTaskResult.objects.create(
        **{
            field.name: getattr(waiting, field.name)
            for field in DBTaskResult._meta.concrete_fields
            if field.name not in ("id", "status", "finished_at", "enqueued_at")
        },
        status="SUCCESSFUL",
        finished_at=NOW - dt.timedelta(hours=2),
    )
    assert prune_scans(now=NOW) == 1
    assert list(DBTaskResult.objects.values_list("id", flat=True)) == [waiting.id]
    assert not DBTaskResult.objects.filter(id=finished.id).exists()


def test_marking_an_unknown_notification_read_on_the_page_is_a_404_page(
    user: Any, client: Any
) -> None:
    client.force_login(user)
    answer = client.post("/notifications/not-a-uuid/read/")
    assert answer.status_code == 404
    assert "通知不存在。" in answer.content.decode()


def test_staff_see_notifications_and_deliveries_in_the_admin_read_only(
    user: Any, make_user: Any, client: Any
) -> None:
    _deliver(user, "First")
    staff = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    for path in ("/admin/reminders/notification/", "/admin/reminders/reminderdelivery/"):
        assert client.get(path).status_code == 200, path
    assert client.get("/admin/reminders/notification/add/").status_code == 403


def test_the_settings_page_makes_shows_once_and_stops_a_calendar_address(
    make_user: Any, client: Any
) -> None:
    import re

    owner = make_user("ivy")
    client.force_login(owner)
    settings_page = client.get("/settings/").content.decode()
    assert 'action="/calendar/address/"' in settings_page
    assert "/calendar/address/revoke/" not in settings_page

    made = client.post("/calendar/address/")
    assert (made.status_code, made["Location"]) == (302, "/calendar/address/")
    shown = client.get("/calendar/address/")
    assert shown.status_code == 200
    assert shown["Referrer-Policy"] == "no-referrer"
    [url] = re.findall(r'value="(http[^"]+\.ics)"', shown.content.decode())
    assert _feed(client, url).status_code == 200
    # A reload shows it no more and makes no other address: the one shown keeps working.
    reloaded = client.get("/calendar/address/", follow=True)
    assert reloaded.redirect_chain == [("/settings/", 302)]
    assert url not in reloaded.content.decode()
    assert "只显示一次，已经显示过了" in reloaded.content.decode()
    assert _feed(client, url).status_code == 200
    # Shown once: the settings page says an address is live but never repeats it.
    settings_page = client.get("/settings/").content.decode()
    assert url not in settings_page
    assert 'action="/calendar/address/revoke/"' in settings_page

    revoked = client.post("/calendar/address/revoke/")
    assert revoked.status_code == 302
    assert _feed(client, url).status_code == 404
    assert client.put("/calendar/address/").status_code == 405


def test_the_calendar_address_is_in_english_for_an_english_reader(
    make_user: Any, client: Any
) -> None:
    client.force_login(make_user("ivy"))
    client.cookies["django_language"] = "en"
    assert "Calendar subscription" in client.get("/settings/").content.decode()
    shown = client.post("/calendar/address/", follow=True).content.decode()
    assert "Your calendar address" in shown
