from __future__ import annotations

from django.apps import AppConfig


class LightNoteConfig(AppConfig):
    name = "lightnote"
    verbose_name = "LightNote"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from lightnote import login_throttle, messages  # noqa: F401  (texts, signal receivers)
        from lightnote.impersonation import end_context_on_logout

        user_logged_out.connect(end_context_on_logout, dispatch_uid="lightnote-end-context")
