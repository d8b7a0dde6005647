"""Several writes in one message: one card each, in the order said (agent.planners.several).

The seventeenth unseen batch (intent corpus zh-861…900, en-861…900) found that a list of
new todos became one todo titled with the whole list ("三个买牛奶、取快递、交水费"), a second
request was swallowed into the first one's title or a note's content, and several items
acted on alike were asked about as one. Each class is pinned here, with the look-alikes
that must stay one card (a title with 和 / "and" in it, a note whose content is a list).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.planners import PlanRequest, Proposal
from agent.planners.rules import RulesPlanner, interpret
from agent.planners.several import READ_TOOLS
from todos.models import Todo

from .agent_helpers import confirm, open_session, send_message, token_client
from .test_planner_rules import NOW, SHANGHAI, ReadRunner


def proposals(text: str) -> list[Proposal]:
    request = PlanRequest(
        text=text,
        history=[],
        locale="zh-CN",
        zone=SHANGHAI,
        now=NOW,
        tools=[],
        read_tools=READ_TOOLS,
        run_read_tool=ReadRunner(),
    )
    return RulesPlanner().plan(request).proposals


def writes(text: str) -> list[tuple[str, dict[str, Any]]]:
    return [(proposal.tool, proposal.args) for proposal in proposals(text)]


def todo(title: str, **args: Any) -> tuple[str, dict[str, Any]]:
    return ("create_todo", {"title": title, **args})


def done(title: str) -> tuple[str, dict[str, Any]]:
    return ("set_todo_status", {"todo_title": title, "status": "done"})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a list of new todos after a plural head, cut as the head's count says
        (
            "帮我加三个待办：买牛奶、取快递、交水费",
            [todo("买牛奶"), todo("取快递"), todo("交水费")],
        ),
        (
            "帮我加几个待办哈 订机票；订酒店；换签证照片",
            [todo("订机票"), todo("订酒店"), todo("换签证照片")],
        ),
        (
            "添加两件事：周五交报告（高优先级），下周一去银行",
            [todo("交报告", due_at="周五", priority="high"), todo("去银行", due_at="下周一")],
        ),
        ("新增4项任务：A计划、B计划、C计划和D计划", [todo(f"{x}计划") for x in "ABCD"]),
        (
            "待办：1.复印身份证 2.寄快递（明天中午12点前） 3.缴电费",
            [todo("复印身份证"), todo("寄快递", due_at="明天中午12点"), todo("缴电费")],
        ),
        ("1. 洗车 2. 买狗粮 帮我都加上", [todo("洗车"), todo("买狗粮")]),
        (
            "帮我加待办明天早上八点跑步还有周五晚上七点聚餐",
            [todo("跑步", due_at="明天早上八点"), todo("聚餐", due_at="周五晚上七点")],
        ),
        (
            "add these tasks: buy eggs, pick up the package, water the plants",
            [todo("Buy eggs"), todo("Pick up the package"), todo("Water the plants")],
        ),
        (
            "two tasks - pick up dry cleaning tomorrow at 5pm and renew library card next monday",
            [
                todo("Pick up dry cleaning", due_at="tomorrow at 5pm"),
                todo("Renew library card", due_at="next monday"),
            ],
        ),
        (
            "a few todos pls: call the plumber fri 10am; return library books",
            [todo("Call the plumber", due_at="fri 10am"), todo("Return library books")],
        ),
        (
            "1. book flights 2. renew car insurance - add all of them",
            [todo("Book flights"), todo("Renew car insurance")],
        ),
        # one change to several items said to be several
        ("把交房租和买菜都标记完成", [done("交房租"), done("买菜")]),
        (
            "买菜 交房租 给妈妈打电话 这三个都做完了",
            [done("买菜"), done("交房租"), done("给妈妈打电话")],
        ),
        (
            "删掉体检预约、准备周会材料",
            [
                ("delete_todo", {"todo_title": "体检预约"}),
                ("delete_todo", {"todo_title": "准备周会材料"}),
            ],
        ),
        (
            "把提交周报和续签合同的截止时间都改到周五",
            [
                ("update_todo", {"todo_title": "提交周报", "due_at": "周五"}),
                ("update_todo", {"todo_title": "续签合同", "due_at": "周五"}),
            ],
        ),
        (
            "Mark Pay rent, Call mom and Book dentist appointment as complete",
            [done("Pay rent"), done("Call mom"), done("Book dentist appointment")],
        ),
        ("mark both Pay rent and Call mom done", [done("Pay rent"), done("Call mom")]),
        # requests one after another
        (
            "新建待办 明天上午10点开会，然后把给妈妈打电话标记为完成",
            [todo("开会", due_at="明天上午10点"), done("给妈妈打电话")],
        ),
        (
            "把整理书架改回未完成，顺便把续签合同标成已完成",
            [("set_todo_status", {"todo_title": "整理书架", "status": "open"}), done("续签合同")],
        ),
        (
            "记一条笔记，标题叫「会议纪要」，内容是下周发布新版本；再加个待办：发邮件给老王",
            [
                ("create_note", {"title": "会议纪要", "content": "下周发布新版本"}),
                todo("发邮件给老王"),
            ],
        ),
        (
            'Add "Email the landlord" due tomorrow at 9am, then mark Buy milk as done',
            [todo("Email the landlord", due_at="tomorrow at 9am"), done("Buy milk")],
        ),
        (
            "add a todo to call the bank tomorrow at 11am and another one to cancel Netflix",
            [todo("Call the bank", due_at="tomorrow at 11am"), todo("Cancel Netflix")],
        ),
        (
            "rename Prepare slides to Prepare Q4 slides and delete Renew gym membership",
            [
                ("update_todo", {"todo_title": "Prepare slides", "title": "Prepare Q4 slides"}),
                ("delete_todo", {"todo_title": "Renew gym membership"}),
            ],
        ),
        (
            'new note "Packing list" with passport, charger; '
            "and a todo to buy an adapter by Friday",
            [
                ("create_note", {"title": "Packing list", "content": "passport, charger"}),
                todo("Buy an adapter", due_at="Friday"),
            ],
        ),
    ],
)
def test_several_writes_give_one_proposal_each_in_order(
    text: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    assert writes(text) == expected
    assert [proposal.call_id for proposal in proposals(text)] == [
        f"rules-{n}" for n in range(1, len(expected) + 1)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("添加待办：买牛奶和鸡蛋", todo("买牛奶和鸡蛋")),
        ("加个待办：买牛奶、鸡蛋、面包", todo("买牛奶、鸡蛋、面包")),  # 个: one todo
        ("添加待办“打印、装订毕业论文”", todo("打印、装订毕业论文")),
        ("新建一个任务：整理并上传会议录音和照片", todo("整理并上传会议录音和照片")),
        ("提醒我明天给爸爸和妈妈打电话", todo("给爸爸和妈妈打电话", due_at="明天")),
        (
            "记个笔记，标题「周末计划」，内容：爬山、看电影、大扫除",
            ("create_note", {"title": "周末计划", "content": "爬山、看电影、大扫除"}),
        ),
        ("add a todo: buy bread and butter", todo("Buy bread and butter")),
        ('Add "Wash, dry and fold laundry"', todo("Wash, dry and fold laundry")),
        (
            "add a task: compare prices for the sofa, rug and lamp",
            todo("Compare prices for the sofa, rug and lamp"),
        ),
        (
            "create a note called Gift ideas: scarf, headphones, a book for Sam",
            (
                "create_note",
                {"title": "Gift ideas", "content": "scarf, headphones, a book for Sam"},
            ),
        ),
        # a clause that is no request of its own stays with the one before it
        (
            "delete prepare slides pls, meeting got cancelled",
            ("delete_todo", {"todo_title": "prepare slides"}),
        ),
        ("买菜已经搞定了，标记完成", done("买菜")),
        ("把交房租标记完成，因为我刚刚已经转账给房东了", done("交房租")),
        ("Mark Pay rent as done because I just sent the transfer", done("Pay rent")),
        # what not to do, said alongside
        (
            "体检预约改成高优先级，别删哈",
            ("update_todo", {"todo_title": "体检预约", "priority": "high"}),
        ),
        (
            "don't delete Renew passport, just push it to next Monday 9am",
            ("update_todo", {"todo_title": "Renew passport", "due_at": "next Monday 9am"}),
        ),
    ],
)
def test_look_alikes_stay_one_proposal(text: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert writes(text) == [expected]


def test_the_account_deletion_is_never_one_of_several() -> None:
    assert writes("Delete my account, then delete Buy milk") == [("delete_account", {})]


def test_two_items_joined_by_and_are_one_title_first() -> None:
    (proposal,) = proposals("mark pay rent and call mom done")
    assert (proposal.tool, proposal.args) == done("pay rent and call mom")
    assert [(p.tool, p.args) for p in proposal.instead] == [done("pay rent"), done("call mom")]
    # said to be both, or listed with 、: no single title is tried
    assert [p.instead for p in proposals("把交房租和买菜都标记完成")] == [(), ()]


@pytest.mark.parametrize(
    ("text", "tool", "slot"),
    [
        ("帮我加三个待办", "create_todo", "title"),
        ("Add three todos for me", "create_todo", "title"),
        ("把那两个都删了", "delete_todo", "target"),
        ("mark both of them done", "set_todo_status", "target"),
        ("标记完成", "set_todo_status", "target"),
    ],
)
def test_several_items_not_named_are_asked_about(text: str, tool: str, slot: str) -> None:
    intent = interpret(text)
    assert (intent.tool, intent.slot, intent.more) == (tool, slot, ())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "在读书笔记里加上第二章：人物关系",
            ("update_note", {"note_title": "读书", "append": "第二章：人物关系"}),
        ),
        (
            "在购物清单笔记里加一项：酱油",
            ("update_note", {"note_title": "购物清单", "append": "酱油"}),
        ),
        (
            "update the Recipes note to: pancakes, waffles",
            ("update_note", {"note_title": "Recipes", "content": "pancakes, waffles"}),
        ),
        ("把交房租标记完城", done("交房租")),  # a pinyin slip
        ("pls delte Prepare slides", ("delete_todo", {"todo_title": "Prepare slides"})),
        ("把续签合同delete掉", ("delete_todo", {"todo_title": "续签合同"})),
        ("add todo: check next week's agenda", todo("Check next week's agenda")),
        ("add a new one: draft next week's plan", todo("Draft next week's plan")),
        ("Submit the weekly report is done, mark it", done("Submit the weekly report")),
        # the position batch's single requests (tests/data/correction_corpus.tsv)
        ('"Pay rent" is done lol', done("Pay rent")),
        (
            'reopen "Pay rent", I\'m not actually finished with it',
            ("set_todo_status", {"todo_title": "Pay rent", "status": "open"}),
        ),
        (
            'edit the note "Soup recipes": add "bake at 180C"',
            ("update_note", {"note_title": "Soup recipes", "append": "bake at 180C"}),
        ),
        (
            "把「交房租」的截至日期改到明天",
            ("update_todo", {"todo_title": "交房租", "due_at": "明天"}),
        ),
    ],
)
def test_single_requests_the_batch_found(text: str, expected: tuple[str, dict[str, Any]]) -> None:
    assert writes(text) == [expected]


# --- over HTTP: one card each, each confirmed on its own --------------------------------


@pytest.mark.django_db
def test_a_list_becomes_one_card_per_item_each_executed_once(make_user: Any) -> None:
    user = make_user()
    client = token_client(user)
    session = open_session(client)
    body = send_message(client, session, "帮我加三个待办：买牛奶、取快递、交水费")
    assert [card["args"]["title"] for card in body["cards"]] == ["买牛奶", "取快递", "交水费"]
    assert len({card["card_id"] for card in body["cards"]}) == 3
    assert body["reply"] == "请逐一检查下面的 3 张确认卡；每张都只有你确认后才会执行。"
    receipts = []
    for card in body["cards"]:
        response = confirm(client, card["token"], session)
        assert response.status_code == 200, response.content
        assert response.json()["state"] == "settled"
        assert response.json()["outcome"]["ok"] is True
        receipts.append(response.json()["outcome"]["receipt"]["action_id"])
    assert len(set(receipts)) == 3
    again = confirm(client, body["cards"][0]["token"], session)
    assert again.status_code == 200
    assert again.json()["outcome"]["receipt"]["action_id"] == receipts[0]
    titles = sorted(Todo.objects.filter(owner=user).values_list("title", flat=True))
    assert titles == sorted(["买牛奶", "取快递", "交水费"])


@pytest.mark.django_db
def test_two_items_become_two_cards_unless_one_has_that_title(make_user: Any) -> None:
    from todos import services

    user = make_user()
    for title in ("Pay rent", "Call mom"):
        services.todo_create(owner=user, title=title)
    client = token_client(user, **{"Accept-Language": "en"})
    session = open_session(client)
    body = send_message(client, session, "mark pay rent and call mom done")
    assert [card["args"].get("todo_id") for card in body["cards"]] == [
        str(Todo.objects.get(owner=user, title=title).id) for title in ("Pay rent", "Call mom")
    ]
    both = services.todo_create(owner=user, title="Pay rent and call mom")
    body = send_message(client, session, "mark pay rent and call mom done")
    assert [card["args"].get("todo_id") for card in body["cards"]] == [str(both.id)]


@pytest.mark.django_db
def test_a_list_longer_than_the_card_limit_says_so(make_user: Any, settings: Any) -> None:
    settings.LIGHTNOTE_MAX_CARDS_PER_TURN = 5
    user = make_user()
    client = token_client(user)
    session = open_session(client)
    body = send_message(client, session, "添加6个待办：拖地、洗衣服、倒垃圾、浇花、喂猫、遛狗")
    assert [card["args"]["title"] for card in body["cards"]] == [
        "拖地",
        "洗衣服",
        "倒垃圾",
        "浇花",
        "喂猫",
    ]
    assert [notice.get("code") for notice in body["notices"]] == ["TOO_MANY_PROPOSALS"]
    assert Todo.objects.filter(owner=user).count() == 0  # nothing written before a confirm


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "text", "messages"),
    [
        (
            "zh-CN",
            "把洗车和遛狗都标记完成",
            ["没有名为「洗车」的待办。", "没有名为「遛狗」的待办。"],
        ),
        (
            "en",
            "delete Walk the dog and Wash the car",
            ['No todo is titled "Walk the dog".', 'No todo is titled "Wash the car".'],
        ),
    ],
)
def test_items_that_do_not_exist_are_each_named_in_the_refusal(
    make_user: Any, language: str, text: str, messages: list[str]
) -> None:
    client = token_client(make_user(), **{"Accept-Language": language})
    body = send_message(client, open_session(client), text)
    assert body["cards"] == []
    assert [(n["status"], n.get("code"), n["message"]) for n in body["notices"]] == [
        ("rejected", "TODO_NOT_FOUND", message) for message in messages
    ]


# The eighteenth unseen batch (intent corpus zh-901…940, en-901…940): long free text.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a note's content keeps its own 然后 / then / write verbs, numbered steps and tags words
        (
            "记一条笔记：周会纪要——1）分两期；2）整理成文档，然后删除旧的需求文档；3）周五评审",
            [
                (
                    "create_note",
                    {
                        "title": "周会纪要",
                        "content": "1）分两期；2）整理成文档，然后删除旧的需求文档；3）周五评审",
                    },
                )
            ],
        ),
        (
            "New note called Banana bread: mash 3 bananas, then add 1.5 cups flour; bake 1 hour",
            [
                (
                    "create_note",
                    {
                        "title": "Banana bread",
                        "content": "mash 3 bananas, then add 1.5 cups flour; bake 1 hour",
                    },
                )
            ],
        ),
        (
            "新建一条笔记叫产品点子：1. 语音输入 2. 笔记可以添加标签，然后按标签筛选",
            [
                (
                    "create_note",
                    {
                        "title": "产品点子",
                        "content": "1. 语音输入 2. 笔记可以添加标签，然后按标签筛选",
                    },
                )
            ],
        ),
        (
            "添加待办：准备年终述职，描述：1）整理数据；2）做PPT；3）先找主管过一遍",
            [
                (
                    "create_todo",
                    {
                        "title": "准备年终述职",
                        "description": "1）整理数据；2）做PPT；3）先找主管过一遍",
                    },
                )
            ],
        ),
        (
            "帮我新建个笔记，叫“给房东的消息”，内容：水龙头漏水了，这周末找人来修一下，谢谢！",
            [
                (
                    "create_note",
                    {"title": "给房东的消息", "content": "水龙头漏水了，这周末找人来修一下"},
                )
            ],
        ),
        # a request said anew to the assistant after the content
        (
            "新建笔记，标题“装修预算”，内容：硬装8万，软装3万。然后再帮我建个待办：明天上午10点给设计师打电话。",
            [
                ("create_note", {"title": "装修预算", "content": "硬装8万，软装3万"}),
                todo("给设计师打电话", due_at="明天上午10点"),
            ],
        ),
        (
            "Create a note titled Vet visit: Milo is 4.2 kg, less dry food. Oh and add a todo "
            "Buy wet cat food for tomorrow at 7pm.",
            [
                ("create_note", {"title": "Vet visit", "content": "Milo is 4.2 kg, less dry food"}),
                todo("Buy wet cat food", due_at="tomorrow at 7pm"),
            ],
        ),
        (
            "Take a note called Offsite agenda: 9:30 review, then workshop; wrap up at 5. After "
            "that, please create a todo titled Send offsite invites",
            [
                (
                    "create_note",
                    {
                        "title": "Offsite agenda",
                        "content": "9:30 review, then workshop; wrap up at 5",
                    },
                ),
                todo("Send offsite invites"),
            ],
        ),
        (
            "两件事：第一，记个笔记叫会议室密码，内容是3楼 2580；第二，加个待办：续订投影仪。",
            [
                ("create_note", {"title": "会议室密码", "content": "3楼 2580"}),
                todo("续订投影仪"),
            ],
        ),
        # heads the grammar reads in another form
        (
            "笔记标题：实验步骤，内容：1) 称取5g样品 2) 加热10分钟",
            [("create_note", {"title": "实验步骤", "content": "1) 称取5g样品 2) 加热10分钟"})],
        ),
        (
            "把这段加到预算笔记里：12月房租4500，水电300",
            [("update_note", {"note_title": "预算", "append": "12月房租4500，水电300"})],
        ),
        (
            'note "Message to landlord": Hi Mr. Lee, the tap is leaking',
            [
                (
                    "create_note",
                    {"title": "Message to landlord", "content": "Hi Mr. Lee, the tap is leaking"},
                )
            ],
        ),
        (
            "Add to Trip ideas: Kyoto in autumn, then Fushimi Inari at dusk",
            [
                (
                    "update_note",
                    {
                        "note_title": "Trip ideas",
                        "append": "Kyoto in autumn, then Fushimi Inari at dusk",
                    },
                )
            ],
        ),
    ],
)
def test_long_free_text_stays_whole_unless_a_request_is_said_anew(
    text: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    assert [
        (tool, {k: v for k, v in args.items() if k != "tags" or v}) for tool, args in writes(text)
    ] == expected
