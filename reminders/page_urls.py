from __future__ import annotations

from django.urls import path

from reminders import calendar_feed, pages

# At the site root: the notification pages and the public calendar feed address.
urlpatterns = [
    path("notifications/", pages.notifications_page, name="notifications-page"),
    path("notifications/bell/", pages.notification_bell, name="notification-bell"),
    path(
        "notifications/read-all/",
        pages.notification_read_all_page,
        name="notifications-page-read-all",
    ),
    path(
        "notifications/<str:notification_id>/read/",
        pages.notification_read_page,
        name="notification-page-read",
    ),
    path("notifications/email/", pages.reminder_email_page, name="reminder-email-setting"),
    path("calendar/address/", pages.calendar_address_page, name="calendar-address"),
    path(
        "calendar/address/revoke/",
        pages.calendar_address_revoke_page,
        name="calendar-address-revoke",
    ),
    path("calendar/<str:secret>.ics", calendar_feed.calendar_feed_ics, name="calendar-feed-ics"),
]
