"""Tool argument schemas: closed objects, validation into stable reasons, value coercions."""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from agent.tools.schema_check import Check, compile_check
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import define_messages

UUID_PATTERN = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
# A prepared time is always concrete and carries its offset (never naive, never "Z"-less UTC).
AWARE_ISO_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$"
# A prepared item id and the version a write expects it at.
UUID_SCHEMA: dict[str, Any] = {"type": "string", "pattern": UUID_PATTERN}
VERSION_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 1}


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


def snapshot_schema(id_key: str, current: dict[str, Any]) -> dict[str, Any]:
    """Return the prepared schema of a write on one whole item: its id, version, present values."""
    return closed_object(
        {id_key: UUID_SCHEMA, "expected_version": VERSION_SCHEMA, "current": current},
        required=(id_key, "expected_version", "current"),
    )


def exactly_one_of(*names: str) -> dict[str, Any]:
    """Return the keyword that makes exactly one of ``names`` required."""
    return {"oneOf": [{"required": [name]} for name in names]}


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def schema_objects(schema: Any) -> list[dict[str, Any]]:
    """Return every object schema nested in ``schema`` (properties, items, combinators)."""
    found: list[dict[str, Any]] = []
    if not isinstance(schema, dict):
        return found
    if schema.get("type") == "object" or "properties" in schema:
        found.append(schema)
    for child in (schema.get("properties") or {}).values():
        found.extend(schema_objects(child))
    found.extend(schema_objects(schema.get("items")))
    for keyword in ("oneOf", "anyOf", "allOf"):
        for child in schema.get(keyword) or []:
            if isinstance(child, dict) and ("properties" in child or "type" in child):
                found.extend(schema_objects(child))
    return found


# One validator per schema object: tools' schemas are class constants, and building a
# validator (its reference resolver) costs more than the validation itself. Keyed by the
# object's id, holding the object, so an id is never reused while cached; bounded in case a
# caller passes schemas built on the fly. Beside each validator, the schema compiled into
# one yes/no check (``schema_check``; ``None`` for a schema it does not reproduce): valid
# args, the case on every card issue and confirm, never reach jsonschema.
_Compiled = tuple[dict[str, Any], Draft202012Validator, Check | None]
_validators: dict[int, _Compiled] = {}
_VALIDATORS_MAX = 256


def _validator(schema: dict[str, Any]) -> _Compiled:
    cached = _validators.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached
    if len(_validators) >= _VALIDATORS_MAX:
        _validators.clear()
    compiled = (schema, Draft202012Validator(schema), compile_check(schema))
    _validators[id(schema)] = compiled
    return compiled


def schema_violations(schema: dict[str, Any], instance: Any) -> dict[str, list[str]]:
    """Validate ``instance`` and return ``{property: [reason, ...]}`` (empty when valid).

    Reasons are stable words, not prose: ``unknown`` (not in the closed schema), ``required``,
    ``one_of`` (name exactly one of these), ``invalid`` (wrong type or value).
    """
    _, validator, check = _validator(schema)
    if check is not None and check(instance):
        return {}
    violations: dict[str, list[str]] = {}

    def add(name: str, reason: str) -> None:
        reasons = violations.setdefault(name or "$", [])
        if reason not in reasons:
            reasons.append(reason)

    for error in validator.iter_errors(instance):
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
    }
)
