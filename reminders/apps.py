from __future__ import annotations

from django.apps import AppConfig


class RemindersConfig(AppConfig):
    """Reminders of todos as notifications (in the app, by email), the background worker
    that delivers them, and the private calendar feed."""

    name = "reminders"
    verbose_name = "Reminders"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from reminders import messages  # noqa: F401
