"""A Hypothesis state machine over the confirmation PROTOCOL, through the HTTP endpoints.

Rules: issue a card; confirm it; confirm it twice in a row; ask its status; reject it; let it
expire; confirm while the store is unreachable; confirm while the COMMIT's reply is lost
(after or before the server got it); a worker that claimed a card and died (before or after
its COMMIT); resolve an overdue card while the void's COMMIT reply is lost; time passing;
``reconcile_cards``. Each step checks the answer against a model of the card;
the invariants hold after every step:

- at most one execution per card (service calls and todo rows are counted);
- every card the store holds as settled-succeeded has exactly one succeeded receipt;
- a card that was ever rejected never executes.

It uses the real execution path (durable transaction, receipts, Lua scripts). The embedded
pass runs it on SQLite + fakeredis; the services pass on MariaDB + Redis. The store's clock
is frozen and moved by the machine, so lease arithmetic is exact and runs are deterministic.
``LIGHTNOTE_HYPOTHESIS_EXAMPLES`` (default 25) sets the number of examples.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from agent.cards import execute as executor
from agent.cards import reconcile
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.models import ActionReceipt, AgentSession
from lightnote.controlstore.redis import get_redis
from lightnote.impersonation.context import ActorContext
from tests.agent_helpers import (
    StoreClock,
    card_key_of,
    commit_reply_lost,
    confirm,
    issue_card,
    reject,
    status,
    store_down,
    token_client,
)
from todos import services as todo_services
from todos.models import Todo

pytestmark = pytest.mark.django_db(transaction=True)

EXAMPLES = int(os.environ.get("LIGHTNOTE_HYPOTHESIS_EXAMPLES", "25"))
# Shared with tests/test_card_lineage_state_machine.py.
MACHINE_SETTINGS = hypothesis_settings(
    max_examples=EXAMPLES,
    stateful_step_count=20,
    deadline=None,
    derandomize=True,  # the same examples on every run and in CI
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    # No "explain" phase: it traces every line of every replay, far too slow here.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
)
SETTLED = ("succeeded", "failed", "unknown")
RUNNING = ("running_dead", "running_executed")


@dataclass
class CardModel:
    """What the protocol must answer for one card."""

    title: str
    action_id: str
    state: str = (
        "ready"  # ready rejected gone succeeded failed unknown running_dead running_executed
    )
    lease_until: int = 0  # store ms; for unknown and running cards
    body: bytes | None = None  # the settled body every replay must repeat
    executed: bool = False  # its change was committed (once)
    voided: bool = False  # a voided receipt holds its slot, though the card is not resolved
    ever_rejected: bool = False


class ConfirmationProtocol(RuleBasedStateMachine):
    tokens = Bundle("tokens")

    def __init__(self) -> None:
        super().__init__()
        get_redis().flushdb()  # this test's own Redis database: a clean store per example
        self.user = get_user_model().objects.create_user(username=f"m-{uuid.uuid4().hex[:12]}")
        self.actor = ActorContext(actor=self.user, subject=self.user)
        self.client = token_client(self.user)
        self.session_id = str(AgentSession.objects.create(owner=self.user).id)
        self.clock = StoreClock(frozen=True).start()
        self.lease_ms = django_settings.LIGHTNOTE_EXECUTION_LEASE * 1000
        self.model: dict[str, CardModel] = {}
        self.service_calls: Counter[str] = Counter()
        original = todo_services.todo_create

        def counted(**kwargs: Any) -> Any:
            self.service_calls[kwargs["title"]] += 1
            return original(**kwargs)

        self.spy = mock.patch.object(todo_services, "todo_create", counted)
        self.spy.start()

    def teardown(self) -> None:
        self.spy.stop()
        self.clock.stop()

    # --- helpers --------------------------------------------------------------------------

    def lease_passed(self, card: CardModel) -> bool:
        return self.clock.now_ms() >= card.lease_until

    def in_state(self, *states: str) -> list[str]:
        # Issue order, not token order: tokens are random, and a replayed example must
        # draw the same card.
        return [token for token, card in self.model.items() if card.state in states]

    def settle(self, card: CardModel, response: Any) -> None:
        """Check a 200 settled answer against the model, and remember a final body."""
        assert response.status_code == 200, response.content
        body = response.json()
        assert body["state"] == "settled"
        ok = body["outcome"]["ok"]
        if card.state == "unknown" and not self.lease_passed(card):
            assert response.content == card.body
            return
        if card.state in ("unknown", "running_dead") or (
            card.state == "failed" and card.body is None
        ):
            assert (ok, body["outcome"]["error"]["code"]) == (False, "ACTION_NOT_EXECUTED")
            if card.state != "failed":  # resolved now: ok:null was the one non-final body
                card.state, card.body = "failed", None
        elif card.state in ("running_executed", "succeeded") and card.body is None:
            assert ok is True
            assert body["outcome"]["receipt"]["action_id"] == card.action_id
            card.state = "succeeded"
        if card.body is None:
            card.body = response.content
        assert response.content == card.body

    def expect_confirm(self, token: str, response: Any) -> None:
        card = self.model[token]
        if card.state == "gone":
            assert (response.status_code, response.json()["error"]["code"]) == (
                410,
                "CONFIRMATION_EXPIRED",
            )
        elif card.state == "rejected":
            assert (response.status_code, response.json()["error"]["code"]) == (
                409,
                "CONFIRMATION_REJECTED",
            )
        elif card.state == "ready":
            assert response.status_code == 200, response.content
            assert response.json()["outcome"]["ok"] is True
            card.state, card.body, card.executed = "succeeded", response.content, True
        elif card.state in RUNNING and not self.lease_passed(card):
            assert (response.status_code, response.json()) == (202, {"state": "running"})
        else:
            self.settle(card, response)

    # --- rules ----------------------------------------------------------------------------

    @initialize(target=tokens)
    def issue_a_first_card(self) -> str:
        return self.issue()

    @initialize(target=tokens)
    def issue_a_second_card(self) -> str:
        return self.issue()

    @rule(target=tokens)
    def issue(self) -> str:
        title = f"card {len(self.model) + 1}"
        issued = issue_card(self.user, session_id=self.session_id, args={"title": title})
        self.model[issued.token] = CardModel(title=title, action_id=issued.card.id)
        return issued.token

    @rule(token=tokens)
    def confirm(self, token: str) -> None:
        self.expect_confirm(token, confirm(self.client, token, self.session_id))

    @rule(token=tokens)
    def duplicate_confirm(self, token: str) -> None:
        first = confirm(self.client, token, self.session_id)
        self.expect_confirm(token, first)
        second = confirm(self.client, token, self.session_id)
        self.expect_confirm(token, second)
        if first.status_code == 200:
            assert second.content == first.content

    @rule(token=tokens)
    def status(self, token: str) -> None:
        card = self.model[token]
        response = status(self.client, token, self.session_id)
        if card.state == "gone":
            assert response.status_code == 410
        elif card.state in ("ready", "rejected"):
            assert (response.status_code, response.json()) == (200, {"state": card.state})
        elif card.state in RUNNING and not self.lease_passed(card):
            assert (response.status_code, response.json()) == (200, {"state": "running"})
        else:
            self.settle(card, response)

    @rule(token=tokens)
    def reject(self, token: str) -> None:
        card = self.model[token]
        response = reject(self.client, token, self.session_id)
        if card.state == "gone":
            assert response.status_code == 410
        elif card.state in ("ready", "rejected"):
            assert (response.status_code, response.json()) == (200, {"state": "rejected"})
            card.state, card.ever_rejected = "rejected", True
        else:
            assert response.status_code == 409
            assert response.json()["error"]["code"] == "CONFIRMATION_ALREADY_CLAIMED"
            assert response.json()["state"] == ("running" if card.state in RUNNING else "settled")

    @rule(token=tokens)
    def expire(self, token: str) -> None:
        get_redis().delete(card_key_of(token))  # what Redis's own TTL does
        self.model[token].state = "gone"

    @rule(token=tokens)
    def confirm_with_the_store_down(self, token: str) -> None:
        with store_down():
            response = confirm(self.client, token, self.session_id)
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "CONFIRMATION_STORE_UNAVAILABLE"

    @precondition(lambda self: self.in_state("ready"))
    @rule(data=st.data(), committed=st.booleans())
    def confirm_with_the_commit_reply_lost(self, data: st.DataObject, committed: bool) -> None:
        token = data.draw(st.sampled_from(self.in_state("ready")), label="token")
        card = self.model[token]
        with commit_reply_lost(committed=committed):
            response = confirm(self.client, token, self.session_id)
        assert response.status_code == 200, response.content
        outcome = response.json()["outcome"]
        if committed:  # found by the receipt lookup
            assert outcome["ok"] is True
            card.state, card.executed = "succeeded", True
        else:
            assert (outcome["ok"], outcome["error"]["code"]) == (None, "ACTION_OUTCOME_UNKNOWN")
            card.state, card.lease_until = "unknown", self.clock.now_ms() + self.lease_ms
        card.body = response.content

    @precondition(lambda self: self.in_state("ready"))
    @rule(data=st.data(), after_commit=st.booleans())
    def worker_dies_while_running(self, data: st.DataObject, after_commit: bool) -> None:
        token = data.draw(st.sampled_from(self.in_state("ready")), label="token")
        card = self.model[token]
        claim = card_transitions.card_claim(token, attempt_id=f"worker-{uuid.uuid4().hex}")
        assert claim.status == "claimed"
        assert claim.card is not None
        if after_commit:
            kind, _ = executor.execute_claimed(claim.card, actor=self.actor, locale="zh-CN")
            assert kind == "succeeded"
        card.executed = after_commit
        card.state = "running_executed" if after_commit else "running_dead"
        card.lease_until = self.clock.now_ms() + self.lease_ms

    def overdue(self) -> list[str]:
        return [
            token
            for token in self.in_state("unknown", *RUNNING)
            if self.lease_passed(self.model[token])
        ]

    @precondition(lambda self: self.overdue())
    @rule(data=st.data(), committed=st.booleans())
    def status_while_the_commit_reply_is_lost(self, data: st.DataObject, committed: bool) -> None:
        """The void that resolves an overdue card loses its COMMIT's reply: still open."""
        token = data.draw(st.sampled_from(self.overdue()), label="token")
        card = self.model[token]
        with commit_reply_lost(committed=committed):
            response = status(self.client, token, self.session_id)
        if card.state == "running_executed" or card.voided:  # a receipt exists: no void
            self.settle(card, response)
            return
        if card.state == "running_dead":
            assert (response.status_code, response.json()) == (200, {"state": "running"})
        else:
            assert (response.status_code, response.content) == (200, card.body)
        card.voided = committed  # the void reached the server; only its reply was lost

    @rule(seconds=st.sampled_from([1, 10, 29, 30, 61]))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds)

    @rule()
    def reconcile(self) -> None:
        stuck = [
            self.model[token]
            for token in self.in_state(*RUNNING)
            if self.lease_passed(self.model[token])
        ]
        assert reconcile.reconcile_expired() == len(stuck)
        for card in stuck:
            card.state = "succeeded" if card.state == "running_executed" else "failed"
            card.body = None  # the next confirm or status establishes the final body

    # --- invariants -----------------------------------------------------------------------

    @invariant()
    def at_most_one_execution_per_card(self) -> None:
        todos = Counter(Todo.objects.filter(owner=self.user).values_list("title", flat=True))
        for card in self.model.values():
            assert self.service_calls[card.title] <= 1, card
            assert todos[card.title] == (1 if card.executed else 0), card

    @invariant()
    def every_settled_success_has_exactly_one_receipt(self) -> None:
        receipts = Counter(
            (str(action_id), receipt_status)
            for action_id, receipt_status in ActionReceipt.objects.filter(
                owner=self.user
            ).values_list("action_id", "status")
        )
        for token, card in self.model.items():
            stored = cards.card_get(token)
            if stored is not None and stored.state == "settled":
                if stored.outcome_kind == "succeeded":
                    assert receipts[(card.action_id, "succeeded")] == 1, card
                else:
                    assert receipts[(card.action_id, "succeeded")] == 0, card

    @invariant()
    def a_rejected_card_never_executes(self) -> None:
        for card in self.model.values():
            if card.ever_rejected:
                assert self.service_calls[card.title] == 0, card
                assert not ActionReceipt.objects.filter(action_id=card.action_id).exists()


def test_the_confirmation_protocol_executes_each_card_at_most_once(settings: Any) -> None:
    settings.LIGHTNOTE_RATE_LIMIT_CONFIRMS = "100000/m"  # the limiter is not modelled here
    run_state_machine_as_test(
        ConfirmationProtocol,
        settings=MACHINE_SETTINGS,
    )
