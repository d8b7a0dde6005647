"""A person's data as one JSON document: their todos, notes and conversations."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.utils import timezone

from lightnote.models import User

EXPORT_FORMAT = 1


def _when(value: Any) -> str | None:
    return value.isoformat() if value else None


def export_data(*, user: User) -> dict[str, Any]:
    """Return everything the user owns that they wrote or asked for (the trash included)."""
    # By name: the base layer imports no app (docs/architecture.md).
    todo_model, note_model = apps.get_model("todos.Todo"), apps.get_model("notes.Note")
    session_model = apps.get_model("agent.AgentSession")
    message_model = apps.get_model("agent.Message")
    todos = [
        {
            "id": str(todo.id),
            "title": todo.title,
            "description": todo.description,
            "status": todo.status,
            "priority": todo.priority,
            "due_at": _when(todo.due_at),
            "created_at": _when(todo.created_at),
            "updated_at": _when(todo.updated_at),
            "deleted_at": _when(todo.deleted_at),
        }
        for todo in todo_model.all_objects.filter(owner=user).order_by("created_at", "id")
    ]
    notes = [
        {
            "id": str(note.id),
            "title": note.title,
            "content": note.content,
            "tags": note.tags,
            "created_at": _when(note.created_at),
            "updated_at": _when(note.updated_at),
            "deleted_at": _when(note.deleted_at),
        }
        for note in note_model.all_objects.filter(owner=user).order_by("created_at", "id")
    ]
    messages: dict[Any, list[dict[str, Any]]] = {}
    for message in message_model.objects.filter(session__owner=user).order_by("created_at", "id"):
        messages.setdefault(message.session_id, []).append(
            {"role": message.role, "text": message.text, "created_at": _when(message.created_at)}
        )
    conversations = [
        {
            "id": str(session.id),
            "title": session.title,
            "created_at": _when(session.created_at),
            "deleted_at": _when(session.deleted_at),
            "messages": messages.get(session.id, []),
        }
        for session in session_model.objects.filter(
            owner=user, admin_context__isnull=True
        ).order_by("created_at", "id")
    ]
    return {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "user": {
            "id": user.pk,
            "username": user.username,
            "email": user.email,
            "time_zone": user.time_zone,
            "language": user.language,
            "date_joined": _when(user.date_joined),
        },
        "todos": todos,
        "notes": notes,
        "conversations": conversations,
    }
