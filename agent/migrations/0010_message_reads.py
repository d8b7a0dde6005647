"""Move each assistant message's ``reads`` out of its payload into a column of its own.

Every message turn reads the recent history's ``reads``; taken from the payload, the
database parsed each message's whole payload (cards, facts, notices) to find them.
Forwards: the column is added and filled from the payload, which loses the key. Backwards:
the key goes back into the payload before the column is dropped.
"""

from django.db import migrations, models

BATCH = 500


def _assistant_messages(apps, **filters):
    Message = apps.get_model("agent", "Message")
    return Message, Message.objects.filter(role="assistant", **filters).order_by("pk")


def _save_in_batches(Message, changed, fields):
    """``bulk_update`` the messages ``changed`` yields, ``BATCH`` at a time."""
    batch = []
    for message in changed:
        batch.append(message)
        if len(batch) >= BATCH:
            Message.objects.bulk_update(batch, fields)
            batch = []
    if batch:
        Message.objects.bulk_update(batch, fields)


def reads_to_column(apps, schema_editor):
    Message, messages = _assistant_messages(apps)

    def changed():
        for message in messages.iterator(chunk_size=BATCH):
            payload = dict(message.payload or {})
            if "reads" in payload:
                message.reads = payload.pop("reads")
                message.payload = payload
                yield message

    _save_in_batches(Message, changed(), ["reads", "payload"])


def reads_to_payload(apps, schema_editor):
    Message, messages = _assistant_messages(apps, reads__isnull=False)

    def changed():
        for message in messages.iterator(chunk_size=BATCH):
            message.payload = {**(message.payload or {}), "reads": message.reads}
            yield message

    _save_in_batches(Message, changed(), ["payload"])


class Migration(migrations.Migration):
    dependencies = [
        ("agent", "0009_session_pending_until"),
    ]

    operations = [
        migrations.AddField(
            model_name="message",
            name="reads",
            field=models.JSONField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(reads_to_column, reads_to_payload),
    ]
