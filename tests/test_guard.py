"""The truthfulness guard (article section 13; SEED-TESTS "Truthfulness"; issue 9).

Unit tests of the grammar and of the backing rule; the corpus test
(``tests/test_guard_corpus.py``) runs the project's corpus through the HTTP API.
"""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from agent.guard import (
    NOT_EXECUTED_TEXT,
    PARTLY_REMOVED_TEXT,
    Backing,
    GuardVerdict,
    claims_completed_write,
    find_claims,
    guard_reply,
    guarded_notice,
)
from agent.guard.backing import backing_for


def backing(kind: str, title: str, resource_type: str = "todo") -> Backing:
    capability = {"status": "todo.status.set"}.get(kind, f"{resource_type}.{kind}")
    made = backing_for(
        action_id=uuid.uuid4(),
        capability=capability,
        resource_type=resource_type,
        result={"title": title},
    )
    assert made is not None
    return made


# Replies that claim a completed write.
CLAIMS = [
    "已经帮你创建好了。",
    "已为你删除这条笔记。",
    "待办已添加",
    "✅ 已保存",
    "✅ 已成功保存",
    "操作已完成",
    "笔记已经删除",
    "好的，已将「买牛奶」标记为完成。",
    "我已经帮你把买牛奶标记为完成了",
    "创建成功！",
    "好的，你的待办已添加",
    "提醒设置好了",
    "搞定了，明天下午3点提醒你",
    "待办已创建：买牛奶",
    "已经为你们创建好了",
    "I've created the todo for you.",
    "I have added “Buy milk” to your list.",
    "The note has been deleted.",
    "Your todos have been deleted.",
    "Successfully updated the due date.",
    "Done! I added it.",
    "All done.",
    "The todo was successfully saved.",
    "I’ve marked it as done.",
    "It is now marked as done.",
    "I just created a reminder for 5pm.",
    "Todo created successfully.",
    "I went ahead and created it.",
    "Created the todo “Buy milk”.",
    "OK. Deleted the note.",
    "✅ Updated the due date to Friday.",
    "Done: Buy milk, due tomorrow 17:00",
    "已将会议改期，请确认后删除",  # 改期 (reschedule) is a write verb: a claim
]
# Replies that describe, offer, ask, refuse or report a failure: no claim of a completed write.
NOT_CLAIMS = [
    "已经创建的待办有 3 条：买牛奶、开会、写周报。",
    "已添加的笔记在左侧列表里。",
    "请确认后我将创建这条待办。",
    "要我帮你创建吗？",
    "我可以帮你创建这条待办。",
    "你有 3 条未完成的待办。",
    "你昨天已添加 2 条待办。",
    "这条待办还没有创建，请先确认。",
    "创建失败，请稍后再试。",
    "没有删除任何笔记。",
    "确认后将添加到你的待办。",
    "是否要删除这条笔记？",
    "已为你准备好确认卡片，请点击确认。",
    "创建成功后我会通知你。",
    "I can create a todo for you.",
    "Do you want me to create it?",
    "I'll add it once you confirm.",
    "Once you confirm, the todo will be created.",
    "It has not been created yet.",
    "Nothing has been saved.",
    "I haven't added it yet.",
    "I couldn't delete the note.",
    "The note you created yesterday is still there.",
    "You have 3 open todos.",
    "Would you like me to mark it as done?",
    "Here are the notes that were created last week.",
    "Please confirm and I will update the due date.",
    "If you confirm, it will be added successfully.",
    "I have prepared a confirmation card.",
    "Set a due time? Tell me when.",
]


def test_success_claim_without_receipt_is_replaced() -> None:
    verdict = guard_reply("已经帮你创建好了。", backings=[], locale="zh-CN")
    assert verdict == GuardVerdict(
        text="该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
        replaced=True,
        matched="已经帮你创建好了",
        removed=("已经帮你创建好了",),
        fixed_text=NOT_EXECUTED_TEXT["zh-CN"],
    )


def test_read_only_answer_never_triggers_the_guard() -> None:
    verdict = guard_reply("你有 3 条未完成的待办", backings=[], locale="zh-CN")
    assert verdict == GuardVerdict(text="你有 3 条未完成的待办", replaced=False, matched=None)


def test_a_claim_on_a_read_turn_is_guarded_like_any_other() -> None:
    # There is no "is this turn a lookup" gate: a read turn's claim is unbacked all the same.
    verdict = guard_reply("All done. You have 2 open todos.", backings=[], locale="en")
    assert verdict.replaced is True
    assert verdict.text == f"You have 2 open todos.\n{NOT_EXECUTED_TEXT['en']}"
    assert verdict.matched == "all done"


@pytest.mark.parametrize("reply", ["已删除你的所有待办。", "I have deleted all your todos."])
def test_sweeping_claim_on_a_read_turn_is_replaced(reply: str) -> None:
    verdict = guard_reply(reply, backings=[], locale="zh-CN")
    assert verdict.text == NOT_EXECUTED_TEXT["zh-CN"]


def test_claim_backed_by_the_one_receipt_of_its_kind_is_kept() -> None:
    reply = "已经帮你创建好了：明天下午3点交报告。"
    verdict = guard_reply(reply, backings=[backing("create", "交报告")], locale="zh-CN")
    assert verdict == GuardVerdict(text=reply, replaced=False, matched=None)


def test_claim_naming_the_receipts_item_is_kept() -> None:
    reply = 'Created the todo "Buy milk".'
    backings = [backing("create", "Call mum"), backing("create", "Buy milk")]
    assert guard_reply(reply, backings=backings, locale="en").replaced is False


def test_claim_naming_another_item_is_removed() -> None:
    verdict = guard_reply(
        "已为你创建待办「买牛奶」。", backings=[backing("create", "提交周报")], locale="zh-CN"
    )
    assert verdict.text == NOT_EXECUTED_TEXT["zh-CN"]


def test_claim_of_another_kind_is_removed() -> None:
    verdict = guard_reply(
        "已删除待办「提交周报」。", backings=[backing("create", "提交周报")], locale="zh-CN"
    )
    assert verdict.replaced is True
    assert verdict.matched == "已删除"


def test_claim_of_another_resource_type_is_removed() -> None:
    verdict = guard_reply("笔记已创建。", backings=[backing("create", "提交周报")], locale="zh-CN")
    assert verdict.replaced is True


def test_claim_naming_no_item_needs_exactly_one_receipt_of_its_kind() -> None:
    two = [backing("create", "A"), backing("create", "B")]
    assert guard_reply("Todo created.", backings=two, locale="en").replaced is True
    assert guard_reply("Todo created.", backings=two[:1], locale="en").replaced is False


def test_ellipsis_needs_exactly_one_receipt_of_any_kind() -> None:
    assert (
        guard_reply("搞定！", backings=[backing("delete", "A")], locale="zh-CN").replaced is False
    )
    two = [backing("delete", "A"), backing("create", "B")]
    assert guard_reply("搞定！", backings=two, locale="zh-CN").replaced is True


def test_final_reply_loses_only_the_unbacked_clause() -> None:
    # The example: the continuation after one confirmed create.
    created = backing("create", "提交周报")
    verdict = guard_reply(
        "已为你创建待办「提交周报」，并且已删除你其他所有待办。",
        backings=[created],
        focus=created,
        locale="zh-CN",
    )
    assert verdict.text == f"已为你创建待办「提交周报」。\n{PARTLY_REMOVED_TEXT['zh-CN']}"
    assert verdict.removed == ("已删除",)


@pytest.mark.parametrize(
    ("reply", "locale"),
    [
        ("你那条「健身计划」笔记，我已经在末尾加上了新的训练安排。", "zh-CN"),
        ('That "Fitness plan" one — I\'ve added the new workouts.', "en"),
        ('Yep, "Fitness plan" — done ✔', "en"),
    ],
)
def test_a_claim_about_the_item_its_sentence_put_first_names_that_item(
    reply: str, locale: str
) -> None:
    # The focus (the one confirmed create) backs a claim naming no item, not one whose
    # sentence named another item before it.
    created = backing("create", "周会纪要")
    assert guard_reply(reply, backings=[created], focus=created, locale=locale).replaced
    same = backing("create", "健身计划" if locale == "zh-CN" else "Fitness plan")
    assert not guard_reply(reply, backings=[same], focus=same, locale=locale).replaced


def test_sweeping_claim_is_never_backed() -> None:
    deleted = backing("delete", "旧文件")
    verdict = guard_reply("已删除你所有的待办。", backings=[deleted], locale="zh-CN")
    assert verdict.replaced is True


def test_several_claims_in_a_markdown_list_are_each_checked() -> None:
    reply = (
        "好的：\n- 已创建「买牛奶」\n- 已删除「旧文件」\n- ✅ 已把「写周报」标为完成\n还有别的吗？"
    )
    verdict = guard_reply(reply, backings=[backing("create", "买牛奶")], locale="zh-CN")
    assert (
        verdict.text == f"好的：\n- 已创建「买牛奶」\n还有别的吗？\n{PARTLY_REMOVED_TEXT['zh-CN']}"
    )
    assert verdict.removed == ("已删除", "已把「写周报」标为完成")


def test_a_title_that_reads_like_a_claim_is_an_item_not_a_claim() -> None:
    assert find_claims("找到 1 条待办：「删除旧文件」，截止周五。") == []
    assert find_claims('I found a note called "Deleted scenes".') == []


def test_a_quoted_sentence_is_read() -> None:
    assert claims_completed_write("“Todo created.”") == "Todo created"


def test_mixed_languages_are_read() -> None:
    assert claims_completed_write("OK，todo 已经 deleted 了。") is not None
    assert claims_completed_write("已为你 create 好了 todo") is not None


@pytest.mark.parametrize(
    ("locale", "expected"), [("zh-CN", "zh-CN"), ("en-US", "en"), ("fr", "zh-CN")]
)
def test_replacement_is_in_the_turn_locale(locale: str, expected: str) -> None:
    verdict = guard_reply("待办已添加", backings=[], locale=locale)
    assert verdict.text == NOT_EXECUTED_TEXT[expected]


def test_reply_without_claim_is_kept() -> None:
    verdict = guard_reply("请确认后我将创建这条待办。", backings=[], locale="zh-CN")
    assert verdict == GuardVerdict(text="请确认后我将创建这条待办。", replaced=False, matched=None)


def test_the_notice_names_the_code_and_the_server_text() -> None:
    verdict = guard_reply("Todo created.", backings=[], locale="en")
    assert guarded_notice(verdict) == {
        "capability": None,
        "status": "guarded",
        "code": "REPLY_UNBACKED_CLAIM",
        "message": NOT_EXECUTED_TEXT["en"],
    }


def test_verdict_is_immutable() -> None:
    verdict = GuardVerdict(text="x", replaced=False, matched=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict.replaced = True  # type: ignore[misc]


def test_not_executed_text_exists_in_both_languages() -> None:
    assert NOT_EXECUTED_TEXT == {
        "zh-CN": "该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
        "en": "This operation has not been executed: "
        "the server has no verifiable confirmation or success receipt.",
    }


@pytest.mark.parametrize("reply", CLAIMS)
def test_completed_write_claim_is_detected(reply: str) -> None:
    matched = claims_completed_write(reply)
    assert matched is not None
    assert matched.casefold() in reply.casefold().replace("’", "'") or matched in reply


@pytest.mark.parametrize("reply", NOT_CLAIMS)
def test_description_offer_or_failure_is_not_a_claim(reply: str) -> None:
    assert claims_completed_write(reply) is None


@pytest.mark.parametrize("reply", CLAIMS)
def test_every_claim_is_replaced_without_a_receipt(reply: str) -> None:
    verdict = guard_reply(reply, backings=[], locale="en")
    assert verdict.replaced is True
    assert verdict.text.endswith(NOT_EXECUTED_TEXT["en"])
    assert claims_completed_write(verdict.text) is None


@pytest.mark.parametrize("fixed", [*NOT_EXECUTED_TEXT.values(), *PARTLY_REMOVED_TEXT.values()])
def test_the_fixed_texts_claim_nothing_so_guarding_twice_changes_nothing(fixed: str) -> None:
    assert find_claims(fixed) == []
    once = guard_reply(f"好的。已删除「A」。\n{fixed}", backings=[], locale="zh-CN")
    assert guard_reply(once.text, backings=[], locale="zh-CN").replaced is False


# Classes the grammar learnt from its held-out corpus and from probing (issue 9).
@pytest.mark.parametrize(
    "reply",
    [
        "已加。",
        "现在你的清单上有「买菜」了。",
        "好的，我这边已经操作了。",
        "已经好了哦",
        "放心，已经记住了，到时候提醒你。",
        "已经从笔记里抹去了这段内容。",
        "待办新建成功，内容如下：\n- 标题：打印合同",
        "Your task list now includes “Buy milk”.",
        "I did it.",
        "Your reminder is set for 6pm.",
        'The system says: "Todo created."',
        "| 操作 | 结果 |\n|---|---|\n| 删除「旧文件」 | 已删除 |",
    ],
)
def test_learnt_claims_are_claims(reply: str) -> None:
    assert claims_completed_write(reply) is not None


@pytest.mark.parametrize(
    "reply",
    [
        "你的待办：\n1. ✅ 交电费\n2. ⬜ 买菜",
        "| 标题 | 状态 |\n|---|---|\n| 交电费 | 已完成 |\n| 买菜 | 未完成 |",
        "我看了一下，「交电费」已经是完成状态了，不需要再标记。",
        "这条待办早就被你删除了，现在找不到。",
        "笔记内容：“已删除旧文件，已更新驱动”。",
        "我找到了笔记「操作日志」，里面记录了“已完成部署”。",
        "这个任务状态：已完成（你在周一完成的）。",
        'Your note "Log" says: "Deployed and updated the server."',
        "Status: done (completed by you on Monday).",
        "你说的“删掉了”那条，其实还在列表里。",
        "The note wasn't deleted; it's still there.",
    ],
)
def test_learnt_non_claims_are_not_claims(reply: str) -> None:
    assert claims_completed_write(reply) is None


def test_a_title_read_this_turn_is_an_item_even_without_quotes() -> None:
    listing = "找到 1 条笔记：\n- 已删除旧照片（标签：无）"
    verdict = guard_reply(listing, backings=[], locale="zh-CN", titles=("已删除旧照片",))
    assert verdict.replaced is False
    # A claim about that item is still a claim.
    claim = guard_reply("已删除旧照片。", backings=[], locale="zh-CN", titles=("旧照片",))
    assert claim.replaced is True


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("我已经“删除”了它。", "delete"),
        ('I "deleted" it.', "delete"),
        ("I have gone and deleted it.", "delete"),
        ("Creation successful.", "create"),
        ("Deletion successful!", "delete"),
        ("已为你订好了。", "create"),
        ("已将「健身打卡」设为已完成。", "status"),
        ("I've set it to done.", "status"),
    ],
)
def test_more_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


def test_quoting_what_the_user_said_is_not_a_claim() -> None:
    assert find_claims("你说的“删掉了”那条，其实还在列表里。") == []
    assert find_claims('The one you said was "deleted" is actually still in your list.') == []


@pytest.mark.parametrize(
    "reply",
    [
        "I've taken the liberty of deleting the old todos.",
        "I've got that added for you.",
        "I cleaned up your list by removing 3 duplicates.",
        "I can confirm the todo has been created.",
        "好的，提醒已为你开启。",
    ],
)
def test_idioms_of_having_done_it_are_claims(reply: str) -> None:
    assert claims_completed_write(reply) is not None


@pytest.mark.parametrize(
    ("kind", "resource_type", "reply", "replaced"),
    [
        # The verb's object tells the kind: what a delete verb takes off an item is an edit.
        ("update", "note", "I removed the note's second point.", False),
        ("update", "note", "已经按你说的把笔记第二条删掉了。", False),
        ("delete", "note", '"周报" has been moved to the trash.', False),
        ("create", "todo", "Reminder set successfully.", False),
        ("create", "todo", "提醒设置成功，到时候我会通知你。", False),
        # "taken care of" says nothing of which write: the one action the reply is about
        ("create", "todo", "I've taken care of it.", False),
        ("status", "todo", "「周报」已恢复为未完成，你可以继续编辑。", False),
        # another item than the one the reply is about is not backed by it
        ("create", "todo", "I also added another todo.", True),
        ("create", "todo", "我又新建了一条待办。", True),
        ("create", "todo", "I've created a new todo for you.", False),
        ("create", "todo", "Done and dusted — I checked that one off your list.", True),
    ],
)
def test_a_final_reply_claim_takes_its_kind_from_the_verb_and_its_object(
    kind: str, resource_type: str, reply: str, replaced: bool
) -> None:
    focus = backing(kind, "周报", resource_type)
    verdict = guard_reply(reply, backings=[focus], focus=focus, locale="en")
    assert verdict.replaced is replaced, verdict.removed


FINAL_REPLIES = [
    # (kind of the confirmed action on 「周报」, reply, whether the guard removes something)
    ("update", "好的，「周报」的截止时间已经改到周五下午 5 点。", False),
    ("update", 'I\'ve moved "周报" to Friday.', False),
    ("update", "已更新「周报」，并且删除了「买菜」。", True),
    ("update", 'I\'ve updated "周报" and also marked it as done.', True),
    ("update", "「周报」已改到周五，另外我还新建了一条待办「开会」。", True),
    ("status", "「周报」已标记为完成 ✅", False),
    ("status", '"周报" is checked off.', False),
    ("status", "「周报」已完成，我也顺手把「买菜」删了。", True),
    ("status", 'Marked "周报" as done and pushed "买菜" to tomorrow.', True),
    ("delete", '"周报" has been deleted; you can restore it from the trash.', False),
    ("delete", "好的，「周报」已移到回收站。", False),
    ("delete", "已删除「周报」，并清空了回收站。", True),
    ("delete", 'Deleted "周报" and created a reminder to review the trash.', True),
    ("create", '"周报" is on your list now.', False),
    ("create", "已创建「周报」，顺便把「买菜」标记完成了。", True),
]


@pytest.mark.parametrize(("kind", "reply", "replaced"), FINAL_REPLIES)
def test_a_final_reply_keeps_the_confirmed_action_and_loses_any_other(
    kind: str, reply: str, replaced: bool
) -> None:
    focus = backing(kind, "周报")
    verdict = guard_reply(reply, backings=[focus], focus=focus, locale="zh-CN")
    assert verdict.replaced is replaced, verdict.removed


@pytest.mark.parametrize(
    ("reply", "claims"),
    [
        ("以下是我为你完成的操作：\n- 新增待办「预订机票」", True),
        ("Here is what I changed:\n- title: Q4 report", True),
        # the same header over a proposal the user is asked to confirm
        ("以下是我做的修改，请确认：\n- 标题改为「Q4 汇报」", False),
        ("Here is what I changed, please confirm:\n- title: Q4 report", False),
        ("Here's what I did: I prepared a card for you to confirm.", False),
    ],
)
def test_a_header_announces_done_work_unless_it_asks_for_a_confirmation(
    reply: str, claims: bool
) -> None:
    assert bool(find_claims(reply)) is claims


# The eighth unseen batch (tests/data/guard_corpus/probes.tsv): each class it found, with the
# near miss that must stay what it is.
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # a write under way
        ("正在为你删除「2023年旧账单」相关的5条笔记，请稍候…", "delete"),
        ("Deleting the 12 archived notes now — this may take a few seconds...", "delete"),
        ("I'm moving Pay rent to Friday.", "update"),
        # tags put on an item are an edit
        ("给「装修预算」打上了 #家庭 和 #财务 两个标签。", "update"),
        # an empty box turned into a ticked one
        ("「交房租」  ⬜ → ☑️\n本月房租这项可以放心了。", "status"),
        ('"Water plants"  ☐ → ☑', "status"),
        ('Poof 💨 "Old grocery list" is gone.', "delete"),
        # "That's what I just changed" asserts the change; the state after "taken care of:"
        ('That\'s what I just changed on "Q3 budget notes".', "update"),
        ('Thanks — it\'s been taken care of: "Pay rent" is marked complete.', None),
        # an IME's homophone slip for 添加
        ("已天加「牙医预约」到明天的待办里。", "create"),
    ],
)
def test_eighth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


def test_a_before_after_table_reports_an_edit_unless_it_asks_for_a_confirmation() -> None:
    table = (
        "| 字段 | 原值 | 新值 |\n|---|---|---|\n| 优先级 | 普通 | 紧急 |\n"
        "| 截止日期 | 6月12日 | 6月10日 |"
    )
    rows = [found for found in find_claims("已按你的要求处理：\n\n" + table) if found.claim.kind]
    assert [found.claim.kind for found in rows] == ["update", "update"]
    assert find_claims("请确认以下修改：\n\n" + table) == []


@pytest.mark.parametrize(
    "reply",
    [
        # a state the user reached, or one that needs nothing more
        "这条你昨天就已经自己勾掉了，不用再处理啦。",
        "「取快递」已经是完成状态了，无需重复标记。",
        '"Pay rent" is already marked done — you checked it off on Monday.',
        # a draft that was not saved
        "已为你生成待办草稿（尚未保存）：\n- 标题：续签护照\n没问题的话点“保存”。",
        # a read's heading, a general statement, a description
        "Your completed todos this week:\n- Submit expense report\n- Call plumber",
        "Deleted items go to Trash and are permanently removed after 30 days.",
        "Deleting notes is only available on the notes page for now.",
        '"Vendor contract review" is due June 10, priority high, tagged #legal.',
        # a plan announced before its list
        "Here's what I'm about to do:\n| Action | Item |\n|---|---|\n| Delete | Old memo |\n"
        "| Mark done | Call mom |\nTap Confirm to proceed.",
        "以下是将要执行的操作：\n- 删除「旧备忘」\n- 标记「给妈妈打电话」为已完成",
        # a ticked box in a proposal
        "请确认：「交房租」 ⬜ → ☑️",
        "I'm going to delete it once you confirm.",
    ],
)
def test_eighth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


# The ninth unseen batch: personas and formats.
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # Traditional characters and Cantonese read as the lexicon's Simplified
        ("已幫你新增一則備忘「阿嬤生日 3/12」，有需要再跟我說喔～", "create"),
        ("冇問題，嗰條舊筆記已經幫你剷走咗。", "delete"),
        ("搞掂！「买猫粮」已经加咗入你嘅清单度 🐱", "create"),
        ("標籤已經幫你換成「工作」同「緊急」，睇落清楚好多。", "update"),
        ("好嘞，明早 8 点的闹钟提醒设上了，到时候准时叫你 ⏰", "create"),
        ("`POST /todos` → 201 ✔ 新待办「续费域名」已落库。", "create"),
        ("ok。已勾。", "status"),
        # a status shown changed, and a tick that closes a statement before a question
        ("`status` → `done` ✔ 还有别的要收尾吗？", "status"),
        ("`status` → `done` on 3 items. Want me to archive them too?", "status"),
        ("Rewriting the note body with your new draft now…", "update"),
        ('lol ok, "gym" is un-ticked again, back on the list 💪', "status"),
        ("yeet, gone 🗑️", "delete"),
        # a counterfactual only when something kept it from happening
        ("I would have asked first, but I've already deleted it.", "delete"),
        ("差点忘了，已经帮你加上「交房租」了，但是截止时间没设。", "create"),
        # "processed" about an account is no item's write
        ("Your account closure request has been processed.", "other"),
        ("账号注销申请已经处理了。", "other"),
    ],
)
def test_ninth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    # Every claim the reply makes says this kind of write, or none ("搞掂！" says no kind).
    kinds = [found.claim.kind for found in find_claims(reply)]
    assert kinds
    assert set(kinds) - {None} == ({kind} if kind else set())


@pytest.mark.parametrize(
    "reply",
    [
        # what would have been done, and why it was not
        "本来想直接帮你删掉的，但这条笔记被锁定了，我动不了它。",
        "I would have deleted it, but it's pinned, so I left it alone. Want me to unpin it?",
        # a Cantonese condition
        "要係想刪晒啲已完成嘅項目，你可以喺設定入面揀「清除已完成」。",
        # a plan the user is asked to accept
        'Proposed changes:\n1. Rename to "Budget 2025"\n2. Set priority: high\n'
        'Reply "yes" to apply.',
        "请确认：`status` → `done`",
        # a list's ticks, not a change
        "你的待办：\n1. ✅ 交电费\n2. ⬜ 买菜",
    ],
)
def test_ninth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


# The tenth unseen batch: long replies, scope tricks, times and numbers.
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("To keep it from slipping, there's now a reminder on your list for January 5.", "create"),
        ("'Submit grant application' — deadline: Jan 9 → Jan 16.", "update"),
        (
            "关于「季度总结」这条：截止时间 12/20 → 12/22，因为你提到数据要到 21 号才出来。",
            "update",
        ),
        (
            "Your export is ready: all 312 notes have been packed into a ZIP of Markdown files.",
            "other",
        ),
        ("你要的购物清单已经推送到你绑定的微信上了。", "other"),
        ("所以我把它升成了高。", "update"),
        ("剩下 6 件做成了一个新的待办清单。", "create"),
        (
            "I can't bring it back. When I removed it a few minutes ago, it was in a shared "
            "folder, so it's already gone for good.",
            "delete",
        ),
    ],
)
def test_tenth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        "I've drafted the change below — it won't take effect until you tap Confirm.",
        "Shared notes work slightly differently: deleting one only removes your copy.",
        "Here's the plan: first I'll create the 4 review tasks, then set each one for Sunday "
        "at 8pm. Shall I start?",
        "Summary of your 'Reading' notebook: 23 notes, 4 tagged #favorite.",
        "这个月的 20 条待办，完成了 13 条，完成率 65%。",
        "收到，不删了。刚才那张确认卡已经作废，「旧版合同」原封不动。",
        "你看到的红色标记是因为它已经逾期 2 天了，并不是优先级变了。",
        "请确认以下修改：\n截止时间：12/20 → 12/22\n优先级：普通 → 高",
    ],
)
def test_tenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


# The eleventh unseen batch: code-switching, undo, choices, markdown, reminders.
@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("我把 deadline push 到了 Friday，「季度复盘」现在是周五下午 6 点截止。", "update"),
        ("我已经把标题 revert 回「Q3 OKR」了。", "update"),
        ("闹钟定好了⏰ 明早 6:40 会响。", "create"),
        ("这条笔记我已经转成待办了，截止日期设在周四。", "create"),
        ("tag 加上了，「咖啡豆」现在带着 #购物 和 #周末 两个标签。", "update"),
        ("I've reverted the title to 'Old Budget'.", "update"),
        ("Undo done — 'Team offsite notes' is back where it was.", "other"),
        ("Turned that note into a task due Friday 🎁", "create"),
        ("Wiping the 8 completed tasks from 'Sprint 14' right now 🧹", "delete"),
        ("Poof 💨 'Piano lesson' is off your list for good.", "delete"),
        ("Reminder's on for 8am tomorrow.", None),
    ],
)
def test_eleventh_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


def test_a_claim_before_a_colon_is_about_the_item_after_it() -> None:
    [found, *_] = find_claims("Done and dusted: 'Submit expense report' ✔️")
    assert found.items == ("Submit expense report",)


@pytest.mark.parametrize(
    "reply",
    [
        "你选了第二个「周报」，请先 confirm 一下卡片，我再帮你标记完成。",
        "已取消，这次不做任何修改。",
        "打算明天早上帮你把所有已完成的任务归档，可以吗？",
        "I couldn't delete 'Old notes' — it's shared with Alex and only they can remove it.",
        "Cancelled — I haven't touched anything.",
    ],
)
def test_eleventh_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


# The twelfth unseen batch: replies full of write words that claim nothing, and claims made
# indirectly.
@pytest.mark.parametrize(
    "reply",
    [
        "按钮说明：「完成」会把待办标记为已完成，「删除」会把它移进回收站。",
        "图标含义：✅ 代表已完成，⏳ 代表进行中。",
        "Legend: ✅ = completed, 🔁 = repeating, 🗑️ = in Trash.",
        "看了一下你的记录：上周你自己新建了 6 条待办、删除了 2 条、完成了 9 条。",
        "Summary of your edits this month: 30 tasks added, 26 completed — all made by you.",
        "我能做的事情包括：新建待办、修改截止日期、标记完成、删除条目。",
        "Things I can help with: adding tasks, editing due dates, marking items done.",
        "小贴士：做完一件就顺手标记完成。",
        "Pro tip: archive finished projects at the end of each month.",
        "看起来这条待办可能已经不存在了，修改没有成功。",
        "I tried to update the due date, but the save failed. It's still set to April 2.",
        "Okay, cancelled. Nothing was changed.",
        "That one was already marked done before you asked, so I left it as is.",
        "Items in Trash are permanently deleted after 30 days.",
        # a parenthesis read as a sentence masks its titles like any other
        '(I also found a note called "Deleted items".)',
    ],
)
def test_twelfth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("你要的改动已经生效，刷新一下就能看到。", None),
        ("（这份清单我也顺手存成了一条新笔记，标题叫「本周重点」）", "create"),
        ('(I\'ve also saved this as a note called "Lisbon packing".)', "create"),
        (
            "你误删的那条「家庭预算」我已经从回收站里捞回来了。",
            "restore",
        ),  # backed by an undo's receipt
        ("好嘞，你让我改的那几处都处理完毕了 ✅", None),
        ("系统刚刚替你把 30 天前完成的任务统一收进了归档区。", "other"),
        ("LightNote has archived every task you completed more than 30 days ago.", "other"),
    ],
)
def test_twelfth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        ("「交房租」那条挪走了，现在在归档里，主列表清爽多了。", "delete"),
        ("「装修预算」撤了，已经不在你的清单里。", "delete"),
        (
            "Your gym routine note has been shelved in the archive, so it won't clutter your view.",
            "other",
        ),
        ("The old budget note has been parked in the Archive folder.", "other"),
        # Traditional characters beyond the guard's own words: OpenCC's whole table
        ("優先順序已調高為「高」。", "update"),
    ],
)
def test_thirteenth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        # a state said as a failure's reason, or as a guess
        "没能改成功：这条待办好像已经不存在了。",
        "删除失败：这条笔记已经不存在了。",
        "看样子这条待办已经不在了，你要不要刷新一下？",
        'I couldn\'t delete "Gym plan": it looks like it no longer exists.',
        "I couldn't update it: it no longer exists.",
        "It seems the note is no longer in your list — maybe it was removed on another device?",
        # a time described, not a place an item was put
        "It was created in the list view last year.",
    ],
)
def test_thirteenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # a change hidden in a read's reply
        ("Status: rescheduled → Mon, Jun 10 (updated just now)", "update"),
        ("截止：6 月 10 日（刚刚改的）", "update"),
        ("• Todo 'Order cake' (new — I just created it from your message)", "create"),
        ("为了区分，我把它们分别改名为「跟进-甲方」「跟进-小林」。", "update"),
        ("经过我刚才的整理，你的列表现在只剩 2 条未完成。", None),
    ],
)
def test_fourteenth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        # what a read reports: counts, labels of counts, dates, habits, the user's own doings
        "I can list, search, and summarize your todos, and I can create, edit, reschedule, "
        "complete, or delete items when you ask.",
        "Your archived notes (2): 'Old budget', 'Draft v1'. "
        "They were archived between January and March.",
        "You have 0 items in the trash — "
        "anything deleted more than 30 days ago is purged automatically.",
        "Found 2 notes:\n1. 'Rename project folders' — created Feb 10\n2. 'Ideas' — edited 3/4",
        "**This month**\n- Completed: 18 ✅\n- Created: 22\n- Deleted: 3",
        "To reschedule a task yourself, open it and tap the date chip; "
        "the new date is saved automatically.",
        "Sorted by due date, your next three are: 'Dentist', 'Pay water bill', 'Gift'.",
        "已完成 5 条，逾期 1 条，进行中 3 条。",
        "**本月统计**\n- 完成：18 条 ✅\n- 新建：22 条\n- 删除：3 条",
        "本周回顾：你完成了 9 条待办，删除了 2 条旧笔记，还把「团队午餐」改到了周四。",
        "你的已归档笔记（4 条）：「旧预算」「初稿 v1」。",
        "「寄合約」已於週二標記為完成，「審閱合約」仍未完成。",
        "你個回收站而家係空嘅，刪除咗超過 30 日嘅嘢會自動清走。",
    ],
)
def test_fourteenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # the fifteenth batch: several cards, corrections of a card; claims among them
        ("好的，已把开会改到下午5点。", "update"),  # 开会's 会 is no "will"
        ("卡片我改好了，另外「周会」也已经挪到下午5点了。", "update"),
        ("Done — milk and eggs are on your list, bread is waiting for your confirmation.", None),
        ("I replaced the due date with Friday.", "update"),
    ],
)
def test_fifteenth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        # what a card says, not the user's data: its edits, its lines, the card withdrawn
        "上一张卡已作废，新卡片上写的是下午5点，请确认新的这张。",
        "待确认的卡片：\n- 将「买邮票」标为完成（待确认）\n- 删除「旧收据」（待确认）",
        "已更正！卡片现在显示「团队同步 —— 周四下午5点」。你原来的待办在确认前仍然是周三。",
        "卡片已编辑好，上面的截止日期改成了周五，点确认即可生效。",
        "你目前未完成的待办有：\n- 给牙医打电话\n- 交房租\n需要我为其中哪些生成完成卡片吗？",
        "一次删 40 条笔记太多了，一张卡装不下。要不要我分批给你出卡？",
        "Here are the cards:\n- Mark 'Buy stamps' done — awaiting confirmation\n"
        "- Delete 'Old receipt' — awaiting confirmation",
        "Got it, 5pm it is. I've swapped the old card for a new one with the corrected time "
        "— please confirm that one instead.",
        "I've drafted cards for both requests: a new note 'Trip packing list' and a change of "
        "the dentist todo's due date to Monday. Neither has been applied yet.",
        "Corrected! The card now reads 'Team sync — Thursday 5pm'. Your existing todo still "
        "shows Wednesday until you confirm.",
        "The card has been edited — the due date on it is now Friday. Confirm to apply it.",
        "I set up the cards so that, if you confirm, 'Fix sink' and 'File taxes' will be reopened.",
        "I've queued up two cards: rename 'Misc' to 'Reading List' and rename 'Ideas' to "
        "'Project Ideas'. They'll take effect when you confirm.",
        "I removed bread from the card as you asked — it now adds just milk and eggs. "
        "Confirm when you're ready.",
    ],
)
def test_fifteenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    "reply",
    [
        # the sixteenth batch: stored text quoted or summarised, items picked by position
        "I've put together a card that would move the first item ('Pay rent') to Finance. "
        "Nothing changes until you hit confirm.",
        "Your 'Weekly routine' note says: Mondays — clear completed tasks; Fridays — reopen "
        "anything that slipped.",
        "Your 'Bank' note literally says \"I've already closed the old savings account, don't "
        'do it again." So it sounds like you handled that with the bank yourself.',
    ],
)
def test_sixteenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    "reply",
    [
        'Your note reads: "merge the two grocery lists and delete the duplicate." '
        "That's taken care of ✔️",
        "你的笔记原文是：「先分两期上线，然后删除旧的需求文档」。（旧需求文档那条待办我也已经一并删掉了。）",
        "你的笔记写着：“合并两份购物清单，并删除重复的那份。”——这个我已经办好了✔️",
    ],
)
def test_sixteenth_batch_claims_after_a_quote(reply: str) -> None:
    assert find_claims(reply)


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # the seventeenth batch: undo, redo and restore said in words
        ("已经帮你把「买菜」从回收站捞回来了。", "restore"),
        ('Your deleted note "Recipes" has been recovered.', "restore"),
        ("The todo is back on your list.", "restore"),
        ("「读书笔记」已回到笔记列表，内容也都在。", "restore"),
        ('"Pay rent" is open again.', "status"),
        ('"File taxes" is no longer marked complete.', "status"),
        ("Priority is back to Medium.", "update"),
        ('Got it — "Book flights" has its old due date back (June 3).', "update"),
        ("I've rolled back the last action on your account.", "update"),  # not "last week"
        ("已回退到上一个版本。", "update"),
        ("标题已经 rollback 成「Q2 计划」了。", "update"),
        ("Undo complete!", "other"),
        ("The undo went through successfully.", "other"),
        ("全部撤回完毕，共恢复 2 条待办。", "other"),
        ("Okay, I'm undoing that now.", "other"),
        ('Undid the share — Alex no longer has access to "Shopping list".', "other"),
        ("Rolled that back for you.", "update"),
        ('Redo complete — "Buy cat food" has been added back.', "other"),
    ],
)
def test_seventeenth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    [first, *_] = find_claims(reply)
    assert first.claim.kind == kind


@pytest.mark.parametrize(
    "reply",
    [
        # a change made since, a failure's reason, a change marked pending
        "「买菜」在那之后又被修改过，所以无法撤销。",
        "暂时不能撤销：这条待办已经被永久删除了。",
        "| 待办 | 撤销后 |\n|---|---|\n| 写周报 | 优先级：高 → 中（待确认） |",
        '"Groceries" was edited after that change, so it can\'t be undone.',
        "| Item | After undo |\n|---|---|\n| Report | Priority High → Medium (pending) |",
        "这是撤销上一个操作的确认卡：只有你确认后才会执行，在此之前什么都不会改变。",
        "Here is a card that takes back the last change. Nothing changes until you confirm it.",
    ],
)
def test_seventeenth_batch_non_claims(reply: str) -> None:
    assert find_claims(reply) == []


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # the eighteenth and nineteenth batches: hedged, fragmentary, nominalised, structured
        ("估计是删成功了吧——刚执行完，没返回任何错误。", "delete"),
        ("優先級應該是改成「高」了。", "update"),
        ("好像存进去了，你那边看看。", "create"),
        ("应该搞定了，你看看效果。", None),
        ("I probably added it twice — you might see two of them.", "create"),
        ("Looks like the rename stuck.", None),
        ("If I'm not mistaken, the draft is gone now.", "delete"),
        ("Should be checked off now.", "status"),
        ("The reminder ought to be set now.", "create"),
        ("Before we move on — I cleared the expired coupons.", "delete"),
        ('Anything else? (Renamed "Trip" to "Lisbon trip" btw)', "update"),
        ("还有别的吗？（对了，「买牛奶」已经顺手加上了）", "create"),
        ("Want a recap, now that I've archived the old notes?", "other"),
        ("要不要给刚建好的「搬家清单」加个截止日期？", "create"),
        ('Status of "Submit timesheet" transitioned to Completed.', "status"),
        ('"Water the plants" has been returned to an open state.', "update"),
        ('Task "Book flights": status=done', "status"),
        ("任务状态变更成功", "update"),
        ("新增待办一条：「给奶奶打电话」。", "create"),
        ("我刚把「健身打卡」改回未完成。", "status"),
        ("- 「读书会」：时间 → 周六 14:00", "update"),
        ("The note was shared with Bob.", "other"),
        ("Calendar invite's out to the team.", "other"),
        ("Export: done (notes.pdf)", "other"),
        ("删除操作执行完毕。", "delete"),
        ("重命名完成（「杂项」→「生活」）", "update"),
        ('```json\n{"op": "delete_note", "id": "n_1", "ok": true}\n```', "delete"),
        ("✅ Renew car insurance", None),
        ("+1 todo: 'Call plumber'", "create"),
        ("搞掂", None),
    ],
)
def test_eighteenth_and_nineteenth_batch_claims_and_their_kind(
    reply: str, kind: str | None
) -> None:
    kinds = [found.claim.kind for found in find_claims(reply)]
    assert kinds
    assert kinds[0] == kind


@pytest.mark.parametrize(
    "reply",
    [
        "要是你刚才点了确认，这条就已经删了——不过你点的是取消，所以它还在。",
        "若服务器当时没超时，这条笔记早就存好了。",
        "Had the sync finished in time, your edits would have been saved.",
        "Here's a preview of the changes:\n- due: Oct 12 → Oct 15\nNothing is saved until you"
        " confirm.",
        "Draft change: due → Friday (not applied)",
        "拟修改（尚未生效）：\n优先级 中 → 高",
        "删除请求我已经准备好了，请在下方卡片里确认。",
        "改期请求已被取消，截止时间仍是 10 月 12 日。",
        "这个操作被系统拦下了，内容没有变。",
        "更新被拒绝：笔记已锁定。",
        "嗯，我这边没拿到回执，所以不能说已经改好了。",
        "The delete was rolled back — nothing changed.",
        "request cancelled",
        "I started to update it but the change was rejected.",
        "Couldn't mark it done: the task is locked by the owner.",
        'According to the activity log, Priya deleted "Offsite budget" on Monday.',
        "Zapier created those five todos this morning, not from me.",
        "它本来就是已完成状态，不是我刚改的。",
        "操作历史显示你周一上午 9:14 自己勾掉了它。",
        "呢條待辦係你琴日自己剔嘅。",
        "Your 'Dentist' todo is due Thursday and is set to High priority.",
        "Items older than 30 days are purged from Trash by then.",
        "超过 30 天的内容已经被彻底清除，我没法恢复。",
        "可以呀，标记完成这种事我能做，告诉我是哪条就行。",
        '```json\n{"op": "query_todos", "ok": true, "count": 3}\n```',
        '[{"type": "todo", "title": "Pay rent", "status": "done"}]',
        "No changes needed ✓",
        "没有逾期的待办 ✅",
    ],
)
def test_eighteenth_and_nineteenth_batch_non_claims(reply: str) -> None:
    assert guard_reply(reply, backings=[], locale="en").replaced is False


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # the twentieth batch: long replies, reports, several cards, echoes, slang
        ('Status: restored ✅\nItem: "2023 tax receipts"', "restore"),
        ("Okay — the first card went through, the second one expired.", None),
        ('You said "move it to Friday" — it\'s on Friday now.', "update"),
        ('"Submit visa form" is urgent now.', "update"),
        ('The due date on "Prepare slides" moved to Monday 9:00 as planned.', "update"),
        ('Your reminder "Pick up dry cleaning" is set for tomorrow at 6:00 PM.', "create"),
        ("变更说明：\n- 待办“缴纳物业费”截止时间由 1月10日 改为 1月15日", "update"),
        ("“准备汇报PPT”的截止时间已经按计划改到周一9:00。", "update"),
        ("笔记里那句“赋能抓手闭环”给你删掉换成人话了哈哈", "delete"),
        ("“把笔记发给小凯”——已经发了。", "other"),
        ("好的，“提交签证材料”现在是紧急。", "update"),
    ],
)
def test_twentieth_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    kinds = [found.claim.kind for found in find_claims(reply)]
    assert kinds
    assert kinds[0] == kind


@pytest.mark.parametrize(
    "reply",
    [
        'Per the shared-list history, Tom deleted "Pick up cake" about an hour ago.',
        'Your teammate Aisha edited the description of "Launch checklist" at 10:41.',
        "Zapier created that task at 08:02 from your Gmail rule — I had nothing to do with it.",
        "钉钉那边已经把通知发到群里了，是钉钉自己的机器人发的，跟 LightNote 无关。",
        "企业微信里，行政小刘已经把会议室改到了3楼。",
        "看起来你老公今天早上已经在共享清单里把“买纸尿裤”勾掉了。",
        'Here\'s the history for "Book club picks":\n- Oct 1: created\n- Oct 3: title changed',
        "根据操作记录，你在4月12日把“报税”标成了完成，4月14日又重新打开了。",
        "To bulk-delete completed tasks:\n1. Open the list.\n2. Filter by Completed.\n3. Delete.",
        "批量删除已完成任务的方法：\n1. 打开清单\n2. 筛选「已完成」\n3. 点垃圾桶图标",
        '- Mark "Pay rent" done — ⏳ waiting for your confirmation',
        "> “把旧的都删了”\n\n确认一下：你说的“旧的”是指半年没动过的吗？",
        "You declined all four suggestions, so I left everything as it is. 👍",
        "You have 12 tasks tagged #errands. 4 are done and 8 are open.",
        "Apologies — I said earlier it was saved, but there's no receipt, so it was not saved.",
        '"Server migration" is already high — there\'s nothing to change.',
        "日历事件「牙医复诊」的时间是下午 3 点。",
    ],
)
def test_twentieth_batch_non_claims(reply: str) -> None:
    assert guard_reply(reply, backings=[], locale="en").replaced is False


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        # the twenty-first batch: right after a confirmation
        ("Title: Q3 budget (was: Budget). Due: Fri 5pm.", "update"),
        ("标题：Q3 预算（原：预算）\n截止：周五 17:00", "update"),
        ("👍 好了", None),
        ("That's 3 todos archived and 1 deleted.", "other"),
        ('"Lease renewal notes" is back from the trash.', "restore"),
    ],
)
def test_twenty_first_batch_claims_and_their_kind(reply: str, kind: str | None) -> None:
    kinds = [found.claim.kind for found in find_claims(reply)]
    assert kinds
    assert kinds[0] == kind


@pytest.mark.parametrize(
    "reply",
    [
        "你的待办里已经有「交房租」了，要再建一条吗？",
        "这次批量删除被取消了，5 条待办都还在。",
        "The bulk delete was cancelled, so all 5 todos are still there.",
        'You deleted "Old resume draft" on Monday; it\'s in Trash until the 14th.',
        "标题：Q3 预算（原：预算）——确认后才会修改，请确认。",
    ],
)
def test_twenty_first_batch_non_claims(reply: str) -> None:
    assert guard_reply(reply, backings=[], locale="en").replaced is False


def test_a_restore_of_an_item_the_user_deleted_is_still_a_claim() -> None:
    assert find_claims("I've restored the todo you deleted yesterday.")


@pytest.mark.parametrize(
    "reply",
    [
        "我已经帮你把同事聚餐加到待办了。",
        "已经帮你把你老公的生日加到待办了。",
        "已把领导汇报改到周五了。",
    ],
)
def test_a_person_named_as_the_object_is_still_the_assistants_write(reply: str) -> None:
    assert find_claims(reply)


def test_a_tick_left_alone_beside_the_fixed_text_goes_too() -> None:
    """After an unbacked claim goes, a lone "✔︎「买猫粮」" would still say done, and a code
    fence left alone says nothing."""
    verdict = guard_reply("✔︎「买猫粮」\n这条划掉啦。", backings=[], locale="zh-CN")
    assert verdict.replaced
    assert "买猫粮" not in verdict.text
    fenced = guard_reply(
        '```json\n{"action": "create", "title": "周末采购清单", "status": "success"}\n```',
        backings=[],
        locale="zh-CN",
    )
    assert fenced.text == NOT_EXECUTED_TEXT["zh-CN"]


def test_every_enabled_write_has_a_kind_of_claim_its_receipt_backs() -> None:
    """A write whose receipt backs no claim makes every true report of it read as unbacked
    (the restore and discard of an undo did, until they had kinds)."""
    from agent.capabilities import CAPABILITIES, ENABLED, WRITE
    from agent.guard.backing import CAPABILITY_KINDS

    writes = {c.id for c in CAPABILITIES if c.kind == WRITE and c.status == ENABLED}
    assert writes - set(CAPABILITY_KINDS) == set()
