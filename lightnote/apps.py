from __future__ import annotations

from django.apps import AppConfig


class LightNoteConfig(AppConfig):
    name = "lightnote"
    verbose_name = "LightNote"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from lightnote.accounts import login_throttle  # noqa: F401  (texts, signal receivers)
        from lightnote.impersonation.contexts import end_context_on_logout
        from lightnote.texts import messages  # noqa: F401  (texts, signal receivers)

        user_logged_out.connect(end_context_on_logout, dispatch_uid="lightnote-end-context")
