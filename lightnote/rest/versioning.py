"""Optimistic concurrency for owner-scoped models with a ``version`` column.

Both helpers run one conditional statement with a row-count check, so two writers holding
the same version cannot both win and a stale version never overwrites a newer change.
"""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import models, router
from django.db.models import F, QuerySet
from django.utils import timezone

from lightnote.errors import LightNoteError
from lightnote.rest.list_counts import live_rows_shrank

M = TypeVar("M", bound=models.Model)


def owned_get(model: type[M], *, owner: Any, obj_id: uuid.UUID | str, not_found: str) -> M:
    """Return the owner's object or raise 404 ``not_found`` (also for another user's)."""
    try:
        return model._default_manager.get(owner=owner, id=obj_id)
    except (model.DoesNotExist, ValidationError, ValueError):  # type: ignore[attr-defined]
        raise LightNoteError(not_found, status=404) from None


def _missing_or_conflict(model: type[M], *, owner: Any, obj_id: Any, prefix: str) -> LightNoteError:
    latest = (
        model._default_manager.filter(owner=owner, id=obj_id)
        .values_list("version", flat=True)
        .first()
    )
    if latest is None:
        return LightNoteError(f"{prefix}_NOT_FOUND", status=404)
    return LightNoteError(
        f"{prefix}_VERSION_CONFLICT",
        status=409,
        params={"current_version": latest},
        extra={"current_version": latest},
    )


def versioned_update(
    model: type[M],
    *,
    owner: Any,
    obj_id: uuid.UUID | str,
    expected_version: int | None,
    values: dict[str, Any],
    prefix: str,
    current: M | None = None,
) -> M:
    """Apply ``values`` and bump ``version`` if still at ``expected_version`` (None: any).

    Raises ``<prefix>_NOT_FOUND`` (404) or ``<prefix>_VERSION_CONFLICT`` (409). A change of
    one of the model's ``LIST_FILTER_FIELDS`` voids the owner's cached list counts.
    ``current``: the object as the caller already read it (saves reading it again).
    """
    if current is None:
        current = owned_get(model, owner=owner, obj_id=obj_id, not_found=f"{prefix}_NOT_FOUND")
    rows = model._default_manager.filter(owner=owner, id=current.pk)
    if expected_version is not None:
        rows = rows.filter(version=expected_version)
    if rows.update(**values, version=F("version") + 1, updated_at=timezone.now()) == 0:
        raise _missing_or_conflict(model, owner=owner, obj_id=current.pk, prefix=prefix)
    if set(values) & set(getattr(model, "LIST_FILTER_FIELDS", ())):
        live_rows_shrank(model, owner_id=getattr(owner, "pk", owner))  # it may leave a list
    return model._default_manager.get(pk=current.pk)


def versioned_delete(
    model: type[M],
    *,
    owner: Any,
    obj_id: uuid.UUID | str,
    expected_version: int | None,
    prefix: str,
) -> Any:
    """Move the object to the trash if still at ``expected_version`` (None: any); return its id.

    A delete is soft: ``deleted_at`` is set and ``version`` bumps, so the live lists, reads
    and writes no longer see it, a restore can be version-checked, and ``purge_trash``
    removes it for good after ``LIGHTNOTE_TRASH_RETENTION`` days.
    """
    current = owned_get(model, owner=owner, obj_id=obj_id, not_found=f"{prefix}_NOT_FOUND")
    rows = model._default_manager.filter(owner=owner, id=current.pk)
    if expected_version is not None:
        rows = rows.filter(version=expected_version)
    now = timezone.now()
    if rows.update(deleted_at=now, version=F("version") + 1, updated_at=now) == 0:
        raise _missing_or_conflict(model, owner=owner, obj_id=current.pk, prefix=prefix)
    live_rows_shrank(model, owner_id=getattr(owner, "pk", owner))
    return current.pk


def release_idempotency_key(
    model: type[models.Model], *, owner: Any, obj_id: uuid.UUID | str, key: str
) -> bool:
    """Clear ``idempotency_key`` on the owner's object while it still holds ``key``.

    The control column only, with no version bump and no ``updated_at``: the object itself
    does not change. Returns True when the object held the key. Called by each app's
    ``*_forget_idempotency_key`` service.
    """
    released = model._default_manager.filter(owner=owner, pk=obj_id, idempotency_key=key).update(
        idempotency_key=None
    )
    return bool(released)


def titled(model: type[M], *, owner: Any, title: str, limit: int = 10) -> list[M]:
    """Return the owner's live objects titled exactly ``title`` (after trimming), or when none
    is, those whose title differs from it in letter case only ("submit the weekly report").

    Compared in Python after one case-insensitive query, so both databases agree (MariaDB's
    collation ignores case, SQLite's does not).
    """
    title = title.strip()
    alike = list(model._default_manager.filter(owner=owner, title__iexact=title)[:limit])
    return [obj for obj in alike if getattr(obj, "title", None) == title] or alike


def trashed(model: type[M], *, owner: Any) -> QuerySet[M]:
    """Return the owner's trashed objects, most recently deleted first."""
    return model._base_manager.filter(owner=owner, deleted_at__isnull=False).order_by(
        "-deleted_at", "id"
    )


def trashed_get(model: type[M], *, owner: Any, obj_id: uuid.UUID | str, not_found: str) -> M:
    """Return the owner's object from the trash or raise 404 ``not_found`` (a live one too)."""
    try:
        return trashed(model, owner=owner).get(id=obj_id)
    except (model.DoesNotExist, ValidationError, ValueError):  # type: ignore[attr-defined]
        raise LightNoteError(not_found, status=404) from None


def versioned_restore(
    model: type[M],
    *,
    owner: Any,
    obj_id: uuid.UUID | str,
    expected_version: int | None,
    prefix: str,
) -> M:
    """Take the object out of the trash if still at ``expected_version`` (None: any).

    Raises ``<prefix>_NOT_FOUND`` (404) when the owner has no such trashed object (a live
    one included: there is nothing to restore) and ``<prefix>_VERSION_CONFLICT`` (409).
    """
    current = trashed_get(model, owner=owner, obj_id=obj_id, not_found=f"{prefix}_NOT_FOUND")
    rows = trashed(model, owner=owner).filter(id=current.pk)
    if expected_version is not None:
        rows = rows.filter(version=expected_version)
    now = timezone.now()
    if rows.update(deleted_at=None, version=F("version") + 1, updated_at=now) == 0:
        latest = model._base_manager.filter(id=current.pk).values_list("version", flat=True).first()
        raise LightNoteError(
            f"{prefix}_VERSION_CONFLICT",
            status=409,
            params={"current_version": latest},
            extra={"current_version": latest},
        )
    return model._default_manager.get(pk=current.pk)


class LiveManager(models.Manager[Any]):
    """The default manager of a model with a trash: only rows not deleted."""

    def get_queryset(self) -> QuerySet[Any]:
        return super().get_queryset().filter(deleted_at__isnull=True)

    def create(self, **kwargs: Any) -> Any:
        """Insert one row, as ``QuerySet.create`` does, without first building the live
        filter's queryset (an INSERT reads nothing; measured ~0.1 ms per create)."""
        obj = self.model(**kwargs)
        using = self._db or router.db_for_write(self.model, **getattr(self, "_hints", {}))
        obj.save(force_insert=True, using=using)
        return obj
