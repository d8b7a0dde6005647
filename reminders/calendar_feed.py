"""The private iCalendar feed: open todos with a due time, built with ``icalendar``.

Each todo is a VEVENT (subscribed calendars such as Google's and Apple's show events and
ignore VTODO) and a VTODO for the clients that read them, with the same UID stem; a series
carries its RRULE from the occurrence on, and a reminder is a VALARM before the due time.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from icalendar import Alarm, Calendar, Event, vRecur
from icalendar import Todo as CalendarTodo

from lightnote.texts.i18n import translate
from reminders import selectors
from todos.models import Todo
from todos.recurrence import user_zone

EVENT_LENGTH = dt.timedelta(minutes=30)  # a todo has a due time, not a length


def _recurrence(todo: Todo, zone: Any) -> vRecur | None:
    """The todo's rule for the feed; a date-only UNTIL becomes that day's end in UTC.

    RFC 5545 wants UNTIL of the same type as DTSTART, a date-time here (23:59 local, as
    ``todos.recurrence`` reads a date-only UNTIL).
    """
    if not todo.recurrence:
        return None
    rule = vRecur.from_ical(todo.recurrence)
    until = rule.get("UNTIL")
    if until and not isinstance(until[0], dt.datetime):
        end = dt.datetime.combine(until[0], dt.time(23, 59), tzinfo=zone)
        rule["UNTIL"] = [end.astimezone(dt.UTC)]
    return rule


def _alarm(todo: Todo, locale: str) -> Alarm | None:
    if todo.remind_at is None or todo.due_at is None:
        return None
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("description", translate("CALENDAR_ALARM", locale, title=todo.title))
    # Relative to the start, so each occurrence of a series reminds as the first does.
    alarm.add("trigger", todo.remind_at - todo.due_at)
    return alarm


def _components(todo: Todo, zone: Any, locale: str, stamp: dt.datetime) -> list[Any]:
    due = todo.due_at.astimezone(zone)  # type: ignore[union-attr]  # dated todos only
    event = Event()
    event.add("uid", f"{todo.id}-event@lightnote")
    event.add("dtstamp", stamp)
    event.add("summary", todo.title)
    event.add("dtstart", due)
    event.add("dtend", due + EVENT_LENGTH)
    if todo.description:
        event.add("description", todo.description)
    item = CalendarTodo()
    item.add("uid", f"{todo.id}-todo@lightnote")
    item.add("dtstamp", stamp)
    item.add("summary", todo.title)
    item.add("dtstart", due)
    item.add("due", due)
    item.add("status", "NEEDS-ACTION")
    recurrence = _recurrence(todo, zone)
    for component in (event, item):
        if recurrence is not None:
            component.add("rrule", recurrence)
        alarm = _alarm(todo, locale)
        if alarm is not None:
            component.add_component(alarm)
    return [event, item]


def feed_calendar(owner: Any) -> bytes:
    """Return the owner's feed as iCalendar bytes."""
    zone = user_zone(owner)
    locale = owner.language
    calendar = Calendar()
    calendar.add("prodid", "-//LightNote//Todos//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", translate("CALENDAR_NAME", locale))
    calendar.add("x-wr-timezone", str(zone))
    stamp = dt.datetime.now(dt.UTC).replace(microsecond=0)
    for todo in selectors.calendar_todos(owner=owner):
        for component in _components(todo, zone, locale, stamp):
            calendar.add_component(component)
    if hasattr(calendar, "add_missing_timezones"):
        calendar.add_missing_timezones()  # VTIMEZONE for every zone the times use
    return bytes(calendar.to_ical())


@require_GET
def calendar_feed_ics(request: HttpRequest, secret: str) -> HttpResponse:
    """Serve a feed to whoever holds its secret; any other address is a plain 404."""
    owner = selectors.calendar_feed_owner(secret=secret)
    if owner is None or not owner.is_active:
        raise Http404
    response = HttpResponse(feed_calendar(owner), content_type="text/calendar; charset=utf-8")
    response["Cache-Control"] = "private, max-age=300"
    response["Content-Disposition"] = 'inline; filename="lightnote.ics"'
    return response
