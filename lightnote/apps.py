from __future__ import annotations

from django.apps import AppConfig


class LightNoteConfig(AppConfig):
    name = "lightnote"
    verbose_name = "LightNote"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from lightnote import login_throttle, messages  # noqa: F401  (texts, signal receivers)
