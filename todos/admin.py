"""Todos in the Django admin: read-only.

A todo changes only through ``todos.services`` (validation, version, audit), so the admin
lists and shows todos but cannot add, change or delete them.
"""

from __future__ import annotations

from django.contrib import admin

from lightnote.admin import ReadOnlyModelAdmin
from todos.models import Todo


@admin.register(Todo)
class TodoAdmin(ReadOnlyModelAdmin):
    list_display = ("title", "owner", "status", "priority", "due_at", "version", "updated_at")
    list_filter = ("status", "priority", "created_at")
    search_fields = ("title", "description", "owner__username", "id")
    list_select_related = ("owner",)
