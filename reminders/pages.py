"""The notification pages: ``/notifications/`` (newest first, mark read), the bell partial
every signed-in page polls, and the reminder-email switch shown on ``/settings/``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from lightnote.audit import CHANNEL_PAGE
from lightnote.errors import LightNoteError
from lightnote.pages.items import page_of, page_viewer
from lightnote.texts.i18n import define_messages, translate
from lightnote.texts.page_texts import define_page_texts, page_texts
from reminders import selectors, services
from reminders.api import feed_url

PAGE_TEXTS = define_page_texts(
    {
        "PAGE_NOTIFICATIONS_HEADING": ("通知", "Notifications"),
        "PAGE_NOTIFICATIONS_EMPTY": (
            "还没有通知。给待办设置提醒时间，到时就会在这里看到。",
            "No notifications yet. Give a todo a reminder time and it shows up here then.",
        ),
        "PAGE_NOTIFICATIONS_READ_ALL": ("全部标为已读", "Mark all read"),
        "PAGE_NOTIFICATION_READ": ("标为已读", "Mark read"),
        "PAGE_NOTIFICATION_UNREAD": ("未读", "Unread"),
        "PAGE_NOTIFICATION_OPEN_TODO": ("查看待办", "Open the todo"),
        "PAGE_NOTIFICATIONS_BELL": ("通知", "Notifications"),
        "PAGE_NOTIFICATIONS_BELL_UNREAD": ("{count} 条未读", "{count} unread"),
        "PAGE_NOTIFICATIONS_LATEST": ("新通知：", "New:"),
        "PAGE_SETTINGS_REMINDER_EMAIL": ("提醒邮件", "Reminder emails"),
        "PAGE_SETTINGS_REMINDER_EMAIL_ON": (
            "到提醒时间时也发邮件给我",
            "Also email me when a reminder is due",
        ),
        "PAGE_SETTINGS_REMINDER_EMAIL_HINT": (
            "发送到你账户的邮箱地址：{email}",
            "Sent to your account's address: {email}",
        ),
        "PAGE_SETTINGS_REMINDER_EMAIL_NONE": (
            "你的账户还没有邮箱地址，邮件提醒暂时无法发送。",
            "Your account has no email address yet, so no reminder email can be sent.",
        ),
        "PAGE_SETTINGS_REMINDER_EMAIL_SAVE": ("保存提醒设置", "Save reminder setting"),
        "PAGE_SETTINGS_CALENDAR": ("日历订阅", "Calendar subscription"),
        "PAGE_SETTINGS_CALENDAR_HINT": (
            "生成一个私密地址，在日历应用里订阅，就能看到有截止时间的待办。"
            "地址只显示一次；再生成一个，旧地址随即失效。",
            "Make a private address and subscribe to it in your calendar app to see your "
            "todos with due times. It is shown once; making a new one stops the old one.",
        ),
        "PAGE_SETTINGS_CALENDAR_ON": ("你已有一个有效的订阅地址。", "You have a live address."),
        "PAGE_SETTINGS_CALENDAR_MAKE": ("生成新地址", "Make a new address"),
        "PAGE_SETTINGS_CALENDAR_REVOKE": ("停用地址", "Stop the address"),
        "PAGE_CALENDAR_ADDRESS_HEADING": ("你的日历订阅地址", "Your calendar address"),
        "PAGE_CALENDAR_ADDRESS_HINT": (
            "复制这个地址，在日历应用中选择“通过网址订阅”。它只显示这一次，请勿分享。",
            'Copy this address and choose "subscribe by URL" in your calendar app. '
            "It is shown only this once; keep it to yourself.",
        ),
        "PAGE_CALENDAR_ADDRESS_BACK": ("返回设置", "Back to settings"),
    }
)
define_messages(
    {
        "PAGE_CALENDAR_ADDRESS_GONE": (
            "订阅地址只显示一次，已经显示过了。需要的话可以生成新地址（旧地址随即失效）。",
            "The calendar address is shown only once and already was. Make a new one if you "
            "need it (the old one then stops).",
        ),
        "PAGE_SETTINGS_CALENDAR_REVOKED": (
            "订阅地址已停用。",
            "The calendar address no longer works.",
        ),
        "PAGE_NOTIFICATIONS_ALL_READ": ("已全部标为已读。", "All marked read."),
        "PAGE_SETTINGS_REMINDER_EMAIL_SAVED": ("提醒设置已保存。", "Reminder setting saved."),
    }
)
BELL_LATEST = 3  # unread notifications the bell names
BELL_POLL_SECONDS = 10
HTMX_STOP_POLLING = 286


def bell_context(request: HttpRequest) -> dict[str, Any]:
    """What the bell shows: the unread count and the newest unread titles."""
    viewer = page_viewer(request)
    texts = page_texts(viewer.locale, PAGE_TEXTS)
    unread = selectors.notification_unread_count(owner=viewer.owner)
    latest = (
        list(
            selectors.notification_list(owner=viewer.owner).filter(read_at__isnull=True)[
                :BELL_LATEST
            ]
        )
        if unread
        else []
    )
    return {
        "bell_t": texts,
        "poll_seconds": BELL_POLL_SECONDS,
        "unread_count": unread,
        "unread_label": translate("PAGE_NOTIFICATIONS_BELL_UNREAD", viewer.locale, count=unread),
        "latest": latest,
    }


@require_http_methods(["GET", "HEAD"])
def notification_bell(request: HttpRequest) -> HttpResponse:
    """The bell alone: the partial each page polls (htmx), so news shows without a reload.

    Signed out (the session ended in another tab): 286, htmx's "stop polling", instead of
    the login page swapped into the bar.
    """
    if not request.user.is_authenticated:
        return HttpResponse(status=HTMX_STOP_POLLING)
    return render(request, "reminders/bell_partial.html", bell_context(request))


@login_required
@require_http_methods(["GET", "HEAD"])
def notifications_page(request: HttpRequest) -> HttpResponse:
    """The user's notifications, newest first."""
    viewer = page_viewer(request)
    page = page_of(selectors.notification_list(owner=viewer.owner), request.GET.get("page"))
    context = {
        "t": page_texts(viewer.locale, PAGE_TEXTS, ("PAGE_PREVIOUS", "PAGE_NEXT", "PAGE_PAGE_N")),
        "page_locale": viewer.locale,
        "readonly": viewer.readonly,
        "page": page,
        "query": {},
        "zone": viewer.zone,
    }
    return render(request, "reminders/notifications.html", context)


@login_required
@require_POST
def notification_read_page(request: HttpRequest, notification_id: str) -> HttpResponse:
    """Mark one notification read and go back to the list (an unknown one: a 404 page)."""
    viewer = page_viewer(request)
    try:
        services.notification_mark_read(owner=viewer.owner, notification_id=notification_id)
    except LightNoteError as error:
        context = {
            "t": page_texts(viewer.locale, PAGE_TEXTS),
            "page_locale": viewer.locale,
            "problem": error.message(viewer.locale),
        }
        return render(request, "lightnote/page_problem.html", context, status=error.status)
    return redirect("notifications-page")


@login_required
@require_POST
def notification_read_all_page(request: HttpRequest) -> HttpResponse:
    """Mark every notification read and go back to the list."""
    viewer = page_viewer(request)
    services.notification_mark_all_read(owner=viewer.owner)
    messages.success(request, translate("PAGE_NOTIFICATIONS_ALL_READ", viewer.locale))
    return redirect("notifications-page")


@login_required
@require_POST
def reminder_email_page(request: HttpRequest) -> HttpResponse:
    """Turn reminder emails on or off (the switch on /settings/)."""
    viewer = page_viewer(request)
    services.reminder_email_set(
        user=viewer.owner, enabled=request.POST.get("email") == "on", channel=CHANNEL_PAGE
    )
    messages.success(request, translate("PAGE_SETTINGS_REMINDER_EMAIL_SAVED", viewer.locale))
    return redirect("settings-page")


CALENDAR_ADDRESS_ONCE = "calendar_address_once"  # the session key holding it until shown


@login_required
@require_http_methods(["GET", "POST"])
def calendar_address_page(request: HttpRequest) -> HttpResponse:
    """Make a new private calendar address (POST), then show it once (the GET it redirects to).

    Post/redirect/get: reloading the page shown cannot make another address. The address
    waits in the server-side session between the two requests and leaves it when shown; a
    second GET finds nothing and goes back to the settings page (only its digest is kept).
    """
    viewer = page_viewer(request)
    if request.method == "POST":
        secret = services.calendar_feed_create(owner=viewer.owner, channel=CHANNEL_PAGE)
        request.session[CALENDAR_ADDRESS_ONCE] = feed_url(secret)
        return redirect("calendar-address")
    address = request.session.pop(CALENDAR_ADDRESS_ONCE, None)
    if address is None:
        messages.info(request, translate("PAGE_CALENDAR_ADDRESS_GONE", viewer.locale))
        return redirect("settings-page")
    context = {
        "t": page_texts(viewer.locale, PAGE_TEXTS),
        "page_locale": viewer.locale,
        "address": address,
    }
    response = render(request, "reminders/calendar_address.html", context)
    response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_POST
def calendar_address_revoke_page(request: HttpRequest) -> HttpResponse:
    """Stop the calendar address (its URL answers 404 from now on)."""
    viewer = page_viewer(request)
    services.calendar_feed_revoke(owner=viewer.owner, channel=CHANNEL_PAGE)
    messages.success(request, translate("PAGE_SETTINGS_CALENDAR_REVOKED", viewer.locale))
    return redirect("settings-page")


def reminder_settings_context(request: HttpRequest) -> dict[str, Any]:
    """The reminder settings' state (email switch, calendar address), for the settings page."""
    viewer = page_viewer(request)
    return {
        "calendar_on": selectors.calendar_feed_exists(owner=viewer.owner),
        "reminder_t": page_texts(viewer.locale, PAGE_TEXTS),
        "email_on": selectors.reminder_emails_on(user=viewer.owner),
        "email": viewer.owner.email,
        "email_hint": translate(
            "PAGE_SETTINGS_REMINDER_EMAIL_HINT", viewer.locale, email=viewer.owner.email
        ),
        "readonly": viewer.readonly,
    }
