"""Lists that stay flat: keyset (``?cursor=``) pagination, the capped count, matching indexes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from lightnote.rest import pagination
from notes.models import Note
from todos.models import Todo

pytestmark = pytest.mark.django_db

LISTS = {"todos": "/api/v1/todos/", "notes": "/api/v1/notes/"}
MODELS = {"todos": Todo, "notes": Note}


def seed(kind: str, owner: Any, count: int, *, same_time: bool = False) -> list[str]:
    """Create ``count`` rows; ``same_time`` gives them all one timestamp (ties on the sort)."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = []
    for i in range(count):
        at = start if same_time else start + timedelta(minutes=i)
        fields = {"owner": owner, "title": f"{kind} {i}", "created_at": at, "updated_at": at}
        rows.append(MODELS[kind](**fields))
    MODELS[kind].objects.bulk_create(rows)
    return [str(row.id) for row in rows]


def walk(api: Any, url: str, **params: Any) -> list[list[str]]:
    """Follow ``next`` from the first cursor page; return each page's ids."""
    pages = []
    response = api.get(url, {"cursor": "", **params})
    while True:
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["previous"] is None
        pages.append([row["id"] for row in body["results"]])
        if body["next"] is None:
            return pages
        response = api.get(body["next"])


@pytest.mark.parametrize("kind", ["todos", "notes"])
@pytest.mark.parametrize("same_time", [False, True], ids=["distinct-times", "all-tied"])
def test_cursor_walk_returns_every_row_once_in_list_order(
    alice_api, user, other_user, kind, same_time
) -> None:
    seed(kind, user, 7, same_time=same_time)
    seed(kind, other_user, 3)
    in_order = [
        row["id"] for row in alice_api.get(LISTS[kind], {"page_size": 50}).json()["results"]
    ]

    pages = walk(alice_api, LISTS[kind], page_size=3)

    assert [len(page) for page in pages] == [3, 3, 1]
    assert [row_id for page in pages for row_id in page] == in_order
    assert len(in_order) == 7


def test_cursor_walk_keeps_the_status_filter(alice_api, user) -> None:
    ids = seed("todos", user, 6)
    Todo.objects.filter(id__in=ids[::2]).update(status="done")

    pages = walk(alice_api, LISTS["todos"], page_size=2, status="done")

    assert sorted(row_id for page in pages for row_id in page) == sorted(ids[::2])


@pytest.mark.parametrize("kind", ["todos", "notes"])
def test_a_cursor_page_costs_the_same_queries_as_the_first_page(
    alice_api, user, kind, django_assert_max_num_queries
) -> None:
    seed(kind, user, 30)
    second = alice_api.get(LISTS[kind], {"cursor": "", "page_size": 10}).json()["next"]
    with django_assert_max_num_queries(3):  # token with its user, capped count, one page
        response = alice_api.get(second)
    assert len(response.json()["results"]) == 10


@pytest.mark.parametrize(
    "cursor",
    ["%%%", "bm90IGpzb24", "WyJ4Il0", "WyIyMDI2LTAxLTAxVDAwOjAwOjAwIiwgIngiXQ", "W10"],
    ids=["not-base64", "not-json", "wrong-length", "naive-time-and-bad-uuid", "empty-list"],
)
def test_a_malformed_cursor_is_a_400_in_the_users_language(client_for, user, cursor) -> None:
    seed("todos", user, 2)
    for language, fragment in (("en", "cursor is not valid"), ("zh-CN", "分页游标无效")):
        response = client_for(user, **{"Accept-Language": language}).get(
            LISTS["todos"], {"cursor": cursor}
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "PAGINATION_CURSOR_INVALID"
        assert fragment in response.json()["error"]["message"]


def test_cursor_and_page_together_are_refused(alice_api, user) -> None:
    seed("todos", user, 2)
    response = alice_api.get(LISTS["todos"], {"cursor": "", "page": 1})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "PAGINATION_CURSOR_INVALID"


@pytest.mark.parametrize("kind", ["todos", "notes"])
def test_count_is_exact_up_to_the_cap_then_null_and_flagged(
    alice_api, user, kind, monkeypatch
) -> None:
    monkeypatch.setattr(pagination, "COUNT_CAP", 5)
    seed(kind, user, 5)
    exact = alice_api.get(LISTS[kind]).json()
    assert exact["count"] == 5
    assert "count_capped" not in exact

    seed(kind, user, 1)
    capped = alice_api.get(LISTS[kind], {"page_size": 4}).json()
    assert capped["count"] is None
    assert capped["count_capped"] is True
    assert len(capped["results"]) == 4
    assert "page=2" in capped["next"]  # ?page= keeps working past the cap
    second = alice_api.get(LISTS[kind], {"page_size": 4, "page": 2}).json()
    assert len(second["results"]) == 2
    assert second["next"] is None


def test_page_last_is_the_last_page_while_the_count_is_exact(alice_api, user) -> None:
    ids = seed("todos", user, 5)
    body = alice_api.get(LISTS["todos"], {"page": "last", "page_size": 2}).json()
    assert [row["id"] for row in body["results"]] == [ids[0]]  # the oldest, alone on page 3
    assert body["next"] is None


@pytest.mark.parametrize("page", ["0", "-1", "x", "2.5"])
def test_a_page_that_is_not_a_positive_number_is_a_404(alice_api, user, page) -> None:
    seed("todos", user, 2)
    response = alice_api.get(LISTS["todos"], {"page": page})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize("page", ["9" * 40, str(2**63), str(2**62 // 50 + 2)])
def test_a_page_past_any_offset_the_database_takes_is_a_404(alice_api, user, page) -> None:
    """Found by tests/test_api_fuzz.py: SQLite refused such an offset (a 500)."""
    seed("todos", user, 2)
    seed("notes", user, 2)
    session_id = alice_api.post("/api/v1/agent/sessions/", {}, format="json").json()["id"]
    sessions = "/api/v1/agent/sessions/"
    for url in [*LISTS.values(), sessions, f"{sessions}{session_id}/messages/"]:
        for size in ("1", "200"):
            response = alice_api.get(url, {"page": page, "page_size": size})
            answer = (response.status_code, response.json()["error"]["code"])
            assert answer == (404, "NOT_FOUND"), (url, size)


def test_the_schema_documents_the_cursor_and_the_capped_count(api_client) -> None:
    schema = api_client.get("/api/schema/", {"format": "json"}).json()
    for path in LISTS.values():
        operation = schema["paths"][path]["get"]
        assert "cursor" in {parameter["name"] for parameter in operation["parameters"]}
        body = operation["responses"]["200"]["content"]["application/json"]["schema"]
        ref = body["$ref"].rsplit("/", 1)[-1]
        properties = schema["components"]["schemas"][ref]["properties"]
        assert properties["count"]["nullable"] is True
        assert "count_capped" in properties


@pytest.mark.services
@pytest.mark.parametrize(
    ("kind", "params"),
    [("todos", {}), ("todos", {"status": "open"}), ("notes", {})],
    ids=["todos", "todos-by-status", "notes"],
)
def test_the_list_query_reads_an_index_in_sort_order(user, other_user, kind, params) -> None:
    """MariaDB reads the page off an index: no filesort, however many rows the owner has."""
    from notes.selectors import note_list
    from todos.selectors import todo_list

    seed(kind, user, 300)
    seed(kind, other_user, 300)
    queryset = todo_list(owner=user, **params) if kind == "todos" else note_list(owner=user)
    sql, sql_params = queryset[:51].query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", sql_params)
        columns = [column[0] for column in cursor.description]
        plan = [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]
    assert len(plan) == 1
    assert "filesort" not in (plan[0]["Extra"] or ""), plan
    assert plan[0]["key"], plan


def _explain(sql: str, sql_params: Any) -> list[dict[str, Any]]:
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {sql}", sql_params)
        columns = [column[0] for column in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.services
@pytest.mark.parametrize(
    ("kind", "params"),
    [("todos", {}), ("todos", {"status": "open"}), ("notes", {})],
    ids=["todos", "todos-by-status", "notes"],
)
def test_the_capped_count_reads_the_index_alone(user, other_user, kind, params) -> None:
    """The count covers the live filter from the index: no row lookup per counted row.

    ``deleted_at IS NULL`` (the live manager's filter) is part of the index, so MariaDB
    counts up to COUNT_CAP + 1 entries without reading a table row for each ("Using index").
    """
    from notes.selectors import note_list
    from todos.selectors import todo_list

    seed(kind, user, 300)
    seed(kind, other_user, 3000)  # the owner's rows are a small part of the table, as in life
    queryset = todo_list(owner=user, **params) if kind == "todos" else note_list(owner=user)
    with CaptureQueriesContext(connection) as captured:
        assert pagination.capped_count(queryset) == 300
    [query] = captured.captured_queries
    plan = _explain(query["sql"], ())
    table = [row for row in plan if row["table"] == MODELS[kind]._meta.db_table]
    assert len(table) == 1, plan
    assert table[0]["key"], plan
    assert "Using index" in (table[0]["Extra"] or "").replace("Using index condition", ""), plan


def _counted(api: Any, url: str, **params: Any) -> tuple[dict[str, Any], bool]:
    """GET the list; return its body and whether the request ran a COUNT."""
    with CaptureQueriesContext(connection) as captured:
        response = api.get(url, params)
    assert response.status_code == 200, response.content
    counted = any("COUNT(" in query["sql"].upper() for query in captured.captured_queries)
    return response.json(), counted


@pytest.mark.parametrize("kind", ["todos", "notes"])
def test_a_list_past_the_cap_is_not_counted_again_until_it_may_have_shrunk(
    alice_api, user, kind, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(pagination, "COUNT_CAP", 5)
    ids = seed(kind, user, 6)
    body, counted = _counted(alice_api, LISTS[kind])
    assert (body["count"], body["count_capped"], counted) == (None, True, True)
    body, counted = _counted(alice_api, LISTS[kind])
    assert (body["count"], body["count_capped"], counted) == (None, True, False)

    created = alice_api.post(LISTS[kind], {"title": "one more"}, format="json")
    assert created.status_code == 201, created.content  # a new row keeps it past the cap
    body, counted = _counted(alice_api, LISTS[kind])
    assert (body["count"], counted) == (None, False)

    with django_capture_on_commit_callbacks(execute=True):
        assert alice_api.delete(f"{LISTS[kind]}{ids[0]}/").status_code == 204
        assert alice_api.delete(f"{LISTS[kind]}{ids[1]}/").status_code == 204
    body, counted = _counted(alice_api, LISTS[kind])
    assert (body["count"], counted) == (5, True)  # exact again at the cap
    assert "count_capped" not in body


def test_a_status_change_recounts_the_status_list(
    alice_api, user, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    monkeypatch.setattr(pagination, "COUNT_CAP", 5)
    ids = seed("todos", user, 6)
    for _ in range(2):
        body, _counted_now = _counted(alice_api, LISTS["todos"], status="open")
        assert body["count"] is None
    _, counted = _counted(alice_api, LISTS["todos"], status="open")
    assert counted is False
    with django_capture_on_commit_callbacks(execute=True):
        done = alice_api.patch(
            f"/api/v1/todos/{ids[0]}/", {"status": "done", "version": 1}, format="json"
        )
        assert done.status_code == 200, done.content
    body, counted = _counted(alice_api, LISTS["todos"], status="open")
    assert (body["count"], counted) == (5, True)


def test_a_count_that_raced_a_shrink_is_not_remembered(
    user, django_capture_on_commit_callbacks
) -> None:
    """The mark is a compare-and-set on the generation read before counting."""
    from lightnote.controlstore import store
    from lightnote.rest import list_counts

    key = list_counts._key(Todo, user.pk)
    generation, mark = store.generation_read(key, "status=*")
    assert (generation, mark) == ("0", None)
    store.generation_bump(key, ttl_ms=60_000)  # a delete committed while the count ran
    assert not store.generation_mark(key, "status=*", generation=generation, ttl_ms=60_000)
    assert store.generation_read(key, "status=*") == ("1", None)

    calls: list[int] = []

    def capped() -> None:
        calls.append(1)

    for _ in range(3):
        assert (
            list_counts.cached_capped_count(Todo, owner_id=user.pk, scope="status=*", count=capped)
            is None
        )
    assert len(calls) == 1  # counted once, then remembered under generation 1
    with django_capture_on_commit_callbacks(execute=True):
        list_counts.live_rows_shrank(Todo, owner_id=user.pk)  # bumps once committed
    assert (
        list_counts.cached_capped_count(Todo, owner_id=user.pk, scope="status=*", count=capped)
        is None
    )
    assert len(calls) == 2


def test_without_redis_a_list_still_counts(alice_api, user, monkeypatch) -> None:
    from lightnote.controlstore import store

    def down(*args: Any, **kwargs: Any) -> Any:
        raise store.StoreUnavailable("down")

    monkeypatch.setattr(store, "generation_read", down)
    seed("todos", user, 3)
    body, counted = _counted(alice_api, LISTS["todos"])
    assert (body["count"], counted) == (3, True)


@pytest.mark.services
@pytest.mark.parametrize("kind", ["sessions", "messages"])
def test_the_session_and_message_lists_read_an_index_in_sort_order(user, other_user, kind) -> None:
    """Conversations and their messages: the page off an index, the count off the index."""
    from agent.conversation import sessions
    from agent.models import AgentSession, Message

    start = datetime(2026, 1, 1, tzinfo=UTC)
    owned = [AgentSession(owner=user, updated_at=start + timedelta(minutes=i)) for i in range(300)]
    others = [AgentSession(owner=other_user) for _ in range(3000)]
    AgentSession.objects.bulk_create(owned + others)
    session = owned[0]
    Message.objects.bulk_create(
        Message(session=chat, role="user", text=f"m{i}", created_at=start + timedelta(minutes=i))
        for chat in (session, owned[1], others[0])
        for i in range(300)
    )
    queryset = (
        sessions.session_list(owner=user)
        if kind == "sessions"
        else sessions.session_messages(session=session)
    )
    sql, sql_params = queryset[:51].query.sql_with_params()
    plan = _explain(sql, sql_params)
    assert len(plan) == 1, plan
    assert plan[0]["key"], plan
    assert "filesort" not in (plan[0]["Extra"] or ""), plan
    with CaptureQueriesContext(connection) as captured:
        assert pagination.capped_count(queryset) == 300
    [query] = captured.captured_queries
    table = [row for row in _explain(query["sql"], ()) if not row["table"].startswith("<")]
    assert len(table) == 1, table
    assert table[0]["key"], table
    assert "Using index" in (table[0]["Extra"] or "").replace("Using index condition", ""), table


def test_a_bump_inside_a_riding_context_waits_for_a_pipeline_or_for_the_end(user) -> None:
    """Inside a confirm the bump rides with the settle; with no pipeline it is sent at the
    end of the context, never dropped."""
    from lightnote.controlstore import scripts as store_scripts
    from lightnote.controlstore import store
    from lightnote.rest import list_counts

    key = list_counts._key(Todo, user.pk)
    with store_scripts.riding_context():
        store.generation_bump(key, ttl_ms=60_000)
        assert store.generation_read(key, "status=*") == ("0", None)  # still waiting
    assert store.generation_read(key, "status=*") == ("1", None)
