"""The todo REST API: the shared item views (``lightnote.rest.item_api``) over ``todos.services``
and ``todos.selectors``."""

from __future__ import annotations

from typing import Any

from lightnote.rest.item_api import ItemApi
from todos import selectors, services
from todos.models import Todo
from todos.serializers import (
    TodoCreateSerializer,
    TodoListQuerySerializer,
    TodoSerializer,
    TodoUpdateSerializer,
)


def _list_filters(query: dict[str, Any]) -> dict[str, Any]:
    return {"status": query.get("status")}


def _list_count_scope(query: dict[str, Any]) -> str:
    return f"status={query.get('status') or '*'}"  # Todo.LIST_FILTER_FIELDS: status


TODO_API = ItemApi(
    noun="todo",
    plural="todos",
    model=Todo,
    serializer=TodoSerializer,
    create_serializer=TodoCreateSerializer,
    update_serializer=TodoUpdateSerializer,
    list_query_serializer=TodoListQuerySerializer,
    list_filters=_list_filters,
    list_count_scope=_list_count_scope,
    list_description="The requesting user's todos: list and create.",
    select_list=selectors.todo_list,
    select_trash=selectors.todo_trash_list,
    select_one=selectors.todo_get,
    select_by_idempotency_key=selectors.todo_find_by_idempotency_key,
    create=services.todo_create,
    update=services.todo_update,
    delete=services.todo_delete,
    restore=services.todo_restore,
    forget_idempotency_key=services.todo_forget_idempotency_key,
)

TodoListView, TodoDetailView, TodoRestoreView = TODO_API.views()
todo_create_response = TODO_API.create_response
