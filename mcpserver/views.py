"""Browser pages of the MCP server: a card's confirmation page and the MCP token settings.

The card page is where a person confirms what an MCP client proposed. Only the card's owner
sees it (everyone else gets 404, as for a card that does not exist); confirm and reject are
CSRF-protected POSTs that run ``execution.confirm`` / ``execution.reject`` — the chat's own
claim, receipt and settle path — with the card's sealed token, opened here and nowhere else.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from agent.capabilities import RISKS
from agent.cards import confirm as execution
from agent.cards import records as cards
from agent.models import ActionCard
from agent.tools import format_local_time
from agent.web import texts as chat_texts  # noqa: F401  (the card texts the chat page shows)
from lightnote.audit import audit_channel
from lightnote.errors import LightNoteError
from lightnote.impersonation.context import actor_context
from lightnote.rest import http_guards
from lightnote.text_policy import echoable
from lightnote.texts.i18n import translate
from lightnote.texts.page_texts import page_locale, page_texts
from mcpserver import callers, card_states, sealing
from mcpserver.models import McpCard, McpToken
from mcpserver.tokens import mcp_token_create, mcp_token_revoke

CARD_TEXTS = (
    "MCP_PAGE_TITLE",
    "MCP_PAGE_STATE",
    "MCP_PAGE_EXPIRED",
    "MCP_PAGE_CARD_ID",
    "MCP_PAGE_BACK",
    "CHAT_CONFIRM",
    "CHAT_REJECT",
    "CHAT_CARD_ACTIONS",
    "CHAT_CARD_EXPIRES",
    "CHAT_RECEIPT_ID",
    "CHAT_PROBLEM",
)
SETTINGS_TEXTS = (
    "MCP_SETTINGS_TITLE",
    "MCP_SETTINGS_INTRO",
    "MCP_SETTINGS_NAME",
    "MCP_SETTINGS_SCOPE",
    "MCP_SCOPE_READ",
    "MCP_SCOPE_PROPOSE",
    "MCP_SETTINGS_CREATE",
    "MCP_SETTINGS_NEW_KEY",
    "MCP_SETTINGS_NONE",
    "MCP_SETTINGS_CREATED",
    "MCP_SETTINGS_LAST_USED",
    "MCP_SETTINGS_NEVER",
    "MCP_SETTINGS_REVOKED",
    "MCP_SETTINGS_REVOKE",
    "CHAT_PROBLEM",
)


# --- the card page ------------------------------------------------------------------------


def _owned_card(request: HttpRequest, card_id: uuid.UUID) -> McpCard:
    """Return the MCP card if the logged-in person owns it; 404 for everyone else.

    The actor (who is logged in), not an admin context's subject: an administrator viewing
    a user's data never sees, let alone confirms, that user's cards.
    """
    row = (
        McpCard.objects.select_related("mcp_session__token", "owner")
        .filter(card_id=card_id, owner_id=request.user.pk)
        .first()
    )
    if row is None:
        raise Http404("no such card")
    return row


CLIENT_NAME_SHOWN = 40


def client_as_data(name: str, *, locale: str) -> str:
    """The client's self-declared name as quoted data, never as LightNote's own words: one
    line, at most ``CLIENT_NAME_SHOWN`` characters, inside "a client that calls itself «…»"."""
    shown = " ".join(echoable(name).split())
    if not shown:
        return translate("MCP_PAGE_UNNAMED_CLIENT", locale)
    if len(shown) > CLIENT_NAME_SHOWN:
        shown = shown[: CLIENT_NAME_SHOWN - 1] + "…"
    return translate("MCP_PAGE_NAMED_CLIENT", locale, name=shown)


def _card_view(row: McpCard, card: cards.Card | None, *, locale: str) -> dict[str, Any]:
    zone = row.owner.zone
    state = card_states.card_state(row, locale=locale)
    live = card is not None and card.state == cards.CardState.READY and state["state"] == "pending"
    if card is not None:
        preview = card.preview
    else:  # gone from the store: the lifecycle row keeps what was proposed
        history = ActionCard.objects.filter(id=row.card_id).only("preview").first()
        preview = history.preview if history is not None else {}
    risk = row.risk if row.risk in RISKS else "low"
    receipt = state.get("receipt")
    client = client_as_data(row.mcp_session.client_name, locale=locale)
    return {
        "card_id": str(row.card_id),
        "client": client,
        "intro": translate(
            "MCP_PAGE_INTRO", locale, token=row.mcp_session.token.name, client=client
        ),
        "title": preview.get("title", "") or row.tool,
        "target": preview.get("target", ""),
        "impact": preview.get("impact", ""),
        "details": preview.get("details") or [],
        "risk": risk,
        "risk_label": translate(
            "CHAT_CARD_RISK", locale, risk=translate(f"CHAT_RISK_{risk.upper()}", locale)
        ),
        "expires": format_local_time(row.expires_at, zone),
        "live": live,
        "state": state["state"],
        "state_message": state["message"],
        "receipt": receipt,
        "receipt_at": format_local_time(receipt["settled_at"], zone) if receipt else "",
    }


def _render_card(
    request: HttpRequest,
    row: McpCard,
    *,
    locale: str,
    status: int = 200,
    problem: LightNoteError | None = None,
) -> HttpResponse:
    card = card_states.stored_card(row)
    context = {
        "t": page_texts(locale, CARD_TEXTS),
        "page_locale": locale,
        "card": _card_view(row, card, locale=locale),
        "problem": {"code": problem.code, "message": problem.message(locale)} if problem else None,
    }
    response = render(request, "mcpserver/card.html", context, status=status)
    if problem is not None:
        for name, value in problem.headers.items():
            response[name] = value
    return response


@login_required
@require_GET
def card_page(request: HttpRequest, card_id: uuid.UUID) -> HttpResponse:
    """Show an MCP card to its owner, with Confirm and Reject while it is pending."""
    row = _owned_card(request, card_id)
    try:
        return _render_card(request, row, locale=page_locale(request))
    except LightNoteError as error:
        return http_guards.known_failure(request, error)


def _card_action(request: HttpRequest, card_id: uuid.UUID, operation: Any) -> HttpResponse:
    row = _owned_card(request, card_id)
    locale = page_locale(request)
    token = sealing.unseal(row.sealed_token, card_id=str(row.card_id))
    session = row.mcp_session
    try:
        if token is None:
            raise LightNoteError("CONFIRMATION_INVALID", status=409)
        with audit_channel(
            channel=callers.CHANNEL,
            client=session.client_name,
            mcp_session=str(session.id),
            via="card_page",
        ):
            answer = operation(
                request=request,
                actor=actor_context(request),
                token=token,
                session_id=session.agent_session_id,
                locale=locale,
            )
    except LightNoteError as error:
        if error.status >= 500:
            # The store or the database failed: the card page would read it again.
            return http_guards.known_failure(request, error)
        return _render_card(request, row, locale=locale, status=error.status, problem=error)
    return _render_card(request, row, locale=locale, status=answer.status)


@login_required
@require_POST
def card_confirm(request: HttpRequest, card_id: uuid.UUID) -> HttpResponse:
    """Confirm an MCP card: ``execution.confirm``, the chat's one claim-execute-settle path."""
    return _card_action(request, card_id, execution.confirm)


@login_required
@require_POST
def card_reject(request: HttpRequest, card_id: uuid.UUID) -> HttpResponse:
    """Reject an MCP card (``execution.reject``)."""
    return _card_action(request, card_id, execution.reject)


# --- MCP token settings -------------------------------------------------------------------


def _settings_context(request: HttpRequest, locale: str, **extra: Any) -> dict[str, Any]:
    zone = request.user.zone  # type: ignore[union-attr]
    never = translate("MCP_SETTINGS_NEVER", locale)
    tokens = [
        {
            "id": token.pk,
            "name": token.name,
            "prefix": token.prefix,
            "created": format_local_time(token.created_at, zone),
            "last_used": format_local_time(token.last_used_at, zone)
            if token.last_used_at
            else never,
            "active": token.is_active,
            "scope": translate(f"MCP_SCOPE_{token.scope.upper()}", locale),
        }
        for token in McpToken.objects.filter(owner_id=request.user.pk)
    ]
    return {
        "t": page_texts(locale, SETTINGS_TEXTS),
        "page_locale": locale,
        "tokens": tokens,
        **extra,
    }


@login_required
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    """List the person's MCP tokens; a POST creates one and shows its key once."""
    locale = page_locale(request)
    if request.method == "GET":
        return render(request, "mcpserver/settings.html", _settings_context(request, locale))
    try:
        _token, raw_key = mcp_token_create(
            owner=request.user,  # type: ignore[arg-type]
            name=request.POST.get("name", ""),
            scope=request.POST.get("scope", McpToken.Scope.PROPOSE),
        )
    except LightNoteError as error:
        context = _settings_context(
            request, locale, problem={"code": error.code, "message": error.message(locale)}
        )
        return render(request, "mcpserver/settings.html", context, status=error.status)
    context = _settings_context(request, locale, new_key=raw_key)
    response = render(request, "mcpserver/settings.html", context, status=201)
    response["Cache-Control"] = "no-store"  # the page shows a secret once
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    """Revoke one of the person's MCP tokens (404 for anyone else's)."""
    locale = page_locale(request)
    try:
        mcp_token_revoke(owner=request.user, token_id=token_id)  # type: ignore[arg-type]
    except LightNoteError as error:
        context = _settings_context(
            request, locale, problem={"code": error.code, "message": error.message(locale)}
        )
        return render(request, "mcpserver/settings.html", context, status=error.status)
    return render(request, "mcpserver/settings.html", _settings_context(request, locale))
