"""Browser pages of the agent (the chat page)."""

from __future__ import annotations

from django.urls import path

from agent import views

urlpatterns = [path("", views.chat_page, name="chat")]
