"""Transactions of domain services, and the one durable transaction that may hold them.

A domain service is ``@service_atomic``: on its own it is one transaction, and inside a
caller's transaction it is a savepoint, so a caller can catch its failure and go on. Inside
:func:`durable_atomic` it opens no savepoint: that block is one all-or-nothing unit (the
agent's change, its receipt and its audit rows), any failure in it rolls all of it back,
and a SAVEPOINT/RELEASE pair per service would be two statements spent on nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps
from typing import Any, TypeVar

from django.db import transaction

_in_durable: ContextVar[bool] = ContextVar("lightnote_in_durable_atomic", default=False)

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def durable_atomic() -> Iterator[None]:
    """``transaction.atomic(durable=True)``, inside which services add no savepoints.

    Nothing may catch an error raised inside the block and go on using the database in it:
    the whole block is rolled back (which is what its callers want).
    """
    token = _in_durable.set(True)
    try:
        with transaction.atomic(durable=True):
            yield
    finally:
        _in_durable.reset(token)


def service_atomic(func: F) -> F:
    """Run ``func`` atomically: its own transaction or savepoint, none inside ``durable_atomic``."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with transaction.atomic(savepoint=not _in_durable.get()):
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
