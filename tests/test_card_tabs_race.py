"""Several tabs act on one ready card at once: at most one of them decides what it becomes.

Each round issues a card, then a dozen threads (real ones, on MariaDB and Redis) send at the
same moment a random mix of what a user's tabs and devices can send about it: confirm,
reject, edit its title, ask again (reissue by its id), read its status. Whatever the mix
and the timing, the card ends in exactly one of: executed once (one receipt), rejected, or
replaced by exactly one new card (an edit or a reissue). The requests that lost answer with
what happened (running or the settled outcome, 409, 410), never a second write; no answer
is a 5xx.

Six rounds (``LIGHTNOTE_RACE_ROUNDS``; ``make reliability`` runs 30) of twelve threads; each
round's mix comes from a generator seeded with the round's number, so a failure repeats.
"""

from __future__ import annotations

import os
import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from agent.models import ActionCard, ActionReceipt
from tests.agent_helpers import CONFIRM_URL, REJECT_URL, STATUS_URL, flow_with_card
from todos.models import Todo

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services]

ROUNDS = int(os.environ.get("LIGHTNOTE_RACE_ROUNDS", "6"))
TABS = 12
ACTIONS = ("confirm", "confirm", "reject", "edit", "reissue", "status")
EDIT_URL = "/api/v1/agent/confirmations/edit/"
REISSUE_URL = "/api/v1/agent/confirmations/reissue/"


def _send(key: str, action: str, flow: Any) -> tuple[str, int, Any]:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    token_body = {"token": flow.token, "session_id": flow.session_id}
    if action == "confirm":
        response = client.post(CONFIRM_URL, token_body, format="json")
    elif action == "reject":
        response = client.post(REJECT_URL, token_body, format="json")
    elif action == "status":
        response = client.post(STATUS_URL, token_body, format="json")
    elif action == "edit":
        body = {**token_body, "args": {"title": "从另一个标签页改的"}}
        response = client.post(EDIT_URL, body, format="json")
    else:
        body = {"card_id": flow.card["card_id"], "session_id": flow.session_id}
        response = client.post(REISSUE_URL, body, format="json")
    return action, response.status_code, response.json()


@pytest.mark.parametrize("round_number", range(ROUNDS))
def test_tabs_racing_on_one_card_leave_one_decision(
    user: Any, settings: Any, round_number: int
) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "1000/m"
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "1000/m"
    mix = random.Random(round_number).choices(ACTIONS, k=TABS)
    flow = flow_with_card(user)
    key = Token.objects.get(user=user).key
    barrier = threading.Barrier(TABS)

    def tab(action: str) -> tuple[str, int, Any]:
        try:
            barrier.wait(timeout=30)
            return _send(key, action, flow)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=TABS) as pool:
        answers = list(pool.map(tab, mix))

    # The losers answer with what happened: running (202), the settled outcome or state
    # (200), refused (409: rejected, already claimed) or gone (410: replaced, voided).
    assert {status for _, status, _ in answers} <= {200, 202, 409, 410}, answers
    executed = ActionReceipt.objects.filter(action_id=flow.card["card_id"]).count()
    rejected = any(a == "reject" and s == 200 for a, s, _ in answers)
    replaced = [body["card"] for a, s, body in answers if a in ("edit", "reissue") and s == 200]
    decisions = executed + int(rejected) + len(replaced)
    assert decisions == 1, (mix, answers)
    assert executed <= 1
    row = ActionCard.objects.get(id=flow.card["card_id"])
    if executed:
        assert (row.state, row.outcome_kind) == ("settled", "succeeded")
        assert Todo.objects.count() == 1
        settled = [body for a, s, body in answers if a == "confirm" and s == 200]
        assert all(body == settled[0] for body in settled), settled  # one outcome, replayed
    else:
        assert Todo.objects.count() == 0
        assert row.state == ("rejected" if rejected else "voided"), (mix, answers)
    if replaced:
        [new_card] = replaced
        assert ActionCard.objects.get(id=new_card["card_id"]).state == "ready"
