"""The settings page: the user's time zone and language, the same preferences as
``PATCH /api/v1/me/``, written through the same service."""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from lightnote.accounts.pages import account_settings
from lightnote.accounts.services import user_update_preferences
from lightnote.accounts.zone_choices import zone_groups
from lightnote.audit import CHANNEL_PAGE
from lightnote.errors import LightNoteError
from lightnote.models import LANGUAGE_CHOICES, validate_time_zone
from lightnote.pages.items import page_viewer
from lightnote.texts.i18n import define_messages, normalize_locale, translate
from lightnote.texts.page_texts import define_page_texts, page_texts, set_language_cookie

PAGE_TEXTS = define_page_texts(
    {
        "PAGE_SETTINGS_HEADING": ("设置", "Settings"),
        "PAGE_SETTINGS_ZONE": ("时区", "Time zone"),
        "PAGE_SETTINGS_ZONE_HINT": (
            "截止时间按这个时区理解和显示，例如“明天上午 9 点”。",
            "Due times are read and shown in this zone, e.g. “tomorrow 9am”.",
        ),
        "PAGE_SETTINGS_BROWSER_ZONE": ("你的浏览器所在时区是", "Your browser's time zone is"),
        "PAGE_SETTINGS_USE_BROWSER_ZONE": ("使用这个时区", "Use this zone"),
        "PAGE_SETTINGS_ZONE_SEARCH": ("搜索时区", "Search the zones"),
        "PAGE_SETTINGS_ZONE_BROWSER_GROUP": ("你的浏览器", "Your browser"),
        "PAGE_SETTINGS_LANGUAGE": ("语言", "Language"),
        "PAGE_SETTINGS_SAVE": ("保存设置", "Save settings"),
        "PAGE_SETTINGS_MCP": (
            "MCP 令牌：让桌面助手和 IDE 读取你的数据并提议修改",
            "MCP tokens: let desktop assistants and IDEs read your data and propose changes",
        ),
    }
)
define_messages(
    {
        "PAGE_SETTINGS_SAVED": ("设置已保存。", "Settings saved."),
        "PAGE_SETTINGS_ZONE_INVALID": (
            "请选择列表中的时区。",
            "Choose a time zone from the list.",
        ),
        "PAGE_SETTINGS_LANGUAGE_INVALID": ("请选择中文或英文。", "Choose Chinese or English."),
    }
)


@cache
def zone_choices() -> list[str]:
    """Every zone name the settings accept, sorted (the model's validator decides)."""
    names = []
    for name in sorted(zoneinfo.available_timezones()):
        try:
            validate_time_zone(name)
        except ValidationError:
            continue
        names.append(name)
    return names


def offered_zones(current: str) -> set[str]:
    """The names the picker offers (canonical ones, and the user's own)."""
    return {name for _, names in zone_groups(current) for name in names}


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """Show and change the user's time zone and language."""
    viewer = page_viewer(request)
    user = viewer.owner
    problem = None
    status = 200
    if request.method == "POST":
        zone = request.POST.get("time_zone", "").strip()
        language = normalize_locale(request.POST.get("language", ""))
        try:
            if zone not in zone_choices() or zone not in offered_zones(user.time_zone):
                raise LightNoteError("PAGE_SETTINGS_ZONE_INVALID")
            if language not in dict(LANGUAGE_CHOICES):
                raise LightNoteError("PAGE_SETTINGS_LANGUAGE_INVALID")
        except LightNoteError as error:
            problem, status = error.message(viewer.locale), error.status
        else:
            language_changed = language != user.language
            user_update_preferences(
                user=user, time_zone=zone, language=language, channel=CHANNEL_PAGE
            )
            shown_in = language if language_changed else viewer.locale
            messages.success(request, translate("PAGE_SETTINGS_SAVED", shown_in))
            response = redirect("settings-page")
            if language_changed:
                # A newly chosen language applies to this browser's pages at once; saving
                # only the zone keeps the language the page is shown in.
                set_language_cookie(response, language)
            return response
    context = {
        "t": page_texts(viewer.locale, PAGE_TEXTS),
        "page_locale": viewer.locale,
        "readonly": viewer.readonly,
        "problem": problem,
        "zone_groups": zone_groups(user.time_zone),
        "current_zone": user.time_zone,
        "current_language": user.language,
        "languages": LANGUAGE_CHOICES,
        # The account part: the address, export, deletion (lightnote/accounts/views.py).
        "account": account_settings(user, viewer.locale),
    }
    return render(request, "lightnote/settings.html", context, status=status)
