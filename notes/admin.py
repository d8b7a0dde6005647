"""Notes in the Django admin: read-only.

A note changes only through ``notes.services`` (validation, version, audit), so the admin
lists and shows notes but cannot add, change or delete them.
"""

from __future__ import annotations

from django.contrib import admin

from lightnote.admin import ReadOnlyModelAdmin
from notes.models import Note


@admin.register(Note)
class NoteAdmin(ReadOnlyModelAdmin):
    list_display = ("title", "owner", "version", "created_at", "updated_at")
    list_filter = ("created_at", "updated_at")
    search_fields = ("title", "content", "owner__username", "id")
    list_select_related = ("owner",)
