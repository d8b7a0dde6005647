from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TodosConfig(AppConfig):
    name = "todos"
    verbose_name = _("Todos")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from todos import messages  # noqa: F401
