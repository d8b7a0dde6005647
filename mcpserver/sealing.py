"""Seal a card's confirm token for the confirmation page (AES-GCM, server-side key).

The key is derived from ``settings.SECRET_KEY`` with its own label, and the card id is the
associated data: a sealed token copied onto another card's row does not open.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings

_LABEL = b"lightnote/mcp-card-token-seal/v1"
_NONCE_BYTES = 12


def _key() -> bytes:
    # Read per call, not at import: tests may override SECRET_KEY.
    return hmac.new(settings.SECRET_KEY.encode("utf-8"), _LABEL, hashlib.sha256).digest()


def seal(token: str, *, card_id: str) -> str:
    """Return ``token`` encrypted and authenticated for ``card_id`` (URL-safe base64)."""
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = AESGCM(_key()).encrypt(nonce, token.encode("utf-8"), card_id.encode("utf-8"))
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def unseal(value: str, *, card_id: str) -> str | None:
    """Return the token sealed for ``card_id``, or None when it was altered or moved."""
    try:
        raw = base64.urlsafe_b64decode(value.encode("ascii"))
        opened = AESGCM(_key()).decrypt(
            raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], card_id.encode("utf-8")
        )
    except (InvalidTag, ValueError):
        return None
    return opened.decode("utf-8")
