"""Conversations and history through the HTTP API: card ids, the card lifecycle kept in the
database, session list / rename / soft delete, and messages with their cards' current state.

API.md "Card ids, history, choices, edits, undo". Runs in both passes; the race and the
transaction-boundary tests need the real MariaDB and Redis.
"""

from __future__ import annotations

import io
import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.db import DatabaseError, connection
from django.utils import timezone

from agent.cards import history as lifecycle
from agent.models import ActionCard, ActionReceipt, AgentSession
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from lightnote.ops.request_counters import count_requests
from tests.agent_helpers import (
    CREATE_TODO_TEXT,
    SESSIONS_URL,
    StoreClock,
    commit_reply_lost,
    confirm,
    error_code,
    messages_url,
    open_session,
    reject,
    send_message,
    status,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

REPLY_URL = "/api/v1/agent/continuations/reply/"


def session_url(session_id: str) -> str:
    return f"{SESSIONS_URL}{session_id}/"


def one_card(client: Any, session_id: str, text: str = CREATE_TODO_TEXT) -> dict[str, Any]:
    body = send_message(client, session_id, text)
    assert len(body["cards"]) == 1, body
    return body["cards"][0]


def history(client: Any, session_id: str, **params: Any) -> dict[str, Any]:
    response = client.get(messages_url(session_id), params)
    assert response.status_code == 200, response.content
    return response.json()


def history_cards(client: Any, session_id: str) -> dict[str, dict[str, Any]]:
    """Return every card in the session's history by card id."""
    return {
        card["card_id"]: card
        for message in history(client, session_id, page_size=200)["results"]
        for card in message["cards"]
    }


# --- card ids ------------------------------------------------------------------------------


def test_every_card_carries_its_card_id_which_is_the_receipts_action_id(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    assert uuid.UUID(card["card_id"])
    assert card["card_id"] not in (card["token"], card["continuation_token"])

    outcome = confirm(alice_api, card["token"], session_id).json()["outcome"]

    assert outcome["receipt"]["action_id"] == card["card_id"]
    assert list(history_cards(alice_api, session_id)) == [card["card_id"]]


def test_a_card_id_confirms_nothing(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    response = confirm(alice_api, card["card_id"], session_id)

    assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")
    assert Todo.objects.count() == 0


# --- the lifecycle in history ----------------------------------------------------------------


def test_history_shows_a_ready_card_with_its_expiry_and_never_a_token(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    response = alice_api.get(messages_url(session_id))

    body = response.json()
    assert {"count", "next", "previous", "results"} <= set(body)
    user_turn, assistant_turn = body["results"]
    assert (user_turn["role"], user_turn["text"]) == ("user", CREATE_TODO_TEXT)
    assert user_turn["cards"] == []
    assert assistant_turn["role"] == "assistant"
    [shown] = assistant_turn["cards"]
    assert shown["state"] == "ready"
    assert shown["expires_at"] == card["expires_at"]
    for field in ("card_id", "capability", "tool", "risk", "args", "preview"):
        assert shown[field] == card[field], field
    assert "token" not in shown
    assert "continuation_token" not in shown
    assert card["token"] not in response.content.decode()
    assert card["continuation_token"] not in response.content.decode()
    # The stored row holds digests, never the raw tokens.
    row = ActionCard.objects.get(id=card["card_id"])
    assert card["token"] not in str(row.__dict__)
    assert card["continuation_token"] not in str(row.__dict__)


def test_history_shows_a_settled_card_with_its_receipt_even_after_redis_forgot_it(
    alice_api,
) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    settled = confirm(alice_api, card["token"], session_id).json()

    get_redis().flushdb()  # Redis lost everything: history must not care
    shown = history_cards(alice_api, session_id)[card["card_id"]]

    assert shown["state"] == "settled"
    assert shown["outcome"] == settled["outcome"]
    assert shown["outcome"]["receipt"]["summary"]
    assert shown["settled_at"] == settled["outcome"]["receipt"]["settled_at"]
    receipt = ActionReceipt.objects.get(action_id=card["card_id"])
    assert ActionCard.objects.get(id=card["card_id"]).receipt == receipt


def test_history_shows_a_rejected_card(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    assert reject(alice_api, card["token"], session_id).status_code == 200
    shown = history_cards(alice_api, session_id)[card["card_id"]]

    assert shown["state"] == "rejected"
    assert shown["rejected_at"]
    assert "outcome" not in shown


def test_history_shows_an_expired_card_once_its_expiry_passed(alice_api, settings) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    later = timezone.now() + timedelta(seconds=settings.LIGHTNOTE_CONFIRMATION_TTL + 1)

    with time_machine.travel(later, tick=False):
        shown = history_cards(alice_api, session_id)[card["card_id"]]

    assert shown["state"] == "expired"
    assert ActionCard.objects.get(id=card["card_id"]).state == "ready"  # derived, not written


def test_history_shows_a_business_failure_as_settled_not_ok(alice_api, user) -> None:
    todo = todo_services.todo_create(owner=user, title="交报告")
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id, "完成待办「交报告」")
    todo_services.todo_delete(owner=user, todo_id=todo.id)

    settled = confirm(alice_api, card["token"], session_id).json()
    shown = history_cards(alice_api, session_id)[card["card_id"]]

    assert settled["outcome"]["ok"] is False
    assert shown["state"] == "settled"
    assert shown["outcome"] == {"ok": False, "error": settled["outcome"]["error"]}
    assert ActionCard.objects.get(id=card["card_id"]).receipt is None


def test_history_error_messages_follow_the_readers_language(alice_api, user) -> None:
    todo = todo_services.todo_create(owner=user, title="交报告")
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id, "完成待办「交报告」")
    todo_services.todo_delete(owner=user, todo_id=todo.id)
    zh = confirm(alice_api, card["token"], session_id).json()["outcome"]["error"]

    response = alice_api.get(messages_url(session_id), HTTP_ACCEPT_LANGUAGE="en")
    [shown] = [c for m in response.json()["results"] for c in m["cards"]]

    assert shown["outcome"]["error"]["code"] == zh["code"]
    assert shown["outcome"]["error"]["message"] != zh["message"]
    assert shown["outcome"]["error"]["message"].isascii()


@pytest.mark.django_db(transaction=True)
def test_an_unknown_outcome_is_in_history_and_reconciliation_settles_it_without_redis(
    alice_api, settings
) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    with commit_reply_lost(committed=False):
        unknown = confirm(alice_api, card["token"], session_id).json()
    assert unknown["outcome"]["ok"] is None

    shown = history_cards(alice_api, session_id)[card["card_id"]]
    assert shown["state"] == "settled"
    assert shown["outcome"]["ok"] is None
    assert shown["outcome"]["error"]["code"] == "ACTION_OUTCOME_UNKNOWN"

    get_redis().flushdb()  # the live record is gone: only the database can settle it
    later = timezone.now() + timedelta(seconds=settings.LIGHTNOTE_EXECUTION_LEASE + 1)
    out = io.StringIO()
    with time_machine.travel(later, tick=False):
        call_command("reconcile_cards", stdout=out)

    assert "settled 1 history row(s)" in out.getvalue()
    shown = history_cards(alice_api, session_id)[card["card_id"]]
    assert shown["outcome"]["ok"] is False
    assert shown["outcome"]["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert [r.status for r in ActionReceipt.objects.filter(action_id=card["card_id"])] == ["voided"]
    assert Todo.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_an_unknown_outcome_resolved_by_status_updates_history(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    clock = StoreClock().start()
    try:
        with commit_reply_lost(committed=False):
            confirm(alice_api, card["token"], session_id)
        clock.past_lease()
        resolved = status(alice_api, card["token"], session_id).json()
    finally:
        clock.stop()

    shown = history_cards(alice_api, session_id)[card["card_id"]]
    assert resolved["outcome"]["error"]["code"] == "ACTION_NOT_EXECUTED"
    assert shown["outcome"] == resolved["outcome"]


@pytest.mark.django_db(transaction=True)
def test_a_commit_whose_reply_was_lost_is_settled_ok_in_history(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    with commit_reply_lost(committed=True):
        settled = confirm(alice_api, card["token"], session_id).json()

    shown = history_cards(alice_api, session_id)[card["card_id"]]
    assert settled["outcome"]["ok"] is True
    assert shown["outcome"] == settled["outcome"]


def test_a_final_reply_is_a_message_naming_its_card(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)
    confirm(alice_api, card["token"], session_id)
    reply = alice_api.post(
        REPLY_URL,
        {"token": card["continuation_token"], "session_id": session_id},
        format="json",
    )
    assert reply.status_code == 200, reply.content

    messages = history(alice_api, session_id)["results"]

    assert [m["role"] for m in messages] == ["user", "assistant", "assistant"]
    assert messages[-1]["text"] == reply.json()["reply"]
    assert messages[-1]["card_id"] == card["card_id"]


def test_messages_are_paginated_oldest_first(alice_api) -> None:
    session_id = open_session(alice_api)
    for text in ("最近没完成的待办", "已完成的待办", "查看我的待办"):
        send_message(alice_api, session_id, text)

    first = history(alice_api, session_id, page_size=4)
    second = alice_api.get(first["next"]).json()

    assert first["count"] == 6
    texts = [m["text"] for m in first["results"] + second["results"]]
    assert texts[0::2] == ["最近没完成的待办", "已完成的待办", "查看我的待办"]
    assert second["next"] is None


def test_history_reads_a_page_in_a_fixed_number_of_queries(
    alice_api, django_assert_max_num_queries
) -> None:
    session_id = open_session(alice_api)
    cards = [one_card(alice_api, session_id) for _ in range(3)]
    confirm(alice_api, cards[0]["token"], session_id)
    reject(alice_api, cards[1]["token"], session_id)

    # auth, session, count, page, cards (with receipts); for ``changes``: the final replies
    # in the conversation and the receipts they continue
    with django_assert_max_num_queries(7):
        history(alice_api, session_id)


# --- sessions --------------------------------------------------------------------------------


def test_sessions_are_listed_latest_activity_first_with_titles(alice_api, settings) -> None:
    older = open_session(alice_api)
    newer = open_session(alice_api)
    send_message(alice_api, older, "  最近没完成的待办\n请列出来  ")  # older becomes the latest

    body = alice_api.get(SESSIONS_URL).json()

    assert {"count", "next", "previous", "results"} <= set(body)
    assert [s["id"] for s in body["results"]] == [older, newer]
    assert body["results"][0]["title"] == "最近没完成的待办 请列出来"
    assert body["results"][1]["title"] == ""
    assert set(body["results"][0]) == {"id", "title", "created_at", "updated_at"}
    assert body["results"][0]["updated_at"] > body["results"][0]["created_at"]


def test_a_title_comes_from_the_first_message_only_and_is_cut(alice_api) -> None:
    session_id = open_session(alice_api)
    send_message(alice_api, session_id, "查" * 300)
    send_message(alice_api, session_id, "最近没完成的待办")

    [listed] = alice_api.get(SESSIONS_URL).json()["results"]

    assert len(listed["title"]) == 120
    assert listed["title"] == "查" * 119 + "…"


def test_a_rename_that_wins_the_race_keeps_its_title_and_the_turn_still_moves_the_times(
    alice_api,
) -> None:
    """The turn read its session untitled; a rename commits before the turn's touch. The
    rename's title stays, and the turn's activity time and pending-question hint are
    written all the same (one UPDATE titles only an untitled row)."""
    from agent.conversation import sessions

    session_id = open_session(alice_api)
    stale = AgentSession.objects.get(id=session_id)
    assert stale.title == ""
    AgentSession.objects.filter(id=session_id).update(title="改过的名字")
    later = timezone.now() + timedelta(minutes=5)

    sessions.session_touch(session=stale, first_text="第一句话", pending_until=later)

    stored = AgentSession.objects.get(id=session_id)
    assert stored.title == "改过的名字"
    assert stored.pending_until == later
    assert stored.updated_at == stale.updated_at
    untitled = AgentSession.objects.get(id=open_session(alice_api))
    sessions.session_touch(session=untitled, first_text="第一句话")
    assert AgentSession.objects.get(id=untitled.id).title == "第一句话"


def test_the_session_list_is_paginated_and_shows_only_the_callers(
    alice_api, client_for, other_user
) -> None:
    mine = [open_session(alice_api) for _ in range(3)]
    open_session(client_for(other_user))

    first = alice_api.get(SESSIONS_URL, {"page_size": 2}).json()
    second = alice_api.get(first["next"]).json()

    assert first["count"] == 3
    assert {s["id"] for s in first["results"] + second["results"]} == set(mine)


def test_rename_a_session(alice_api) -> None:
    session_id = open_session(alice_api)
    send_message(alice_api, session_id, "最近没完成的待办")

    response = alice_api.patch(session_url(session_id), {"title": "  周报  "}, format="json")

    assert response.status_code == 200
    assert response.json()["title"] == "周报"
    assert response.json()["id"] == session_id
    send_message(alice_api, session_id, "已完成的待办")  # a rename is kept
    assert alice_api.get(session_url(session_id)).json()["title"] == "周报"


@pytest.mark.parametrize(
    "payload",
    [{}, {"title": ""}, {"title": "   "}, {"title": "x" * 121}, {"title": "a", "extra": 1}],
)
def test_rename_refuses_a_bad_body_with_400(alice_api, payload) -> None:
    session_id = open_session(alice_api)

    response = alice_api.patch(session_url(session_id), payload, format="json")

    assert (response.status_code, error_code(response)) == (400, "VALIDATION_ERROR")
    assert AgentSession.objects.get(id=session_id).title == ""


def test_another_users_session_is_404_everywhere(alice_api, client_for, other_user) -> None:
    theirs = open_session(client_for(other_user))

    for response in (
        alice_api.get(session_url(theirs)),
        alice_api.patch(session_url(theirs), {"title": "mine"}, format="json"),
        alice_api.delete(session_url(theirs)),
        alice_api.get(messages_url(theirs)),
    ):
        assert (response.status_code, error_code(response)) == (404, "SESSION_NOT_FOUND")
    assert AgentSession.objects.get(id=theirs).deleted_at is None


def test_history_needs_authentication(api_client, alice_api) -> None:
    session_id = open_session(alice_api)
    for url in (SESSIONS_URL, session_url(session_id), messages_url(session_id)):
        response = api_client.get(url)
        assert (response.status_code, error_code(response)) == (401, "NOT_AUTHENTICATED")


def test_deleting_a_session_voids_its_ready_cards_and_hides_it_everywhere(alice_api) -> None:
    session_id = open_session(alice_api)
    done = one_card(alice_api, session_id)
    confirm(alice_api, done["token"], session_id)
    ready = one_card(alice_api, session_id)

    response = alice_api.delete(session_url(session_id))

    assert response.status_code == 204
    assert response.content == b""
    row = ActionCard.objects.get(id=ready["card_id"])
    assert (row.state, row.void_reason) == ("voided", "session_deleted")
    assert ActionCard.objects.get(id=done["card_id"]).state == "settled"  # history kept
    # The voided token is gone (410) even before the session check; the settled one is 404.
    gone = confirm(alice_api, ready["token"], session_id)
    assert (gone.status_code, error_code(gone)) == (410, "CONFIRMATION_EXPIRED")
    settled = confirm(alice_api, done["token"], session_id)
    assert (settled.status_code, error_code(settled)) == (404, "SESSION_NOT_FOUND")
    reply = alice_api.post(
        REPLY_URL, {"token": done["continuation_token"], "session_id": session_id}, format="json"
    )
    assert (reply.status_code, error_code(reply)) == (404, "SESSION_NOT_FOUND")
    for response in (
        alice_api.get(session_url(session_id)),
        alice_api.get(messages_url(session_id)),
        alice_api.post(messages_url(session_id), {"text": "hi"}, format="json"),
        alice_api.patch(session_url(session_id), {"title": "x"}, format="json"),
        alice_api.delete(session_url(session_id)),
    ):
        assert (response.status_code, error_code(response)) == (404, "SESSION_NOT_FOUND")
    assert alice_api.get(SESSIONS_URL).json()["results"] == []
    assert Todo.objects.count() == 1  # only the confirmed one; the voided card never ran
    assert AuditEvent.objects.filter(event_type="session.deleted").count() == 1


def test_history_and_session_writes_in_an_admin_context(
    alice_api, user, make_user, client_for
) -> None:
    session_id = open_session(alice_api)
    send_message(alice_api, session_id, "最近没完成的待办")
    staff = make_user("staff", is_staff=True)
    started = client_for(staff).post(
        "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
    )
    admin = client_for(staff, **{"X-Admin-Context": started.json()["context_id"]})

    # Reads show the subject's conversations; writes are refused and change nothing.
    assert [s["id"] for s in admin.get(SESSIONS_URL).json()["results"]] == [session_id]
    assert len(admin.get(messages_url(session_id)).json()["results"]) == 2
    for response in (
        admin.patch(session_url(session_id), {"title": "x"}, format="json"),
        admin.delete(session_url(session_id)),
    ):
        assert (response.status_code, error_code(response)) == (403, "ADMIN_READONLY")
    session = AgentSession.objects.get(id=session_id)
    assert (session.title, session.deleted_at) == ("最近没完成的待办", None)


# --- the confirm path: one UPDATE inside the existing transaction -----------------------------


def test_confirm_adds_exactly_one_update_inside_the_execution_transaction(alice_api) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    with count_requests(keep_statements=True) as counts:
        assert confirm(alice_api, card["token"], session_id).json()["outcome"]["ok"] is True

    statements = counts.statements or []
    card_writes = [i for i, sql in enumerate(statements) if "agent_actioncard" in sql]
    receipt_insert = next(i for i, sql in enumerate(statements) if "agent_actionreceipt" in sql)
    assert len(card_writes) == 1
    assert statements[card_writes[0]].startswith("UPDATE")
    assert card_writes[0] == receipt_insert + 1  # beside the receipt, in its transaction
    # token + session, the account cap's read, the todo, the receipt, this UPDATE, the audit
    # rows (the test's own transaction adds a SAVEPOINT pair around the durable block).
    assert len([sql for sql in statements if "SAVEPOINT" not in sql]) == 7


def test_a_message_turn_records_its_cards_in_one_insert(alice_api) -> None:
    session_id = open_session(alice_api)
    send_message(alice_api, session_id, "最近没完成的待办")  # titled already

    with count_requests(keep_statements=True) as counts:
        one_card(alice_api, session_id)

    inserts = [sql for sql in counts.statements or [] if "agent_actioncard" in sql]
    assert len(inserts) == 1
    assert inserts[0].startswith("INSERT")


@pytest.mark.django_db(transaction=True)
def test_the_card_row_and_the_receipt_roll_back_together(alice_api, monkeypatch) -> None:
    session_id = open_session(alice_api)
    card = one_card(alice_api, session_id)

    def refused_update(card_id: str, *, receipt: Any) -> None:
        # The database itself refuses the row's UPDATE (state is NOT NULL), after the
        # receipt's INSERT in the same transaction.
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE agent_actioncard SET state = NULL WHERE id = %s",
                [ActionCard._meta.pk.get_db_prep_value(card_id, connection)],
            )

    monkeypatch.setattr(lifecycle, "record_succeeded", refused_update)
    outcome = confirm(alice_api, card["token"], session_id).json()["outcome"]

    # Whatever stops the row stops the change and its receipt: nothing is half-written.
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == "ACTION_EXECUTION_FAILED"
    assert Todo.objects.count() == 0
    assert not ActionReceipt.objects.filter(action_id=card["card_id"]).exists()
    row = ActionCard.objects.get(id=card["card_id"])
    assert (row.state, row.outcome_kind, row.receipt_id) == ("settled", "failed", None)


# --- races (real threads, real MariaDB and Redis) ---------------------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_concurrent_confirms_settle_one_row_with_one_receipt(user) -> None:
    client = token_client(user)
    session_id = open_session(client)
    card = one_card(client, session_id)
    barrier = threading.Barrier(12)
    answers: list[int] = []

    def confirm_once() -> None:
        try:
            own = token_client(user)
            barrier.wait()
            answers.append(confirm(own, card["token"], session_id).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=confirm_once) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert set(answers) <= {200, 202}
    assert Todo.objects.count() == 1
    receipt = ActionReceipt.objects.get(action_id=card["card_id"])
    row = ActionCard.objects.get(id=card["card_id"])
    assert (row.state, row.outcome_kind, row.receipt_id) == ("settled", "succeeded", receipt.pk)


def race_confirm_and_delete(user: Any, token: str, session_id: str) -> dict[str, int]:
    """Confirm the card and delete its session at the same moment; return both statuses."""
    barrier = threading.Barrier(2)
    results: dict[str, int] = {}
    calls = {
        "confirm": lambda: confirm(token_client(user), token, session_id),
        "delete": lambda: token_client(user).delete(session_url(session_id)),
    }

    def run(name: str) -> None:
        try:
            barrier.wait()
            results[name] = calls[name]().status_code
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(name,)) for name in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_deleting_a_session_while_confirming_never_loses_an_execution(user) -> None:
    """Delete races confirm: either the card ran (its row settled, with a receipt) or it was
    voided (no receipt, its token gone) — never a voided row over a receipt."""
    for _ in range(5):
        client = token_client(user)
        session_id = open_session(client)
        card = one_card(client, session_id)
        results = race_confirm_and_delete(user, card["token"], session_id)

        assert results["delete"] == 204
        row = ActionCard.objects.get(id=card["card_id"])
        receipts = list(ActionReceipt.objects.filter(action_id=card["card_id"]))
        if receipts:
            assert (row.state, row.outcome_kind) == ("settled", "succeeded")
            assert results["confirm"] == 200
        else:
            assert row.state == "voided"
            assert results["confirm"] in {404, 410}
        assert Todo.objects.filter().count() == len(
            ActionReceipt.objects.filter(status="succeeded")
        )


# --- ask again: a live card for a ready card whose token is lost --------------------------

REISSUE_URL = "/api/v1/agent/confirmations/reissue/"


def reissue(client: Any, card_id: str, session_id: str) -> Any:
    return client.post(REISSUE_URL, {"card_id": card_id, "session_id": session_id}, format="json")


def test_asking_again_issues_the_same_action_as_a_new_card_and_voids_the_old(alice_api) -> None:
    session_id = open_session(alice_api)
    old = one_card(alice_api, session_id)

    response = reissue(alice_api, old["card_id"], session_id)

    assert response.status_code == 200, response.content
    new = response.json()["card"]
    assert new["parent_id"] == old["card_id"]
    assert new["card_id"] != old["card_id"]
    assert new["token"] != old["token"]
    for field in ("tool", "capability", "risk", "args", "preview"):
        assert new[field] == old[field], field
    gone = confirm(alice_api, old["token"], session_id)
    assert (gone.status_code, error_code(gone)) == (410, "CONFIRMATION_EXPIRED")
    settled = confirm(alice_api, new["token"], session_id).json()
    assert settled["outcome"]["ok"] is True
    assert Todo.objects.count() == 1
    [turn] = [m for m in history(alice_api, session_id)["results"] if m["cards"]]
    shown = {card["card_id"]: card for card in turn["cards"]}
    assert (shown[old["card_id"]]["state"], shown[old["card_id"]]["void_reason"]) == (
        "voided",
        "superseded",
    )
    assert shown[new["card_id"]]["state"] == "settled"
    assert shown[new["card_id"]]["parent_id"] == old["card_id"]
    reply = alice_api.post(
        REPLY_URL, {"token": new["continuation_token"], "session_id": session_id}, format="json"
    )
    assert reply.status_code == 200, reply.content


def test_asking_again_refuses_a_card_that_is_not_ready(alice_api, settings) -> None:
    session_id = open_session(alice_api)
    rejected = one_card(alice_api, session_id)
    reject(alice_api, rejected["token"], session_id)
    settled = one_card(alice_api, session_id)
    confirm(alice_api, settled["token"], session_id)
    superseded = one_card(alice_api, session_id)
    reissue(alice_api, superseded["card_id"], session_id)
    expiring = one_card(alice_api, session_id)

    for card, state in (
        (rejected, "rejected"),
        (settled, "settled"),
        (superseded, "voided"),
    ):
        response = reissue(alice_api, card["card_id"], session_id)
        assert (response.status_code, error_code(response)) == (409, "CARD_NOT_READY")
        assert response.json()["state"] == state
    later = timezone.now() + timedelta(seconds=settings.LIGHTNOTE_CONFIRMATION_TTL + 1)
    with time_machine.travel(later, tick=False):
        response = reissue(alice_api, expiring["card_id"], session_id)
    assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")
    assert Todo.objects.count() == 1


def test_asking_again_for_another_users_or_sessions_card_is_404(
    alice_api, client_for, other_user
) -> None:
    bob = client_for(other_user)
    bobs_session = open_session(bob)
    bobs_card = one_card(bob, bobs_session)
    mine = open_session(alice_api)
    my_other = open_session(alice_api)
    my_card = one_card(alice_api, my_other)

    theirs = reissue(alice_api, bobs_card["card_id"], mine)
    elsewhere = reissue(alice_api, my_card["card_id"], mine)
    their_session = reissue(alice_api, bobs_card["card_id"], bobs_session)

    assert (theirs.status_code, error_code(theirs)) == (404, "CARD_NOT_FOUND")
    assert (elsewhere.status_code, error_code(elsewhere)) == (404, "CARD_NOT_FOUND")
    assert (their_session.status_code, error_code(their_session)) == (404, "SESSION_NOT_FOUND")
    assert confirm(bob, bobs_card["token"], bobs_session).json()["outcome"]["ok"] is True


@pytest.mark.parametrize("payload", [{}, {"card_id": "x", "session_id": "y"}, {"extra": 1}])
def test_asking_again_refuses_a_bad_body(alice_api, payload) -> None:
    response = alice_api.post(REISSUE_URL, payload, format="json")
    assert (response.status_code, error_code(response)) == (400, "VALIDATION_ERROR")


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_asking_again_while_confirming_leaves_one_live_action(user) -> None:
    """Reissue races confirm on the same card: the action runs at most once, and if the
    reissue won, only the new card can run it."""
    for _ in range(5):
        client = token_client(user)
        session_id = open_session(client)
        card = one_card(client, session_id)
        barrier = threading.Barrier(2)
        results: dict[str, Any] = {}
        calls = {
            "confirm": lambda: confirm(token_client(user), card["token"], session_id),  # noqa: B023
            "reissue": lambda: reissue(token_client(user), card["card_id"], session_id),  # noqa: B023
        }

        def run(name: str) -> None:
            try:
                barrier.wait()  # noqa: B023
                results[name] = calls[name]()  # noqa: B023
            finally:
                connection.close()

        threads = [threading.Thread(target=run, args=(name,)) for name in calls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        confirmed, reissued = results["confirm"], results["reissue"]
        assert (confirmed.status_code == 200) != (reissued.status_code == 200)
        if reissued.status_code == 200:
            assert error_code(confirmed) == "CONFIRMATION_EXPIRED"
            new = reissued.json()["card"]
            assert confirm(client, new["token"], session_id).json()["outcome"]["ok"] is True
        else:
            assert reissued.status_code in {409, 410}
    assert Todo.objects.count() == 5


def test_asking_again_writes_its_audit_rows_with_the_new_card_s_row(alice_api) -> None:
    """The new card has its ``card.issued`` row (as every issued card) and the
    ``card.reissued`` row naming its parent, written in the transaction with its row."""
    session_id = open_session(alice_api)
    old = one_card(alice_api, session_id)

    new = reissue(alice_api, old["card_id"], session_id).json()["card"]

    rows = AuditEvent.objects.filter(action_id=new["card_id"]).order_by("id")
    assert [(row.event_type, row.details.get("parent_id")) for row in rows] == [
        ("card.issued", None),
        ("card.reissued", old["card_id"]),
    ]


@pytest.mark.django_db(transaction=True)
def test_asking_again_that_cannot_write_its_rows_leaves_no_audit_row(
    alice_api, monkeypatch
) -> None:
    session_id = open_session(alice_api)
    old = one_card(alice_api, session_id)
    alice_api.raise_request_exception = False

    def refused(*args: Any, **kwargs: Any) -> None:
        raise DatabaseError("the card rows could not be written")

    monkeypatch.setattr(lifecycle, "record_issued", refused)
    response = reissue(alice_api, old["card_id"], session_id)

    assert response.status_code == 500
    assert not AuditEvent.objects.filter(event_type__in=["card.reissued"]).exists()
    assert AuditEvent.objects.filter(event_type="card.issued").count() == 1  # the old card's
