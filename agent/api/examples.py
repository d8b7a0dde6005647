"""Real-looking response examples for the agent's OpenAPI operations (documentation only).

The bodies are shaped exactly as the endpoints answer (tests/test_api_contract.py checks the
success examples against the serializers' field names), so a mobile developer can read the
flow end to end: a message with a fact (items with ids), a card and a notice; a confirm that
settles or is still running; the final reply.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse

from agent.api.schemas import (
    ConfirmationStateSerializer,
    ContinuationReplySerializer,
    MessageResponseSerializer,
)
from lightnote.texts.i18n import translate

CARD_ID = "6f1c2a7e-93b1-4c55-9a8e-2f0d4b7c1e10"
SESSION_ID = "0c9e5b1d-6a2f-4f7e-8d3c-5b1a9e7f2d40"
TODO_ID = "4b8d2f6a-1c3e-4a5b-9d7f-8e6c2a4b1d30"

RECEIPT = {
    "action_id": CARD_ID,
    "tool": "create_todo",
    "capability": "todo.create",
    "status": "succeeded",
    "summary": "Created the todo “Submit the weekly report”.",
    "resource": {"type": "todo", "id": TODO_ID},
    "settled_at": "2026-12-03T20:58:12+08:00",
}

MESSAGE_EXAMPLE = {
    "message_id": "9a7b5c3d-1e2f-4a6b-8c0d-2e4f6a8b0c1d",
    "reply": "Found 1 open todo. Please review the card below; nothing happens until you "
    "confirm it.",
    "facts": [
        {
            "tool": "query_todos",
            "status": "succeeded",
            "summary": "Found 1 todo:",
            "count": 1,
            "items": [
                {
                    "type": "todo",
                    "id": "2d4f6a8b-0c1e-4a3b-9c5d-7e9f1a3b5c70",
                    "title": "Pay rent",
                    "status": "open",
                    "priority": 2,
                    "due_at": "2026-12-03T17:30:00+08:00",
                    "version": 3,
                }
            ],
        }
    ],
    "cards": [
        {
            "card_id": CARD_ID,
            "token": "<one-time secret: keep it in memory only>",
            "continuation_token": "<another secret: for /continuations/reply/ after success>",
            "capability": "todo.create",
            "tool": "create_todo",
            "risk": "low",
            "state": "ready",
            "expires_at": "2026-12-03T21:03:00+08:00",
            "args": {
                "title": "Submit the weekly report",
                "description": "",
                "priority": 2,
                "due_at": "2026-12-03T21:00:00+08:00",
                "due_at_said": "tonight at 9pm",
            },
            "preview": {
                "title": "Create todo",
                "target": "Submit the weekly report",
                "impact": "After you confirm, a todo due 2026-12-03 21:00 (Asia/Shanghai) "
                "will be created.",
                "details": [
                    {"key": "title", "label": "Title", "value": "Submit the weekly report"},
                    {"key": "due_at", "label": "Due", "value": "2026-12-03 21:00 (Asia/Shanghai)"},
                    {"key": "priority", "label": "Priority", "value": "high"},
                ],
            },
            "provenance": None,
        }
    ],
    "notices": [
        {
            "capability": "note.delete",
            "status": "planned",
            "message": "The agent cannot delete notes yet; delete it on the notes page.",
            "code": "CAPABILITY_PLANNED",
        }
    ],
    "choices": [],
    "changes": {
        "count": 0,
        "text": "Nothing has changed yet: 1 card waits for your confirmation.",
        "items": [],
    },
}


def _example(name: str, value: object, status: int, summary: str = "") -> OpenApiExample:
    return OpenApiExample(
        name, value=value, summary=summary, response_only=True, status_codes=[str(status)]
    )


MESSAGE_200 = OpenApiResponse(
    MessageResponseSerializer,
    description="The guarded reply; `facts` (reads, with item ids), `cards` (proposed "
    "writes, each waiting for its confirm) and `notices` (why a proposal made no card, a "
    "question, or the guard's note).",
    examples=[_example("a fact, a card and a notice", MESSAGE_EXAMPLE, 200)],
)

CONFIRM_200_EXAMPLES = [
    _example(
        "settled: done",
        {"state": "settled", "outcome": {"ok": True, "receipt": RECEIPT}},
        200,
        "Executed once; the receipt names the item",
    ),
    _example(
        "settled: not done",
        {
            "state": "settled",
            "outcome": {
                "ok": False,
                "error": {
                    "code": "TODO_VERSION_CONFLICT",
                    "message": translate("TODO_VERSION_CONFLICT", "en", current_version=4),
                },
            },
        },
        200,
        "A business failure: nothing was written",
    ),
    _example(
        "settled: not verifiable yet",
        {
            "state": "settled",
            "outcome": {
                "ok": None,
                "error": {
                    "code": "ACTION_OUTCOME_UNKNOWN",
                    "message": translate("ACTION_OUTCOME_UNKNOWN", "en"),
                },
            },
        },
        200,
        "Poll `status` later; it never runs twice",
    ),
]
RUNNING_202 = _example("running", {"state": "running"}, 202, "Poll again after Retry-After seconds")


def confirm_200() -> OpenApiResponse:
    return OpenApiResponse(ConfirmationStateSerializer, examples=CONFIRM_200_EXAMPLES)


def state_202(description: str) -> OpenApiResponse:
    return OpenApiResponse(
        ConfirmationStateSerializer, description=description, examples=[RUNNING_202]
    )


REPLY_200 = OpenApiResponse(
    ContinuationReplySerializer,
    examples=[
        _example(
            "settled",
            {
                "state": "settled",
                "reply": "Done: I created “Submit the weekly report”, due 2026-12-03 21:00 "
                "(Asia/Shanghai).",
            },
            200,
        )
    ],
)


def reply_202(description: str) -> OpenApiResponse:
    return OpenApiResponse(
        ContinuationReplySerializer, description=description, examples=[RUNNING_202]
    )
