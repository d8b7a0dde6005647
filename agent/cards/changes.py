"""What changed, said by the server: the ``changes`` of every assistant message.

Built only from receipts and the item as each receipt stored it (``ActionReceipt.result``),
never from model text, so a client that shows ``changes.text`` beside the reply can never
mislead. No write runs during a message turn: a turn that issues cards says that nothing
has changed yet and how many cards wait; once its cards settle, history shows that turn's
receipts, except a receipt whose final reply is in the conversation, which carries it on its
own line (one receipt is never counted twice on one screen).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent.models import ActionReceipt
from lightnote.texts.i18n import define_messages, translate

# One row per capability: the message code of its phrase ({title}, and {status} where set).
PHRASES = {
    "todo.create": "CHANGE_TODO_CREATED",
    "todo.update": "CHANGE_TODO_UPDATED",
    "todo.status.set": "CHANGE_TODO_STATUS_SET",
    "todo.delete": "CHANGE_TODO_DELETED",
    "todo.restore": "CHANGE_TODO_RESTORED",
    "note.create": "CHANGE_NOTE_CREATED",
    "note.update": "CHANGE_NOTE_UPDATED",
    "note.discard": "CHANGE_NOTE_DISCARDED",
}
STATUS_WORDS = {"done": "CHANGE_STATUS_DONE", "open": "CHANGE_STATUS_OPEN"}

define_messages(
    {
        "CHANGE_TODO_CREATED": ("已创建待办「{title}」", "created todo “{title}”"),
        "CHANGE_TODO_UPDATED": ("已修改待办「{title}」", "updated todo “{title}”"),
        "CHANGE_TODO_STATUS_SET": (
            "已将待办「{title}」标记为{status}",
            "marked todo “{title}” as {status}",
        ),
        "CHANGE_TODO_DELETED": (
            "已将待办「{title}」移到回收站",
            "moved todo “{title}” to the trash",
        ),
        "CHANGE_TODO_RESTORED": ("已恢复待办「{title}」", "restored todo “{title}”"),
        "CHANGE_NOTE_CREATED": ("已创建笔记「{title}」", "created note “{title}”"),
        "CHANGE_NOTE_UPDATED": ("已修改笔记「{title}」", "updated note “{title}”"),
        "CHANGE_NOTE_DISCARDED": (
            "已将笔记「{title}」移到回收站",
            "moved note “{title}” to the trash",
        ),
        "CHANGE_OTHER": ("已执行「{tool}」", "ran “{tool}”"),
        "CHANGE_STATUS_DONE": ("已完成", "done"),
        "CHANGE_STATUS_OPEN": ("未完成", "open"),
        "CHANGES_NONE": ("本轮没有修改任何数据。", "No change was made in this turn."),
        "CHANGES_WAITING_ONE": (
            "还没有修改任何数据：1 张确认卡等你确认。",
            "Nothing has changed yet: 1 card waits for your confirmation.",
        ),
        "CHANGES_WAITING_MANY": (
            "还没有修改任何数据：{count} 张确认卡等你确认。",
            "Nothing has changed yet: {count} cards wait for your confirmation.",
        ),
        "CHANGES_ONE": ("已修改 1 项：{items}。", "1 change: {items}."),
        "CHANGES_MANY": ("已修改 {count} 项：{items}。", "{count} changes: {items}."),
    }
)


def change_item(receipt: ActionReceipt, locale: str) -> dict[str, Any]:
    """One succeeded receipt as a change: its ids and a phrase built from the stored item."""
    result: Mapping[str, Any] = receipt.result or {}
    code = PHRASES.get(receipt.capability, "CHANGE_OTHER")
    status_code = STATUS_WORDS.get(str(result.get("status", "")), "")
    text = translate(
        code,
        locale,
        title=str(result.get("title", "")),
        status=translate(status_code, locale) if status_code else "",
        tool=receipt.tool,
    )
    return {
        "action_id": str(receipt.action_id),
        "capability": receipt.capability,
        "tool": receipt.tool,
        "text": text,
    }


def changes_of(
    receipts: Iterable[ActionReceipt], *, locale: str, waiting: int = 0
) -> dict[str, Any]:
    """The ``changes`` object for ``receipts`` (succeeded ones count), with ``waiting``
    cards still to be confirmed when nothing changed."""
    items = [
        change_item(receipt, locale)
        for receipt in receipts
        if receipt.status == ActionReceipt.Status.SUCCEEDED
    ]
    if not items:
        if waiting == 1:
            text = translate("CHANGES_WAITING_ONE", locale)
        elif waiting > 1:
            text = translate("CHANGES_WAITING_MANY", locale, count=waiting)
        else:
            text = translate("CHANGES_NONE", locale)
        return {"count": 0, "text": text, "items": []}
    separator = "；" if locale.startswith("zh") else "; "
    joined = separator.join(item["text"] for item in items)
    code = "CHANGES_ONE" if len(items) == 1 else "CHANGES_MANY"
    return {
        "count": len(items),
        "text": translate(code, locale, count=len(items), items=joined),
        "items": items,
    }


def history_changes(
    messages: Iterable[Any], *, session: Any, locale: str, now: Any
) -> dict[Any, dict[str, Any]]:
    """The ``changes`` of each assistant message on a history page (message id -> changes).

    A card turn shows its cards' succeeded receipts once they settle, except those whose
    final reply is in the conversation (that reply carries its receipt); a final reply
    shows the receipt it continues. Two queries, whatever the page's size. Needs: the
    messages' ``cards`` prefetched with their receipts (``sessions.session_messages``).
    """
    from agent.cards.history import history_state
    from agent.models import Message

    assistant = [message for message in messages if message.role == Message.Role.ASSISTANT]
    replied = {
        str((payload or {}).get("card_id"))
        for payload in Message.objects.filter(
            session=session, role=Message.Role.ASSISTANT, payload__has_key="receipt"
        ).values_list("payload", flat=True)
    }
    continued = [
        (message.payload or {}).get("card_id")
        for message in assistant
        if (message.payload or {}).get("receipt")
    ]
    receipts = {
        str(receipt.action_id): receipt
        for receipt in ActionReceipt.objects.filter(action_id__in=[c for c in continued if c])
    }
    shown: dict[Any, dict[str, Any]] = {}
    for message in assistant:
        payload = message.payload or {}
        if payload.get("receipt"):
            own = receipts.get(str(payload.get("card_id")))
            shown[message.id] = changes_of([own] if own else [], locale=locale)
            continue
        rows = list(message.cards.all())
        settled = [
            row.receipt for row in rows if row.receipt is not None and str(row.id) not in replied
        ]
        waiting = sum(1 for row in rows if history_state(row, now=now) == "ready")
        shown[message.id] = changes_of(settled, locale=locale, waiting=waiting)
    return shown
