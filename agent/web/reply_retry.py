"""Retrying a final reply that never arrived, also from history.

The outcome of a confirmed card never depends on its reply: the receipt is shown either way.
When the reply failed or was never fetched (the tab closed, the network dropped), history
shows the succeeded card with "retry the reply". The page can offer that only while it
knows the card's continuation token: when this browser confirmed the card, the token is
kept in the user's server-side Django session (at most ``KEEP`` of them, newest kept). A
continuation token cannot write anything (the reply runs with no tools, once); the card's
own token is never kept.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from agent.cards.confirm import Answer

SESSION_KEY = "lightnote_reply_tokens"
KEEP = 20


def remember_reply_token(
    request: HttpRequest, answer: Answer, *, continuation_token: str, session_id: Any
) -> None:
    """Keep the continuation token of a card this browser saw succeed."""
    if not continuation_token or answer.body.get("state") != "settled":
        return
    outcome = answer.body.get("outcome") or {}
    receipt = outcome.get("receipt") or {}
    if outcome.get("ok") is not True or not receipt.get("action_id"):
        return
    kept = dict(request.session.get(SESSION_KEY) or {})
    kept.pop(str(receipt["action_id"]), None)
    kept[str(receipt["action_id"])] = {"token": continuation_token, "session": str(session_id)}
    while len(kept) > KEEP:
        kept.pop(next(iter(kept)))
    request.session[SESSION_KEY] = kept


def attach_reply_retries(request: HttpRequest, history: list[dict[str, Any]]) -> None:
    """Give each succeeded history card whose reply is missing its retry form, if known."""
    kept = request.session.get(SESSION_KEY) or {}
    if not kept:
        return
    for entry in history:
        for card in entry.get("cards") or []:
            known = kept.get(card.get("card_id", ""))
            if card.get("reply_missing") and known:
                card["reply_retry"] = {
                    "continuation_token": known["token"],
                    "session_id": known["session"],
                }
