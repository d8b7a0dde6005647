"""Who calls the MCP server: the token, the actor context and the MCP session of one call.

A call is authenticated on every request (a revoked token stops at once) and bound to its
MCP session, which belongs to the token that opened it. The token's proposals, from all its
sessions, go to one agent session (the token's conversation), opened by the first proposal:
a session that only lists tools or reads adds nothing to the owner's chat list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, transaction
from django.http import HttpRequest

from agent.cards import records as cards
from agent.conversation import sessions
from agent.models import TITLE_MAX
from lightnote.audit import audit_event
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import (
    ADMIN_CONTEXT_HEADER,
    ActorContext,
    resolve_actor_context,
)
from lightnote.text_policy import echoable
from lightnote.texts.i18n import DEFAULT_LOCALE, normalize_locale
from mcpserver.models import McpSession, McpToken
from mcpserver.tokens import mcp_token_authenticate

CHANNEL = cards.CHANNEL_MCP
CLIENT_NAME_MAX = 200
CLIENT_VERSION_MAX = 100


@dataclass(frozen=True)
class ClientInfo:
    """What the MCP client said about itself (self-declared: for audit, never for trust)."""

    name: str = ""
    version: str = ""


@dataclass(frozen=True)
class Caller:
    """An authenticated MCP call: token, actor context, MCP session, locale.

    ``request`` is a minimal Django request standing for the MCP call, so the per-user rate
    limits and the admin read-only context work exactly as they do for the API.
    """

    token: McpToken
    actor: ActorContext
    session: McpSession
    locale: str
    request: HttpRequest = field(repr=False)

    @property
    def audit_details(self) -> dict[str, Any]:
        return {
            "channel": CHANNEL,
            "client": self.session.client_name,
            "mcp_session": str(self.session.id),
            "transport": self.session.transport,
            "token_id": self.token.pk,
        }


def _stand_in_request(user: Any, *, admin_context_id: str | None) -> HttpRequest:
    request = HttpRequest()
    request.method = "POST"
    request.path = "/mcp"
    request.META["REMOTE_ADDR"] = "mcp"
    if admin_context_id is not None:  # an empty one is refused, not read as absent
        request.META[ADMIN_CONTEXT_HEADER] = admin_context_id
    request.user = user
    return request


def _session_for(token: McpToken, *, key: str, transport: str, client: ClientInfo) -> McpSession:
    """Return the MCP session named ``key``, opening it once (no agent session yet).

    A key already bound to another token is refused: a session belongs to the credential
    that opened it.
    """
    key = key[:200]
    session = McpSession.objects.select_related("agent_session").filter(key=key).first()
    if session is None:
        try:
            with transaction.atomic():
                session = McpSession.objects.create(
                    key=key,
                    token=token,
                    transport=transport,
                    client_name=client.name[:CLIENT_NAME_MAX],
                    client_version=client.version[:CLIENT_VERSION_MAX],
                )
                audit_event(
                    "mcp.session_opened",
                    actor=token.owner,
                    subject=token.owner,
                    details={
                        "channel": CHANNEL,
                        "client": session.client_name,
                        "client_version": session.client_version,
                        "mcp_session": str(session.id),
                        "transport": transport,
                        "token_id": token.pk,
                    },
                )
        except IntegrityError:  # a concurrent first call opened it: use theirs
            session = McpSession.objects.select_related("agent_session").get(key=key)
    if session.token_id != token.pk:
        raise LightNoteError("MCP_SESSION_FORBIDDEN", status=403)
    if client.name and not session.client_name:
        McpSession.objects.filter(pk=session.pk).update(
            client_name=client.name[:CLIENT_NAME_MAX],
            client_version=client.version[:CLIENT_VERSION_MAX],
        )
    return session


@transaction.atomic
def conversation_for(caller: Caller) -> Any:
    """Return the token's conversation for a proposal, opening it on the first one.

    Locks the token row: of two first proposals at once, one opens the conversation and the
    other uses it. A conversation the owner deleted (its cards voided) is replaced by a
    fresh one, so later proposals stay confirmable. The MCP session is pointed at it.
    """
    token = (
        McpToken.objects.select_for_update().select_related("conversation").get(pk=caller.token.pk)
    )
    conversation = token.conversation
    if conversation is None or conversation.deleted_at is not None:
        conversation = sessions.session_create(owner=token.owner)
        title = f"MCP · {echoable(token.name)}"  # the owner's own name for the token
        conversation = sessions.session_rename(session=conversation, title=title[:TITLE_MAX])
        McpToken.objects.filter(pk=token.pk).update(conversation=conversation)
    if caller.session.agent_session_id != conversation.pk:
        McpSession.objects.filter(pk=caller.session.pk).update(agent_session=conversation)
    caller.session.agent_session = conversation
    return conversation


def authenticate_caller(
    *,
    raw_key: str | None,
    session_key: str,
    transport: str,
    client: ClientInfo,
    admin_context_id: str | None = None,
) -> Caller:
    """Authenticate an MCP call and bind it to its MCP session.

    Raises 401 ``MCP_TOKEN_INVALID`` for an unknown or revoked token (checked on every
    call, so a revocation takes effect at once), 403 for an admin context the token's owner
    may not use, or a session opened by another token.
    """
    token = mcp_token_authenticate(raw_key)
    user = token.owner
    request = _stand_in_request(user, admin_context_id=admin_context_id)
    actor = resolve_actor_context(request, user)
    session = _session_for(
        token, key=f"{token.pk}:{session_key}", transport=transport, client=client
    )
    locale = normalize_locale(user.language) or DEFAULT_LOCALE
    return Caller(token=token, actor=actor, session=session, locale=locale, request=request)
