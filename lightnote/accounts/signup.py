"""Sign-up: a new account from a username, an email address and a password.

One service for the page and the API: the username's form and uniqueness (case-insensitive),
the address's form and Django's password validators; every problem is reported per field in
``VALIDATION_ERROR``'s ``fields`` (in the request's language), and nothing is written.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils import translation

from lightnote.audit import CHANNEL_SYSTEM, audit_write
from lightnote.errors import LightNoteError
from lightnote.models import User
from lightnote.texts.i18n import DJANGO_LANGUAGES, translate


def signup_open() -> bool:
    return bool(settings.LIGHTNOTE_SIGNUP == "open")


def _username_problems(username: str, locale: str) -> list[str]:
    if not username or len(username) > 150:
        return [translate("SIGNUP_USERNAME_INVALID", locale)]
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        return [translate("SIGNUP_USERNAME_INVALID", locale)]
    if User.objects.filter(username__iexact=username).exists():
        return [translate("SIGNUP_USERNAME_TAKEN", locale)]
    return []


def _email_problems(email: str, locale: str) -> list[str]:
    try:
        validate_email(email)
    except ValidationError:
        return [translate("SIGNUP_EMAIL_INVALID", locale)]
    return []


def _password_problems(password: str, user: User, locale: str) -> list[str]:
    if not password:
        return [translate("SIGNUP_PASSWORD_REQUIRED", locale)]
    # Django's validators speak through gettext: in the request's language.
    with translation.override(DJANGO_LANGUAGES.get(locale, "zh-hans")):
        try:
            password_validation.validate_password(password, user)
        except ValidationError as error:
            return [str(message) for message in error.messages]
    return []


def signup_problems(*, username: str, email: str, password: str, locale: str) -> dict[str, Any]:
    """Every field's problems (empty: the account may be created)."""
    candidate = User(username=username, email=email)
    problems = {
        "username": _username_problems(username, locale),
        "email": _email_problems(email, locale),
        "password": _password_problems(password, candidate, locale),
    }
    return {name: found for name, found in problems.items() if found}


@transaction.atomic
def account_register(
    *,
    username: str,
    email: str,
    password: str,
    locale: str,
    language: str | None = None,
    channel: str = CHANNEL_SYSTEM,
) -> User:
    """Create an active account; 403 ``SIGNUP_CLOSED``, 400 ``VALIDATION_ERROR`` (``fields``).

    Audited ``user.created`` with ``channel`` in the same transaction."""
    if not signup_open():
        raise LightNoteError("SIGNUP_CLOSED", status=403)
    username, email = username.strip(), email.strip()
    problems = signup_problems(username=username, email=email, password=password, locale=locale)
    if problems:
        raise LightNoteError("VALIDATION_ERROR", extra={"fields": problems})
    user = User(username=username, email=email, language=language or locale)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            audit_write(
                "user.created", item_type="user", item_id=user.pk, owner=user, channel=channel
            )
    except IntegrityError:  # the same name taken by a sign-up a moment ago
        raise LightNoteError(
            "VALIDATION_ERROR",
            extra={"fields": {"username": [translate("SIGNUP_USERNAME_TAKEN", locale)]}},
        ) from None
    return user
