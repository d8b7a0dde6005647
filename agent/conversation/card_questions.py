"""删了吗？ / "did you delete it?": the state of the conversation's last card, as stored.

The answer is read from the card, never guessed: its row, its record in the control store
while it may still be confirmed (ready, running), and its receipt once it ran. A question
with no card in the conversation is the planner's (a lookup of the item, or help).

The same reading answers a message that turns the waiting card down in words (算了 / "never
mind": :func:`dismissal_reply`) and a request about the item a waiting create card would
make (那条删掉 / "delete that one": :func:`not_made_yet_reply`): the card is not run or
withdrawn by words, it waits for the user's button, and the reply says so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from agent.cards.history import history_outcome
from agent.cards.records import CardState, card_get_by_digest
from agent.models import ActionCard, AgentSession
from agent.planners import phrases
from agent.planners.lexicon import normalise
from lightnote.texts.hanzi import simplified
from lightnote.texts.i18n import define_messages, translate

define_messages(
    {
        "CARD_ASKED_WAITING": (
            "还没有执行，确认卡在等你确认（「{target}」）：你确认之前什么都不会改变。",
            "Not yet — the card is waiting for your confirmation (“{target}”): nothing "
            "changes until you confirm it.",
        ),
        "CARD_ASKED_RUNNING": (
            "「{target}」的确认卡正在执行，还没有结果；稍后再问我。",
            "The card for “{target}” is running and has no result yet; ask me again shortly.",
        ),
        "CARD_ASKED_SUCCEEDED": ("回执：{summary}", "The receipt says: {summary}"),
        "CARD_ASKED_FAILED": (
            "「{target}」没有执行成功：{reason}",
            "“{target}” did not succeed: {reason}",
        ),
        "CARD_ASKED_UNKNOWN": (
            "「{target}」的结果还不确定（{reason}）；系统会按回执核对，不会重复执行。",
            "The result for “{target}” is not known yet ({reason}); it is checked against "
            "the receipt and never run twice.",
        ),
        "CARD_ASKED_REJECTED": (
            "没有执行：「{target}」的确认卡已被拒绝，什么都没有改变。",
            "No — the card for “{target}” was rejected; nothing changed.",
        ),
        "CARD_ASKED_EXPIRED": (
            "没有执行：「{target}」的确认卡已过期，什么都没有改变；需要的话请重新提出。",
            "No — the card for “{target}” expired; nothing changed. Ask again if you still "
            "want it.",
        ),
        "CARD_DISMISSED_WAITING": (
            "好的。「{target}」的确认卡不会执行，除非你确认它；也可以点“拒绝”把它收起来。",
            "All right. The card for “{target}” does nothing unless you confirm it; you can "
            "also reject it.",
        ),
        "CARD_DISMISSED_NOTHING": (
            "好的，没有做任何修改。",
            "All right — nothing was changed.",
        ),
        "CARD_NOT_MADE_YET": (
            "「{target}」还没有创建：它的确认卡在等你确认。不想要它就点“拒绝”，什么都不会改变。",
            "“{target}” has not been created: its card is waiting for your confirmation. If "
            "you don't want it, reject the card; nothing changes.",
        ),
        "CARD_ASKED_VOIDED": (
            "没有执行：「{target}」的确认卡已作废（被替换或撤回），什么都没有改变。",
            "No — the card for “{target}” was withdrawn or replaced; nothing changed.",
        ),
    }
)

# A ready card's record in the store, read as the state the user is told.
_LIVE_CODES = {
    CardState.READY: "CARD_ASKED_WAITING",
    CardState.RUNNING: "CARD_ASKED_RUNNING",
    CardState.SETTLED: "CARD_ASKED_RUNNING",  # ran; its row is settled a moment later
    CardState.REJECTED: "CARD_ASKED_REJECTED",
    CardState.VOIDED: "CARD_ASKED_VOIDED",
}
_ROW_CODES: dict[str, str] = {
    ActionCard.State.REJECTED: "CARD_ASKED_REJECTED",
    ActionCard.State.VOIDED: "CARD_ASKED_VOIDED",
}
# A settled card's outcome ("ok" of the history's Outcome) -> its answer.
_OUTCOME_CODES = {
    True: "CARD_ASKED_SUCCEEDED",
    None: "CARD_ASKED_UNKNOWN",
    False: "CARD_ASKED_FAILED",
}


def asks_about_card(text: str) -> bool:
    """Whether ``text`` is a question about the card in front of the user (``card_question``)."""
    read = simplified(normalise(text))
    return phrases.whole("card_question", read) is not None


def last_card(*, session: AgentSession, owner: Any) -> ActionCard | None:
    """The conversation's newest card, whatever its state (its receipt loaded)."""
    return (
        ActionCard.objects.filter(session=session, owner=owner)
        .select_related("receipt")
        .order_by("-created_at", "-id")
        .first()
    )


def is_waiting(row: ActionCard, *, now: datetime) -> bool:
    """Whether ``row`` still waits for a confirmation (ready in its row and in the store)."""
    if row.state != ActionCard.State.READY or row.expires_at <= now:
        return False
    live = card_get_by_digest(row.token_digest)
    return live is not None and live.state == CardState.READY


def waiting_card(*, session: AgentSession, owner: Any, now: datetime) -> ActionCard | None:
    """The conversation's newest card while it still waits for a confirmation, or None."""
    row = last_card(session=session, owner=owner)
    return row if row is not None and is_waiting(row, now=now) else None


def dismissal_reply(row: ActionCard | None, *, locale: str) -> str:
    """算了 / "never mind": what happens to the waiting card ``row`` (None: no card waits)."""
    if row is None:
        return translate("CARD_DISMISSED_NOTHING", locale)
    return translate("CARD_DISMISSED_WAITING", locale, target=_target(row))


def not_made_yet_reply(row: ActionCard, *, locale: str) -> str:
    """A request about the item the waiting create card ``row`` would make."""
    return translate("CARD_NOT_MADE_YET", locale, target=_target(row))


def _target(row: ActionCard) -> str:
    return str((row.preview or {}).get("target") or row.args.get("title") or "")


def card_state_reply(row: ActionCard, *, now: datetime, zone: ZoneInfo, locale: str) -> str:
    """What the card's stored state says, in ``locale``."""
    target = _target(row)
    if row.state == ActionCard.State.SETTLED:
        outcome = history_outcome(row, locale=locale, zone=zone) or {}
        receipt = outcome.get("receipt") or {}
        reason = str((outcome.get("error") or {}).get("message") or "")
        code = _OUTCOME_CODES[outcome.get("ok")]
        return translate(
            code, locale, target=target, summary=receipt.get("summary", ""), reason=reason
        )
    if row.state in _ROW_CODES:
        return translate(_ROW_CODES[row.state], locale, target=target)
    live = card_get_by_digest(row.token_digest) if row.expires_at > now else None
    code = _LIVE_CODES[CardState(live.state)] if live is not None else "CARD_ASKED_EXPIRED"
    return translate(code, locale, target=target)
