"""The truthfulness guard (article section 13; SEED-TESTS "Truthfulness")."""

from __future__ import annotations

import dataclasses

import pytest

from agent.guard import (
    NOT_EXECUTED_TEXT,
    GuardVerdict,
    claims_completed_write,
    guard_reply,
    is_action_related,
)

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
    "已将会议改期，请确认后删除",
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
    verdict = guard_reply(
        "已经帮你创建好了。",
        user_text="帮我创建一个待办：明天下午3点交报告",
        proposed_write=True,
        has_succeeded_receipt=False,
        locale="zh-CN",
    )
    assert verdict == GuardVerdict(
        text="该操作尚未执行：服务端没有生成可核验的确认或成功回执。",
        replaced=True,
        matched="已经帮你创建",
    )


def test_read_only_answer_never_triggers_the_guard() -> None:
    assert is_action_related("最近没完成的待办", proposed_write=False) is False
    verdict = guard_reply(
        "你有 3 条未完成的待办",
        user_text="最近没完成的待办",
        proposed_write=False,
        has_succeeded_receipt=False,
        locale="zh-CN",
    )
    assert verdict == GuardVerdict(text="你有 3 条未完成的待办", replaced=False, matched=None)


def test_read_only_turn_keeps_even_a_claim_like_reply() -> None:
    # A read-only turn cannot have written anything, so the guard has nothing to check.
    verdict = guard_reply(
        "All done. You have 2 open todos.",
        user_text="show my open todos",
        proposed_write=False,
        has_succeeded_receipt=False,
        locale="en",
    )
    assert verdict.replaced is False
    assert verdict.text == "All done. You have 2 open todos."


def test_success_claim_with_receipt_is_kept() -> None:
    verdict = guard_reply(
        "已经帮你创建好了：明天下午3点交报告。",
        user_text="帮我创建一个待办：明天下午3点交报告",
        proposed_write=True,
        has_succeeded_receipt=True,
        locale="zh-CN",
    )
    assert verdict == GuardVerdict(
        text="已经帮你创建好了：明天下午3点交报告。", replaced=False, matched=None
    )


def test_change_request_without_proposed_write_is_still_guarded() -> None:
    # The model may claim success without ever proposing a card.
    verdict = guard_reply(
        "I've deleted the note.",
        user_text="delete the note about taxes",
        proposed_write=False,
        has_succeeded_receipt=False,
        locale="en",
    )
    assert verdict == GuardVerdict(
        text=NOT_EXECUTED_TEXT["en"], replaced=True, matched="I've deleted"
    )


@pytest.mark.parametrize(
    ("locale", "expected"), [("zh-CN", "zh-CN"), ("en-US", "en"), ("fr", "zh-CN")]
)
def test_replacement_is_in_the_turn_locale(locale: str, expected: str) -> None:
    verdict = guard_reply(
        "待办已添加",
        user_text="添加待办",
        proposed_write=True,
        has_succeeded_receipt=False,
        locale=locale,
    )
    assert verdict.text == NOT_EXECUTED_TEXT[expected]


def test_reply_without_claim_on_action_turn_is_kept() -> None:
    verdict = guard_reply(
        "请确认后我将创建这条待办。",
        user_text="帮我创建待办",
        proposed_write=True,
        has_succeeded_receipt=False,
        locale="zh-CN",
    )
    assert verdict == GuardVerdict(text="请确认后我将创建这条待办。", replaced=False, matched=None)


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
    assert matched in reply


@pytest.mark.parametrize("reply", NOT_CLAIMS)
def test_description_offer_or_failure_is_not_a_claim(reply: str) -> None:
    assert claims_completed_write(reply) is None


@pytest.mark.parametrize("reply", CLAIMS)
def test_every_claim_is_replaced_on_an_action_turn_without_receipt(reply: str) -> None:
    verdict = guard_reply(
        reply,
        user_text="帮我添加一个待办",
        proposed_write=True,
        has_succeeded_receipt=False,
        locale="en",
    )
    assert verdict.replaced is True
    assert verdict.text == NOT_EXECUTED_TEXT["en"]


@pytest.mark.parametrize(
    "user_text",
    [
        "帮我创建一个待办：明天买牛奶",
        "把买牛奶标记为完成",
        "删除这条笔记",
        "提醒我明天交报告",
        "把截止时间改成周五",
        "明天下午3点开会",  # no verb and no question: unsure, so action-related
        "我昨天添加了哪些待办",  # a change verb in a question: unsure, so action-related
        "add buy milk tomorrow 5pm",
        "Delete the note about taxes",
        "mark it done",
        "rename the note to Taxes 2026",
        "please update the due date",
        "hello",
    ],
)
def test_change_request_or_unsure_turn_is_action_related(user_text: str) -> None:
    assert is_action_related(user_text, proposed_write=False) is True


@pytest.mark.parametrize(
    "user_text",
    [
        "最近没完成的待办",
        "已完成的待办有哪些",
        "我有多少条待办？",
        "查看我的笔记",
        "show my open todos",
        "list completed todos",
        "what's on my list?",
        "which notes mention taxes",
    ],
)
def test_lookup_is_not_action_related(user_text: str) -> None:
    assert is_action_related(user_text, proposed_write=False) is False


def test_proposed_write_makes_any_turn_action_related() -> None:
    assert is_action_related("最近没完成的待办", proposed_write=True) is True
