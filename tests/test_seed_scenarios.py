"""The article's scenarios 7-10 (section 16) and its "真实性测试" (section 17), through HTTP.

Article -> named tests here:

- 场景 7 操作成功，但最终回复超时: test_scenario_7_reply_timeout_after_success_never_writes_twice
- 场景 8 模型在没有回执时声称成功: test_scenario_8_unbacked_success_claim_is_replaced (zh, en)
- 场景 9 管理员处于只读代管模式: test_scenario_9_admin_readonly_gets_a_notice_and_never_a_card
- 场景 10 未支持的删除能力被模型识别出来: test_scenario_10_unsupported_capability_answers_...
- 真实性 没有回执时拦截“已经帮你创建”: test_scenario_8_unbacked_success_claim_is_replaced
- 真实性 普通只读回答不触发成功声明守卫: test_scenario_8_a_read_only_answer_passes_untouched
- 真实性 存在可信成功回执时允许输出完成结果: test_scenario_8_with_a_receipt_the_success_...
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import time_machine

from agent.continuations import store as continuation_store
from agent.guard import NOT_EXECUTED_TEXT
from agent.models import ActionReceipt, Message
from lightnote.models import AuditEvent
from lightnote.texts.i18n import translate
from notes import services as note_services
from notes.models import Note
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import (
    FROZEN_NOW,
    SEED,
    SEED_EN,
    card_keys,
    confirm,
    error_code,
    final_reply,
    new_session,
    only_card,
    say,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

TONIGHT_ARGS = {"title": "提交周报", "due_at": "今晚 9 点"}
CLAIM_ZH = "已经帮你创建好了待办「提交周报」，今晚 9 点截止。"
CLAIM_EN = "I've created the todo for you: submit the weekly report, due tonight at 9pm."


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    """Select the OpenAI planner, pointed at a fresh fake server (1 s client timeout)."""
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server


@pytest.fixture
def staff(make_user: Any) -> Any:
    return make_user("staff", is_staff=True)


# --- scenario 7: the action succeeded, the final reply timed out -------------------------


def test_scenario_7_reply_timeout_after_success_never_writes_twice(
    alice_api, user, fake_openai
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"})
    )
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        card = only_card(say(alice_api, session_id, SEED))
        assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True
        # The model is too slow twice (the first attempt and the client's one retry).
        fake_openai.reply_text("已为你创建待办「提交周报」。", delay=3)
        fake_openai.reply_text("已为你创建待办「提交周报」。", delay=3)
        timed_out = final_reply(alice_api, session_id, card)
        state_after_timeout = _continuation_state(card)
        fake_openai.reply_text("已为你创建待办「提交周报」，截止今晚 21:00。")
        retried = final_reply(alice_api, session_id, card)
        repeat = confirm(alice_api, session_id, card)

    assert timed_out.status_code == 503
    assert error_code(timed_out) == "CONTINUATION_GENERATION_FAILED"
    assert state_after_timeout == "ready"
    assert retried.status_code == 200
    assert retried.json()["reply"] == "已为你创建待办「提交周报」，截止今晚 21:00。"
    # No second write: one todo, one receipt; a repeated confirm replays the settled outcome.
    assert Todo.objects.filter(owner=user).count() == 1
    assert ActionReceipt.objects.count() == 1
    assert repeat.json()["outcome"]["ok"] is True
    # The retry only regenerated the reply: every later model request offered no tools.
    assert all("tools" not in request for request in fake_openai.requests[1:])
    assert len(fake_openai.requests) == 4  # plan, 2 timed-out attempts, the retry


def _continuation_state(card: dict[str, Any]) -> str | None:
    continuation = continuation_store.continuation_get(card["continuation_token"])
    return None if continuation is None else continuation.state


# --- scenario 8: the model claims success without a receipt ------------------------------


@pytest.mark.parametrize(
    ("sentence", "claim", "locale"),
    [(SEED, CLAIM_ZH, "zh-CN"), (SEED_EN, CLAIM_EN, "en")],
)
def test_scenario_8_unbacked_success_claim_is_replaced(
    alice_api, user, fake_openai, sentence: str, claim: str, locale: str
) -> None:
    fake_openai.reply_text(claim)  # a success story, and no tool call at all
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, sentence, **{"Accept-Language": locale})

    assert body["reply"] == NOT_EXECUTED_TEXT[locale]
    assert body["cards"] == []
    assert body["notices"] == [
        {
            "capability": None,
            "status": "guarded",
            "code": "REPLY_UNBACKED_CLAIM",
            "message": NOT_EXECUTED_TEXT[locale],
        }
    ]
    event = AuditEvent.objects.get(event_type="guard.replaced")
    assert event.code == "REPLY_UNBACKED_CLAIM"
    assert (event.actor, event.subject, str(event.session_id)) == (user, user, session_id)
    assert event.details["original"] == claim
    assert event.details["matched"]
    assert event.details["matched"] in claim
    # The claim is never shown nor stored as the assistant's words.
    assert Message.objects.get(role="assistant").text == NOT_EXECUTED_TEXT[locale]
    assert Todo.objects.count() == 0


def test_scenario_8_the_fixed_texts_are_the_articles() -> None:
    assert NOT_EXECUTED_TEXT["zh-CN"] == "该操作尚未执行：服务端没有生成可核验的确认或成功回执。"
    assert NOT_EXECUTED_TEXT["en"] == (
        "This operation has not been executed: the server has no verifiable confirmation or "
        "success receipt."
    )


def test_scenario_8_a_claim_beside_a_refused_proposal_keeps_the_reason(
    alice_api, fake_openai
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚"}), content=CLAIM_ZH
    )
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "帮我创建一条今晚提交周报的待办")

    # The refused proposal's reason is a question about its vague time (a clarify notice);
    # the model's unbacked claim is replaced, with the guarded notice after it.
    notice, guarded = body["notices"]
    assert (notice["status"], notice["slot"], notice["code"]) == (
        "clarify",
        "due_at",
        "TODO_DUE_AT_INVALID",
    )
    assert "今晚" in notice["message"]
    assert (guarded["status"], guarded["code"]) == ("guarded", "REPLY_UNBACKED_CLAIM")
    assert body["reply"] == f"{NOT_EXECUTED_TEXT['zh-CN']}\n{notice['message']}"
    assert body["cards"] == []
    assert AuditEvent.objects.filter(event_type="guard.replaced").count() == 1


def test_scenario_8_a_claim_beside_a_card_is_replaced_and_nothing_runs(
    alice_api, fake_openai
) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"}), content=CLAIM_ZH
    )
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        body = say(alice_api, session_id, SEED)

    assert body["reply"] == NOT_EXECUTED_TEXT["zh-CN"]
    assert [notice["code"] for notice in body["notices"]] == ["REPLY_UNBACKED_CLAIM"]
    [card] = body["cards"]
    assert card["state"] == "ready"  # a proposal awaiting the user, not a write
    assert Todo.objects.count() == 0


def test_scenario_8_a_read_only_answer_passes_untouched(alice_api, user, fake_openai) -> None:
    todo_services.todo_create(owner=user, title="提交周报")
    answer = "你有 1 条未完成的待办：「提交周报」。"
    fake_openai.reply_tool_calls(tool_call("query_todos", {"status": "open"}))
    fake_openai.reply_text(answer)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "最近没完成的待办")

    assert body["reply"] == answer
    assert [fact["tool"] for fact in body["facts"]] == ["query_todos"]
    assert not AuditEvent.objects.filter(event_type="guard.replaced").exists()


def test_scenario_8_describing_existing_items_is_not_a_claim(alice_api, user, fake_openai) -> None:
    todo_services.todo_create(owner=user, title="提交周报")
    answer = "已经创建的待办有：「提交周报」。我可以帮你创建新的待办。"
    fake_openai.reply_text(answer)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "我创建过哪些待办？")

    assert body["reply"] == answer
    assert not AuditEvent.objects.filter(event_type="guard.replaced").exists()


def test_scenario_8_with_a_receipt_the_success_statement_is_kept(alice_api, fake_openai) -> None:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"})
    )
    fake_openai.reply_text(CLAIM_ZH)  # the same words, now backed by a receipt
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id = new_session(alice_api)
        card = only_card(say(alice_api, session_id, SEED))
        confirm(alice_api, session_id, card)
        response = final_reply(alice_api, session_id, card)

    body = response.json()
    assert (body["state"], body["reply"]) == ("settled", CLAIM_ZH)
    assert body["changes"]["count"] == 1
    assert ActionReceipt.objects.filter(status="succeeded").count() == 1
    assert not AuditEvent.objects.filter(event_type="guard.replaced").exists()


# --- scenario 9: admin read-only impersonation -------------------------------------------


def test_scenario_9_admin_readonly_gets_a_notice_and_never_a_card(client_for, staff, user) -> None:
    todo_services.todo_create(owner=user, title="交报告")
    started = client_for(staff).post(
        "/api/v1/admin/impersonation/", {"user_id": user.id, "mode": "readonly"}, format="json"
    )
    assert started.status_code == 201
    admin_api = client_for(staff, **{"X-Admin-Context": started.json()["context_id"]})
    session_id = new_session(admin_api)

    with time_machine.travel(FROZEN_NOW, tick=False):
        write = say(admin_api, session_id, SEED)
    read = say(admin_api, session_id, "最近没完成的待办")

    assert write["cards"] == []
    assert write["notices"] == [
        {
            "capability": "todo.create",
            "status": "rejected",
            "code": "ADMIN_READONLY",
            "message": translate("ADMIN_READONLY", "zh-CN"),
        }
    ]
    assert translate("ADMIN_READONLY", "zh-CN") in write["reply"]
    assert card_keys() == []
    refusal = AuditEvent.objects.get(event_type="card.refused")
    assert (refusal.actor, refusal.subject, refusal.code) == (staff, user, "ADMIN_READONLY")
    assert Todo.objects.filter(owner=user).count() == 1
    # Reads act on the subject's data.
    assert "交报告" in read["reply"]


# --- scenario 10: the model names an unsupported capability ------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "capability", "status", "guidance"),
    [
        (
            "delete_note",
            {"note_title": "周会"},
            "note.delete",
            "planned",
            "Agent 暂不支持删除笔记，请前往笔记页面手动删除。",
        ),
        (
            "deleteNote",
            {"title": "周会"},
            "note.delete",
            "planned",
            "Agent 暂不支持删除笔记，请前往笔记页面手动删除。",
        ),
        (
            "delete_account",
            {},
            "account.delete",
            "forbidden",
            "Agent 不允许执行账号注销或删除，请在账号设置中自行处理。",
        ),
    ],
)
def test_scenario_10_unsupported_capability_answers_from_the_registry(
    alice_api,
    user,
    fake_openai,
    tool: str,
    args: dict[str, Any],
    capability: str,
    status: str,
    guidance: str,
) -> None:
    note = note_services.note_create(owner=user, title="周会", content="讨论计划")
    fake_openai.reply_tool_calls(tool_call(tool, args))
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "删除笔记「周会」，顺便注销我的账号")

    assert body["cards"] == []
    assert body["notices"] == [
        {
            "capability": capability,
            "status": status,
            "code": f"CAPABILITY_{status.upper()}",
            "message": guidance,
        }
    ]
    assert guidance in body["reply"]
    # Nothing was executed: no invented tool exists, no card, no receipt.
    assert card_keys() == []
    assert ActionReceipt.objects.count() == 0
    assert Note.objects.filter(id=note.id).exists()
    user.refresh_from_db()
    assert user.is_active
    refusal = AuditEvent.objects.get(event_type="card.refused")
    assert (refusal.capability, refusal.tool) == (capability, tool)


def test_scenario_10_with_the_rules_planner(alice_api, user) -> None:
    note = note_services.note_create(owner=user, title="周会")
    session_id = new_session(alice_api)

    planned = say(alice_api, session_id, "删除笔记 周会")
    forbidden = say(alice_api, session_id, "注销我的账号")

    assert [(n["capability"], n["status"]) for n in planned["notices"]] == [
        ("note.delete", "planned")
    ]
    assert [(n["capability"], n["status"]) for n in forbidden["notices"]] == [
        ("account.delete", "forbidden")
    ]
    assert planned["cards"] == forbidden["cards"] == []
    assert Note.objects.filter(id=note.id).exists()
