from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class NotesConfig(AppConfig):
    name = "notes"
    verbose_name = _("Notes")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from notes import messages  # noqa: F401
