"""Agent API routes, mounted under /api/v1/."""

from __future__ import annotations

from django.urls import path

from agent import api

urlpatterns = [
    path("agent/sessions/", api.SessionsView.as_view(), name="agent-sessions"),
    path(
        "agent/sessions/<uuid:session_id>/",
        api.SessionDetailView.as_view(),
        name="agent-session",
    ),
    path(
        "agent/sessions/<uuid:session_id>/messages/",
        api.MessagesView.as_view(),
        name="agent-messages",
    ),
    path("agent/confirmations/reissue/", api.ReissueView.as_view(), name="agent-reissue"),
    path("agent/confirmations/confirm/", api.ConfirmView.as_view(), name="agent-confirm"),
    path("agent/confirmations/reject/", api.RejectView.as_view(), name="agent-reject"),
    path("agent/confirmations/edit/", api.EditView.as_view(), name="agent-edit"),
    path("agent/confirmations/undo/", api.UndoView.as_view(), name="agent-undo"),
    path("agent/choices/choose/", api.ChooseView.as_view(), name="agent-choose"),
    path("agent/confirmations/status/", api.StatusView.as_view(), name="agent-status"),
    path(
        "agent/continuations/reply/",
        api.ContinuationReplyView.as_view(),
        name="agent-continuation-reply",
    ),
]
