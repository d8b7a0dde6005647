"""The account pages: sign-up, the verification link, and the account part of /settings/
(resend the link, export, delete). Password reset is Django's views (``password_reset``)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from lightnote.accounts.deletion import account_delete
from lightnote.accounts.email_verification import email_verify, is_verified, send_verification
from lightnote.accounts.export import export_data
from lightnote.accounts.signup import account_register, signup_open
from lightnote.accounts.texts import ACCOUNT_TEXTS
from lightnote.accounts.throttle import limit_by_address
from lightnote.audit import CHANNEL_PAGE
from lightnote.errors import LightNoteError
from lightnote.models import User
from lightnote.pages.items import page_viewer
from lightnote.texts.i18n import translate
from lightnote.texts.page_texts import page_locale, page_texts


def _context(request: HttpRequest, **extra: object) -> dict[str, object]:
    locale = page_locale(request)
    return {"t": page_texts(locale, ACCOUNT_TEXTS), "page_locale": locale, **extra}


@require_http_methods(["GET", "HEAD", "POST"])
def signup_page(request: HttpRequest) -> HttpResponse:
    """``/accounts/signup/``: a new account; its verification link goes out at once."""
    locale = page_locale(request)
    if request.user.is_authenticated:
        return redirect("chat")
    if not signup_open():
        context = _context(request, closed=translate("SIGNUP_CLOSED", locale))
        return render(request, "accounts/signup.html", context, status=403)
    form = {key: request.POST.get(key, "").strip() for key in ("username", "email")}
    fields: dict[str, list[str]] = {}
    problem = ""
    status = 200
    if request.method == "POST":
        try:
            limit_by_address(request, "signup")
            user = account_register(
                username=form["username"],
                email=form["email"],
                password=request.POST.get("password", ""),
                locale=locale,
                channel=CHANNEL_PAGE,
            )
        except LightNoteError as error:
            fields = error.extra.get("fields", {})
            problem = "" if fields else error.message(locale)
            status = error.status
        else:
            send_verification(user=user, locale=locale, request=request)
            sent = translate("ACCOUNT_SIGNUP_SENT", locale, email=user.email)
            return render(request, "accounts/signup_sent.html", _context(request, sent=sent))
    context = _context(request, form=form, fields=fields, problem=problem)
    return render(request, "accounts/signup.html", context, status=status)


@require_http_methods(["GET", "HEAD"])
def verify_page(request: HttpRequest, token: str) -> HttpResponse:
    """The emailed link: the address is proven (or the link is refused, 400)."""
    locale = page_locale(request)
    try:
        user = email_verify(token=token)
    except LightNoteError as error:
        context = _context(request, problem=error.message(locale))
        return render(request, "accounts/verified.html", context, status=error.status)
    done = translate("ACCOUNT_VERIFIED", locale, email=user.email)
    return render(request, "accounts/verified.html", _context(request, done=done))


@login_required
@require_POST
def verify_send(request: HttpRequest) -> HttpResponse:
    """Mail the signed-in user a new verification link (counted like a sign-up)."""
    user = page_viewer(request).owner
    locale = page_locale(request)
    try:
        limit_by_address(request, "signup")
    except LightNoteError as error:
        messages.error(request, error.message(locale))
    else:
        send_verification(user=user, locale=locale, request=request)
        messages.success(request, translate("ACCOUNT_VERIFY_SENT", locale, email=user.email))
    return redirect("settings-page")


@login_required
@require_http_methods(["GET", "HEAD"])
def export_download(request: HttpRequest) -> HttpResponse:
    """The signed-in user's data as a JSON download (never another user's, nor in a
    read-only admin context)."""
    viewer = page_viewer(request)
    if viewer.readonly:
        return HttpResponse(status=403)
    body = json.dumps(export_data(user=viewer.owner), ensure_ascii=False, indent=2)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = f"lightnote-{viewer.owner.username}-{timezone.now():%Y%m%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
@require_POST
def delete_account(request: HttpRequest) -> HttpResponse:
    """Delete the signed-in account with its password; back to the login page."""
    viewer = page_viewer(request)
    locale = page_locale(request)
    try:
        account_delete(
            user=viewer.owner, password=request.POST.get("password", ""), channel=CHANNEL_PAGE
        )
    except LightNoteError as error:
        messages.error(request, error.message(locale))
        return redirect("settings-page")
    logout(request)
    messages.success(request, translate("ACCOUNT_DELETED", locale))
    return redirect("login")


def account_settings(user: User, locale: str) -> dict[str, object]:
    """The account part of the settings page: the address and whether it is proven."""
    return {
        "email": user.email,
        "verified": is_verified(user),
        "t": page_texts(locale, ACCOUNT_TEXTS),
    }
