"""Keyed hashes that bind control records to their owner and contents.

Each use has its own key, derived from ``settings.SECRET_KEY`` with HMAC-SHA256 and a
distinct label, so a value computed for one purpose is useless for another. A party that can
write Redis but does not know the secret cannot forge a consistent record.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from django.conf import settings

_OWNER_LABEL = b"lightnote/owner-hash/v1"
_ARGS_LABEL = b"lightnote/args-hmac/v1"


def canonical_json(value: Any) -> str:
    """Serialise ``value`` one way only: sorted keys, compact separators, raw UTF-8.

    NaN and infinities raise ValueError: they are not JSON, and a binding must not depend
    on how a parser treats them.
    """
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


@functools.lru_cache(maxsize=16)
def _key_under(secret: str, label: bytes) -> bytes:
    # Keyed by the secret, read per call (not at import): tests may override SECRET_KEY.
    return hmac.new(secret.encode("utf-8"), label, hashlib.sha256).digest()


def keyed_hash(label: bytes, message: str) -> str:
    """Return the HMAC-SHA256 (hex) of ``message`` under the key derived for ``label``."""
    return _keyed_hash_under(settings.SECRET_KEY, label, message)


def _keyed_hash_under(secret: str, label: bytes, message: str) -> str:
    return hmac.new(_key_under(secret, label), message.encode("utf-8"), hashlib.sha256).hexdigest()


def owner_hash(user_id: int | str) -> str:
    """Return the keyed hash stored instead of a raw user id (the same for the same id and
    secret: remembered, a bounded number of them per process)."""
    return _owner_hash_under(settings.SECRET_KEY, str(user_id))


@functools.lru_cache(maxsize=4096)
def _owner_hash_under(secret: str, user_id: str) -> str:
    return _keyed_hash_under(secret, _OWNER_LABEL, user_id)


def args_hmac(payload: Mapping[str, Any]) -> str:
    """Return the HMAC over the canonical JSON of ``payload`` (everything a record binds)."""
    return keyed_hash(_ARGS_LABEL, canonical_json(payload))


def digests_equal(left: str, right: str) -> bool:
    """Compare two hex digests in constant time."""
    return hmac.compare_digest(left.encode("utf-8"), right.encode("utf-8"))


def seal(record: dict[str, Any], *, field: str) -> dict[str, Any]:
    """Store in ``record[field]`` the HMAC over all its other fields; return the record."""
    record[field] = args_hmac({name: value for name, value in record.items() if name != field})
    return record


def seal_intact(record: Mapping[str, Any], *, field: str) -> bool:
    """Return True when ``record[field]`` is the HMAC over all its other fields (unaltered)."""
    sealed = record.get(field)
    if not isinstance(sealed, str) or not sealed:
        return False
    payload = {name: value for name, value in record.items() if name != field}
    return digests_equal(args_hmac(payload), sealed)
