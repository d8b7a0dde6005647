"""A correction of the card just shown, said in the chat (agent.conversation.corrections).

不对，是周五 / "actually make it 5pm" right after a card: the card again with that value,
prepared by the same policy, the old one voided as superseded — never two cards that
could both run. With no card waiting, the correction is not read as a new todo
("不对，是" was one).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import ActionCard
from agent.planners.en import correction as en_correction
from agent.planners.rules import interpret
from agent.planners.zh import correction as zh_correction
from lightnote.controlstore.redis import get_redis
from lightnote.models import AuditEvent
from todos.models import Todo

from .agent_helpers import (
    card_key_of,
    chat_in,
    confirm,
    error_code,
    messages_url,
    send_message,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("不对，是周五", {"due_at": "周五"}),
        ("其实是周五上午10点", {"due_at": "周五上午10点"}),
        ("实际上是后天", {"due_at": "后天"}),
        ("其实我明天要交报告", None),  # a request of its own, not a correction
        ("改成下午5点吧", {"due_at": "下午5点"}),
        ("时间改成后天", {"due_at": "后天"}),
        ("截止时间改到下周一上午10点", {"due_at": "下周一上午10点"}),
        ("还是周五吧", {"due_at": "周五"}),
        ("不对，应该是明天上午9点", {"due_at": "明天上午9点"}),
        ("标题改成提交周报", {"title": "提交周报"}),
        ("错了，标题是「交电费」", {"title": "交电费"}),
        ("改成高优先级", {"priority": "high"}),
        ("不对，高优先级", {"priority": "high"}),
        # the correction corpus's first run (tests/data/correction_corpus.tsv)
        ("改成下午5点把", {"due_at": "下午5点"}),
        ("标题写错了，应该是「项目周会」", {"title": "项目周会"}),
        ("标题改一下，叫「和阿杰打羽毛球」", {"title": "和阿杰打羽毛球"}),
        ("低优先级就行", {"priority": "low"}),
        ("这个要高优先级哈", {"priority": "high"}),
        # no word of correcting, or an item named: a request of its own
        ("周五", None),
        ("下午5点", None),
        ("把提交周报改成周五", None),
        ("明天交房租", None),
        ("改成买牛奶", None),
    ],
)
def test_chinese_corrections(text: str, expected: dict[str, str] | None) -> None:
    assert zh_correction(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no, friday", {"due_at": "friday"}),
        ("actually make it 5pm", {"due_at": "5pm"}),
        ("Actually, make it Friday at 3pm instead", {"due_at": "Friday at 3pm"}),
        ("friday instead", {"due_at": "friday"}),
        ("sorry, I meant Thursday", {"due_at": "Thursday"}),
        ("oops, due next Monday", {"due_at": "next Monday"}),
        ("call it Submit weekly report", {"title": "Submit weekly report"}),
        ("wait, the title should be Call dad", {"title": "Call dad"}),
        ("make it high priority", {"priority": "high"}),
        ("actually high priority", {"priority": "high"}),
        ("acutally 1pm please", {"due_at": "1pm"}),
        (
            "wait, it's due the day after tomorrow at 3pm",
            {"due_at": "the day after tomorrow at 3pm"},
        ),
        ("oops, wrong name - it should say fix the car", {"title": "fix the car"}),
        ("please rename to prepare quarterly slides", {"title": "prepare quarterly slides"}),
        ("high priority pls", {"priority": "high"}),
        ("lower the priority to low please", {"priority": "low"}),
        ("this one's urgent, mark it high priority", {"priority": "high"}),
        ("friday", None),
        ("no thanks", None),
        ("move Pay rent to friday", None),
        ("rename the todo 'Pay rent' to 'Pay the rent'", None),
        ("make it a note", None),
    ],
)
def test_english_corrections(text: str, expected: dict[str, str] | None) -> None:
    assert en_correction(text) == expected


@pytest.mark.parametrize("text", ["不对，是周五", "no, friday", "actually make it 5pm"])
def test_a_correction_with_no_card_is_no_new_todo(text: str) -> None:
    intent = interpret(text)
    assert (intent.tool, intent.message) == (None, "PLANNER_NOTHING_TO_CORRECT")


@pytest.fixture
def wednesday() -> Iterator[None]:
    """The clock the due times below are read on: Wednesday 2026-12-02 14:00 in Shanghai."""
    with time_machine.travel(datetime(2026, 12, 2, 14, 0, tzinfo=ZoneInfo("Asia/Shanghai"))):
        yield


@pytest.mark.django_db
@pytest.mark.usefixtures("wednesday")
def test_a_correction_replaces_the_card_and_only_the_new_one_runs(user: Any) -> None:
    client, session = chat_in(user)
    (old,) = send_message(client, session, "帮我加个待办：明天上午10点开会")["cards"]
    body = send_message(client, session, "不对，改成下午5点")
    (new,) = body["cards"]
    assert (
        body["reply"] == "已按你的更正换成下面这张新的确认卡，上一张已作废；只有你确认后才会执行。"
    )
    assert new["args"]["title"] == "开会"
    assert new["args"]["due_at"] == "2026-12-03T17:00:00+08:00"  # the card's day kept
    assert new["card_id"] != old["card_id"]

    refused = confirm(client, old["token"], session)
    assert (refused.status_code, error_code(refused)) == (410, "CONFIRMATION_EXPIRED")
    done = confirm(client, new["token"], session)
    assert done.status_code == 200
    assert done.json()["outcome"]["ok"] is True
    assert list(Todo.objects.filter(owner=user).values_list("title", flat=True)) == ["开会"]

    old_row = ActionCard.objects.get(id=old["card_id"])
    assert (old_row.state, old_row.void_reason) == ("voided", "superseded")
    assert str(ActionCard.objects.get(id=new["card_id"]).parent_id) == old["card_id"]
    edited = AuditEvent.objects.get(event_type="card.edited", action_id=new["card_id"])
    assert edited.details["parent_id"] == old["card_id"]
    assert edited.details["fields"] == ["due_at"]


@pytest.mark.django_db
@pytest.mark.usefixtures("wednesday")
def test_corrections_chain_and_keep_what_they_do_not_change(user: Any) -> None:
    client, session = chat_in(user, "en")
    (first,) = send_message(client, session, "add a todo to call the bank tomorrow at 11am")[
        "cards"
    ]
    (second,) = send_message(client, session, "actually make it Friday 3pm")["cards"]
    (third,) = send_message(client, session, "call it Call the bank about the loan")["cards"]
    assert second["args"]["title"] == "Call the bank"
    assert second["args"]["due_at"] == "2026-12-04T15:00:00+08:00"
    assert third["args"]["title"] == "Call the bank about the loan"
    assert third["args"]["due_at"] == "2026-12-04T15:00:00+08:00"
    for card in (first, second):
        assert error_code(confirm(client, card["token"], session)) == "CONFIRMATION_EXPIRED"
    assert confirm(client, third["token"], session).json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 1


@pytest.mark.django_db
def test_a_card_that_is_running_is_not_corrected(user: Any) -> None:
    client, session = chat_in(user)
    (old,) = send_message(client, session, "帮我加个待办：明天上午10点开会")["cards"]
    get_redis().hset(card_key_of(old["token"]), "state", "running")  # another tab's claim
    body = send_message(client, session, "不对，改成下午5点")
    assert body["cards"] == []
    assert [n.get("code") for n in body["notices"]] == ["CARD_CORRECTION_TOO_LATE"]
    assert ActionCard.objects.filter(session_id=session).count() == 1  # no row for a new card
    assert ActionCard.objects.get(id=old["card_id"]).state == "ready"  # its execution settles it


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("删除待办「交房租」", "不对，改成下午5点"),  # a delete card has nothing to edit
        ("帮我加三个待办：买菜、取快递、交电费", "不对，是周五"),  # several cards: which?
    ],
)
def test_only_one_card_with_that_field_is_corrected(user: Any, first: str, then: str) -> None:
    from todos import services

    services.todo_create(owner=user, title="交房租")
    client, session = chat_in(user)
    shown = send_message(client, session, first)["cards"]
    body = send_message(client, session, then)
    assert body["cards"] == []
    assert ActionCard.objects.filter(id__in=[c["card_id"] for c in shown], state="ready").count()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_number", range(8))
def test_a_correction_racing_a_confirm_of_the_old_card_runs_one_of_them(
    user: Any, round_number: int
) -> None:
    client, session = chat_in(user)
    (old,) = send_message(client, session, "帮我加个待办：明天上午10点开会")["cards"]
    key = Token.objects.get(user=user).key
    barrier = threading.Barrier(2)

    def tab(kind: str) -> Any:
        try:
            other = APIClient(headers={"Accept-Language": "zh-CN"})
            other.credentials(HTTP_AUTHORIZATION=f"Token {key}")
            barrier.wait(timeout=30)
            if kind == "confirm":
                return confirm(other, old["token"], session)
            return other.post(messages_url(session), {"text": "不对，改成下午5点"}, format="json")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=2) as pool:
        confirmed, corrected = pool.map(tab, ["confirm", "correct"])
    assert corrected.status_code == 200
    new_cards = corrected.json()["cards"]
    old_ran = confirmed.status_code in (200, 202)
    assert old_ran != bool(new_cards), (confirmed.content, corrected.content)
    if new_cards:
        assert error_code(confirmed) == "CONFIRMATION_EXPIRED"
        assert confirm(client, new_cards[0]["token"], session).json()["outcome"]["ok"] is True
    assert Todo.objects.filter(owner=user).count() == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("wednesday")
def test_a_correction_in_traditional_characters(user: Any) -> None:
    client, session = chat_in(user)
    send_message(client, session, "幫我加個待辦：明天上午10點開會")
    (new,) = send_message(client, session, "不對，是週五")["cards"]
    assert new["args"]["due_at"] == "2026-12-04T10:00:00+08:00"  # the day, at the card's 10:00
    assert new["args"]["title"] == "開會"


@pytest.mark.django_db
@pytest.mark.usefixtures("wednesday")
@pytest.mark.parametrize(
    ("first", "said", "due"),
    [
        ("帮我加个待办：明天下午3点开会", "不对，是后天", "2026-12-04T15:00:00+08:00"),
        ("今晚8点提醒我吃药", "不对，是明天", "2026-12-03T20:00:00+08:00"),
        ("帮我加个待办：下周一上午10点体检", "改到周五", "2026-12-04T10:00:00+08:00"),
        ("提醒我明天交房租", "还是周五吧", "2026-12-04T23:59:00+08:00"),  # no clock to keep
        ("remind me to call mom tomorrow 5pm", "no wait, friday", "2026-12-04T17:00:00+08:00"),
        ("remind me to call mom tonight at 8", "actually tomorrow", "2026-12-03T20:00:00+08:00"),
        ("remind me to call mom tomorrow at noon", "make it friday", "2026-12-04T12:00:00+08:00"),
    ],
)
def test_a_day_said_alone_keeps_the_cards_clock_time(
    user: Any, first: str, said: str, due: str
) -> None:
    # 不对，是后天 after 明天下午3点 made the todo due 后天 23:59: the time the user gave was lost.
    client, session = chat_in(user)
    send_message(client, session, first)
    (new,) = send_message(client, session, said)["cards"]
    assert new["args"]["due_at"] == due
