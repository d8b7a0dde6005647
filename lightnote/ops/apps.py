from __future__ import annotations

from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "lightnote.ops"
    label = "ops"
    verbose_name = "Operations"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lightnote.ops import tracing

        tracing.configure_from_environment()
