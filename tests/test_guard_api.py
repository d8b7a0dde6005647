"""Issue 9 through HTTP: the issue's own replies, in the four situations, with a scripted model.

Situations: a write turn with a card, a write turn without a card, a read-only turn, and the
final reply after a confirmed create. The corpus runs the same way in
``tests/test_guard_corpus.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import time_machine

from agent.guard import NOT_EXECUTED_TEXT, PARTLY_REMOVED_TEXT
from agent.models import Message
from agent.planners.base import reply_locale
from lightnote.models import AuditEvent
from lightnote.texts.i18n import translate
from tests.fake_openai import FakeOpenAI, tool_call
from tests.test_conversation_api import FROZEN_NOW, confirm, final_reply, new_session, say
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db

# The replies of issue 9 that reached the user unchanged.
ISSUE_WRITE_TURN = [
    "Your todo was created.",
    "Todo created.",
    "It's been deleted.",
    "Todo added ✅",
    "Okay, it's done.",
    "Operation successful.",
    "The todo is now complete.",
    "待办已生成。",
    "这条待办已被删除。",
    "好了，删掉了。",
    "已帮你加入待办列表。",
    "笔记删掉了。",
    "待办创建好啦。",
    "搞定！",
    "操作成功。",
    "已经帮你移动好了",
    "已经帮你把笔记分享给张三了。",
]
ISSUE_READ_TURN = [
    ("我有哪些待办？", "已删除你的所有待办。"),
    ("show my todos", "I have deleted all your todos."),
]
GUARDED = {"capability": None, "status": "guarded", "code": "REPLY_UNBACKED_CLAIM"}


@pytest.fixture
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.apply_to(settings, timeout=1)
        settings.LIGHTNOTE_PLANNER = "openai"
        yield server


def _locale(reply: str) -> str:
    return "en" if reply.isascii() or (reply[0].isascii() and "✅" in reply) else "zh-CN"


def _assert_guarded(body: dict[str, Any], locale: str) -> None:
    assert body["reply"] == NOT_EXECUTED_TEXT[locale]
    assert {**GUARDED, "message": NOT_EXECUTED_TEXT[locale]} in body["notices"]


@pytest.mark.parametrize("reply", ISSUE_WRITE_TURN)
def test_issue_claim_on_a_write_turn_with_a_card_is_never_shown(
    alice_api, fake_openai, reply
) -> None:
    """A card turn speaks with the server's text: a false claim beside the card is replaced
    by the server's "not executed" (seed scenario 8), and the card waits."""
    locale = _locale(reply)
    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "提交周报"}), content=reply)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "帮我创建待办提交周报", **{"Accept-Language": locale})

    _assert_guarded(body, locale)
    assert reply not in body["reply"]
    assert [card["state"] for card in body["cards"]] == ["ready"]
    assert body["changes"]["count"] == 0
    assert Todo.objects.count() == 0


@pytest.mark.parametrize(
    ("prose", "locale"),
    [("我来为你准备一张确认卡。", "zh-CN"), ("I'll prepare that for you.", "en")],
)
def test_honest_prose_beside_a_card_is_withheld_for_the_servers_text(
    alice_api, fake_openai, prose, locale
) -> None:
    fake_openai.reply_tool_calls(tool_call("create_todo", {"title": "提交周报"}), content=prose)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "帮我创建待办提交周报", **{"Accept-Language": locale})

    assert body["reply"] == translate(
        "AGENT_PLEASE_CONFIRM", reply_locale("帮我创建待办提交周报", locale)
    )
    assert body["notices"] == []
    event = AuditEvent.objects.get(event_type="turn.prose_withheld")
    assert event.details["text"] == prose


@pytest.mark.parametrize("reply", ISSUE_WRITE_TURN)
def test_issue_claim_on_a_write_turn_without_a_card_is_replaced(
    alice_api, fake_openai, reply
) -> None:
    locale = _locale(reply)
    fake_openai.reply_text(reply)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, "把周报那条待办删掉", **{"Accept-Language": locale})

    _assert_guarded(body, locale)
    assert body["cards"] == []
    assert Message.objects.get(role="assistant").text == NOT_EXECUTED_TEXT[locale]


@pytest.mark.parametrize(("question", "reply"), ISSUE_READ_TURN)
def test_issue_claim_on_a_read_turn_is_replaced(
    alice_api, user, fake_openai, question, reply
) -> None:
    todo_services.todo_create(owner=user, title="提交周报")
    locale = _locale(reply)
    fake_openai.reply_tool_calls(tool_call("query_todos", {}))
    fake_openai.reply_text(reply)
    session_id = new_session(alice_api)

    body = say(alice_api, session_id, question, **{"Accept-Language": locale})

    _assert_guarded(body, locale)
    assert [fact["tool"] for fact in body["facts"]] == ["query_todos"]


def _confirmed_create(alice_api: Any, fake_openai: FakeOpenAI) -> tuple[str, dict[str, Any]]:
    fake_openai.reply_tool_calls(
        tool_call("create_todo", {"title": "提交周报", "due_at": "今晚 9 点"})
    )
    session_id = new_session(alice_api)
    [card] = say(alice_api, session_id, "帮我创建一条今晚 9 点提交周报的待办")["cards"]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True
    return session_id, card


def test_final_reply_loses_the_unbacked_delete_and_keeps_the_create(alice_api, fake_openai) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id, card = _confirmed_create(alice_api, fake_openai)
        fake_openai.reply_text("已为你创建待办「提交周报」，并且已删除你其他所有待办。")
        first = final_reply(alice_api, session_id, card)
        again = final_reply(alice_api, session_id, card)

    expected = f"已为你创建待办「提交周报」。\n{PARTLY_REMOVED_TEXT['zh-CN']}"
    notice = {**GUARDED, "message": PARTLY_REMOVED_TEXT["zh-CN"]}
    assert first.json()["changes"]["count"] == 1  # the create's receipt, said by the server
    assert {k: v for k, v in first.json().items() if k != "changes"} == {
        "state": "settled",
        "reply": expected,
        "notices": [notice],
    }
    assert again.json() == first.json()  # the repeat answers the same, notice included
    [stored] = [m for m in Message.objects.filter(role="assistant") if "receipt" in m.payload]
    assert (stored.text, stored.payload["notices"]) == (expected, [notice])
    event = AuditEvent.objects.get(event_type="guard.replaced")
    assert event.details["matched"] == "已删除"
    assert str(event.action_id) == stored.payload["receipt"]["action_id"]


@pytest.mark.parametrize(
    "reply",
    [
        "已为你创建待办「提交周报」，截止今晚 21:00。",
        "Done! 「提交周报」 is in your list.",
        "搞定，待办已创建。",
    ],
)
def test_final_reply_backed_by_its_receipt_is_kept(alice_api, fake_openai, reply) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id, card = _confirmed_create(alice_api, fake_openai)
        fake_openai.reply_text(reply)
        body = final_reply(alice_api, session_id, card).json()

    assert {k: v for k, v in body.items() if k != "changes"} == {"state": "settled", "reply": reply}
    assert not AuditEvent.objects.filter(event_type="guard.replaced").exists()


@pytest.mark.parametrize(
    "reply",
    [
        "已为你删除待办「提交周报」。",  # another kind
        "已为你创建待办「买牛奶」。",  # another item
        "已创建笔记「提交周报」。",  # another type of item
        "I've created it and archived your old notes.",  # a second action
    ],
)
def test_final_reply_claiming_what_the_receipt_does_not_prove_is_changed(
    alice_api, fake_openai, reply
) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id, card = _confirmed_create(alice_api, fake_openai)
        fake_openai.reply_text(reply)
        body = final_reply(alice_api, session_id, card).json()

    assert body["reply"].endswith(PARTLY_REMOVED_TEXT["zh-CN"])
    assert [notice["code"] for notice in body["notices"]] == ["REPLY_UNBACKED_CLAIM"]


def test_a_later_turn_may_restate_the_backed_action(alice_api, fake_openai) -> None:
    with time_machine.travel(FROZEN_NOW, tick=False):
        session_id, _ = _confirmed_create(alice_api, fake_openai)
        fake_openai.reply_text("刚才已经为你创建了待办「提交周报」。")
        backed = say(alice_api, session_id, "刚才那条建好了吗")
        fake_openai.reply_text("刚才已经为你删除了待办「提交周报」。")
        unbacked = say(alice_api, session_id, "刚才那条删了吗")

    assert backed["reply"] == "刚才已经为你创建了待办「提交周报」。"
    assert backed["notices"] == []
    assert unbacked["reply"] == NOT_EXECUTED_TEXT["zh-CN"]


@pytest.mark.parametrize(
    "sentence",
    [
        "添加待办「交水费」",
        "把待办「交房租」标记为完成",
        "删除待办「交房租」",
        "把待办「交房租」改到明天下午3点",
        "把待办「交房租」的标题改为交物业费",
        "记一条笔记：标题 周会，内容 讨论预算",
        "把笔记「周会」的内容改为讨论排期",
        "mark the todo 'Pay rent' as done",
    ],
)
def test_the_offline_final_reply_of_every_tool_is_backed_by_its_receipt(
    alice_api, user, sentence
) -> None:
    from notes import services as note_services

    todo_services.todo_create(owner=user, title="交房租")
    todo_services.todo_create(owner=user, title="Pay rent")
    note_services.note_create(owner=user, title="周会", content="")
    session_id = new_session(alice_api)
    [card] = say(alice_api, session_id, sentence)["cards"]
    assert confirm(alice_api, session_id, card).json()["outcome"]["ok"] is True

    body = final_reply(alice_api, session_id, card).json()

    assert body["state"] == "settled"
    assert "notices" not in body, body
    assert not AuditEvent.objects.filter(event_type="guard.replaced").exists()


def test_a_read_listing_titles_that_read_like_claims_is_not_guarded(alice_api, user) -> None:
    from notes import services as note_services

    note_services.note_create(owner=user, title="已删除旧照片", content="")
    todo_services.todo_create(owner=user, title="Deleted scenes")
    session_id = new_session(alice_api)

    notes = say(alice_api, session_id, "搜索笔记 照片")
    todos = say(alice_api, session_id, "show my open todos", **{"Accept-Language": "en"})

    assert "已删除旧照片" in notes["reply"]
    assert "Deleted scenes" in todos["reply"]
    assert (notes["notices"], todos["notices"]) == ([], [])
