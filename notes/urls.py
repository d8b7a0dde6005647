from __future__ import annotations

from django.urls import path

from notes import api

# The id is matched as any string so a malformed one gets the JSON 404 NOTE_NOT_FOUND.
urlpatterns = [
    path("", api.NoteListView.as_view(), name="note-list"),
    path("<str:note_id>/", api.NoteDetailView.as_view(), name="note-detail"),
    path("<str:note_id>/restore/", api.NoteRestoreView.as_view(), name="note-restore"),
]
