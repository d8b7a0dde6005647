"""Recurring todos and reminders on the todo itself: the rule subset, its words, the next
occurrence made once on completion (across DST), and the API fields."""

from __future__ import annotations

import datetime as dt
import threading
import time
import zoneinfo
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections

from lightnote.errors import LightNoteError
from tests.migrations_helpers import back_to_the_latest_schema, migrate_to  # noqa: F401
from todos import services
from todos.models import Todo
from todos.recurrence import check_recurrence, occurrences, recurrence_text

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")
# Monday 23 March 2026, 09:00 in Berlin; the clocks go forward on Sunday 29 March.
BEFORE_DST = dt.datetime(2026, 3, 23, 9, 0, tzinfo=BERLIN)
NOW = dt.datetime(2026, 3, 20, 12, 0, tzinfo=dt.UTC)

# (rule, Chinese, English): the words table at work.
WORDS = [
    ("FREQ=WEEKLY;BYDAY=MO", "每周一", "every Monday"),
    ("FREQ=DAILY", "每天", "every day"),
    ("FREQ=DAILY;INTERVAL=2", "每 2 天", "every 2 days"),
    ("FREQ=MONTHLY;BYMONTHDAY=-1", "每月最后一天", "every month on the last day"),
    ("FREQ=MONTHLY;BYMONTHDAY=15", "每月15日", "every month on day 15"),
    ("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "每个工作日", "every weekday"),
    (
        "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1",
        "每月的最后一个工作日",
        "every month on the last weekday",
    ),
    ("FREQ=MONTHLY;BYDAY=1MO", "每月的第一个周一", "every month on the first Monday"),
    ("FREQ=WEEKLY;BYDAY=MO,WE", "每周一、周三", "every Monday and Wednesday"),
    ("FREQ=WEEKLY;INTERVAL=2;BYDAY=FR", "每 2 周的周五", "every 2 weeks on Friday"),
    ("FREQ=YEARLY;COUNT=3", "每年，共 3 次", "every year, 3 times"),
    ("FREQ=DAILY;UNTIL=20261231", "每天，直到 2026-12-31", "every day, until 2026-12-31"),
]

UNSUPPORTED = [
    "FREQ=HOURLY",
    "FREQ=MINUTELY",
    "FREQ=DAILY;INTERVAL=366",
    "FREQ=DAILY;INTERVAL=0",
    "FREQ=DAILY;BYHOUR=9",
    "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30",
    "FREQ=WEEKLY;BYSETPOS=1;BYDAY=MO",
    "FREQ=DAILY;COUNT=1001",
    "FREQ=DAILY;COUNT=2;UNTIL=20261231",
    "FREQ=DAILY;UNTIL=20991231",
    "FREQ=WEEKLY;BYDAY=XX",
    "FREQ=WEEKLY;BYDAY=1MO",
    "INTERVAL=2",
    "every third full moon",
    "FREQ=DAILY;FREQ=WEEKLY",
]


@pytest.mark.parametrize(("rule", "chinese", "english"), WORDS)
def test_a_rule_is_said_in_both_languages(rule: str, chinese: str, english: str) -> None:
    assert recurrence_text(rule, locale="zh-CN") == chinese
    assert recurrence_text(rule, locale="en") == english


@pytest.mark.parametrize("rule", UNSUPPORTED)
def test_a_rule_outside_the_subset_is_refused(rule: str) -> None:
    with pytest.raises(LightNoteError) as caught:
        check_recurrence(rule, start=BEFORE_DST, zone=BERLIN, now=NOW)
    assert caught.value.code == "TODO_RECURRENCE_UNSUPPORTED"
    assert caught.value.message("zh-CN")
    assert caught.value.message("en")


def test_the_refusal_says_why_in_both_languages() -> None:
    with pytest.raises(LightNoteError) as caught:
        check_recurrence("FREQ=DAILY;INTERVAL=400", start=BEFORE_DST, zone=BERLIN, now=NOW)
    assert "INTERVAL 应为 1 到 365 之间的整数" in caught.value.message("zh-CN")
    assert "INTERVAL must be a whole number from 1 to 365" in caught.value.message("en")


def test_a_rule_that_never_occurs_is_refused_within_a_bounded_time() -> None:
    # The 30th, every twelve months from February: "30 February".
    february = dt.datetime(2026, 2, 2, 9, tzinfo=BERLIN)
    started = time.monotonic()
    with pytest.raises(LightNoteError) as caught:
        check_recurrence(
            "FREQ=MONTHLY;INTERVAL=12;BYMONTHDAY=30", start=february, zone=BERLIN, now=NOW
        )
    assert caught.value.code == "TODO_RECURRENCE_UNSUPPORTED"
    assert time.monotonic() - started < 3


def test_a_rule_is_stored_in_its_canonical_form() -> None:
    assert check_recurrence(" freq=weekly;byday=mo ", start=BEFORE_DST, zone=BERLIN, now=NOW) == (
        "FREQ=WEEKLY;BYDAY=MO"
    )
    assert check_recurrence(
        "RRULE:BYDAY=MO;FREQ=WEEKLY", start=BEFORE_DST, zone=BERLIN, now=NOW
    ) == ("FREQ=WEEKLY;BYDAY=MO")


def test_occurrences_keep_the_local_time_across_a_dst_change() -> None:
    found = occurrences(
        "FREQ=WEEKLY;BYDAY=MO", start=BEFORE_DST, after=BEFORE_DST, zone=BERLIN, inclusive=True
    )
    assert [moment.astimezone(BERLIN).strftime("%Y-%m-%d %H:%M") for moment in found] == [
        "2026-03-23 09:00",
        "2026-03-30 09:00",
        "2026-04-06 09:00",
    ]
    assert found[0].utcoffset() == dt.timedelta(0)
    assert found[1] - found[0] == dt.timedelta(days=7, hours=-1)  # a 167-hour week


# --- services ---------------------------------------------------------------------------


def _berlin(make_user: Any, name: str = "hans") -> Any:
    return make_user(name, time_zone="Europe/Berlin")


def _weekly(owner: Any, **fields: Any) -> Todo:
    return services.todo_create(
        owner=owner,
        title="Standup",
        due_at=BEFORE_DST,
        remind_at=BEFORE_DST - dt.timedelta(minutes=15),
        recurrence="FREQ=WEEKLY;BYDAY=MO",
        **fields,
    )


@pytest.mark.django_db
def test_completing_an_occurrence_creates_the_next_a_week_later_at_the_same_local_time(
    make_user: Any,
) -> None:
    owner = _berlin(make_user)
    first = _weekly(owner)
    services.todo_set_status(owner=owner, todo_id=first.id, status="done")
    following = Todo.objects.get(status="open")
    assert following.due_at.astimezone(BERLIN).strftime("%Y-%m-%d %H:%M %a") == (
        "2026-03-30 09:00 Mon"
    )
    assert following.remind_at == following.due_at - dt.timedelta(minutes=15)
    assert following.recurrence == first.recurrence
    assert following.series_id == first.series_id
    assert following.title == "Standup"


@pytest.mark.django_db
def test_completing_reopening_and_completing_again_still_makes_one_next(make_user: Any) -> None:
    owner = _berlin(make_user)
    first = _weekly(owner)
    services.todo_set_status(owner=owner, todo_id=first.id, status="done")
    services.todo_set_status(owner=owner, todo_id=first.id, status="open")
    services.todo_update(owner=owner, todo_id=first.id, expected_version=None, status="done")
    assert Todo.objects.filter(series_id=first.series_id).count() == 2


@pytest.mark.django_db
def test_a_series_with_a_count_ends(make_user: Any) -> None:
    owner = _berlin(make_user)
    todo = services.todo_create(
        owner=owner, title="Twice", due_at=BEFORE_DST, recurrence="FREQ=DAILY;COUNT=2"
    )
    services.todo_set_status(owner=owner, todo_id=todo.id, status="done")
    second = Todo.objects.get(status="open")
    services.todo_set_status(owner=owner, todo_id=second.id, status="done")
    assert Todo.objects.filter(status="open").count() == 0
    assert Todo.objects.count() == 2


@pytest.mark.django_db
def test_stopping_the_repeat_makes_no_next_occurrence(make_user: Any) -> None:
    owner = _berlin(make_user)
    first = _weekly(owner)
    stopped = services.todo_update(
        owner=owner, todo_id=first.id, expected_version=first.version, recurrence=None
    )
    assert stopped.recurrence is None
    assert stopped.series_id is None
    services.todo_set_status(owner=owner, todo_id=first.id, status="done")
    assert Todo.objects.count() == 1


@pytest.mark.django_db
def test_a_repeating_todo_needs_a_due_time(make_user: Any) -> None:
    owner = _berlin(make_user)
    with pytest.raises(LightNoteError) as caught:
        services.todo_create(owner=owner, title="Sometime", recurrence="FREQ=DAILY")
    assert caught.value.code == "TODO_RECURRENCE_NEEDS_DUE_AT"
    first = _weekly(owner)
    with pytest.raises(LightNoteError) as caught:
        services.todo_update(owner=owner, todo_id=first.id, expected_version=None, due_at=None)
    assert caught.value.code == "TODO_RECURRENCE_NEEDS_DUE_AT"


@pytest.mark.django_db(transaction=True)
@pytest.mark.services
def test_two_concurrent_completions_of_a_weekly_todo_leave_one_next_occurrence(
    make_user: Any,
) -> None:
    owner = _berlin(make_user)
    first = _weekly(owner)
    rounds = 6
    for round_number in range(rounds):
        current = Todo.objects.get(status="open")
        barrier = threading.Barrier(2)

        def complete(_: int, todo_id: Any = current.id, barrier: Any = barrier) -> str:
            try:
                barrier.wait()
                services.todo_set_status(owner=owner, todo_id=todo_id, status="done")
                return "done"
            finally:
                connections.close_all()

        with ThreadPoolExecutor(max_workers=2) as pool:
            assert list(pool.map(complete, range(2))) == ["done", "done"]
        assert Todo.objects.filter(status="open").count() == 1, round_number
    assert Todo.objects.filter(series_id=first.series_id).count() == rounds + 1
    latest = Todo.objects.get(status="open")
    assert latest.due_at.astimezone(BERLIN).strftime("%H:%M %a") == "09:00 Mon"


# --- the API ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_creates_a_repeating_todo_and_says_its_rule_in_the_request_language(
    make_user: Any, client_for: Any
) -> None:
    owner = _berlin(make_user)
    api = client_for(owner, **{"Accept-Language": "en"})
    with_time = dt.datetime.now(BERLIN).replace(microsecond=0) + dt.timedelta(days=1)
    answer = api.post(
        "/api/v1/todos/",
        {
            "title": "Standup",
            "due_at": with_time.isoformat(),
            "remind_at": (with_time - dt.timedelta(minutes=10)).isoformat(),
            "recurrence": "FREQ=DAILY",
        },
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["recurrence"] == "FREQ=DAILY"
    assert body["recurrence_text"] == "every day"
    assert len(body["next_occurrences"]) == 3
    assert dt.datetime.fromisoformat(body["next_occurrences"][0]) == with_time
    assert dt.datetime.fromisoformat(body["remind_at"]) == with_time - dt.timedelta(minutes=10)
    chinese = client_for(owner, **{"Accept-Language": "zh-CN"}).get(f"/api/v1/todos/{body['id']}/")
    assert chinese.json()["recurrence_text"] == "每天"


@pytest.mark.django_db
def test_the_api_refuses_an_unsupported_rule_and_an_unknown_field(
    make_user: Any, client_for: Any
) -> None:
    api = client_for(_berlin(make_user))
    due = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).isoformat()
    refused = api.post(
        "/api/v1/todos/",
        {"title": "Moon", "due_at": due, "recurrence": "FREQ=HOURLY"},
        format="json",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "TODO_RECURRENCE_UNSUPPORTED"
    unknown = api.post(
        "/api/v1/todos/", {"title": "X", "due_at": due, "rrule": "FREQ=DAILY"}, format="json"
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "VALIDATION_ERROR"
    assert Todo.objects.count() == 0


@pytest.mark.django_db
def test_a_plain_todo_has_no_rule_and_no_occurrences(user: Any, alice_api: Any) -> None:
    body = alice_api.post("/api/v1/todos/", {"title": "Once"}, format="json").json()
    assert body["remind_at"] is None
    assert body["recurrence"] is None
    assert body["recurrence_text"] is None
    assert body["next_occurrences"] == []


@pytest.mark.django_db(transaction=True)
def test_existing_todos_pass_the_migration_with_no_reminder_and_no_rule(user: Any) -> None:
    apps = migrate_to([("todos", "0006_verbose_names")])
    old = apps.get_model("todos", "Todo").objects.create(owner_id=user.pk, title="Old one")
    apps = migrate_to([("todos", "0007_reminders_recurrence")])
    migrated = apps.get_model("todos", "Todo").objects.get(pk=old.pk)
    assert migrated.remind_at is None
    assert migrated.recurrence is None
    assert migrated.series_id is None
