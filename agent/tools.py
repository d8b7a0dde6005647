"""The tool base, the tool registry and the helpers tools share.

A tool is a thin adapter between a model's proposal and a domain service: a closed JSON
Schema, an alias table, ``normalize``, ``prepare`` (server-side parsing and state checks),
``preview`` (the card, from prepared args only), ``execute`` (calls the service) and
``transform``. Domain apps declare their tools in ``<app>/agent_tools.py``; ``AgentConfig.ready``
imports those modules and validates the registry against the capability table, so this
module knows no domain app.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar
from zoneinfo import ZoneInfo

from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agent.capabilities import (
    CAPABILITIES,
    CONFIRMATION_NONE,
    ENABLED,
    WRITE,
    Capability,
    capability_by_id,
    capability_for_unknown_tool,
)
from lightnote.errors import LightNoteError
from lightnote.i18n import DEFAULT_LOCALE, LOCALES, define_messages, normalize_locale, translate

if TYPE_CHECKING:
    from lightnote.models import User

LOCALE_ZH = "zh-CN"
LOCALE_EN = "en"

UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# A prepared time is always concrete and carries its offset (never naive, never "Z"-less UTC).
AWARE_ISO_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$"


# --- context and results ---------------------------------------------------------------


@dataclass(frozen=True)
class ToolContext:
    """Who runs a tool, on whose data, where and when.

    ``actor`` sent the request; ``subject`` owns the data. They differ only inside an admin
    read-only context. ``zone`` is the subject's time zone: every due time is prepared and
    shown in it. ``now`` is explicit so preparation and previews are reproducible.
    """

    actor: User
    subject: User
    session_id: str | None
    locale: str
    now: datetime
    zone: ZoneInfo
    admin_context_id: str | None = None
    admin_mode: str | None = None
    request_id: str = ""

    @classmethod
    def from_actor_context(
        cls,
        actor_context: Any,
        *,
        session_id: Any,
        locale: str | None,
        now: datetime | None = None,
        request_id: str = "",
    ) -> ToolContext:
        """Build a context from ``lightnote.context.ActorContext``."""
        subject = actor_context.subject
        return cls(
            actor=actor_context.actor,
            subject=subject,
            session_id=str(session_id) if session_id is not None else None,
            locale=normalize_locale(locale) or DEFAULT_LOCALE,
            now=now or timezone.now(),
            zone=ZoneInfo(subject.time_zone),
            admin_context_id=actor_context.admin_context_id,
            admin_mode=actor_context.admin_mode,
            request_id=request_id,
        )


@dataclass(frozen=True)
class ExecutionResult:
    """What a write did: the resource it touched and a JSON-safe description of it."""

    resource_type: str
    resource_id: str
    summary: str
    data: dict[str, Any]


@dataclass(frozen=True)
class ReadResult:
    summary: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Compensation:
    """How to take back a succeeded write: a proposal for ``tool``, version-checked.

    ``args`` are raw proposal args (prepared through the tool policy like any proposal);
    ``version`` is the item's version the write left behind: the undo is refused unless the
    item is still at it when prepared, and its execution checks it again.
    """

    tool: str
    args: dict[str, Any]
    version: int


# --- schema helpers ----------------------------------------------------------------------


def closed_object(
    properties: dict[str, Any], *, required: tuple[str, ...] = (), **keywords: Any
) -> dict[str, Any]:
    """Return an object schema that rejects every property it does not name."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    schema.update(keywords)
    return schema


def exactly_one_of(*names: str) -> dict[str, Any]:
    """Return the keyword that makes exactly one of ``names`` required."""
    return {"oneOf": [{"required": [name]} for name in names]}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _schema_objects(schema: Any) -> list[dict[str, Any]]:
    """Return every object schema nested in ``schema`` (properties, items, combinators)."""
    found: list[dict[str, Any]] = []
    if not isinstance(schema, dict):
        return found
    if schema.get("type") == "object" or "properties" in schema:
        found.append(schema)
    for child in (schema.get("properties") or {}).values():
        found.extend(_schema_objects(child))
    found.extend(_schema_objects(schema.get("items")))
    for keyword in ("oneOf", "anyOf", "allOf"):
        for child in schema.get(keyword) or []:
            if isinstance(child, dict) and ("properties" in child or "type" in child):
                found.extend(_schema_objects(child))
    return found


# One validator per schema object: tools' schemas are class constants, and building a
# validator (its reference resolver) costs more than the validation itself. Keyed by the
# object's id, holding the object, so an id is never reused while cached; bounded in case a
# caller passes schemas built on the fly.
_validators: dict[int, tuple[dict[str, Any], Draft202012Validator]] = {}
_VALIDATORS_MAX = 256


def _validator(schema: dict[str, Any]) -> Draft202012Validator:
    cached = _validators.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    if len(_validators) >= _VALIDATORS_MAX:
        _validators.clear()
    validator = Draft202012Validator(schema)
    _validators[id(schema)] = (schema, validator)
    return validator


def schema_violations(schema: dict[str, Any], instance: Any) -> dict[str, list[str]]:
    """Validate ``instance`` and return ``{property: [reason, ...]}`` (empty when valid).

    Reasons are stable words, not prose: ``unknown`` (not in the closed schema), ``required``,
    ``one_of`` (name exactly one of these), ``invalid`` (wrong type or value).
    """
    violations: dict[str, list[str]] = {}

    def add(name: str, reason: str) -> None:
        reasons = violations.setdefault(name or "$", [])
        if reason not in reasons:
            reasons.append(reason)

    for error in _validator(schema).iter_errors(instance):
        prefix = ".".join(str(part) for part in error.absolute_path)
        dotted = (prefix + ".") if prefix else ""
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = set(error.schema.get("properties") or {})
            for name in error.instance:
                if name not in known:
                    add(dotted + str(name), "unknown")
        elif error.validator == "required" and isinstance(error.instance, dict):
            for name in error.validator_value:
                if name not in error.instance:
                    add(dotted + name, "required")
        elif error.validator in ("oneOf", "anyOf") and isinstance(error.instance, dict):
            for option in error.validator_value:
                for name in option.get("required", []):
                    add(dotted + name, "one_of")
        else:
            add(prefix, "invalid")
    return violations


def args_invalid(fields: dict[str, list[str]]) -> LightNoteError:
    """Return the 400 ``TOOL_ARGS_INVALID`` error listing the offending properties."""
    return LightNoteError(
        "TOOL_ARGS_INVALID", params={"fields": ", ".join(sorted(fields))}, extra={"fields": fields}
    )


# --- shared formatting -------------------------------------------------------------------


def parse_aware(value: str) -> datetime:
    """Return the aware datetime of a prepared ISO string (always carries an offset)."""
    return datetime.fromisoformat(value)


def format_local_time(value: str | datetime, zone: ZoneInfo) -> str:
    """Render a time in ``zone`` with the zone's name: ``2026-12-02 21:00 (Asia/Shanghai)``."""
    moment = parse_aware(value) if isinstance(value, str) else value
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key})"


def excerpt(text: str, limit: int = 120) -> str:
    """Return ``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def detail(key: str, label: str, value: str, **more: Any) -> dict[str, Any]:
    """Return one preview detail row."""
    return {"key": key, "label": label, "value": value, **more}


def text(code: str, locale: str, **params: Any) -> str:
    """Render a registered text (a thin alias that reads well in preview builders)."""
    return translate(code, locale, **params)


def list_separator(locale: str) -> str:
    """Return the separator of an inline list: ``、`` in Chinese, ``, `` in English."""
    return "、" if locale == LOCALE_ZH else ", "


def joined(items: Iterable[str], locale: str) -> str:
    """Join ``items`` as an inline list in ``locale``."""
    return list_separator(locale).join(items)


def change_detail(key: str, label: str, current: str, new: str, locale: str) -> dict[str, Any]:
    """Return the preview row of one changed field: ``current → new``, both also apart."""
    arrow = text("TOOL_CHANGE_ARROW", locale, current=current, new=new)
    return detail(key, label, arrow, current=current, new=new)


def update_preview(
    *,
    title_code: str,
    impact_code: str,
    target: str,
    changed_labels: Sequence[str],
    details: list[dict[str, Any]],
    locale: str,
) -> dict[str, Any]:
    """Return the card of an update: which item, how many fields change, and each change."""
    return {
        "title": text(title_code, locale),
        "target": target,
        "impact": text(
            impact_code,
            locale,
            title=target,
            count=len(changed_labels),
            fields=joined(changed_labels, locale),
        ),
        "details": details,
    }


class _Page(Protocol):
    def __getitem__(self, key: slice) -> Any: ...

    def count(self) -> int: ...


def first_page(rows: _Page, limit: int) -> tuple[list[Any], int]:
    """Return the first ``limit`` rows and the total (counted only when the page is full)."""
    items = list(rows[:limit])
    total = len(items) if len(items) < limit else rows.count()
    return items, total


_Item = TypeVar("_Item")


def resolve_by_id_or_title(
    args: dict[str, Any],
    *,
    kind: str,
    get: Callable[[Any], _Item],
    find: Callable[[str], Sequence[_Item]],
    candidate: Callable[[_Item], dict[str, Any]],
) -> _Item:
    """Return the one item named by ``<kind>_id`` or by exact ``<kind>_title``.

    ``get`` looks an id up among the subject's items (and raises its own 404); ``find``
    returns the subject's items with exactly this title. No match -> 404
    ``<KIND>_NOT_FOUND``; several -> 409 ``<KIND>_TITLE_AMBIGUOUS`` listing ``candidate(item)``
    for each, so the user can say which one.
    """
    if f"{kind}_id" in args:
        return get(args[f"{kind}_id"])
    title = " ".join(args[f"{kind}_title"].split())
    matches = find(title) if title else []
    if not matches:
        raise LightNoteError(f"{kind.upper()}_NOT_FOUND", status=404)
    if len(matches) > 1:
        raise LightNoteError(
            f"{kind.upper()}_TITLE_AMBIGUOUS",
            status=409,
            params={"count": len(matches), "title": title},
            extra={"candidates": [candidate(item) for item in matches]},
        )
    return matches[0]


def strip_text(value: Any) -> Any:
    """Trim a string; leave anything else for the schema to judge."""
    return value.strip() if isinstance(value, str) else value


def digits_to_int(value: Any) -> Any:
    """Turn ``"12"`` into ``12``; leave anything else for the schema to judge."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return value


# Aliases every read tool accepts for its search words and its page size.
KEYWORD_ALIASES = {"query": "keyword", "q": "keyword", "search": "keyword", "keywords": "keyword"}
LIMIT_ALIASES = {
    "max": "limit",
    "maxResults": "limit",
    "max_results": "limit",
    "count": "limit",
    "top": "limit",
}


define_messages(
    {
        "TOOL_ARGS_INVALID": (
            "工具参数不合法：{fields}。",
            "The tool arguments are not valid: {fields}.",
        ),
        "TOOL_VALUE_NOT_SET": ("未设置", "Not set"),
        "TOOL_VALUE_NONE": ("无", "None"),
        "TOOL_CHANGE_ARROW": ("{current} → {new}", "{current} → {new}"),
    }
)


# --- the tool base -----------------------------------------------------------------------

# A value normaliser returns this to drop the property (e.g. an empty optional string).
DROP: Any = object()


class Tool:
    """Base of every agent tool; subclasses set the class attributes and override methods.

    ``schema`` is the closed schema of NORMALISED raw args (what the model may send, after
    aliases). ``prepared_schema`` is the closed schema of PREPARED args: what the card shows,
    what the args binding covers, and what is validated again before execution.
    """

    name: ClassVar[str] = ""
    capability_id: ClassVar[str] = ""
    # Derived from the capability table when a subclass names its capability (see
    # ``__init_subclass__``); a tool never restates them, and the registry refuses one that
    # sets them differently.
    is_write: ClassVar[bool] = False
    risk: ClassVar[str | None] = None
    confirmation: ClassVar[str] = CONFIRMATION_NONE
    description: ClassVar[dict[str, str]] = {}
    schema: ClassVar[dict[str, Any]] = {}
    prepared_schema: ClassVar[dict[str, Any]] = {}
    # Roles that may use the tool (see ``user_roles``); a hook for staff-only tools later.
    allowed_roles: ClassVar[frozenset[str]] = frozenset({"user"})
    # Declared aliases; ``self.aliases`` adds the camelCase form of every canonical property.
    declared_aliases: ClassVar[dict[str, str]] = {}
    # Properties whose explicit ``null`` means something (e.g. "clear the due time").
    nullable: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        capability = capability_by_id(cls.capability_id) if cls.capability_id else None
        if capability is None or capability.status != ENABLED:
            return  # the registry refuses such a tool with the reason
        derived = {
            "is_write": capability.is_write,
            "risk": capability.risk,
            "confirmation": capability.confirmation or CONFIRMATION_NONE,
        }
        for attribute, value in derived.items():
            if attribute not in cls.__dict__:
                setattr(cls, attribute, value)

    def __init__(self) -> None:
        properties = self.schema.get("properties", {})
        camel = {_camel(name): name for name in properties if _camel(name) != name}
        self.aliases: dict[str, str] = {**camel, **self.declared_aliases}

    def __repr__(self) -> str:
        return f"<Tool {self.name}>"

    # Normalisation ------------------------------------------------------------------

    def normalize(self, raw: dict[str, Any]) -> dict[str, Any]:
        """Map aliases to canonical names and normalise values; unknown keys pass through.

        Unknown keys are kept on purpose: the closed schema rejects them next, so nothing
        unknown (``userId``, ``skipConfirmation``) is silently dropped or carried along.
        """
        if not isinstance(raw, dict):
            raise args_invalid({"$": ["invalid"]})
        canonical: dict[str, Any] = {}
        sources: dict[str, str] = {}
        conflicts: dict[str, list[str]] = {}
        properties = self.schema.get("properties", {})
        for key, value in raw.items():
            name = key if key in properties else self.aliases.get(key, key)
            if name in canonical and canonical[name] != value:
                conflicts[key] = ["duplicate"]
                conflicts[sources[name]] = ["duplicate"]
                continue
            canonical[name] = value
            sources[name] = key
        if conflicts:
            raise args_invalid(conflicts)
        normalized: dict[str, Any] = {}
        for name, value in canonical.items():
            if value is None and name in properties and name not in self.nullable:
                continue  # models send null for "not given"
            if name in properties:
                value = self.normalize_value(name, value)
            if value is not DROP:
                normalized[name] = value
        return normalized

    def normalize_value(self, name: str, value: Any) -> Any:
        """Return the canonical form of one value (override per tool); ``DROP`` removes it."""
        return value

    # Behaviour ----------------------------------------------------------------------

    def prepare(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Return the JSON-safe prepared args a card shows and execution runs (writes)."""
        return dict(args)

    def preview(self, prepared: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Return the card ``{"title","target","impact","details"}`` (writes)."""
        raise NotImplementedError

    def execute(self, prepared: dict[str, Any], context: ToolContext) -> ExecutionResult:
        """Perform the write through the domain service, as ``context.subject``."""
        raise NotImplementedError

    def compensation(self, prepared: dict[str, Any], result: dict[str, Any]) -> Compensation | None:
        """Return how to undo this write, from its prepared args and its receipt's result.

        None: this tool's writes cannot be undone (the default).
        """
        return None

    def run(self, args: dict[str, Any], context: ToolContext) -> ReadResult:
        """Answer a read through the selectors, for ``context.subject``."""
        raise NotImplementedError

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        """Return the one-line (or short) text describing a result's ``data``."""
        raise NotImplementedError

    def read_result(self, data: dict[str, Any], context: ToolContext) -> ReadResult:
        """Return a read's result: ``data`` and its summary in the context's language."""
        return ReadResult(summary=self.summarize(data, context.locale), data=data)

    def reply_code(self, data: dict[str, Any]) -> str | None:
        """Return the text code of the offline final reply for a success with ``data``.

        The text may use ``{title}``, ``{due}`` (the due time in the user's zone) and
        ``{summary}``; None means the generic "Done: {summary}".
        """
        return None

    def transform(self, result: ExecutionResult | ReadResult, locale: str) -> str:
        """Return the text the conversation shows for a result, in ``locale``."""
        return self.summarize(result.data, normalize_locale(locale) or DEFAULT_LOCALE)

    def openai_spec(self, locale: str = LOCALE_EN) -> dict[str, Any]:
        """Return this tool as an OpenAI function spec (name = tool name)."""
        # Top-level combinators (oneOf "todo_id | todo_title") are enforced by the server's
        # validation; several OpenAI-compatible servers refuse them in `parameters`.
        parameters = {
            key: value
            for key, value in self.schema.items()
            if key not in ("oneOf", "anyOf", "allOf", "$schema")
        }
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description.get(locale) or self.description[LOCALE_EN],
                "parameters": parameters,
            },
        }


class WriteTool(Tool):
    """Base of a write tool: its results name a resource of ``resource_type``."""

    resource_type: ClassVar[str] = ""

    def write_result(self, data: dict[str, Any], context: ToolContext) -> ExecutionResult:
        """Return a write's result for the resource ``data["id"]``, with its summary."""
        return ExecutionResult(
            resource_type=self.resource_type,
            resource_id=data["id"],
            summary=self.summarize(data, context.locale),
            data=data,
        )


def user_roles(user: User) -> frozenset[str]:
    """Return the roles a user holds for tool access."""
    roles = {"user"}
    if user.is_staff:
        roles.add("staff")
    if user.is_superuser:
        roles.add("superuser")
    return frozenset(roles)


# --- the registry ------------------------------------------------------------------------


class ToolRegistry:
    """Tools by name, validated against the capability table as they register."""

    def __init__(self, capabilities: tuple[Capability, ...] = CAPABILITIES) -> None:
        self._capabilities = {capability.id: capability for capability in capabilities}
        self._tools: dict[str, Tool] = {}

    def capability(self, capability_id: str) -> Capability | None:
        return self._capabilities.get(capability_id)

    def register(self, tool: Tool | type[Tool]) -> Any:
        """Validate and add a tool (an instance or a class); usable as a class decorator.

        Raises ``ImproperlyConfigured`` so a misdeclared tool stops the app from starting.
        """
        instance = tool() if isinstance(tool, type) else tool
        self._validate(instance)
        existing = self._tools.get(instance.name)
        if existing is not None and type(existing) is not type(instance):
            raise ImproperlyConfigured(f"tool {instance.name!r} is registered twice")
        self._tools[instance.name] = instance
        return tool

    def _validate(self, tool: Tool) -> None:
        name = tool.name
        if not name or not re.fullmatch(r"[a-z][a-z0-9_]{0,63}", name):
            raise ImproperlyConfigured(f"tool name {name!r} is not a valid function name")
        capability = next(
            (cap for cap in self._capabilities.values() if cap.tool == name), None
        ) or self._capabilities.get(tool.capability_id)
        if capability is None:
            intended = capability_for_unknown_tool(name)
            if intended is not None:
                capability = intended  # refused just below: it is planned or forbidden
            else:
                kind = "write tool" if tool.is_write else "tool"
                raise ImproperlyConfigured(
                    f"{kind} {name!r} has no capability in the registry: declare it first"
                )
        if capability.status != ENABLED:
            raise ImproperlyConfigured(
                f"tool {name!r}: capability {capability.id!r} is {capability.status} and may "
                "not have a tool"
            )
        if tool.capability_id != capability.id or capability.tool != name:
            raise ImproperlyConfigured(
                f"tool {name!r} declares capability {tool.capability_id!r}, but the registry "
                f"gives {capability.id!r} to tool {capability.tool!r}"
            )
        if tool.is_write != (capability.kind == WRITE):
            raise ImproperlyConfigured(
                f"tool {name!r}: read/write kind differs from capability {capability.id!r}"
            )
        if tool.is_write and tool.confirmation == CONFIRMATION_NONE:
            raise ImproperlyConfigured(f"write tool {name!r} may not switch confirmation off")
        if tool.risk != capability.risk:
            raise ImproperlyConfigured(
                f"tool {name!r}: risk {tool.risk!r} differs from the registry's {capability.risk!r}"
            )
        if tool.confirmation != capability.confirmation:
            raise ImproperlyConfigured(
                f"tool {name!r}: confirmation {tool.confirmation!r} differs from the "
                f"registry's {capability.confirmation!r}"
            )
        self._validate_schemas(tool)
        if set(tool.description) != set(LOCALES):
            raise ImproperlyConfigured(f"tool {name!r} needs a description in {LOCALES}")

    @staticmethod
    def _validate_schemas(tool: Tool) -> None:
        pairs = [("schema", tool.schema)]
        if tool.is_write:
            pairs.append(("prepared_schema", tool.prepared_schema))
        for label, schema in pairs:
            try:
                Draft202012Validator.check_schema(schema)
            except SchemaError as error:
                raise ImproperlyConfigured(
                    f"tool {tool.name!r}: {label} is not valid: {error.message}"
                ) from None
            if schema.get("type") != "object":
                raise ImproperlyConfigured(f"tool {tool.name!r}: {label} must be an object")
            for node in _schema_objects(schema):
                if node.get("additionalProperties") is not False:
                    raise ImproperlyConfigured(
                        f"tool {tool.name!r}: every object in {label} must set "
                        "additionalProperties: false"
                    )
        properties = set(tool.schema.get("properties", {}))
        for alias, target in tool.aliases.items():
            if target not in properties or alias in properties:
                raise ImproperlyConfigured(
                    f"tool {tool.name!r}: alias {alias!r} -> {target!r} must map a "
                    "non-canonical key to a canonical property"
                )

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name) if isinstance(name, str) else None

    def tools(self) -> list[Tool]:
        """Return the tools a planner or MCP client may use (internal ones left out)."""
        return [tool for tool in self._tools.values() if not self.is_internal(tool.name)]

    def all_tools(self) -> list[Tool]:
        """Return every registered tool, internal (compensation-only) ones included."""
        return list(self._tools.values())

    def is_internal(self, name: str) -> bool:
        """Return True for a compensation-only tool (see ``Capability.internal``)."""
        tool = self._tools.get(name) if isinstance(name, str) else None
        capability = self._capabilities.get(tool.capability_id) if tool else None
        return bool(capability and capability.internal)

    def validate_complete(self) -> None:
        """Refuse to start unless every enabled capability has its registered tool."""
        missing = [
            capability.id
            for capability in self._capabilities.values()
            if capability.status == ENABLED and capability.tool not in self._tools
        ]
        if missing:
            raise ImproperlyConfigured(
                "enabled capabilities without a registered tool: " + ", ".join(sorted(missing))
            )

    def openai_tools(self, *, include_writes: bool, locale: str = LOCALE_EN) -> list[dict]:
        """Return OpenAI function specs; their names are exactly the tool names."""
        return [
            tool.openai_spec(locale) for tool in self.tools() if include_writes or not tool.is_write
        ]

    def read_tool_names(self) -> frozenset[str]:
        return frozenset(tool.name for tool in self.tools() if not tool.is_write)


registry = ToolRegistry()
