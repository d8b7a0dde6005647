"""Django admin: users (with zone and language), admin contexts and the audit log.

Records whose writes must pass through a service (audit, receipts, contexts) are read-only
here; staff look at them, they do not edit them. No ``date_hierarchy``: on MySQL/MariaDB it
needs the server's time zone tables, which a stock install lacks.

Read-only impersonation starts here: "view as this user (read-only)" on a user's page (and
in the user list) asks for a reason on a confirmation page, then opens the context in this
browser session (``impersonation.browser_context_start``, audited) and shows the chat page
as the subject. The banner every page shows while it lasts ends it
(``admin:lightnote_admincontext_end``) and comes back to the context's page here, which
lists what was done under it. Every admin screen is shown in the staff member's own time
zone (``lightnote.impersonation.readonly.AdminReadOnlyMiddleware``).

The admin's only writes are to users (add, change, delete); each is an audit event of the
``admin`` channel in the same transaction, naming the staff member and the user.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_POST

from lightnote.audit import CHANNEL_ADMIN, audit_write
from lightnote.impersonation.contexts import (
    CONTEXT_LIFETIME,
    browser_context_end,
    browser_context_start,
)
from lightnote.models import AdminContext, AuditEvent, User
from lightnote.texts.audit_labels import channel_label, code_label, event_label


class ReadOnlyModelAdmin(admin.ModelAdmin):
    """Staff may list and view; adding, changing and deleting happen only through services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def local_time(value: datetime | None) -> str:
    """A time in the active zone (the staff member's, on every admin screen), with its name."""
    if value is None:
        return "—"
    zone = timezone.get_current_timezone()
    return f"{timezone.localtime(value, zone):%Y-%m-%d %H:%M:%S} ({zone})"


_PREFERENCES: Any = ("LightNote", {"fields": ("time_zone", "language")})


class ImpersonationForm(forms.Form):
    reason = forms.CharField(
        label=_("Reason"),
        max_length=AdminContext.REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Why you need to see this user's data. Kept with the context and audited."),
    )

    def clean_reason(self) -> str:
        reason = " ".join(self.cleaned_data["reason"].split())
        if not reason:
            raise forms.ValidationError(_("A reason is required."))
        return reason


def _audit_user(event_type: str, user: User, request: HttpRequest) -> None:
    """Record a staff member's write of ``user`` in the admin (inside the admin's transaction;
    a deleted user's row is recorded before it goes, its id kept in the details)."""
    audit_write(
        event_type,
        item_type="user",
        item_id=user.pk,
        owner=user,
        actor=request.user,
        channel=CHANNEL_ADMIN,
    )


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), _PREFERENCES)
    add_fieldsets = (*DjangoUserAdmin.add_fieldsets, _PREFERENCES)
    list_display = (
        "username",
        "email",
        "is_staff",
        "is_active",
        "time_zone",
        "language",
        "view_as_link",
    )
    list_filter = ("is_staff", "is_superuser", "is_active", "groups", "language")
    actions = ["view_as_action"]
    change_form_template = "admin/lightnote/user/change_form.html"

    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        _audit_user("user.updated" if change else "user.created", obj, request)

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        _audit_user("account.deleted", obj, request)
        super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset:
            _audit_user("account.deleted", user, request)
        super().delete_queryset(request, queryset)

    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> Any:
        with transaction.atomic():  # the new password and its audit event together
            return super().user_change_password(request, id, form_url)

    def log_change(self, request: HttpRequest, obj: Any, message: Any) -> Any:
        """Django's own log of a change; a password set on its page is audited here (the
        one hook that view calls after saving; a change through the form is ``save_model``)."""
        entry = super().log_change(request, obj, message)
        match = request.resolver_match
        if match is not None and str(match.url_name).endswith("_password_change"):
            _audit_user("user.password_changed", obj, request)
        return entry

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:user_id>/impersonate/",
                self.admin_site.admin_view(self.impersonate_view),
                name="lightnote_user_impersonate",
            )
        ]
        return own + super().get_urls()

    @admin.display(description=_("Read-only view"))
    def view_as_link(self, obj: User) -> str:
        url = reverse("admin:lightnote_user_impersonate", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, _("View as this user (read-only)"))

    @admin.action(description=_("View as this user (read-only)"))
    def view_as_action(self, request: HttpRequest, queryset: QuerySet[User]) -> Any:
        users = list(queryset[:2])
        if len(users) != 1:
            self.message_user(request, _("Select exactly one user to view."), messages.WARNING)
            return None
        return redirect("admin:lightnote_user_impersonate", users[0].pk)

    def impersonate_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """The confirmation step: who, why (required), what it means; POST starts it."""
        subject = get_object_or_404(User, pk=user_id)
        form = ImpersonationForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            browser_context_start(
                request,
                staff=request.user,  # type: ignore[arg-type]
                subject_id=subject.pk,
                reason=form.cleaned_data["reason"],
            )
            return redirect("chat")
        context = {
            **self.admin_site.each_context(request),
            "title": _("View as %(username)s (read-only)") % {"username": subject.username},
            "subject": subject,
            "form": form,
            "opts": self.model._meta,
            "lifetime_minutes": int(CONTEXT_LIFETIME.total_seconds() // 60),
        }
        return TemplateResponse(
            request,
            "admin/lightnote/user/impersonate.html",
            context,
            status=400 if request.method == "POST" else 200,
        )


class AdminContextStatus:
    # With a context: Django's own "active" (a user's is_active) has another translation.
    ACTIVE = pgettext_lazy("admin context status", "active")
    ENDED = pgettext_lazy("admin context status", "ended")
    EXPIRED = pgettext_lazy("admin context status", "expired")


@admin.register(AdminContext)
class AdminContextAdmin(ReadOnlyModelAdmin):
    """Read-only: a context starts from a user's page here (or the API) and ends from the
    banner (or the API); both are audited. Each context lists the requests made under it."""

    list_display = (
        "short_id",
        "staff",
        "subject",
        "reason",
        "status",
        "started",
        "expires",
        "ended",
    )
    list_filter = ("mode", "created_at")
    search_fields = ("staff__username", "subject__username", "id", "reason")
    list_select_related = ("staff", "subject")
    fields = (
        "id",
        "staff",
        "subject",
        "mode",
        "reason",
        "status",
        "started",
        "expires",
        "ended",
        "requests",
    )
    readonly_fields = fields

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "end/",
                self.admin_site.admin_view(require_POST(self.end_view)),
                name="lightnote_admincontext_end",
            )
        ]
        return own + super().get_urls()

    def end_view(self, request: HttpRequest) -> HttpResponse:
        """End the browser session's context (the banner's button) and return to it here."""
        staff: Any = request.user
        ended = browser_context_end(request, staff=staff)
        if ended and AdminContext.objects.filter(id=ended, staff=staff).exists():
            return HttpResponseRedirect(
                reverse("admin:lightnote_admincontext_change", args=[ended])
            )
        return redirect("admin:index")

    @admin.display(description=_("context"))
    def short_id(self, obj: AdminContext) -> str:
        return str(obj.id)[:8]

    @admin.display(description=_("status"))
    def status(self, obj: AdminContext) -> str:
        if obj.ended_at is not None:
            return str(AdminContextStatus.ENDED)
        if obj.expires_at <= timezone.now():
            return str(AdminContextStatus.EXPIRED)
        return str(AdminContextStatus.ACTIVE)

    @admin.display(description=_("started at"), ordering="created_at")
    def started(self, obj: AdminContext) -> str:
        return local_time(obj.created_at)

    @admin.display(description=_("expires at"), ordering="expires_at")
    def expires(self, obj: AdminContext) -> str:
        return local_time(obj.expires_at)

    @admin.display(description=_("ended at"), ordering="ended_at")
    def ended(self, obj: AdminContext) -> str:
        return local_time(obj.ended_at)

    @admin.display(description=_("requests made under it"))
    def requests(self, obj: AdminContext) -> str:
        """The audit events carrying this context's id: start, each request, each refusal,
        the conversation opened in it, the end (oldest first, at most 500)."""
        events = list(
            AuditEvent.objects.filter(details__context_id=str(obj.id)).order_by("created_at", "id")[
                :500
            ]
        )
        if not events:
            return "—"
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    local_time(event.created_at),
                    event.event_type,
                    event.details.get("method", ""),
                    event.details.get("path", ""),
                    event.details.get("status", ""),
                    event.code,
                )
                for event in events
            ),
        )
        return format_html(
            '<table class="lightnote-context-requests"><thead><tr><th>{}</th><th>{}</th>'
            "<th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr></thead><tbody>{}</tbody></table>",
            _("time"),
            _("event"),
            _("method"),
            _("path"),
            _("status"),
            _("code"),
            rows,
        )


def _localized_details(value: Any) -> Any:
    """The details with every ISO time shown in the active zone (never raw UTC)."""
    if isinstance(value, dict):
        return {key: _localized_details(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_localized_details(item) for item in value]
    if isinstance(value, str) and len(value) >= 19 and value[4:5] == "-" and "T" in value:
        try:
            moment = parse_datetime(value)
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None:
            return local_time(moment)
    return value


class EventTypeFilter(admin.SimpleListFilter):
    """Filter by event, each named in the page's language (lightnote.texts.audit_labels)."""

    title = _("event")
    parameter_name = "event_type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        names = AuditEvent.objects.order_by().values_list("event_type", flat=True).distinct()
        return sorted((name, event_label(name)) for name in names)

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(event_type=self.value()) if self.value() else queryset


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyModelAdmin):
    """Append-only: never edited, never deleted from the admin."""

    list_display = ("time", "event", "outcome", "actor", "subject", "channel", "capability", "tool")
    list_filter = (EventTypeFilter, "code", "capability")
    search_fields = ("event_type", "code", "actor__username", "subject__username", "action_id")
    list_select_related = ("actor", "subject")
    fields = (
        "time",
        "event_type",
        "code",
        "actor",
        "subject",
        "session_id",
        "capability",
        "tool",
        "action_id",
        "channel",
        "details_shown",
    )
    readonly_fields = fields

    @admin.display(description=_("time"), ordering="created_at")
    def time(self, obj: AuditEvent) -> str:
        return local_time(obj.created_at)

    @admin.display(description=_("event"), ordering="event_type")
    def event(self, obj: AuditEvent) -> str:
        return event_label(obj.event_type)

    @admin.display(description=_("channel"))
    def channel(self, obj: AuditEvent) -> str:
        return channel_label(str(obj.details.get("channel", "")))

    @admin.display(description=_("code"), ordering="code")
    def outcome(self, obj: AuditEvent) -> str:
        return code_label(obj.code)

    @admin.display(description=_("details"))
    def details_shown(self, obj: AuditEvent) -> str:
        shown = json.dumps(_localized_details(obj.details), ensure_ascii=False, indent=2)
        return format_html("<pre>{}</pre>", shown)
