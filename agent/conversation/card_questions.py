"""删了吗？ / "did you delete it?": the state of the conversation's last card, as stored.

The answer is read from the card, never guessed: its row, its record in the control store
while it may still be confirmed (ready, running), and its receipt once it ran. A question
with no card in the conversation is the planner's (a lookup of the item, or help).
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


def card_state_reply(row: ActionCard, *, now: datetime, zone: ZoneInfo, locale: str) -> str:
    """What the card's stored state says, in ``locale``."""
    target = str((row.preview or {}).get("target") or row.args.get("title") or "")
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
