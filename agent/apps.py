from __future__ import annotations

import importlib
import importlib.util

from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class AgentConfig(AppConfig):
    name = "agent"
    verbose_name = "Agent"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Register texts and checks, discover ``<app>/agent_tools.py``, validate the registry.

        A tool that disagrees with the capability table, or an enabled capability without
        its tool, raises ``ImproperlyConfigured`` here: the app refuses to start.
        """
        from agent import messages, policy  # noqa: F401  (registers texts)
        from agent.tools import registry

        if importlib.util.find_spec("agent.checks") is not None:
            importlib.import_module("agent.checks")
        autodiscover_modules("agent_tools")
        registry.validate_complete()
