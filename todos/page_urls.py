"""Browser pages for todos (the API lives in ``todos/urls.py``)."""

from __future__ import annotations

from django.urls import path

from todos import pages

urlpatterns = [
    path("", pages.todo_list_page, name="todo-page"),
    path("trash/", pages.todo_trash_page, name="todo-trash-page"),
    path("<str:todo_id>/", pages.todo_detail_page, name="todo-detail-page"),
]
