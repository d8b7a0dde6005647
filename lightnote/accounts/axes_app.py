"""django-axes under a name a person reads (its own app has none: the admin showed "AXES")."""

from __future__ import annotations

from axes.apps import AppConfig as AxesAppConfig
from django.utils.translation import gettext_lazy as _


class AxesConfig(AxesAppConfig):
    verbose_name = _("Failed logins")
