"""DRF authentication that also resolves the admin read-only context.

After authentication ``request.user`` is the *subject* (whose data is read) and
``lightnote.context.actor_context(request)`` tells the actor and the context.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from lightnote.compiled_queries import STAND_IN_UUIDS, CompiledSelect
from lightnote.overlap import Prepared, during_next_query


class _WithActorContext:
    """Resolve the actor context, then run the admin read-only gate (``lightnote.readonly``):
    for DRF views this is the one place a write inside an admin context is refused."""

    runs_admin_gate = True

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        result = super().authenticate(request)  # type: ignore[misc]
        if result is None:
            return None
        from lightnote.context import resolve_actor_context
        from lightnote.readonly import admin_context_gate

        user, auth = result
        context = resolve_actor_context(request, user)
        admin_context_gate(request, context)
        return context.subject, auth


ANNOTATIONS_ATTRIBUTE = "lightnote_token_annotations"


@dataclass(frozen=True)
class TokenQueryExtension:
    """Expressions a view asks the token query to evaluate beside the token.

    ``build(value)`` returns them (``{name: Exists(...)}``...) for one ``value`` (a UUID, e.g.
    the body's session id); they may refer to the token's user as ``OuterRef("user_id")``.
    ``build`` must give the same query shape for every value: the query is compiled once per
    ``build`` (and database connection) and then run with each value.
    """

    build: Callable[[uuid.UUID], dict[str, Any]]
    value: uuid.UUID


# Stand-ins for the key and the value while the query is compiled
# (``lightnote.compiled_queries``). Never valid for a real request.
_STAND_IN_KEYS = (
    "lightnote-compiled-token-query-sentinel-key",
    "lightnote-compiled-token-query-sentinel-key-2",
)


@dataclass
class _CompiledTokenQuery:
    """The token query (the token, its user, the extension's expressions), compiled once:
    its SQL and parameters (:class:`~lightnote.compiled_queries.CompiledSelect`) and how a
    row becomes the token with its user and the extension's values."""

    select: CompiledSelect
    init_list: list[str]
    fields: tuple[int, int]
    populators: list[Any]
    annotation_col_map: dict[str, int]

    @classmethod
    def compile(cls, model: Any, alias: str, build: Callable[..., dict[str, Any]] | None) -> Any:
        from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

        def query(key: str, value: uuid.UUID | None = None) -> Any:
            queryset = model.objects.using(alias).select_related("user")
            if build is not None:
                queryset = queryset.annotate(**build(value))
            return queryset.filter(key=key)[:2]

        stand_ins: tuple[Any, ...] = _STAND_IN_KEYS[:1]
        other_stand_ins: tuple[Any, ...] = _STAND_IN_KEYS[1:]
        if build is not None:
            stand_ins += STAND_IN_UUIDS[:1]
            other_stand_ins += STAND_IN_UUIDS[1:]
        select = CompiledSelect.compile(
            query, alias=alias, stand_ins=stand_ins, other_stand_ins=other_stand_ins
        )
        if select is None:
            return None  # a shape that cannot be filled in: the caller uses the ORM
        compiler = select.compiler
        columns, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        return cls(
            select=select,
            init_list=[column[0].target.attname for column in columns[start:end]],
            fields=(start, end),
            populators=get_related_populators(klass_info, columns, alias),
            annotation_col_map=dict(compiler.annotation_col_map or {}),
        )

    def get(self, model: Any, key: str, value: uuid.UUID | None) -> Any:
        """Run the query for ``key`` (and ``value``); return the token (its user loaded) or
        None."""
        values = (key,) if value is None else (key, uuid.UUID(str(value)))
        for row in self.select.rows(*values):
            token = model.from_db(
                self.select.alias, self.init_list, row[self.fields[0] : self.fields[1]]
            )
            for populator in self.populators:
                populator.populate(row, token)
            for name, position in self.annotation_col_map.items():
                setattr(token, name, row[position])
            return token
        return None


def _compiled(model: Any, build: Callable[..., dict[str, Any]] | None) -> Any:
    """The compiled token query for ``build`` on this thread's connection (compiled once)."""
    alias = router.db_for_read(model)
    connection = connections[alias]  # per thread: its compiled queries are its own
    cache = connection.__dict__.setdefault("lightnote_token_queries", {})
    if build not in cache:
        cache[build] = _CompiledTokenQuery.compile(model, alias, build)
    return cache[build]


# Which user each token key named when it last authenticated, by the key's SHA-256: a
# hint for work a view may start while the token query runs (``token_query_work``), never
# an answer to "who is this". Bounded; the oldest hint goes first.
_HINTS_MAX = 10_000
_hints: dict[str, Any] = {}
_hints_lock = threading.Lock()


def _hint_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _remember_hint(hint_key: str, user_id: Any) -> None:
    if _hints.get(hint_key) == user_id:
        return
    with _hints_lock:
        while len(_hints) >= _HINTS_MAX:
            _hints.pop(next(iter(_hints)))
        _hints[hint_key] = user_id


class TokenAuthentication(_WithActorContext, authentication.TokenAuthentication):
    """``Authorization: Token <key>``.

    The token is looked up on every request (deleting it revokes at once). A view may ride
    on that one query: its ``token_query_annotations()`` returns a
    :class:`TokenQueryExtension` (or None) whose expressions (``Exists``...) are evaluated
    beside the token, per the token's ``user_id``; their values are left on the request
    (:func:`token_annotations`) instead of costing a query each.

    The query is compiled once per shape and thread (building and compiling it with the ORM
    cost several times what running it does) and run with each request's key and value.

    While it runs, a view may have work done that needs the user only as a guess: its
    ``token_query_work(user_id)`` gets the user this key named when it last authenticated in
    this process (when there is one) and returns a :class:`~lightnote.overlap.Prepared`
    (or None), which is prepared while the query is with the database (MariaDB). The view
    must check the guess against the authenticated user before using what it built.
    """

    extension: TokenQueryExtension | None = None
    annotated: dict[str, Any] | None = None
    work: Callable[[Any], Prepared[Any] | None] | None = None

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        view = (getattr(request, "parser_context", None) or {}).get("view")
        hook = getattr(view, "token_query_annotations", None)
        self.extension = hook() if hook else None
        self.work = getattr(view, "token_query_work", None)
        self.annotated = None
        result = super().authenticate(request)
        if result is not None and self.annotated is not None:
            setattr(getattr(request, "_request", request), ANNOTATIONS_ATTRIBUTE, self.annotated)
        return result

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model: Any = self.get_model()
        extension = self.extension
        build = extension.build if extension is not None else None
        compiled = _compiled(model, build)
        names: list[str] = []
        hint_key = _hint_key(key)
        guess = _hints.get(hint_key) if self.work is not None else None
        work = self.work(guess) if self.work is not None and guess is not None else None
        if compiled is not None:
            with during_next_query(work, using=compiled.select.alias):
                token = compiled.get(model, key, extension.value if extension else None)
            names = list(compiled.annotation_col_map)
        else:  # a shape the cache cannot fill in (none this project uses)
            queryset = model.objects.select_related("user")
            if extension is not None:
                annotations = extension.build(extension.value)
                queryset = queryset.annotate(**annotations)
                names = list(annotations)
            token = queryset.filter(key=key).first()
        if token is None:
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        _remember_hint(hint_key, token.user_id)
        if extension is not None:
            self.annotated = {name: getattr(token, name) for name in names}
            self.annotated["user_id"] = token.user_id
        return token.user, token


def token_annotations(request: Any) -> dict[str, Any]:
    """The values a view's ``token_query_annotations()`` got from this request's token query
    (with the token's ``user_id``); empty when the request was not authenticated that way."""
    django_request = getattr(request, "_request", request)
    return getattr(django_request, ANNOTATIONS_ATTRIBUTE, None) or {}


class SessionAuthentication(_WithActorContext, authentication.SessionAuthentication):
    """Django session + CSRF, for the browser."""
