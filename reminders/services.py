"""Writes of the reminders app: delivering a due reminder once, reading notifications, the
email opt-in and the calendar feed's secret.

Delivery contract: a reminder is the pair (todo, remind_at). Its notification row and its
``ReminderDelivery`` row commit together; the delivery's unique pair makes a second insert
fail, so two workers racing over one reminder deliver it once, and a worker killed before
its commit leaves nothing behind for the next scan to skip. The email cannot join the
transaction: it is sent after commit, once, and its attempt is recorded (at most once).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import uuid
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone

from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.ops import metrics
from lightnote.texts.i18n import translate
from lightnote.transactions import service_atomic
from reminders import selectors
from reminders.models import CalendarFeed, Notification, ReminderDelivery, ReminderPreference
from todos.models import Todo
from todos.recurrence import user_zone

logger = logging.getLogger(__name__)

FEED_SECRET_BYTES = 32  # 256 bits; the issue asks for at least 128


def _reminder_text(todo: Todo, locale: str) -> str:
    if todo.due_at is None:
        return translate("REMINDER_TEXT", locale, title=todo.title)
    due = todo.due_at.astimezone(user_zone(todo.owner))
    return translate("REMINDER_TEXT_DUE", locale, title=todo.title, due=f"{due:%Y-%m-%d %H:%M}")


@transaction.atomic
def reminder_deliver(
    *, todo_id: uuid.UUID, remind_at: dt.datetime, now: dt.datetime | None = None
) -> Notification | None:
    """Deliver the reminder (todo, remind_at) if it is still due; return its notification.

    Locks the todo row (``SKIP LOCKED``: a row another worker is delivering is left to it)
    and re-checks it: still open, live and reminding at ``remind_at``; else None. Raises
    ``IntegrityError`` when another worker committed the same delivery first.
    """
    todo = (
        Todo.objects.select_for_update(skip_locked=True)
        .filter(id=todo_id, remind_at=remind_at, status=Todo.Status.OPEN)
        .first()
    )
    if todo is None:
        return None  # done, deleted, moved to another time, or being delivered elsewhere
    if ReminderDelivery.objects.filter(todo_id=todo.id, remind_at=remind_at).exists():
        return None
    owner = todo.owner
    text = _reminder_text(todo, owner.language)
    notification = Notification.objects.create(
        owner=owner,
        kind=Notification.Kind.REMINDER,
        todo_id=todo.id,
        title=todo.title,
        text=text,
        created_at=now or timezone.now(),
    )
    address = selectors.reminder_email_address(user=owner)
    delivery = ReminderDelivery.objects.create(
        todo_id=todo.id,
        remind_at=remind_at,
        notification=notification,
        email_state=(
            ReminderDelivery.EmailState.PENDING if address else ReminderDelivery.EmailState.NONE
        ),
    )
    transaction.on_commit(lambda: metrics.reminder_delivered(outcome="delivered"))
    if address:
        transaction.on_commit(
            lambda: _send_reminder_email(
                delivery_id=delivery.pk, address=address, todo=todo, text=text
            )
        )
    return notification


def _send_reminder_email(*, delivery_id: int, address: str, todo: Todo, text: str) -> None:
    """Send one reminder email and record the attempt (after commit; never retried)."""
    locale = todo.owner.language
    base = settings.LIGHTNOTE_PUBLIC_URL
    state = ReminderDelivery.EmailState.SENT
    try:
        send_mail(
            translate("REMINDER_EMAIL_SUBJECT", locale, title=todo.title),
            translate(
                "REMINDER_EMAIL_BODY",
                locale,
                text=text,
                url=f"{base}/todos/{todo.id}/",
                settings_url=f"{base}/settings/",
            ),
            None,
            [address],
        )
    except Exception:
        logger.exception("reminder email for delivery %s failed", delivery_id)
        metrics.reminder_delivered(outcome="email_failed")
        state = ReminderDelivery.EmailState.FAILED
    ReminderDelivery.objects.filter(
        pk=delivery_id, email_state=ReminderDelivery.EmailState.PENDING
    ).update(email_state=state, email_attempted_at=timezone.now())


def reminders_deliver_due(*, now: dt.datetime | None = None, limit: int | None = None) -> int:
    """Deliver every due reminder (up to one batch), each in its own transaction.

    Return how many this call delivered. Safe to run in several workers at once.
    """
    now = now or timezone.now()
    delivered = 0
    due = selectors.reminders_due(now=now, limit=limit or selectors.SCAN_BATCH)
    for todo_id, remind_at in due:
        try:
            if reminder_deliver(todo_id=todo_id, remind_at=remind_at, now=now) is not None:
                delivered += 1
        except IntegrityError:
            continue  # another worker committed this delivery first
    return delivered


@service_atomic
def notification_mark_read(*, owner: Any, notification_id: uuid.UUID | str) -> Notification:
    """Mark the owner's notification read (once: a read one keeps its first read time)."""
    notification = selectors.notification_get(owner=owner, notification_id=notification_id)
    Notification.objects.filter(pk=notification.pk, read_at__isnull=True).update(
        read_at=timezone.now()
    )
    notification.refresh_from_db()
    return notification


@service_atomic
def notification_mark_all_read(*, owner: Any) -> int:
    """Mark every unread notification of the owner read; return how many were unread."""
    return Notification.objects.filter(owner=owner, read_at__isnull=True).update(
        read_at=timezone.now()
    )


@service_atomic
def reminder_email_set(
    *, user: Any, enabled: bool, channel: str = CHANNEL_SYSTEM
) -> ReminderPreference:
    """Turn reminder emails on or off for ``user`` (audited ``user.reminder_emails_set``)."""
    preference, _ = ReminderPreference.objects.update_or_create(
        user=user, defaults={"email_reminders": bool(enabled)}
    )
    audit_write(
        "user.reminder_emails_set", item_type="user", item_id=user.pk, owner=user, channel=channel
    )
    return preference


@service_atomic
def calendar_feed_create(*, owner: Any, channel: str = CHANNEL_SYSTEM) -> str:
    """Give the owner a new feed secret (the old one stops working); return it, once.

    Only its SHA-256 is stored, so the URL cannot be shown again: a new POST replaces it.
    Audited ``calendar_feed.created`` (never the secret nor its digest).
    """
    secret = secrets.token_urlsafe(FEED_SECRET_BYTES)
    feed, _ = CalendarFeed.objects.update_or_create(
        owner=owner,
        defaults={"secret_hash": selectors.secret_digest(secret), "created_at": timezone.now()},
    )
    audit_write(
        "calendar_feed.created",
        item_type="calendar_feed",
        item_id=feed.pk,
        owner=owner,
        channel=channel,
    )
    return secret


@service_atomic
def calendar_feed_revoke(*, owner: Any, channel: str = CHANNEL_SYSTEM) -> bool:
    """Revoke the owner's feed; return whether there was one (audited when there was)."""
    feed = CalendarFeed.objects.filter(owner=owner).only("pk").first()
    # Two revokes at once both find the feed; only the one whose DELETE took it audits.
    deleted = CalendarFeed.objects.filter(pk=feed.pk).delete()[0] if feed is not None else 0
    if deleted and feed is not None:
        audit_write(
            "calendar_feed.revoked",
            item_type="calendar_feed",
            item_id=feed.pk,
            owner=owner,
            channel=channel,
        )
    return bool(deleted)
