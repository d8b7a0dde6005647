"""Keyed hashes that bind control records to their owner and contents.

Each use has its own key, derived from ``settings.SECRET_KEY`` with HMAC-SHA256 and a
distinct label, so a value computed for one purpose is useless for another. A party that can
write Redis but does not know the secret cannot forge a consistent record.
"""

from __future__ import annotations

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


def _derived_key(label: bytes) -> bytes:
    # Read per call, not at import: tests may override SECRET_KEY.
    return hmac.new(settings.SECRET_KEY.encode("utf-8"), label, hashlib.sha256).digest()


def keyed_hash(label: bytes, message: str) -> str:
    """Return the HMAC-SHA256 (hex) of ``message`` under the key derived for ``label``."""
    return hmac.new(_derived_key(label), message.encode("utf-8"), hashlib.sha256).hexdigest()


def owner_hash(user_id: int | str) -> str:
    """Return the keyed hash stored instead of a raw user id."""
    return keyed_hash(_OWNER_LABEL, str(user_id))


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
