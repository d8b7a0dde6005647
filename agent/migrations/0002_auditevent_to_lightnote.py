"""The audit log now belongs to the base layer (``lightnote.AuditEvent``, same table): drop
it from the agent's state only; no table is touched."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("agent", "0001_initial"),
        ("lightnote", "0002_auditevent"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="AuditEvent")],
            database_operations=[],
        ),
    ]
