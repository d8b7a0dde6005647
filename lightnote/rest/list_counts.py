"""The capped count of a live list, without counting past the cap on every page.

A list's ``count`` is exact up to ``COUNT_CAP`` rows, else null (``lightnote.rest.pagination``).
Finding out that a list has more than the cap means reading ``COUNT_CAP + 1`` index entries;
for an owner with 100k rows that was most of a page's time. So once a count comes out
capped, the fact is remembered in Redis and later pages skip the count, until something
could have made the list shorter.

Only two kinds of change shrink a live list: a row leaving it (moved to the trash) and a
row's filtered field changing (a todo's ``status``). ``lightnote.rest.versioning`` reports both
(:func:`live_rows_shrank`) after its transaction commits; a new row, a restore or an edit
of any other field can only keep a list above the cap. The record is per owner and model,
one hash ``ln:listcount:{<app.model>:<owner id>}``: field ``gen`` is a generation that each
shrink bumps, and each cached list's mark holds the generation it was counted under. A mark
counts only while it equals the current generation; it is set by a compare-and-set against
the generation read *before* counting, so a count that raced a shrink is never remembered
(``generation_mark.lua``). Marks live ``MARK_TTL_MS`` at most, which also bounds a change
made behind the services' back (a raw SQL delete, the admin's hard delete).

Redis trouble never changes an answer: the list then simply counts.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from django.db import models, transaction

from lightnote.controlstore import store

logger = logging.getLogger(__name__)

KEY_PREFIX = "ln:listcount:"
MARK_TTL_MS = 10 * 60 * 1000


def _key(model: type[models.Model], owner_id: Any) -> str:
    return f"{KEY_PREFIX}{{{model._meta.label_lower}:{owner_id}}}"


def cached_capped_count(
    model: type[models.Model],
    *,
    owner_id: Any,
    scope: str,
    count: Callable[[], int | None],
) -> int | None:
    """Return ``count()`` (exact, or None past the cap) unless this list is known capped.

    ``scope`` names the list among the owner's lists of ``model`` (its filters, e.g.
    ``status=open``); the caller's queryset must be exactly the owner's live rows under it.
    """
    key = _key(model, owner_id)
    try:
        generation, mark = store.generation_read(key, scope)
    except store.StoreUnavailable:
        return count()
    if mark is not None and mark == generation:
        return None
    counted = count()
    if counted is None:
        with contextlib.suppress(store.StoreUnavailable):
            store.generation_mark(key, scope, generation=generation, ttl_ms=MARK_TTL_MS)
    return counted


def live_rows_shrank(model: type[models.Model], *, owner_id: Any) -> None:
    """Void the owner's cached capped counts of ``model`` once the current transaction commits
    (at once outside one). Best effort: a failure is logged; the marks expire anyway."""

    def bump() -> None:
        try:
            store.generation_bump(_key(model, owner_id), ttl_ms=MARK_TTL_MS)
        except store.StoreUnavailable:
            logger.warning("list counts of %s for owner %s not voided", model, owner_id)

    transaction.on_commit(bump)
