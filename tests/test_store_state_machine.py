"""A Hypothesis state machine over the card protocol, against the configured Redis.

Rules issue, claim (new and re-sent), reject, settle (by the holder or an intruder), let
ready cards expire, move the clock past leases, and resolve. After every step the real
store is compared with a model, and invariants are checked on what the store shows:

- at most one attempt is ever told "claimed" for a card, and its attempt never changes;
- a settled outcome is final, except ``unknown`` which may be resolved once;
- a rejected card never runs.

Size: ``LIGHTNOTE_HYPOTHESIS_EXAMPLES`` examples (default 30) of 20 steps each.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import time_machine
from django.test import override_settings
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
)

from agent import control
from agent.cards import records as cards
from agent.cards import transitions as card_transitions
from agent.cards.transitions import ClaimStatus, RejectStatus
from lightnote.controlstore import store
from lightnote.controlstore.redis import get_redis

LEASE_SECONDS = 5
# Ready cards live 300 s in Redis by its own clock; the app clock moves at most this far, so
# a card the model calls ready is never expired by a clock shift the model did not see.
MAX_CLOCK_SHIFT_SECONDS = 200
GONE = "gone"

# Edges the store may show between two observations (state, outcome_kind).
ALLOWED_EDGES = {
    ("ready", None): {("running", None), ("rejected", None), (GONE, None)},
    ("running", None): {("settled", "succeeded"), ("settled", "failed"), ("settled", "unknown")},
    ("settled", "unknown"): {("settled", "succeeded"), ("settled", "failed")},
}


@dataclass
class ModelCard:
    state: str = "ready"
    holder: str | None = None
    lease_until: float = 0.0  # seconds on the machine's clock
    outcome_kind: str | None = None
    outcome: dict[str, Any] | None = None
    told_claimed: set[str] = field(default_factory=set)
    observed: tuple[str, str | None] = ("ready", None)
    observed_attempt: str | None = None
    observed_outcome: dict[str, Any] | None = None


class CardProtocolMachine(RuleBasedStateMachine):
    tokens = Bundle("tokens")
    claims = Bundle("claims")  # (token, attempt) pairs that were told "claimed"

    def __init__(self) -> None:
        super().__init__()
        get_redis().flushdb()
        self.traveller = time_machine.travel(datetime.now(tz=UTC), tick=False)
        self.coordinates = self.traveller.start()
        self.overrides = override_settings(LIGHTNOTE_EXECUTION_LEASE=LEASE_SECONDS)
        self.overrides.enable()
        self.clock = 0.0
        self.model: dict[str, ModelCard] = {}

    def teardown(self) -> None:
        self.overrides.disable()
        self.traveller.stop()

    def lease_passed(self, card: ModelCard) -> bool:
        return self.clock >= card.lease_until

    # --- rules ---------------------------------------------------------------------------

    @initialize(target=tokens)
    def issue_first(self) -> str:
        return self.issue()

    @rule(target=tokens)
    def issue(self) -> str:
        issued = cards.card_issue(
            owner_id=1,
            session_id=uuid.uuid4(),
            subject_id=1,
            actor_id=1,
            tool="create_todo",
            capability="todo.create",
            risk="low",
            args={"title": "t"},
            preview={"title": "p"},
            admin_context_id=None,
            admin_mode=None,
            request_id="r",
        )
        self.model[issued.token] = ModelCard()
        return issued.token

    def _claim(self, token: str, attempt: str) -> ClaimStatus:
        card = self.model[token]
        result = card_transitions.card_claim(token, attempt_id=attempt)
        if result.status is ClaimStatus.CLAIMED:
            card.told_claimed.add(attempt)
        if card.state == "ready":
            assert result.status is ClaimStatus.CLAIMED
            card.state, card.holder = "running", attempt
            card.lease_until = self.clock + LEASE_SECONDS
        elif card.state == "running" and attempt == card.holder:
            assert result.status is ClaimStatus.CLAIMED
        elif card.state == "running":
            assert result.status is ClaimStatus.RUNNING
            assert result.lease_expired is self.lease_passed(card)
        else:
            expected = {
                "settled": ClaimStatus.SETTLED,
                "rejected": ClaimStatus.REJECTED,
                GONE: ClaimStatus.GONE,
            }
            assert result.status is expected[card.state]
        return result.status

    @rule(target=claims, token=tokens)
    def claim(self, token: str) -> Any:
        attempt = f"attempt-{uuid.uuid4().hex[:8]}"
        if self._claim(token, attempt) is ClaimStatus.CLAIMED:
            return multiple((token, attempt))
        return multiple()

    @rule(claimed=claims)
    def duplicate_claim(self, claimed: tuple[str, str]) -> None:
        # The same attempt again, as redis-py re-sends a claim whose reply was lost.
        self._claim(*claimed)

    @rule(token=tokens)
    def reject(self, token: str) -> None:
        card = self.model[token]
        result = card_transitions.card_reject(token)
        if card.state in ("ready", "rejected"):
            assert result == card_transitions.RejectResult(RejectStatus.REJECTED, "rejected")
            card.state = "rejected"
        elif card.state == GONE:
            assert result.status is RejectStatus.GONE
        else:
            assert result == card_transitions.RejectResult(RejectStatus.REFUSED, card.state)

    @rule(
        token=tokens,
        kind=st.sampled_from(["succeeded", "failed", "unknown"]),
        by_holder=st.booleans(),
    )
    def settle(self, token: str, kind: str, by_holder: bool) -> None:
        card = self.model[token]
        attempt = card.holder if by_holder and card.holder else "intruder"
        outcome = {"kind": kind}
        applied = card_transitions.card_settle(
            token, attempt_id=attempt, outcome_kind=kind, outcome=outcome
        )
        if card.state == "running" and attempt == card.holder:
            assert applied is True
            card.state, card.outcome_kind, card.outcome = "settled", kind, outcome
        elif card.state == "settled" and attempt == card.holder:
            # A re-sent settle with the very same outcome is recognised; anything else is not.
            assert applied is ((card.outcome_kind, card.outcome) == (kind, outcome))
        else:
            assert applied is False

    @rule(token=tokens)
    def expire(self, token: str) -> None:
        card = self.model[token]
        if card.state == "ready":  # Redis's TTL, without waiting 300 s
            get_redis().delete(control.card_key(store.token_digest(token)))
            card.state = GONE

    @precondition(lambda self: self.clock + LEASE_SECONDS + 1 <= MAX_CLOCK_SHIFT_SECONDS)
    @rule()
    def let_leases_pass(self) -> None:
        self.coordinates.shift(timedelta(seconds=LEASE_SECONDS + 1))
        self.clock += LEASE_SECONDS + 1

    @rule(token=tokens, kind=st.sampled_from(["succeeded", "failed"]))
    def resolve(self, token: str, kind: str) -> None:
        card = self.model[token]
        outcome = {"resolved": kind}
        applied = card_transitions.card_resolve(token, outcome_kind=kind, outcome=outcome)
        expected = (
            card.state == "settled"
            and card.outcome_kind == "unknown"
            and (kind == "succeeded" or self.lease_passed(card))
        ) or (card.state == "running" and self.lease_passed(card))
        assert applied is expected
        if expected:
            card.state, card.outcome_kind, card.outcome = "settled", kind, outcome

    # --- invariants ----------------------------------------------------------------------

    @invariant()
    def store_matches_model_and_moves_only_along_allowed_edges(self) -> None:
        for token, card in self.model.items():
            stored = cards.card_get(token)
            now = (GONE, None) if stored is None else (stored.state, stored.outcome_kind)
            assert now[0] == card.state
            assert now[1] == card.outcome_kind
            if stored is not None:
                assert stored.outcome == card.outcome
                assert stored.attempt == card.holder
            if now != card.observed:
                assert now in ALLOWED_EDGES.get(card.observed, set()), (card.observed, now)
            elif now[0] == "settled" and stored is not None:
                # Same state and kind: a final outcome never changes its content either.
                assert card.observed_outcome in (None, stored.outcome)
            if stored is not None and card.observed_attempt is not None:
                assert stored.attempt == card.observed_attempt  # one claimer, forever
            card.observed = now
            if stored is not None:
                card.observed_attempt = stored.attempt or card.observed_attempt
                card.observed_outcome = stored.outcome

    @invariant()
    def at_most_one_attempt_is_ever_told_claimed(self) -> None:
        for card in self.model.values():
            assert len(card.told_claimed) <= 1

    @invariant()
    def a_rejected_card_never_ran(self) -> None:
        for card in self.model.values():
            if card.state == "rejected":
                assert card.told_claimed == set()
                assert card.holder is None


TestCardProtocolStateMachine = CardProtocolMachine.TestCase
TestCardProtocolStateMachine.settings = settings(
    max_examples=int(os.environ.get("LIGHTNOTE_HYPOTHESIS_EXAMPLES", "30")),
    stateful_step_count=20,
    deadline=None,
    database=None,  # no .hypothesis/ directory in the work tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
