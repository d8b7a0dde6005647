"""Request and response shapes of the todo API.

Request serializers check the shape the contract documents (types, lengths, ranges, unknown
fields -> 400 ``VALIDATION_ERROR``); the services then apply the domain rules (a title of
blanks is ``TODO_TITLE_REQUIRED``) so the API and the agent answer with the same codes.

The JSON field types are the base layer's (:mod:`lightnote.rest.serializers`), shared with notes.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from lightnote.rest.serializers import (
    JSONCharField,
    JSONIntegerField,
    NeverPartial,
    OffsetDateTimeField,
    QuerySerializer,
    StrictSerializer,
    UserZoneDateTimeField,
    require_a_change,
)
from todos.models import DESCRIPTION_MAX, PRIORITIES, PRIORITY_HELP, TITLE_MAX, Todo


class TodoSerializer(serializers.ModelSerializer):
    """A todo as the API returns it; times in the requesting user's zone."""

    due_at = UserZoneDateTimeField(allow_null=True)
    created_at = UserZoneDateTimeField()
    updated_at = UserZoneDateTimeField()

    class Meta:
        model = Todo
        fields = [
            "id",
            "title",
            "description",
            "priority",
            "due_at",
            "status",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


def _title(**kwargs: Any) -> JSONCharField:
    # Blanks are not trimmed here: the service decides that "   " is TODO_TITLE_REQUIRED.
    return JSONCharField(min_length=1, max_length=TITLE_MAX, trim_whitespace=False, **kwargs)


def _description() -> JSONCharField:
    return JSONCharField(
        max_length=DESCRIPTION_MAX, allow_blank=True, trim_whitespace=False, required=False
    )


def _priority() -> JSONIntegerField:
    return JSONIntegerField(
        min_value=min(PRIORITIES),
        max_value=max(PRIORITIES),
        required=False,
        help_text=PRIORITY_HELP,
    )


def _due_at() -> OffsetDateTimeField:
    return OffsetDateTimeField(
        plausible=True,
        required=False,
        allow_null=True,
        help_text=(
            "ISO 8601 with a whole-minute offset, at most a year ago and ten years ahead "
            "(400 otherwise), or null for none"
        ),
    )


class TodoCreateSerializer(StrictSerializer):
    title = _title()
    description = _description()
    priority = _priority()
    due_at = _due_at()


class TodoUpdateSerializer(NeverPartial, StrictSerializer):
    version = JSONIntegerField(min_value=1, help_text="The version this change is based on")
    title = _title(required=False)
    description = _description()
    priority = _priority()
    due_at = _due_at()
    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        return require_a_change(self, attrs)


class TodoListQuerySerializer(QuerySerializer):
    """Query parameters of the list (``page`` and ``page_size`` belong to the paginator)."""

    status = serializers.ChoiceField(choices=Todo.Status.choices, required=False)
    trashed = serializers.BooleanField(
        required=False, default=False, help_text="1: list the trash (deleted, restorable) instead"
    )
