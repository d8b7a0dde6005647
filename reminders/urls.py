from __future__ import annotations

from django.urls import path

from reminders import api

# Under /api/v1/. The id is matched as any string so a malformed one gets the JSON 404.
urlpatterns = [
    path("notifications/", api.NotificationListView.as_view(), name="notification-list"),
    path(
        "notifications/read-all/",
        api.NotificationReadAllView.as_view(),
        name="notification-read-all",
    ),
    path(
        "notifications/<str:notification_id>/read/",
        api.NotificationReadView.as_view(),
        name="notification-read",
    ),
    path("calendar/feed/", api.CalendarFeedView.as_view(), name="calendar-feed"),
]
