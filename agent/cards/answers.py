"""What confirm, reject and status answer: the ``Answer`` and the outcome bodies.

An outcome is ``(kind, body)`` with ``kind`` ``succeeded`` / ``failed`` / ``unknown`` and the
body in canonical JSON (keys sorted), so the first answer and every replay of it from the
store are byte-identical. No I/O here: building an answer reads nothing and writes nothing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent.cards.history import receipt_body
from agent.models import ActionReceipt
from lightnote.controlstore.binding import canonical_json
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages, translate

define_messages(
    {
        "CONFIRMATION_EXPIRED": (
            "确认卡不存在或已过期，请重新发起操作。",
            "This confirmation is unknown or has expired; ask again.",
        ),
        "CONFIRMATION_FORBIDDEN": ("无权操作此确认卡。", "You may not use this confirmation."),
        "CONFIRMATION_INVALID": (
            "确认卡内容校验失败，已作废，未执行任何操作。",
            "The confirmation failed its integrity check and was destroyed; nothing was done.",
        ),
        "CONFIRMATION_REJECTED": ("此确认卡已被拒绝。", "This confirmation was rejected."),
        "CONFIRMATION_ALREADY_CLAIMED": (
            "此确认卡已在执行或已完成，不能再拒绝或修改。",
            "This confirmation is already running or settled; it can no longer be rejected "
            "or edited.",
        ),
        "ACTION_OUTCOME_UNKNOWN": (
            "操作结果暂时无法核验，请稍后查看状态；系统不会重复执行。",
            "The outcome could not be verified yet; check the status later. It will not run twice.",
        ),
        "ACTION_NOT_EXECUTED": (
            "操作没有执行：执行期限已过且没有成功回执。",
            "The action was not executed: its lease passed with no success receipt.",
        ),
        "ACTION_EXECUTION_FAILED": (
            "操作执行失败，未做任何修改。",
            "The action failed; nothing was changed.",
        ),
    }
)


@dataclass(frozen=True)
class Answer:
    """An HTTP status and JSON body for the confirm, reject and status endpoints."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] | None = None


# How long a client waits before asking again about a running card or reply (seconds).
RUNNING_RETRY_AFTER = 1


def running_answer() -> Answer:
    """202 ``running``: another request holds it; ``Retry-After`` says when to ask again."""
    return Answer(202, {"state": "running"}, headers={"Retry-After": str(RUNNING_RETRY_AFTER)})


# --- Bodies ------------------------------------------------------------------------------


def final_outcome(outcome: dict[str, Any]) -> dict[str, Any]:
    """Return the outcome as the store keeps it (canonical JSON, keys sorted), so the first
    answer and every replay of it are byte-identical."""
    return json.loads(canonical_json(outcome))


def succeeded_outcome(receipt: ActionReceipt) -> tuple[str, dict[str, Any]]:
    return "succeeded", final_outcome({"ok": True, "receipt": receipt_body(receipt)})


def failed_outcome(error: LightNoteError, locale: str) -> tuple[str, dict[str, Any]]:
    return "failed", final_outcome({"ok": False, "error": error.as_error(locale)})


def unknown_outcome(locale: str) -> tuple[str, dict[str, Any]]:
    return "unknown", final_outcome(
        {
            "ok": None,
            "error": {
                "code": "ACTION_OUTCOME_UNKNOWN",
                "message": translate("ACTION_OUTCOME_UNKNOWN", locale),
            },
        }
    )


def settled_answer(outcome: dict[str, Any]) -> Answer:
    return Answer(200, {"state": "settled", "outcome": outcome})


def outcome_from_receipt(receipt: ActionReceipt, locale: str) -> tuple[str, dict[str, Any]]:
    if receipt.status == ActionReceipt.Status.SUCCEEDED:
        return succeeded_outcome(receipt)
    return failed_outcome(LightNoteError("ACTION_NOT_EXECUTED"), locale)
