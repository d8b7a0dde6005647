"""Browser pages for notes (the API lives in ``notes/urls.py``)."""

from __future__ import annotations

from django.urls import path

from notes import pages

urlpatterns = [
    path("", pages.note_list_page, name="note-page"),
    path("trash/", pages.note_trash_page, name="note-trash-page"),
    path("<str:note_id>/", pages.note_detail_page, name="note-detail-page"),
]
