"""Re-guard the assistant replies stored before every model text was checked (issue 9).

History replays stored text, so a claim stored by the old guard (read turns were never
checked, final replies passed any claim) would keep reaching the user. Each stored reply is
checked once against the receipts its session held when it was written; a reply that
changes gets the guarded notice in its payload and a ``guard.replaced`` audit event.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

BATCH = 500


def reguard_stored_replies(apps: Any, schema_editor: Any) -> None:
    from agent.guard import guard_reply, guarded_notice
    from agent.guard.backing import backing_for

    message_model = apps.get_model("agent", "Message")
    receipt_model = apps.get_model("agent", "ActionReceipt")
    audit_model = apps.get_model("lightnote", "AuditEvent")
    replies = (
        message_model.objects.filter(role="assistant")
        .select_related("session")
        .order_by("created_at", "id")
    )
    for message in replies.iterator(chunk_size=BATCH):
        receipts = receipt_model.objects.filter(
            session_id=message.session_id,
            status="succeeded",
            settled_at__lte=message.created_at,
        ).order_by("settled_at", "id")
        backings = {}
        for receipt in receipts:
            made = backing_for(
                action_id=receipt.action_id,
                capability=receipt.capability,
                resource_type=receipt.resource_type,
                result=receipt.result if isinstance(receipt.result, dict) else {},
            )
            if made is not None:
                backings[str(receipt.action_id)] = made
        payload = message.payload if isinstance(message.payload, dict) else {}
        focus_id = str((payload.get("receipt") or {}).get("action_id", ""))
        verdict = guard_reply(
            message.text,
            backings=list(backings.values()),
            focus=backings.get(focus_id),
            locale=_locale_of(message.text),
        )
        if not verdict.replaced:
            continue
        original = message.text
        message.text = verdict.text
        message.payload = {
            **payload,
            "notices": [*(payload.get("notices") or []), guarded_notice(verdict)],
        }
        message.save(update_fields=["text", "payload"])
        audit_model.objects.create(
            event_type="guard.replaced",
            actor_id=message.session.owner_id,
            subject_id=message.session.owner_id,
            session_id=message.session_id,
            action_id=focus_id or None,
            code="REPLY_UNBACKED_CLAIM",
            details={
                "matched": verdict.matched,
                "removed": list(verdict.removed),
                "original": original[:500],
                "migration": "0004_reguard_stored_replies",
            },
        )


def _locale_of(text: str) -> str:
    """The stored reply's language: Chinese if it holds any Chinese, else English."""
    return "zh-CN" if any("\u3400" <= char <= "\u9fff" for char in text) else "en"


class Migration(migrations.Migration):
    dependencies = [("agent", "0003_card_lifecycle_and_session_titles")]

    operations = [
        migrations.RunPython(reguard_stored_replies, migrations.RunPython.noop, elidable=True),
    ]
