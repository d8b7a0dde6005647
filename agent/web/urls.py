"""Browser pages of the agent: the chat page and the htmx endpoints behind its forms."""

from __future__ import annotations

from django.urls import path

from agent.web import card_actions, conversation_pages, views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("chat/message/", views.chat_message, name="chat-message"),
    path("chat/confirm/", views.chat_confirm, name="chat-confirm"),
    path("chat/reject/", views.chat_reject, name="chat-reject"),
    path("chat/status/", views.chat_status, name="chat-status"),
    path("chat/reissue/", card_actions.chat_reissue, name="chat-reissue"),
    path("chat/reply/", views.chat_reply, name="chat-reply"),
    path("chat/choose/", card_actions.chat_choose, name="chat-choose"),
    path("chat/edit/", card_actions.chat_edit, name="chat-edit"),
    path("chat/undo/", card_actions.chat_undo, name="chat-undo"),
    path("chat/new/", views.chat_new, name="chat-new"),
    path("chat/language/", views.chat_language, name="chat-language"),
    # Conversations: the list, switch, rename, delete (agent/web/conversation_pages.py).
    path("chat/", conversation_pages.chat_index, name="chat-index"),
    path("chat/<uuid:session_id>/", conversation_pages.chat_conversation, name="chat-conversation"),
    path(
        "chat/conversations/older/",
        conversation_pages.chat_conversations_older,
        name="chat-conversations-older",
    ),
    path(
        "chat/<uuid:session_id>/rename/",
        conversation_pages.chat_conversation_rename,
        name="chat-conversation-rename",
    ),
    path(
        "chat/<uuid:session_id>/delete/",
        conversation_pages.chat_conversation_delete,
        name="chat-conversation-delete",
    ),
]
