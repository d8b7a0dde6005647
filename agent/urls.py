"""Agent API routes, mounted under /api/v1/."""

from __future__ import annotations

from django.urls import path

from agent.api import card_actions, confirmations, continuations, sessions

urlpatterns = [
    path("agent/sessions/", sessions.SessionsView.as_view(), name="agent-sessions"),
    path(
        "agent/sessions/<uuid:session_id>/",
        sessions.SessionDetailView.as_view(),
        name="agent-session",
    ),
    path(
        "agent/sessions/<uuid:session_id>/messages/",
        sessions.MessagesView.as_view(),
        name="agent-messages",
    ),
    path("agent/confirmations/reissue/", card_actions.ReissueView.as_view(), name="agent-reissue"),
    path("agent/confirmations/confirm/", confirmations.ConfirmView.as_view(), name="agent-confirm"),
    path("agent/confirmations/reject/", confirmations.RejectView.as_view(), name="agent-reject"),
    path("agent/confirmations/edit/", card_actions.EditView.as_view(), name="agent-edit"),
    path("agent/confirmations/undo/", card_actions.UndoView.as_view(), name="agent-undo"),
    path("agent/choices/choose/", card_actions.ChooseView.as_view(), name="agent-choose"),
    path(
        "agent/choices/choose-from-history/",
        card_actions.ChooseFromHistoryView.as_view(),
        name="agent-choose-from-history",
    ),
    path("agent/confirmations/status/", confirmations.StatusView.as_view(), name="agent-status"),
    path(
        "agent/continuations/reply/",
        continuations.ContinuationReplyView.as_view(),
        name="agent-continuation-reply",
    ),
]
