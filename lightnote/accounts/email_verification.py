"""Email verification: a signed link mailed to the address; opening it proves the address.

Only a password reset may be mailed to an address not proven (``may_mail``); the link is
signed with the secret key and names the user and the address, so a link for an address the
user has since changed proves nothing.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from lightnote.accounts.models import EmailVerification
from lightnote.errors import LightNoteError
from lightnote.models import User
from lightnote.texts.i18n import translate

SALT = "lightnote.accounts.email-verification"


def verification_token(user: User) -> str:
    return signing.dumps({"user": user.pk, "email": user.email}, salt=SALT, compress=True)


def verification_link(user: User, request: HttpRequest | None = None) -> str:
    """The link on the site the request came to (its host is one of ALLOWED_HOSTS), else on
    ``LIGHTNOTE_PUBLIC_URL``."""
    path = reverse("account-verify", args=[verification_token(user)])
    if request is not None:
        return request.build_absolute_uri(path)
    return f"{settings.LIGHTNOTE_PUBLIC_URL}{path}"


def send_verification(*, user: User, locale: str, request: HttpRequest | None = None) -> None:
    """Mail ``user`` the link that proves their address (in ``locale``)."""
    if not user.email:
        return
    send_mail(
        translate("ACCOUNT_VERIFY_SUBJECT", locale),
        translate(
            "ACCOUNT_VERIFY_BODY",
            locale,
            username=user.username,
            link=verification_link(user, request),
        ),
        None,
        [user.email],
    )


@transaction.atomic
def email_verify(*, token: str) -> User:
    """Mark the address the link names as the user's proven one; 400 for a bad link."""
    try:
        claim: dict[str, Any] = signing.loads(
            token, salt=SALT, max_age=settings.LIGHTNOTE_EMAIL_VERIFICATION_TTL
        )
    except signing.BadSignature:
        raise LightNoteError("ACCOUNT_VERIFY_LINK_BAD") from None
    user_id = claim.get("user")
    if not isinstance(user_id, int):
        raise LightNoteError("ACCOUNT_VERIFY_LINK_BAD")
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.email or user.email != claim.get("email"):
        raise LightNoteError("ACCOUNT_VERIFY_LINK_BAD")
    EmailVerification.objects.update_or_create(
        user=user, defaults={"email": user.email, "verified_at": timezone.now()}
    )
    return user


def is_verified(user: Any) -> bool:
    """True when ``user.email`` is the address they proved."""
    if not getattr(user, "email", ""):
        return False
    return EmailVerification.objects.filter(user=user, email=user.email).exists()


def may_mail(user: Any) -> bool:
    """Whether mail other than a password reset may go to ``user`` (their address proven)."""
    return is_verified(user)
