"""A Hypothesis state machine over derived cards: edits, undos and rejections, interleaved.

Rules, through the HTTP endpoints: ask for a todo (a card); ask to delete a todo by a title
two todos share (a choice, then a pick: a card; a second pick of the same choice is 410);
confirm any card seen so far; edit a request's title; reject a card; ask to undo a card (a
request, a delete, or an undo). Each step checks the answer against
a model of every card (ready, replaced by an edit or a newer undo card, rejected, settled
with the body every replay must repeat); the invariants hold after every step:

- a card executes at most once, and only a card the model says was confirmed while ready
  and could succeed: the receipts are exactly those cards' (a replaced or rejected card, or
  a delete of a todo another card already deleted, never has one);
- the user's live todos are exactly what the settled cards left, in the order they settled
  (a create adds one, a delete trashes it, a restore brings it back);
- an original card has at most one live undo card (asking again replaces the older one).

It uses the real execution path (policy, durable transaction, receipts, Lua scripts); the
embedded pass runs it on SQLite + fakeredis, the services pass on MariaDB + Redis.
``LIGHTNOTE_HYPOTHESIS_EXAMPLES`` (default 25) sets the number of examples.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from agent.models import ActionCard, ActionReceipt, AgentSession
from lightnote.controlstore.redis import get_redis
from tests.agent_helpers import confirm, error_code, reject, send_message, token_client
from tests.test_confirm_state_machine import MACHINE_SETTINGS
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

EDIT_URL = "/api/v1/agent/confirmations/edit/"
UNDO_URL = "/api/v1/agent/confirmations/undo/"
CHOOSE_URL = "/api/v1/agent/choices/choose/"
SHARED = "重名的事"


@dataclass
class CardModel:
    """What the endpoints must answer for one card."""

    card_id: str
    token: str
    tool: str  # create_todo, delete_todo or restore_todo
    title: str = ""  # a create's title (edited by the edit rule)
    undoes: str | None = None  # the card this one compensates
    state: str = "ready"  # ready, replaced, rejected, settled
    body: bytes | None = None  # the settled answer every replay repeats
    ok: bool = False  # settled with a receipt
    todo_id: str | None = None  # the todo it changes (a create's once settled)


class CardLineage(RuleBasedStateMachine):
    cards = Bundle("cards")

    def __init__(self) -> None:
        super().__init__()
        get_redis().flushdb()  # this test's own Redis database: a clean store per example
        self.user = get_user_model().objects.create_user(username=f"l-{uuid.uuid4().hex[:12]}")
        self.client = token_client(self.user)
        self.session_id = str(AgentSession.objects.create(owner=self.user).id)
        self.model: dict[str, CardModel] = {}
        self.asked = 0
        # Two todos of one title: asking to delete it by title offers a choice.
        self.live = {
            str(todo_services.todo_create(owner=self.user, title=SHARED).id) for _ in range(2)
        }

    def _add(self, body: dict[str, Any], **fields: Any) -> str:
        card = CardModel(
            card_id=body["card_id"],
            token=body["token"],
            tool=body["tool"],
            todo_id=(body.get("args") or {}).get("todo_id"),
            **fields,
        )
        assert card.card_id not in self.model
        self.model[card.card_id] = card
        return card.card_id

    def _post(self, url: str, body: dict[str, Any]) -> Any:
        return self.client.post(url, {**body, "session_id": self.session_id}, format="json")

    @rule(target=cards)
    def ask_for_a_todo(self) -> str:
        self.asked += 1
        title = f"第{self.asked}件事"
        [card] = send_message(self.client, self.session_id, f"帮我创建一条待办：{title}")["cards"]
        assert card["tool"] == "create_todo"
        return self._add(card, title=title)

    @rule(card_id=cards)
    def confirm(self, card_id: str) -> None:
        card = self.model[card_id]
        response = confirm(self.client, card.token, self.session_id)
        if card.state == "replaced":
            assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")
        elif card.state == "rejected":
            assert (response.status_code, error_code(response)) == (409, "CONFIRMATION_REJECTED")
        elif card.state == "settled":
            assert (response.status_code, response.content) == (200, card.body)
        else:
            assert response.status_code == 200, response.content
            outcome = response.json()["outcome"]
            # A create always succeeds; a delete only while its todo is live (two cards may
            # name one todo), a restore only while it is in the trash.
            card.state, card.body = "settled", response.content
            if card.tool == "create_todo":
                card.todo_id = outcome["receipt"]["resource"]["id"]
                expected = True
            else:
                expected = (card.todo_id in self.live) == (card.tool == "delete_todo")
            assert outcome["ok"] is expected, (card, outcome)
            card.ok = expected
            if not expected:
                assert outcome["error"]["code"], outcome
            elif card.tool == "delete_todo":
                self.live.remove(card.todo_id)
            else:
                self.live.add(card.todo_id)

    @rule(target=cards, card_id=cards, suffix=st.sampled_from(["（改）", " v2", "！"]))
    def edit_the_title(self, card_id: str, suffix: str) -> Any:
        card = self.model[card_id]
        if card.tool != "create_todo":
            return multiple()  # only requests for a new todo are edited here
        response = self._post(
            EDIT_URL, {"token": card.token, "args": {"title": card.title + suffix}}
        )
        expected = {
            "replaced": (410, "CONFIRMATION_EXPIRED"),
            "rejected": (409, "CONFIRMATION_REJECTED"),
            "settled": (409, "CONFIRMATION_ALREADY_CLAIMED"),
        }
        if card.state in expected:
            assert (response.status_code, error_code(response)) == expected[card.state]
            return multiple()
        assert response.status_code == 200, response.content
        edited = response.json()["card"]
        assert edited["args"]["title"] == card.title + suffix
        card.state = "replaced"
        return self._add(edited, title=card.title + suffix)

    @rule(target=cards, pick=st.integers(min_value=0, max_value=1), twice=st.booleans())
    def ask_to_delete_the_shared_title(self, pick: int, twice: bool) -> Any:
        shared = set(
            map(
                str, Todo.objects.filter(owner=self.user, title=SHARED).values_list("id", flat=True)
            )
        )
        body = send_message(self.client, self.session_id, f"删除待办「{SHARED}」")
        if len(shared) < 2:  # one left: its card at once; none: nothing to delete
            assert body["choices"] == []
            assert len(body["cards"]) == len(shared)
            return multiple(*(self._add(card) for card in body["cards"]))
        assert body["cards"] == []
        [choice] = body["choices"]
        candidates = sorted(candidate["id"] for candidate in choice["candidates"])
        assert candidates == sorted(shared)
        picked = self._post(
            CHOOSE_URL, {"token": choice["token"], "candidate_id": candidates[pick]}
        )
        assert picked.status_code == 200, picked.content
        card = picked.json()["card"]
        assert (card["tool"], card["args"]["todo_id"]) == ("delete_todo", candidates[pick])
        if twice:  # a choice is used once
            again = self._post(
                CHOOSE_URL, {"token": choice["token"], "candidate_id": candidates[0]}
            )
            assert (again.status_code, error_code(again)) == (410, "CONFIRMATION_EXPIRED")
        return self._add(card)

    @rule(card_id=cards)
    def reject(self, card_id: str) -> None:
        card = self.model[card_id]
        response = reject(self.client, card.token, self.session_id)
        if card.state == "replaced":
            assert (response.status_code, error_code(response)) == (410, "CONFIRMATION_EXPIRED")
        elif card.state == "settled":
            assert response.status_code == 409, response.content
            assert error_code(response) == "CONFIRMATION_ALREADY_CLAIMED"
        else:  # ready, or rejected already: rejected
            assert (response.status_code, response.json()) == (200, {"state": "rejected"})
            card.state = "rejected"

    @rule(target=cards, card_id=cards)
    def undo(self, card_id: str) -> Any:
        card = self.model[card_id]
        response = self._post(UNDO_URL, {"card_id": card_id})
        if not card.ok:  # not settled, or settled without a receipt: nothing to undo
            assert (response.status_code, error_code(response)) == (409, "UNDO_NOT_SUCCEEDED")
            return multiple()
        if self._compensation(card_id) is not None:
            assert (response.status_code, error_code(response)) == (409, "UNDO_ALREADY_DONE")
            return multiple()
        if card.undoes is None:
            assert response.status_code == 200, response.content
        elif response.status_code != 200:  # an undo's own undo, when its tool has one
            assert 400 <= response.status_code < 500, response.content
            return multiple()
        undo_card = response.json()["card"]
        assert undo_card["compensates_id"] == card_id
        assert undo_card["tool"] in ("delete_todo", "restore_todo"), undo_card
        for other in self.model.values():
            if other.undoes == card_id and other.state == "ready":
                other.state = "replaced"  # asking again replaces the older undo card
        return self._add(undo_card, undoes=card_id)

    def _compensation(self, card_id: str) -> CardModel | None:
        """The card that undid ``card_id`` (settled with its receipt), if any."""
        for other in self.model.values():
            if other.undoes == card_id and other.ok:
                return other
        return None

    @invariant()
    def receipts_are_exactly_the_succeeded_cards(self) -> None:
        receipts = set(
            ActionReceipt.objects.filter(owner=self.user).values_list("action_id", flat=True)
        )
        succeeded = {uuid.UUID(c.card_id) for c in self.model.values() if c.ok}
        assert receipts == succeeded

    @invariant()
    def the_live_todos_are_what_the_settled_cards_left(self) -> None:
        live = {str(pk) for pk in Todo.objects.filter(owner=self.user).values_list("id", flat=True)}
        assert live == self.live

    @invariant()
    def an_original_has_at_most_one_live_undo_card(self) -> None:
        live = list(
            ActionCard.objects.filter(
                owner=self.user, compensates__isnull=False, state=ActionCard.State.READY
            ).values_list("compensates_id", flat=True)
        )
        assert len(live) == len(set(live)), live


def test_edits_undos_and_rejections_keep_each_card_to_one_execution(settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "100000/m"  # the limiters are not modelled here
    settings.LIGHTNOTE_RATE_LIMIT_CARDS = "100000/m"
    run_state_machine_as_test(
        CardLineage,
        settings=MACHINE_SETTINGS,
    )
