"""Todos in the Django admin: read-only.

A todo changes only through ``todos.services`` (validation, version, audit), so the admin
lists and shows todos but cannot add, change or delete them.
"""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from lightnote.admin import ReadOnlyModelAdmin
from todos.models import Todo

# The admin's words for a todo's stored values (the API and the pages keep their own).
STATUS_LABELS = {
    Todo.Status.OPEN: pgettext_lazy("todo status", "open"),
    Todo.Status.DONE: pgettext_lazy("todo status", "done"),
}
PRIORITY_LABELS = {
    Todo.Priority.LOW: pgettext_lazy("priority", "low"),
    Todo.Priority.NORMAL: pgettext_lazy("priority", "normal"),
    Todo.Priority.HIGH: pgettext_lazy("priority", "high"),
}


@admin.register(Todo)
class TodoAdmin(ReadOnlyModelAdmin):
    list_display = (
        "title",
        "owner",
        "status_label",
        "priority_label",
        "due_at",
        "version",
        "updated_at",
    )
    list_filter = ("status", "priority", "created_at")
    search_fields = ("title", "description", "owner__username", "id")
    list_select_related = ("owner",)

    @admin.display(description=_("status"), ordering="status")
    def status_label(self, todo: Todo) -> str:
        label = STATUS_LABELS.get(Todo.Status(todo.status))
        return str(label) if label is not None else todo.status

    @admin.display(description=_("priority"), ordering="priority")
    def priority_label(self, todo: Todo) -> str:
        label = PRIORITY_LABELS.get(Todo.Priority(todo.priority))
        return str(label) if label is not None else str(todo.priority)
