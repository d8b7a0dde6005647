"""The messages endpoint (docs/api.md "Sessions and messages") with the offline rules planner.

Every test goes through HTTP. The helpers at the top are reused by the continuation, OpenAI
and seed-scenario tests of the conversation layer.
"""

from __future__ import annotations

import base64
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from agent.cards import records as cards
from agent.models import ActionReceipt, AgentSession, Message
from agent.planners import get_planner
from agent.planners.rules import RulesPlanner
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from lightnote.texts.i18n import translate
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

SESSIONS = "/api/v1/agent/sessions/"
CONFIRM = "/api/v1/agent/confirmations/confirm/"
REPLY = "/api/v1/agent/continuations/reply/"
SEED = "帮我创建一条今晚 9 点提交周报的高优先级待办"
SEED_EN = "Create a high priority todo to submit the weekly report at 9pm tonight"
# The seed's "now": the card must say tonight 21:00 in the user's zone.
FROZEN_NOW = "2026-12-02T14:00:00+08:00"
TONIGHT_NINE = "2026-12-02T21:00:00+08:00"
CARD_FIELDS = {
    "card_id",
    "token",
    "continuation_token",
    "capability",
    "tool",
    "risk",
    "state",
    "expires_at",
    "args",
    "preview",
    "provenance",
}
OFFSET_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$")


# --- helpers (imported by the other conversation test modules) ---------------------------


def messages_url(session_id: str) -> str:
    return f"{SESSIONS}{session_id}/messages/"


def new_session(api: APIClient, **headers: str) -> str:
    response = api.post(SESSIONS, {}, format="json", headers=headers or None)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def send(api: APIClient, session_id: str, text: str, **headers: str) -> Any:
    """Post one message; return the response (status not checked)."""
    return api.post(
        messages_url(session_id), {"text": text}, format="json", headers=headers or None
    )


def say(api: APIClient, session_id: str, text: str, **headers: str) -> dict[str, Any]:
    """Post one message that must succeed; return its body."""
    response = send(api, session_id, text, **headers)
    assert response.status_code == 200, response.content
    return response.json()


def only_card(body: dict[str, Any]) -> dict[str, Any]:
    assert body["notices"] == [], body["notices"]
    [card] = body["cards"]
    return card


def confirm(api: APIClient, session_id: str, card: dict[str, Any]) -> Any:
    return api.post(CONFIRM, {"token": card["token"], "session_id": session_id}, format="json")


def final_reply(api: APIClient, session_id: str, card: dict[str, Any], **headers: str) -> Any:
    return api.post(
        REPLY,
        {"token": card["continuation_token"], "session_id": session_id},
        format="json",
        headers=headers or None,
    )


def error_code(response: Any) -> str:
    return response.json()["error"]["code"]


def card_keys() -> list[bytes]:
    return list(get_redis().scan_iter(match="ln:card:*"))


def token_bits(token: str) -> int:
    """Return the entropy of a ``secrets.token_urlsafe`` token: its decoded length in bits."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    return len(raw) * 8


# --- sessions ----------------------------------------------------------------------------


def test_a_session_is_created_for_and_owned_by_its_caller(alice_api, user) -> None:
    response = alice_api.post(SESSIONS, {}, format="json")

    assert response.status_code == 201
    assert set(response.json()) == {"id"}
    session = AgentSession.objects.get(id=response.json()["id"])
    assert session.owner == user


def test_creating_a_session_needs_authentication() -> None:
    response = APIClient().post(SESSIONS, {}, format="json")
    assert response.status_code == 401
    assert error_code(response) == "NOT_AUTHENTICATED"
    assert AgentSession.objects.count() == 0


def test_a_session_body_with_an_unknown_field_is_refused(alice_api) -> None:
    response = alice_api.post(SESSIONS, {"owner": 2}, format="json")
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"
    assert AgentSession.objects.count() == 0


# --- the messages endpoint: who may post, and what ----------------------------------------


def test_another_users_session_is_404_and_stores_nothing(alice_api, client_for, other_user) -> None:
    session_id = new_session(alice_api)

    response = send(client_for(other_user), session_id, SEED)

    assert response.status_code == 404
    assert error_code(response) == "SESSION_NOT_FOUND"
    assert Message.objects.count() == 0
    assert card_keys() == []


def test_an_unknown_session_is_404(alice_api) -> None:
    response = send(alice_api, "6f1c1a52-4a4e-4e38-9a55-000000000000", "你好")
    assert response.status_code == 404
    assert error_code(response) == "SESSION_NOT_FOUND"


def test_posting_a_message_needs_authentication(alice_api) -> None:
    session_id = new_session(alice_api)
    response = send(APIClient(), session_id, SEED)
    assert response.status_code == 401
    assert Message.objects.count() == 0


def test_a_text_over_4000_characters_is_refused(alice_api) -> None:
    session_id = new_session(alice_api)

    too_long = send(alice_api, session_id, "记" * 4001)
    at_limit = send(alice_api, session_id, "记" * 4000)

    assert too_long.status_code == 400
    assert error_code(too_long) == "VALIDATION_ERROR"
    assert "text" in too_long.json()["error"]["fields"]
    assert at_limit.status_code == 200
    assert Message.objects.filter(role="user").count() == 1  # only the accepted one


@pytest.mark.parametrize("text", ["", "   "])
def test_an_empty_text_is_refused(alice_api, text: str) -> None:
    session_id = new_session(alice_api)
    response = send(alice_api, session_id, text)
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"
    assert Message.objects.count() == 0


@pytest.mark.parametrize(
    "body", [{"text": "你好", "user_id": 2}, {"text": "你好", "confirmed": True}, {}]
)
def test_an_unknown_or_missing_field_is_refused(alice_api, body: dict[str, Any]) -> None:
    session_id = new_session(alice_api)
    response = alice_api.post(messages_url(session_id), body, format="json")
    assert response.status_code == 400
    assert error_code(response) == "VALIDATION_ERROR"
    assert Message.objects.count() == 0


def test_history_is_persisted_as_user_and_assistant_messages(alice_api) -> None:
    session_id = new_session(alice_api)

    first = say(alice_api, session_id, SEED)
    second = say(alice_api, session_id, "最近没完成的待办")

    rows = list(Message.objects.filter(session_id=session_id).order_by("created_at", "id"))
    assert [(row.role, row.text) for row in rows] == [
        ("user", SEED),
        ("assistant", first["reply"]),
        ("user", "最近没完成的待办"),
        ("assistant", second["reply"]),
    ]
    assert str(rows[1].id) == first["message_id"]
    stored_card = rows[1].payload["cards"][0]
    assert stored_card["args"] == first["cards"][0]["args"]
    # A raw token never reaches the database.
    assert "token" not in stored_card
    assert "continuation_token" not in stored_card
    assert first["cards"][0]["token"] not in str(rows[1].payload)


def test_a_read_tool_answer_lists_its_facts(alice_api, user) -> None:
    todo_services.todo_create(owner=user, title="交报告")
    todo_services.todo_create(owner=user, title="买牛奶")
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "最近没完成的待办")

    assert body["cards"] == []
    assert body["notices"] == []
    [fact] = body["facts"]
    assert set(fact) == {"tool", "status", "summary", "count", "items", "link"}
    assert (fact["tool"], fact["status"]) == ("query_todos", "succeeded")
    # Items carry their ids, so a client can render and link the list (issue 14).
    assert fact["count"] == 2
    assert {(item["type"], item["title"]) for item in fact["items"]} == {
        ("todo", "交报告"),
        ("todo", "买牛奶"),
    }
    assert {item["id"] for item in fact["items"]} == {str(todo.id) for todo in Todo.objects.all()}
    assert "交报告" in fact["summary"]
    assert "买牛奶" in fact["summary"]
    assert "交报告" in body["reply"]
    assert Todo.objects.count() == 2  # a read writes nothing


def test_a_turn_that_fails_on_the_store_leaves_no_half_turn(alice_api) -> None:
    session_id = new_session(alice_api)
    closed_port = {"default": {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:1/0"}}

    with override_settings(CACHES=closed_port):
        response = send(alice_api, session_id, "帮我创建一条明天下午三点开会的待办")

    assert response.status_code == 503
    assert error_code(response) == "CONFIRMATION_STORE_UNAVAILABLE"
    assert Message.objects.count() == 0  # neither the question nor a reply
    assert card_keys() == []


@pytest.mark.usefixtures("steady_window")  # "1/m" below
def test_over_the_card_rate_limit_the_turn_is_429_and_leaves_no_half_turn(
    alice_api, settings
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1/m"
    session_id = new_session(alice_api)
    say(alice_api, session_id, "帮我创建一条明天下午三点开会的待办")

    limited = send(alice_api, session_id, "帮我创建一条明天下午五点交报告的待办")
    read = send(alice_api, session_id, "最近没完成的待办")  # reads make no card: not limited

    assert limited.status_code == 429
    assert error_code(limited) == "RATE_LIMITED"
    assert int(limited["Retry-After"]) >= 1
    assert read.status_code == 200
    assert len(card_keys()) == 1
    assert Message.objects.filter(text__contains="交报告").count() == 0
    assert Message.objects.count() == 4  # two complete turns


# --- cards -------------------------------------------------------------------------------


def test_the_seed_sentence_gives_one_card_exactly_as_api_md_describes(alice_api, user) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        body = say(alice_api, session_id, SEED)
        # (read while the clock is frozen: the in-process store's TTLs follow that clock)
        stored = cards.card_get(body["cards"][0]["token"]) if body["cards"] else None

    assert set(body) == {"message_id", "reply", "facts", "cards", "choices", "notices", "changes"}
    assert body["reply"] == translate("AGENT_PLEASE_CONFIRM", "zh-CN")
    card = only_card(body)
    assert set(card) == CARD_FIELDS
    assert card["provenance"] is None  # nothing stored was read on this turn
    assert token_bits(card["token"]) >= 128
    assert token_bits(card["continuation_token"]) >= 128
    assert card["continuation_token"] != card["token"]
    assert (card["capability"], card["tool"], card["risk"], card["state"]) == (
        "todo.create",
        "create_todo",
        "low",
        "ready",
    )
    assert OFFSET_ISO.match(card["expires_at"])
    assert card["expires_at"] == "2026-12-02T14:05:00+08:00"  # LIGHTNOTE_CONFIRMATION_TTL
    assert card["args"] == {
        "title": "提交周报",
        "description": "",
        "priority": 2,
        "due_at": TONIGHT_NINE,
        "due_at_said": "今晚 9 点",  # what the card says the time was read from
    }
    # ``args`` are the prepared args that will execute, exactly: the stored card's args.
    assert stored is not None
    assert stored.args == card["args"]
    assert stored.session_id == session_id
    assert stored.state == "ready"
    preview = card["preview"]
    assert set(preview) == {"title", "target", "impact", "details"}
    assert (preview["title"], preview["target"]) == ("创建待办", "提交周报")
    details = {item["key"]: item["value"] for item in preview["details"]}
    assert "2026-12-02 21:00" in details["due_at"]
    assert details["priority"] == "高"
    assert Todo.objects.count() == 0  # a card is a proposal, not a write
    assert AuditEvent.objects.filter(event_type="card.issued", action_id=stored.id).count() == 1


def test_a_vague_time_asks_for_the_time_and_makes_no_card(alice_api) -> None:
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "帮我创建一条今晚提交周报的待办")

    [notice] = body["notices"]
    assert body["cards"] == []
    assert (notice["capability"], notice["status"], notice["slot"], notice["code"]) == (
        "todo.create",
        "clarify",
        "due_at",
        "TODO_DUE_AT_INVALID",
    )
    assert "提交周报" in notice["message"]
    assert "今晚" in notice["message"]
    assert notice["message"] in body["reply"]
    assert card_keys() == []
    refusal = AuditEvent.objects.get(event_type="card.refused")
    assert (refusal.code, refusal.tool) == ("TODO_DUE_AT_INVALID", "create_todo")


def test_the_answer_to_a_time_question_completes_the_card(alice_api) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        say(alice_api, session_id, "帮我创建一条今晚提交周报的待办")
        body = say(alice_api, session_id, "9点")

    [card] = body["cards"]
    assert card["args"]["title"] == "提交周报"
    assert card["args"]["due_at"] == TONIGHT_NINE
    assert body["notices"] == []
    assert Todo.objects.count() == 0


def test_a_due_time_in_2099_is_rejected_as_suspicious_before_any_card(alice_api) -> None:
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "添加待办「交报告」，截止2099-01-01 10:00")

    assert body["cards"] == []
    [notice] = body["notices"]
    assert (notice["capability"], notice["status"], notice["code"]) == (
        "todo.create",
        "rejected",
        "TODO_DUE_AT_SUSPICIOUS",
    )
    assert "2099" in notice["message"]
    assert notice["message"] in body["reply"]
    assert card_keys() == []


def test_a_planned_capability_gives_its_guidance_and_no_card(alice_api) -> None:
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "删除笔记 周会")

    guidance = "Agent 暂不支持删除笔记，请前往笔记页面手动删除。"
    assert body["cards"] == []
    assert body["notices"] == [
        {
            "capability": "note.delete",
            "status": "planned",
            "code": "CAPABILITY_PLANNED",
            "message": guidance,
        }
    ]
    assert body["reply"] == guidance
    assert card_keys() == []


def test_a_forbidden_capability_gives_its_guidance_and_no_card(alice_api) -> None:
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "注销我的账号")

    guidance = "Agent 不允许执行账号注销或删除，请在账号设置中自行处理。"
    assert body["cards"] == []
    assert body["notices"] == [
        {
            "capability": "account.delete",
            "status": "forbidden",
            "code": "CAPABILITY_FORBIDDEN",
            "message": guidance,
        }
    ]
    assert body["reply"] == guidance
    assert card_keys() == []


def test_an_unknown_todo_title_is_rejected_with_todo_not_found(alice_api) -> None:
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "把待办「不存在的事」标记为完成")

    assert body["cards"] == []
    [notice] = body["notices"]
    assert (notice["capability"], notice["status"], notice["code"]) == (
        "todo.status.set",
        "rejected",
        "TODO_NOT_FOUND",
    )


def test_accept_language_changes_the_texts(alice_api) -> None:
    session_id = new_session(alice_api)
    with time_machine.travel(FROZEN_NOW, tick=False):
        english = say(alice_api, session_id, SEED, **{"Accept-Language": "en"})
        chinese = say(alice_api, session_id, SEED, **{"Accept-Language": "zh-CN"})
    refused_en = say(
        alice_api, session_id, "删除笔记 周会", **{"Accept-Language": "en-US,en;q=0.9"}
    )

    # The reply is in the language of the message (Chinese here); the card in the request's.
    assert english["reply"] == "请检查下面的确认卡；只有你确认后才会执行。"
    assert chinese["reply"] == "请检查下面的确认卡；只有你确认后才会执行。"
    assert only_card(english)["preview"]["title"] == "Create todo"
    assert only_card(chinese)["preview"]["title"] == "创建待办"
    # The prepared args do not depend on the language.
    assert only_card(english)["args"] == only_card(chinese)["args"]
    assert refused_en["notices"][0]["message"] == (
        "The agent cannot delete notes yet; delete it on the notes page."
    )


def test_the_users_language_is_the_default_without_accept_language(make_user, client_for) -> None:
    api = client_for(make_user("emma", language="en"))
    session_id = new_session(api)

    body = say(api, session_id, "删除笔记 周会")

    assert body["notices"][0]["message"] == (
        "The agent cannot delete notes yet; delete it on the notes page."
    )


# --- the done-when path ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "title", "said", "locale"),
    [
        (SEED, "提交周报", "今晚 9 点", "zh-CN"),
        (SEED_EN, "Submit the weekly report", "9pm tonight", "en"),
    ],
)
def test_the_seed_sentence_creates_one_todo_and_the_reply_names_it(
    alice_api, user, sentence: str, title: str, said: str, locale: str
) -> None:
    headers = {"Accept-Language": locale}
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        card = only_card(say(alice_api, session_id, sentence, **headers))
        assert card["args"] == {
            "title": title,
            "description": "",
            "priority": 2,
            "due_at": TONIGHT_NINE,
            "due_at_said": said,
        }

        confirmed = confirm(alice_api, session_id, card)
        first = final_reply(alice_api, session_id, card, **headers)
        repeat = final_reply(alice_api, session_id, card, **headers)

    assert confirmed.status_code == 200
    assert confirmed.json()["outcome"]["ok"] is True
    [todo] = Todo.objects.filter(owner=user)
    assert (todo.title, todo.priority) == (title, 2)
    assert todo.due_at.isoformat() == "2026-12-02T13:00:00+00:00"  # 21:00 in Shanghai
    assert ActionReceipt.objects.count() == 1
    assert first.status_code == 200
    assert first.json()["state"] == "settled"
    assert title in first.json()["reply"]
    assert "21:00" in first.json()["reply"]
    assert repeat.status_code == 200
    assert repeat.json() == first.json()
    assert Todo.objects.count() == 1
    # The final reply joins the history once, with its receipt.
    [stored] = Message.objects.filter(session_id=session_id, payload__has_key="receipt")
    assert stored.text == first.json()["reply"]
    assert stored.payload["receipt"]["resource"] == {"type": "todo", "id": str(todo.id)}


def test_make_run_default_rules_planner_handles_the_seed_sentence_for_a_new_user() -> None:
    """What ``make run`` serves with no configuration: rules planner, demo login, API only."""
    assert settings.OPENAI_API_KEY == ""
    assert isinstance(get_planner(), RulesPlanner)
    call_command("ensure_demo_user", stdout=io.StringIO())
    api = APIClient()
    login = api.post(
        "/api/v1/auth/token/", {"username": "demo", "password": "demo-pass-2026"}, format="json"
    )
    assert login.status_code == 200
    api.credentials(HTTP_AUTHORIZATION=f"Token {login.json()['token']}")

    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(api)
        card = only_card(say(api, session_id, SEED))
        assert confirm(api, session_id, card).json()["outcome"]["ok"] is True
        reply = final_reply(api, session_id, card)

    assert card["args"]["due_at"] == TONIGHT_NINE
    assert Todo.objects.get().title == "提交周报"
    assert reply.status_code == 200
    assert "提交周报" in reply.json()["reply"]


def test_without_an_api_key_the_settings_choose_the_rules_planner(tmp_path: Path) -> None:
    """The embedded default needs no key: LIGHTNOTE_PLANNER defaults to "rules"."""
    environment = {
        "PATH": "/usr/bin:/bin",
        "LIGHTNOTE_DEBUG": "1",
        "LIGHTNOTE_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    probe = "import lightnote.settings as s; print(s.LIGHTNOTE_PLANNER)"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=Path(settings.BASE_DIR),
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "rules"


def test_each_card_binds_the_request_id_of_the_turn_that_issued_it(alice_api) -> None:
    from agent.cards import records as cards

    session_id = new_session(alice_api)
    response = alice_api.post(
        f"/api/v1/agent/sessions/{session_id}/messages/",
        {"text": "帮我创建一条明天下午3点开会的待办"},
        format="json",
        HTTP_X_REQUEST_ID="req-42",
    )
    token = response.json()["cards"][0]["token"]
    card = cards.card_get(token)

    assert card is not None
    assert card.request_id == "req-42"
    assert cards.card_binding_valid(card)
