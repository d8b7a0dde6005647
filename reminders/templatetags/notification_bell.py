"""``{% notification_bell %}``: the bell with the unread count, on every signed-in page."""

from __future__ import annotations

from typing import Any

from django import template

from reminders.pages import bell_context, reminder_settings_context

register = template.Library()


@register.inclusion_tag("reminders/bell_partial.html", takes_context=True)
def notification_bell(context: template.Context) -> dict[str, Any]:
    request = context.get("request")
    if request is None or not request.user.is_authenticated:
        return {"unread_count": None}
    return bell_context(request)


@register.inclusion_tag("reminders/settings_email.html", takes_context=True)
def reminder_email_setting(context: template.Context) -> dict[str, Any]:
    request = context["request"]
    return {**reminder_settings_context(request), "csrf_token": context.get("csrf_token")}
