from __future__ import annotations

from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules
from django.utils.translation import gettext_lazy as _


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = _("Agent")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register texts and checks, discover each ``<app>.agent_tools``, validate the registry.

        A tool that disagrees with the capability table, or an enabled capability without
        its tool, raises ``ImproperlyConfigured`` here: the app refuses to start.
        """
        from agent import checks, policy  # noqa: F401  (texts and checks)
        from agent.conversation import readonly_passes
        from agent.tools import registry

        readonly_passes.register()
        autodiscover_modules("agent_tools")
        registry.validate_complete()
