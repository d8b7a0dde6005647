"""The n-th item of the list just shown, named in the next message
(agent.conversation.list_references).

"列出我的待办" then "把第二个标记完成" was a card for a todo titled 第二个 (refused: no such
todo); "show my todos" then "delete the last one" likewise. Now the position names the item
the reply listed at that place.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.planners.en import ordinal_reference as en_reference
from agent.planners.zh import ordinal_reference as zh_reference
from todos import services as todo_services

from .agent_helpers import open_session, send_message, token_client


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("把第二个标记完成", 2),
        ("删掉第3条", 3),
        ("第一项改成高优先级", 1),
        ("最后一条删了吧", -1),
        ("第三件事推迟到周五吧", 3),
        ("把第二天的会议改到周五", None),  # a day, not a position
        ("提醒我第一次见客户前准备资料", None),
    ],
)
def test_chinese_positions(text: str, position: int | None) -> None:
    found = zh_reference(text)
    assert (found[0] if found else None) == position


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("mark the second one done", 2),
        ("delete the last one", -1),
        ("complete the 3rd item", 3),
        ("make #2 high priority", 2),
        ("delete number 4", 4),
        ("delete teh first one", 1),
        ("the third one's done lol", 3),
        ("finish the first draft of the report", None),  # a draft, not a position
        ("remind me about the first day of school", None),
    ],
)
def test_english_positions(text: str, position: int | None) -> None:
    found = en_reference(text)
    assert (found[0] if found else None) == position


def _listed(body: dict[str, Any]) -> list[dict[str, Any]]:
    (fact,) = body["facts"]
    return [item for item in fact["items"]]


@pytest.mark.django_db
def test_a_position_names_the_item_the_list_showed_there(user: Any) -> None:
    for title in ("交房租", "买菜", "给妈妈打电话"):
        todo_services.todo_create(owner=user, title=title)
    client = token_client(user)
    session = open_session(client)
    shown = _listed(send_message(client, session, "列出我的待办"))
    (card,) = send_message(client, session, "把第二个标记完成")["cards"]
    assert (card["tool"], card["args"]["todo_id"]) == ("set_todo_status", shown[1]["id"])

    shown = _listed(send_message(client, session, "列出我的待办"))
    (card,) = send_message(client, session, "最后一条删了吧")["cards"]
    assert (card["tool"], card["args"]["todo_id"]) == ("delete_todo", shown[-1]["id"])


@pytest.mark.django_db
def test_english_positions_after_a_list(user: Any) -> None:
    for title in ("Pay rent", "Call mom", "Buy milk"):
        todo_services.todo_create(owner=user, title=title)
    client = token_client(user, **{"Accept-Language": "en"})
    session = open_session(client)
    shown = _listed(send_message(client, session, "show my todos"))
    (card,) = send_message(client, session, "mark the first one done")["cards"]
    assert card["args"]["todo_id"] == shown[0]["id"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("帮我加个待办：明天交房租", "把第二个标记完成"),  # no list shown before
        ("列出我的待办", "把第九个标记完成"),  # past the end of the list
    ],
)
def test_no_list_or_no_such_position_names_nothing(user: Any, first: str, then: str) -> None:
    for title in ("交房租", "买菜"):
        todo_services.todo_create(owner=user, title=title)
    client = token_client(user)
    session = open_session(client)
    send_message(client, session, first)
    body = send_message(client, session, then)
    assert body["cards"] == []


@pytest.mark.parametrize(
    ("listed", "text", "resolved"),
    [
        # a field after the position takes 的; a verb right after it takes 把
        (
            [("todo", "交房租"), ("todo", "买菜")],
            "第2条截止日期改成下周一",
            "「买菜」的截止日期改成下周一",
        ),
        ([("note", "周会"), ("note", "周会纪要")], "最后一条笔记删了", "把笔记「周会纪要」删了"),
        (
            [("todo", "Pay rent"), ("todo", "Call mom")],
            "the second one's done lol",
            '"Call mom" is done lol',
        ),
        (
            [("note", "Recipes")],
            "rename the first one to Soups",
            'rename the note "Recipes" to Soups',
        ),
        # several kinds, or past the end: the message as it was
        ([("todo", "交房租"), ("note", "周会")], "把第一个删掉", "把第一个删掉"),
        ([("todo", "交房租")], "把第二个删掉", "把第二个删掉"),
    ],
)
def test_the_position_is_replaced_by_the_items_title(
    listed: list[tuple[str, str]], text: str, resolved: str
) -> None:
    from agent.conversation.list_references import resolve

    items = [{"type": kind, "id": str(n), "title": title} for n, (kind, title) in enumerate(listed)]
    assert resolve(text, items) == resolved
