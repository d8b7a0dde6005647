"""The measuring instrument behind ``make bench``'s SQL and Redis counts per request."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

from lightnote.controlstore.redis import get_redis
from lightnote.ops.request_counters import count_requests
from todos import services

pytestmark = pytest.mark.django_db


def test_redis_round_trips_count_a_pipeline_or_a_script_as_one() -> None:
    redis = get_redis()
    script = redis.register_script("return redis.call('GET', KEYS[1])")
    redis.script_load(script.script)
    with count_requests() as counts:
        redis.set("ln:test:counter", "1")
        redis.get("ln:test:counter")
        pipe = redis.pipeline(transaction=False)
        pipe.incr("ln:test:counter")
        pipe.expire("ln:test:counter", 10)
        pipe.get("ln:test:counter")
        assert pipe.execute()[2] == b"2"
        assert script(keys=["ln:test:counter"]) == b"2"
    assert counts.redis == 4  # set, get, the whole pipeline, the script (EVALSHA)


def test_sql_counts_match_capture_queries_context_and_find_the_writes(user) -> None:
    with (
        CaptureQueriesContext(connection) as captured,
        count_requests(keep_statements=True) as counts,
    ):
        todo = services.todo_create(owner=user, title="counted")
        type(todo).objects.filter(id=todo.id).exists()
    assert counts.sql == len(captured.captured_queries)
    assert counts.statements == [query["sql"] for query in captured.captured_queries]
    assert counts.sql_writes == sum(
        query["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "REPLACE"))
        for query in captured.captured_queries
    )
    assert counts.sql_writes >= 1


def test_nested_counted_blocks_both_see_each_statement(user) -> None:
    """Nested blocks (a test around the bench's middleware) both count what ran inside."""
    with count_requests(keep_statements=True) as outer:
        with count_requests(keep_statements=True) as inner:
            services.todo_create(owner=user, title="inside")
        services.todo_create(owner=user, title="after")
    # each create is two writes: the todo and its audit event, in the same transaction
    assert inner.sql_writes == 2
    assert outer.sql_writes == 4
    assert outer.statements[: len(inner.statements)] == inner.statements


def test_nothing_is_counted_outside_a_counted_block(user) -> None:
    with count_requests() as counts:
        pass
    get_redis().get("ln:test:outside")
    services.todo_create(owner=user, title="not counted")
    assert (counts.sql, counts.sql_writes, counts.redis) == (0, 0, 0)


@pytest.mark.django_db(transaction=True)  # the request's own transaction, as in production
def test_the_middleware_puts_the_counts_on_every_response(alice_api, user) -> None:
    middleware = ["lightnote.ops.request_counters.RequestCountersMiddleware", *settings.MIDDLEWARE]
    with override_settings(MIDDLEWARE=middleware):
        created = alice_api.post("/api/v1/todos/", {"title": "counted"}, format="json")
        listed = alice_api.get("/api/v1/todos/")
    assert created.status_code == 201
    assert int(created["X-LightNote-SQL"]) >= 2  # the token lookup and the insert at least
    assert int(created["X-LightNote-SQL-Writes"]) == 2  # the todo and its audit event
    assert created["X-LightNote-Redis"] == "0"
    assert listed["X-LightNote-SQL-Writes"] == "0"


def test_the_middleware_is_off_unless_asked_for(alice_api) -> None:
    response = alice_api.get("/api/v1/todos/")
    assert "X-LightNote-SQL" not in response
