"""Typed OpenAPI shapes of the agent's responses (documentation only: views build dicts).

Mobile clients generate their models from these, so every field the endpoints return is
named here with its type; the tags put the operations in the order a client uses them.
"""

from __future__ import annotations

from drf_spectacular.utils import inline_serializer
from rest_framework import serializers

from agent.capabilities import RISKS
from agent.cards.history import HISTORY_STATES
from agent.choices import store as choice_store
from agent.models import TITLE_MAX, ActionCard

# Tags in the order of the flow: open a conversation, send a message, confirm a card, read
# the final reply; then history.
TAG_SESSIONS = "agent 1. conversations"
TAG_MESSAGES = "agent 2. messages and cards"
TAG_CONFIRM = "agent 3. confirming a card"
TAG_REPLY = "agent 4. the final reply"
TAG_HISTORY = "agent 5. history"


# ``label`` is also an attribute of every DRF field, so this shape is declared inline.
PreviewDetailSchema = inline_serializer(
    name="PreviewDetail",
    fields={
        "key": serializers.CharField(help_text="The argument this line shows, e.g. `due_at`"),
        "label": serializers.CharField(help_text="Its label, in the request's language"),
        "value": serializers.CharField(help_text="The prepared value, formatted for people"),
        "current": serializers.CharField(
            required=False, help_text="On a change row (an update): the value now"
        ),
        "new": serializers.CharField(
            required=False, help_text="On a change row (an update): the value after confirming"
        ),
    },
)


class CardPreviewSerializer(serializers.Serializer):
    title = serializers.CharField(help_text="What the action does, e.g. 创建待办")
    target = serializers.CharField(help_text="The item it acts on")
    impact = serializers.CharField(help_text="What will change, in one sentence")
    details = serializers.ListField(child=PreviewDetailSchema)


class ProvenanceSourceSerializer(serializers.Serializer):
    type = serializers.CharField(help_text="What was read: `note`, `todo`")
    id = serializers.CharField(allow_blank=True, help_text="Empty when the read found nothing")
    title = serializers.CharField(allow_blank=True)


class CardProvenanceSerializer(serializers.Serializer):
    sources = ProvenanceSourceSerializer(many=True)
    message = serializers.CharField(
        help_text="The line the chat card shows, in the request's language: suggested after "
        "reading note 「…」 — check that this is what you asked for"
    )


class CardSerializer(serializers.Serializer):
    card_id = serializers.UUIDField(
        help_text="The action id (= the receipt's `action_id`). Not a secret; confirms nothing."
    )
    token = serializers.CharField(
        help_text="One-time secret that confirms, rejects or reads this card. Shown once: "
        "it is never stored in readable form and never appears in history."
    )
    continuation_token = serializers.CharField(
        help_text="A different secret: post it to /api/v1/agent/continuations/reply/ after "
        "a successful confirm to get the final reply."
    )
    capability = serializers.CharField()
    tool = serializers.CharField()
    risk = serializers.ChoiceField(choices=list(RISKS))
    state = serializers.ChoiceField(choices=["ready"])
    expires_at = serializers.DateTimeField()
    args = serializers.DictField(help_text="The prepared arguments that will execute, exactly")
    preview = CardPreviewSerializer()
    provenance = CardProvenanceSerializer(
        allow_null=True,
        help_text="Set when the card was proposed on a turn in which the model read the "
        "user's stored content (note bodies, search results, todo lists; this turn or an "
        "earlier one in its history): stored content may read like instructions. null "
        "otherwise.",
    )
    parent_id = serializers.UUIDField(
        required=False,
        help_text='Only on a card derived from another (an edit, an "ask again", a correction '
        'said as the next message: "actually make it 5pm"): the card it replaces, now '
        "voided (its token answers 410)",
    )
    compensates_id = serializers.UUIDField(
        required=False,
        help_text="Only on an undo card (from the undo endpoint, or a message asking to take "
        'back the last change: "撤销刚才的操作", "undo that"): the succeeded card whose action '
        "it takes back",
    )


class ChoiceCandidateSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="The item's id: post it as `candidate_id`")
    title = serializers.CharField()
    status = serializers.ChoiceField(
        choices=["open", "done"], allow_null=True, help_text="todos; null for a note"
    )
    due_at = serializers.DateTimeField(allow_null=True, help_text="todos; null when none")
    excerpt = serializers.CharField(
        allow_blank=True, help_text="A todo's description or a note's content, cut short"
    )
    created_at = serializers.DateTimeField(
        allow_null=True, required=False, help_text="When it was made (or a note last edited)"
    )


class ChoiceSerializer(serializers.Serializer):
    card_id = serializers.UUIDField(help_text="The choice's id. Not a secret; picks nothing.")
    kind = serializers.ChoiceField(choices=["choice"])
    token = serializers.CharField(
        help_text="One-time secret: post it with a `candidate_id` to "
        "/api/v1/agent/choices/choose/. Shown once, never in history."
    )
    tool = serializers.CharField(help_text="The write the proposal asked for, e.g. `delete_todo`")
    capability = serializers.CharField()
    state = serializers.ChoiceField(choices=["ready"])
    expires_at = serializers.DateTimeField()
    candidates = ChoiceCandidateSerializer(
        many=True, help_text="The items the target matched, in the order the reply lists them"
    )


class HistoryChoiceSerializer(serializers.Serializer):
    card_id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=["choice"])
    tool = serializers.CharField()
    capability = serializers.CharField()
    state = serializers.ChoiceField(
        choices=list(choice_store.HISTORY_STATES),
        help_text="`ready` until `expires_at`, then `expired`; `chosen` once a candidate was "
        "picked (`chosen_id`, and `chosen_card_id`: the card it issued); `voided` when its "
        "conversation was deleted",
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    candidates = ChoiceCandidateSerializer(many=True)
    chosen_id = serializers.UUIDField(allow_null=True)
    chosen_card_id = serializers.UUIDField(allow_null=True)


class ChooseRequestSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The choice's token")
    session_id = serializers.UUIDField()
    candidate_id = serializers.UUIDField(help_text="One of the choice's candidates' `id`")


class ChooseCardSerializer(CardSerializer):
    choice_id = serializers.UUIDField(help_text="The choice this card was picked from")


class ChooseResponseSerializer(serializers.Serializer):
    card = ChooseCardSerializer(help_text="The ordinary ready card for the picked item")


class ReissueResponseSerializer(serializers.Serializer):
    card = CardSerializer(help_text="The new card; its `parent_id` names the voided one")


class FactItemSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["todo", "note"])
    id = serializers.UUIDField()
    title = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "done"], required=False)
    priority = serializers.IntegerField(required=False, help_text="todos: 0 low, 1 normal, 2 high")
    due_at = serializers.DateTimeField(required=False, allow_null=True)
    description = serializers.CharField(required=False)
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    content_excerpt = serializers.CharField(required=False)
    version = serializers.IntegerField()


class FactSerializer(serializers.Serializer):
    tool = serializers.CharField(help_text="The read tool that ran, e.g. `query_todos`")
    status = serializers.ChoiceField(choices=["succeeded", "failed"])
    summary = serializers.CharField(help_text="What it found, in the request's language")
    count = serializers.IntegerField(required=False, help_text="How many items matched")
    items = FactItemSerializer(many=True, required=False, help_text="The items found (with ids)")
    code = serializers.CharField(required=False, help_text="A failed read's error code")


class NoticeSerializer(serializers.Serializer):
    capability = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(
        choices=["rejected", "planned", "forbidden", "guarded", "clarify"],
        help_text="Why a proposal produced no card, or `guarded`: the truthfulness guard "
        "removed claims no receipt backs from the reply (capability null, code "
        "REPLY_UNBACKED_CLAIM, message: the fixed server text it appended)",
    )
    message = serializers.CharField(help_text="For people, in the request's language")
    code = serializers.CharField(required=False)
    slot = serializers.ChoiceField(
        choices=["title", "due_at", "target", "priority", "keyword", "intent", "change"],
        required=False,
        help_text=(
            "For `clarify`: what the question asks for. There is no card; the session keeps the "
            "request pending, and the next message may answer it (a time, a priority, "
            "'the second one')."
        ),
    )


class ChangeItemSerializer(serializers.Serializer):
    action_id = serializers.UUIDField()
    capability = serializers.CharField()
    tool = serializers.CharField()
    text = serializers.CharField(help_text="Built from the receipt and the item as stored")


class ChangesSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=0)
    text = serializers.CharField(
        help_text="The server's own line: what this turn changed, from receipts only"
    )
    items = ChangeItemSerializer(many=True)


class MessageResponseSerializer(serializers.Serializer):
    message_id = serializers.UUIDField()
    reply = serializers.CharField(help_text="Already passed through the truthfulness guard")
    facts = FactSerializer(many=True)
    cards = CardSerializer(many=True)
    choices = ChoiceSerializer(
        many=True,
        help_text="When a proposal's target matched several items: no card for it, but a "
        "choice listing them; picking one issues its card",
    )
    notices = NoticeSerializer(many=True)
    changes = ChangesSerializer(
        help_text="Server-authored: no write runs during a turn, so 0, with the cards waiting"
    )


class ReceiptSerializer(serializers.Serializer):
    action_id = serializers.UUIDField()
    tool = serializers.CharField()
    capability = serializers.CharField()
    status = serializers.ChoiceField(choices=["succeeded"])
    summary = serializers.CharField()
    resource = serializers.DictField(help_text='`{"type": "todo|note", "id": "<uuid>"}`')
    settled_at = serializers.DateTimeField()


class OutcomeErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="e.g. TODO_VERSION_CONFLICT, ACTION_OUTCOME_UNKNOWN")
    message = serializers.CharField()


class OutcomeSerializer(serializers.Serializer):
    ok = serializers.BooleanField(
        allow_null=True,
        help_text="true: done, with its receipt; false: not done; null: not verifiable yet "
        "(ACTION_OUTCOME_UNKNOWN) — ask `status` again later, it never runs twice",
    )
    receipt = ReceiptSerializer(required=False)
    error = OutcomeErrorSerializer(required=False)


class ConfirmationStateSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["ready", "running", "settled", "rejected"])
    outcome = OutcomeSerializer(required=False, help_text="When settled")


class ContinuationReplySerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["settled", "running"])
    reply = serializers.CharField(required=False, help_text="When settled")
    notices = NoticeSerializer(
        many=True,
        required=False,
        help_text="Present when the truthfulness guard changed the reply (also on every "
        "repeat): one `guarded` notice",
    )
    changes = ChangesSerializer(required=False, help_text="When settled: the receipt continued")


class SessionSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    title = serializers.CharField(
        max_length=TITLE_MAX,
        help_text="The first user message until renamed; empty for a conversation with no "
        "message yet",
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(help_text="The latest activity (a message, a rename)")


class HistoryCardSerializer(serializers.Serializer):
    card_id = serializers.UUIDField(help_text="The action id (= the receipt's `action_id`)")
    capability = serializers.CharField()
    tool = serializers.CharField()
    risk = serializers.ChoiceField(choices=list(RISKS))
    state = serializers.ChoiceField(
        choices=list(HISTORY_STATES),
        help_text="The card's current state, from the database: `ready` (until `expires_at`), "
        "`expired` (never confirmed in time), `rejected`, `settled` (see `outcome`), or "
        "`voided` (withdrawn before it ran, see `void_reason`). No token is ever returned: "
        "a ready card can be confirmed only with the token its message response gave.",
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    args = serializers.DictField()
    preview = CardPreviewSerializer(
        help_text="Rendered again in the request's language (Accept-Language) from the "
        "stored prepared `args`, whatever language the card was issued in"
    )
    provenance = CardProvenanceSerializer(
        allow_null=True,
        help_text="As when issued (re-rendered in the request's language): set when the "
        "model had read stored content",
    )
    outcome = OutcomeSerializer(required=False, help_text="When settled")
    settled_at = serializers.DateTimeField(required=False, allow_null=True)
    rejected_at = serializers.DateTimeField(required=False, allow_null=True)
    void_reason = serializers.ChoiceField(
        choices=ActionCard.VoidReason.values, required=False, help_text="When voided"
    )
    parent_id = serializers.UUIDField(
        allow_null=True, help_text="The card this one was derived from (an edit, a choice)"
    )
    compensates_id = serializers.UUIDField(
        allow_null=True, help_text="For an undo: the settled card it reverses"
    )


class HistoryMessageSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    role = serializers.ChoiceField(choices=["user", "assistant"])
    text = serializers.CharField(help_text="As stored: the assistant's text after the guard")
    created_at = serializers.DateTimeField()
    facts = FactSerializer(many=True)
    notices = NoticeSerializer(many=True)
    cards = HistoryCardSerializer(many=True)
    choices = HistoryChoiceSerializer(many=True, help_text="Its choice cards, with their state")
    card_id = serializers.UUIDField(
        required=False, help_text="For a final reply: the card whose success it reports"
    )
    changes = ChangesSerializer(
        required=False,
        help_text="Assistant messages: its turn's receipts once its cards settled (a receipt "
        "whose final reply is in the conversation is counted there), or the receipt a final "
        "reply continues",
    )


class EditRequestSchema(serializers.Serializer):
    token = serializers.CharField(help_text="The ready card's token")
    session_id = serializers.UUIDField()
    args = serializers.DictField(
        help_text="The new values, in the tool's own words (merged over the card's): "
        "`title`, `description`, `content`, `tags`, `priority`, `due_at` (words such as "
        "'明天下午3点' or ISO 8601) — those the card's tool takes. Anything else: 400 "
        "TOOL_ARGS_INVALID."
    )


class CardResponseSerializer(serializers.Serializer):
    card = CardSerializer(help_text="The new ready card; its `parent_id` names the voided one")
