"""``lightnote.overlap``: work done while a query is with the database.

On MariaDB (the services pass) the project's connection runs armed work between sending a
query and reading its reply, once; elsewhere nothing is run there and the work is computed
when asked. The batch-level uses (``run_statements(while_waiting=...)``) are tested in
``tests/test_write_statements.py``, the confirm's in ``tests/test_confirm_costs.py``.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from agent.models import AgentSession
from lightnote.overlap import Prepared, during_next_query

pytestmark = pytest.mark.django_db


@pytest.fixture
def user():
    return get_user_model().objects.create_user("overlap", password="pw-overlap-2026")


def test_a_query_sent_without_work_is_the_driver_s_own():
    """Work is armed for one query only: a query outside the block runs no work, and a
    block in which no query is sent leaves nothing armed for the next one."""
    if connection.vendor != "mysql":
        pytest.skip("MariaDB only: the work rides on mysqlclient's send and read")
    connection.ensure_connection()
    raw = connection.connection
    ran = []
    with raw.while_next_query(lambda: ran.append("ran")):
        pass  # nothing sent
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert ran == []
    with raw.while_next_query(lambda: ran.append("ran")), connection.cursor() as cursor:
        cursor.execute("SELECT 2")
        cursor.execute("SELECT 3")
        assert cursor.fetchone() == (3,)
    assert ran == ["ran"]


@pytest.mark.django_db(transaction=True)
def test_work_during_the_next_query_rides_on_whatever_statement_comes_first(user):
    """``during_next_query``: the ORM's own next statement carries the work on MariaDB (the
    connection is then between that query and its reply), once; elsewhere nothing happens
    inside and the value is computed when asked."""
    connection.ensure_connection()
    seen = []

    def work():
        seen.append(getattr(connection.connection, "_between_query_and_reply", None))
        return "ready"

    prepared = Prepared(work)
    with during_next_query(prepared):
        AgentSession.objects.create(owner=user)
        AgentSession.objects.create(owner=user)
    assert seen == ([True] if connection.vendor == "mysql" else [])
    assert prepared.value() == "ready"
    assert len(seen) == 1
    assert AgentSession.objects.count() == 2


def test_prepared_work_is_computed_once_ahead_or_when_asked():
    calls = []

    def compute():
        calls.append("computed")
        return len(calls)

    ahead = Prepared(compute)
    ahead.prepare()
    ahead.prepare()
    assert (ahead.value(), ahead.value(), calls) == (1, 1, ["computed"])
    asked = Prepared(compute)
    assert (asked.value(), asked.value()) == (2, 2)  # never prepared: computed when asked
