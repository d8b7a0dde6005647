"""Django admin: users (with zone and language), admin contexts and the audit log.

Records whose writes must pass through a service (audit, receipts, contexts) are read-only
here; staff look at them, they do not edit them. No ``date_hierarchy``: on MySQL/MariaDB it
needs the server's time zone tables, which a stock install lacks.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.http import HttpRequest

from lightnote.models import AdminContext, AuditEvent, User


class ReadOnlyModelAdmin(admin.ModelAdmin):
    """Staff may list and view; adding, changing and deleting happen only through services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


_PREFERENCES: Any = ("LightNote", {"fields": ("time_zone", "language")})


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    fieldsets = (*(DjangoUserAdmin.fieldsets or ()), _PREFERENCES)
    add_fieldsets = (*DjangoUserAdmin.add_fieldsets, _PREFERENCES)
    list_display = ("username", "email", "is_staff", "is_active", "time_zone", "language")
    list_filter = ("is_staff", "is_superuser", "is_active", "groups", "language")


@admin.register(AdminContext)
class AdminContextAdmin(ReadOnlyModelAdmin):
    """Read-only: a context starts and ends through the impersonation API, which audits it."""

    list_display = ("id", "staff", "subject", "mode", "created_at", "expires_at", "ended_at")
    list_filter = ("mode", "created_at")
    search_fields = ("staff__username", "subject__username", "id")
    list_select_related = ("staff", "subject")


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyModelAdmin):
    """Append-only: never edited, never deleted from the admin."""

    list_display = ("created_at", "event_type", "code", "actor", "subject", "capability", "tool")
    list_filter = ("event_type", "code", "capability")
    search_fields = ("event_type", "code", "actor__username", "subject__username", "action_id")
    list_select_related = ("actor", "subject")
