"""The audit log moves from the agent app to the base layer: state only, the table
(``agent_auditevent``) and its rows stay where they are. ``agent.0002`` drops the model from
the agent's state after this one adopts it."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def _move_content_type(apps, schema_editor):
    # Keep the admin permissions attached to the model: rename its content type in place.
    content_type = apps.get_model("contenttypes", "ContentType")
    content_type.objects.using(schema_editor.connection.alias).filter(
        app_label="agent", model="auditevent"
    ).exclude(
        pk__in=content_type.objects.filter(app_label="lightnote", model="auditevent").values("pk")
    ).update(app_label="lightnote")


def _restore_content_type(apps, schema_editor):
    content_type = apps.get_model("contenttypes", "ContentType")
    content_type.objects.using(schema_editor.connection.alias).filter(
        app_label="lightnote", model="auditevent"
    ).update(app_label="agent")


class Migration(migrations.Migration):

    dependencies = [
        ("lightnote", "0001_initial"),
        ("agent", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="AuditEvent",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("created_at", models.DateTimeField(db_index=True, default=django.utils.timezone.now, editable=False)),
                        ("event_type", models.CharField(db_index=True, max_length=64)),
                        ("session_id", models.UUIDField(blank=True, null=True)),
                        ("capability", models.CharField(blank=True, default="", max_length=64)),
                        ("tool", models.CharField(blank=True, default="", max_length=64)),
                        ("action_id", models.UUIDField(blank=True, db_index=True, null=True)),
                        ("code", models.CharField(blank=True, default="", max_length=64)),
                        ("details", models.JSONField(blank=True, default=dict)),
                        ("actor", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("subject", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "agent_auditevent",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_move_content_type, _restore_content_type, elidable=True),
    ]
