"""The final reply after a succeeded action, by the card's ``continuation_token``.

A :class:`agent.api.base.TokenEndpoint` over ``agent.continuations.reply.reply``: generated once,
with no write tool available; a repeat returns the same reply (docs/conversation.md).
"""

from __future__ import annotations

from agent.api.base import MISSES_429, TokenEndpoint, post_schema
from agent.api.examples import REPLY_200, reply_202
from agent.api.schemas import TAG_REPLY
from agent.continuations import reply as continuations

_REPLY_RUNNING = (
    "202 `running`: another request is generating the reply; poll this endpoint again after "
    "the `Retry-After` seconds (else about 1 s). A generation older than 60 s is abandoned "
    "and taken over."
)


@post_schema(
    tag=TAG_REPLY,
    summary="The final reply after a successful action",
    description="Body: the card's **`continuation_token`** (not its `token`) and the "
    "`session_id`. Generated once, with no write tool available; a repeat returns the same "
    "reply. 409 CONTINUATION_NOT_READY (`state: pending`): the action has no succeeded "
    "receipt (yet, or it failed). 503 CONTINUATION_GENERATION_FAILED: the model failed; "
    "retry. The outcome itself never depends on this reply: it is the confirm's receipt. "
    + _REPLY_RUNNING,
    ok={200: REPLY_200, 202: reply_202(_REPLY_RUNNING)},
    codes={
        403: ("CONTINUATION_FORBIDDEN", "ADMIN_READONLY"),
        404: ("SESSION_NOT_FOUND",),
        409: ("CONTINUATION_NOT_READY",),
        410: ("CONTINUATION_EXPIRED",),
        503: ("CONTINUATION_GENERATION_FAILED", "CONFIRMATION_STORE_UNAVAILABLE"),
    },
    descriptions={
        "s429": "RATE_LIMITED (with Retry-After): a new generation over "
        "LIGHTNOTE_RATE_LIMIT_CONFIRMS, or " + MISSES_429
    },
)
class ContinuationReplyView(TokenEndpoint):
    """The final reply after a succeeded action (generated once, with no write tools)."""

    operation = staticmethod(continuations.reply)
