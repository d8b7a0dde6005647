"""Confirm, reject and read the state of a card by its token (docs/confirmation-protocol.md).

Each is a :class:`agent.api.base.TokenEndpoint` over ``agent.cards.confirm``: body shape (400)
-> authentication (401) -> admin read-only (403) -> the store (503) -> the token (410) ->
owner and session (403/404) -> the seal (409) -> the state. Exactly one confirm executes a
card; the others learn what happened (202 ``running``, then 200 ``settled``).
"""

from __future__ import annotations

from agent.api.base import (
    CARD_ERRORS,
    MISSES_429,
    TokenEndpoint,
    post_schema,
)
from agent.api.examples import confirm_200, state_202
from agent.api.schemas import TAG_CONFIRM, ConfirmationStateSerializer
from agent.cards import confirm as execution

_RUNNING = (
    "202 `running`: another request holds the card and is executing it. Do not confirm "
    "again blindly: poll `POST /api/v1/agent/confirmations/status/` with the same body, "
    "waiting the `Retry-After` seconds when the header is present (else about 1 s), until "
    "the state is `settled`. A repeat never executes twice."
)


@post_schema(
    tag=TAG_CONFIRM,
    summary="Confirm a card: execute it exactly once",
    description="Body: the card's `token` and its `session_id`. The first request claims and "
    "executes the card; 200 `settled` carries the outcome (`ok: true` with the receipt; "
    "`false` with the error; `null` when not verifiable yet: ask `status` later). "
    + _RUNNING
    + " After `ok: true`, fetch the final reply with the card's `continuation_token`.",
    ok={200: confirm_200(), 202: state_202(_RUNNING)},
    codes={**CARD_ERRORS, 409: ("CONFIRMATION_REJECTED", "CONFIRMATION_INVALID")},
    descriptions={
        "s429": "RATE_LIMITED (with Retry-After): a new claim over "
        "LIGHTNOTE_RATE_LIMIT_CONFIRMS (a repeat is never refused), or " + MISSES_429
    },
)
class ConfirmView(TokenEndpoint):
    """Confirm a card: exactly one request executes it; the others learn what happened."""

    operation = staticmethod(execution.confirm)


@post_schema(
    tag=TAG_CONFIRM,
    summary="Reject a ready card",
    description="Body: the card's `token` and its `session_id`. A running or settled card "
    "answers 409 CONFIRMATION_ALREADY_CLAIMED with its `state` beside `error`.",
    ok={200: ConfirmationStateSerializer},
    codes={**CARD_ERRORS, 409: ("CONFIRMATION_ALREADY_CLAIMED",)},
    descriptions={"s429": MISSES_429},
)
class RejectView(TokenEndpoint):
    """Reject a ready card."""

    operation = staticmethod(execution.reject)


@post_schema(
    tag=TAG_CONFIRM,
    summary="Read a card's state (poll it while `running`)",
    description="Body: the card's `token` and its `session_id`. Never executes. Use it to "
    "follow a 202 `running` confirm, or to resolve `ok: null`: it re-checks the receipt "
    "table and answers `ok: true` (a receipt exists) or, after the execution lease, "
    "`ok: false` ACTION_NOT_EXECUTED. Without a token (e.g. after a restart) read the card "
    "from the conversation's messages instead.",
    ok={200: confirm_200()},
    codes={**CARD_ERRORS, 409: ("CONFIRMATION_INVALID",)},
    descriptions={"s429": MISSES_429},
)
class StatusView(TokenEndpoint):
    """A card's state, and its outcome once settled."""

    operation = staticmethod(execution.status)
