"""Todos in the Django admin: read-only.

A todo changes only through ``todos.services`` (validation, version, audit), so the admin
lists and shows todos but cannot add, change or delete them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from lightnote.admin import ReadOnlyModelAdmin
from todos.models import Todo

if TYPE_CHECKING:
    from django.utils.functional import _StrPromise

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


def _labelled_filter(
    field: str, title: _StrPromise, labels: Mapping[Any, _StrPromise]
) -> type[admin.SimpleListFilter]:
    """A list filter on ``field`` offering its stored values under the admin's words."""

    class LabelledFilter(admin.SimpleListFilter):
        parameter_name = field

        def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, _StrPromise]]:
            return [(str(value), label) for value, label in labels.items()]

        def queryset(self, request: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
            known = {str(value): value for value in labels}
            chosen = self.value()
            return queryset.filter(**{field: known[chosen]}) if chosen in known else queryset

    LabelledFilter.title = title
    return LabelledFilter


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
    list_filter = (
        _labelled_filter("status", _("status"), STATUS_LABELS),
        _labelled_filter("priority", _("priority"), PRIORITY_LABELS),
        "created_at",
    )
    search_fields = ("title", "description", "owner__username", "id")
    list_select_related = ("owner",)

    @admin.display(description=_("status"), ordering="status")
    def status_label(self, todo: Todo) -> str:
        return str(STATUS_LABELS[Todo.Status(todo.status)])

    @admin.display(description=_("priority"), ordering="priority")
    def priority_label(self, todo: Todo) -> str:
        return str(PRIORITY_LABELS[Todo.Priority(todo.priority)])
