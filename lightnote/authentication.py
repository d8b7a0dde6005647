"""DRF authentication that also resolves the admin read-only context.

After authentication ``request.user`` is the *subject* (whose data is read) and
``lightnote.context.actor_context(request)`` tells the actor and the context.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connections, router
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions


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


# Stand-ins for the values while a query is compiled: each is then found among the compiled
# parameters, so a request's own values take their places. Never valid for a real request.
_SENTINEL_VALUE = uuid.UUID("5e771e15-0b5e-4c0d-9a11-7e5700000000")
_OTHER_SENTINEL_VALUE = uuid.UUID("5e771e15-0b5e-4c0d-9a11-7e5700000001")
_SENTINEL_KEY = "lightnote-compiled-token-query-sentinel-key"
_VALUE_FORMS: tuple[Callable[[uuid.UUID], Any], ...] = (
    lambda value: value,
    str,
    lambda value: value.hex,
)


@dataclass
class _CompiledTokenQuery:
    """The token query (the token, its user, the extension's expressions), compiled once.

    ``slots`` says where each SQL parameter comes from: the key, the extension's value (in
    the form the backend was given it) or a constant of the query.
    """

    alias: str
    sql: str
    slots: list[tuple[str, Any]]
    compiler: Any
    init_list: list[str]
    fields: tuple[int, int]
    populators: list[Any]
    annotation_col_map: dict[str, int]

    @classmethod
    def compile(cls, model: Any, alias: str, build: Callable[..., dict[str, Any]] | None) -> Any:
        from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

        def compiled(value: uuid.UUID) -> tuple[Any, str, list[Any]]:
            queryset = model.objects.using(alias).select_related("user")
            if build is not None:
                queryset = queryset.annotate(**build(value))
            compiler = queryset.filter(key=_SENTINEL_KEY)[:2].query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
            return compiler, sql, list(params)

        compiler, sql, params = compiled(_SENTINEL_VALUE)
        slots: list[tuple[str, Any]] = []
        for param in params:
            if param == _SENTINEL_KEY:
                slots.append(("key", None))
                continue
            form = next(
                (
                    f
                    for f in _VALUE_FORMS
                    if type(param) is type(f(_SENTINEL_VALUE)) and param == f(_SENTINEL_VALUE)
                ),
                None,
            )
            slots.append(("value", form) if form is not None else ("constant", param))
        # Compiled again with another value, everything but the value slots must stay the
        # same; a value that reaches the SQL in any other way cannot be filled in.
        _, other_sql, other_params = compiled(_OTHER_SENTINEL_VALUE)
        fillable = (
            other_sql == sql
            and len(other_params) == len(slots)
            and all(
                other
                == (
                    _SENTINEL_KEY
                    if kind == "key"
                    else how(_OTHER_SENTINEL_VALUE)
                    if kind == "value"
                    else how
                )
                for (kind, how), other in zip(slots, other_params, strict=True)
            )
            and sum(kind == "key" for kind, _ in slots) == 1
        )
        if not fillable:
            return None  # a shape this cache cannot fill in: the caller uses the ORM
        select, klass_info = compiler.select, compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        return cls(
            alias=alias,
            sql=sql,
            slots=slots,
            compiler=compiler,
            init_list=[column[0].target.attname for column in select[start:end]],
            fields=(start, end),
            populators=get_related_populators(klass_info, select, alias),
            annotation_col_map=dict(compiler.annotation_col_map or {}),
        )

    def get(self, model: Any, key: str, value: uuid.UUID | None) -> Any:
        """Run the query for ``key`` (and ``value``); return the token (its user loaded) or
        None."""
        params = [
            key if kind == "key" else how(value) if kind == "value" else how
            for kind, how in self.slots
        ]
        with connections[self.alias].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        for row in self.compiler.results_iter([rows]):
            token = model.from_db(self.alias, self.init_list, row[self.fields[0] : self.fields[1]])
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


class TokenAuthentication(_WithActorContext, authentication.TokenAuthentication):
    """``Authorization: Token <key>``.

    The token is looked up on every request (deleting it revokes at once). A view may ride
    on that one query: its ``token_query_annotations()`` returns a
    :class:`TokenQueryExtension` (or None) whose expressions (``Exists``...) are evaluated
    beside the token, per the token's ``user_id``; their values are left on the request
    (:func:`token_annotations`) instead of costing a query each.

    The query is compiled once per shape and thread (building and compiling it with the ORM
    cost several times what running it does) and run with each request's key and value.
    """

    extension: TokenQueryExtension | None = None
    annotated: dict[str, Any] | None = None

    def authenticate(self, request: Any) -> tuple[Any, Any] | None:
        view = (getattr(request, "parser_context", None) or {}).get("view")
        hook = getattr(view, "token_query_annotations", None)
        self.extension = hook() if hook else None
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
        if compiled is not None:
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
