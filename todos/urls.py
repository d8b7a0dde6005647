from __future__ import annotations

from django.urls import path

from todos import api

# The id is matched as any string so a malformed one gets the JSON 404 TODO_NOT_FOUND.
urlpatterns = [
    path("", api.TodoListView.as_view(), name="todo-list"),
    path("<str:todo_id>/", api.TodoDetailView.as_view(), name="todo-detail"),
    path("<str:todo_id>/restore/", api.TodoRestoreView.as_view(), name="todo-restore"),
]
