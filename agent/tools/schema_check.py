"""A tool schema compiled into one predicate: "does jsonschema find nothing wrong here?".

Every card issue validates its args twice (the model's args, the prepared args) and every
confirm once more; ``jsonschema`` walks the schema on each call (about 45 µs for a todo's
prepared args, measured on the 2026-12-05 machine). :func:`compile_check` turns a schema
into nested closures that answer the same yes/no in a few µs. It only says *valid*: the
errors, and their stable reasons, still come from ``jsonschema``
(:func:`agent.tools.schema.schema_violations` runs it whenever the check says no).

The check is exact for the keywords it knows, as ``Draft202012Validator`` without a format
checker reads them (jsonschema 4.x): ``type`` (one name or a list; ``integer`` takes a float
with an integral value, ``boolean`` is never a number), ``enum`` of strings, numbers and
null (``True`` is not ``1``), ``properties``, ``required``, ``additionalProperties``
(``False`` or a schema), ``pattern`` (``re.search``), ``minLength`` / ``maxLength`` (code
points), ``minimum`` / ``maximum``, ``items`` (one schema for every item), ``minItems`` /
``maxItems``, ``oneOf`` / ``anyOf`` / ``allOf`` and the annotations (``description``,
``title``, ``default``, ``examples``, ``$comment``, and ``format``, which asserts nothing
without a format checker). A schema using any other keyword anywhere compiles to ``None``:
jsonschema alone judges it. ``tests/test_schema_check.py`` compares the two on generated
instances for every registered tool's schemas.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment", "format"})
_KNOWN = _ANNOTATIONS | {
    "type",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "items",
    "minItems",
    "maxItems",
    "oneOf",
    "anyOf",
    "allOf",
}


class Unsupported(Exception):
    """The schema uses something the check does not reproduce exactly."""


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Number)


_TYPES: dict[str, Check] = {
    "array": lambda value: isinstance(value, list),
    "boolean": lambda value: isinstance(value, bool),
    "integer": _is_integer,
    "null": lambda value: value is None,
    "number": _is_number,
    "object": lambda value: isinstance(value, dict),
    "string": lambda value: isinstance(value, str),
}


def compile_check(schema: Any) -> Check | None:
    """Return a predicate true exactly when ``schema`` accepts an instance, or ``None``
    when the schema uses a keyword the predicate does not reproduce."""
    try:
        return _compile(schema)
    except Unsupported:
        return None


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda value: True
    if schema is False:
        return lambda value: False
    if not isinstance(schema, dict):
        raise Unsupported(repr(schema))
    unknown = set(schema) - _KNOWN
    if unknown:
        raise Unsupported(", ".join(sorted(unknown)))
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type_check(schema["type"]))
    if "enum" in schema:
        checks.append(_enum_check(schema["enum"]))
    checks.extend(_string_checks(schema))
    checks.extend(_number_checks(schema))
    checks.extend(_array_checks(schema))
    checks.extend(_object_checks(schema))
    for keyword in ("allOf", "anyOf", "oneOf"):
        if keyword in schema:
            checks.append(_combinator_check(keyword, schema[keyword]))
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _type_check(types: Any) -> Check:
    names = [types] if isinstance(types, str) else types
    if not isinstance(names, list) or not names or any(name not in _TYPES for name in names):
        raise Unsupported(f"type {types!r}")
    tests = [_TYPES[name] for name in names]
    if len(tests) == 1:
        return tests[0]
    return lambda value: any(test(value) for test in tests)


def _enum_check(values: Any) -> Check:
    # jsonschema's ``equal``: ``True`` and ``1`` differ, ``1`` and ``1.0`` do not.
    if not isinstance(values, list) or any(
        not (value is None or isinstance(value, str) or _is_number(value)) for value in values
    ):
        raise Unsupported("enum")
    allowed = list(values)

    def check(value: Any) -> bool:
        # Booleans, arrays and objects equal none of them (``_is_number`` excludes bool).
        if not (value is None or isinstance(value, str) or _is_number(value)):
            return False
        return any(value is each or value == each for each in allowed)

    return check


def _string_checks(schema: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "pattern" in schema:
        search = re.compile(schema["pattern"]).search
        checks.append(lambda value: not isinstance(value, str) or search(value) is not None)
    return checks + _length_checks(schema, str, "minLength", "maxLength")


def _length_checks(
    schema: dict[str, Any], kind: type[str] | type[list[Any]], least_keyword: str, most_keyword: str
) -> list[Check]:
    """``minLength``/``maxLength`` (code points of a string) or ``minItems``/``maxItems``
    (items of an array): bounds on ``len``, ignoring values of any other type."""
    checks: list[Check] = []
    if least_keyword in schema:
        least = _count(schema[least_keyword])
        checks.append(lambda value: not isinstance(value, kind) or len(value) >= least)
    if most_keyword in schema:
        most = _count(schema[most_keyword])
        checks.append(lambda value: not isinstance(value, kind) or len(value) <= most)
    return checks


def _number_checks(schema: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "minimum" in schema:
        least = _bound(schema["minimum"])
        checks.append(lambda value: not _is_number(value) or not value < least)
    if "maximum" in schema:
        most = _bound(schema["maximum"])
        checks.append(lambda value: not _is_number(value) or not value > most)
    return checks


def _array_checks(schema: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(
            lambda value: not isinstance(value, list) or all(item(each) for each in value)
        )
    return checks + _length_checks(schema, list, "minItems", "maxItems")


def _object_checks(schema: dict[str, Any]) -> list[Check]:
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        raise Unsupported("properties")
    compiled = {name: _compile(child) for name, child in properties.items()}
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(name, str) for name in required):
        raise Unsupported("required")
    additional = schema.get("additionalProperties", True)
    extra = None if additional is True else _compile(additional)
    if not compiled and not required and extra is None:
        return []

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            child = compiled.get(name)
            if child is not None:
                if not child(item):
                    return False
            elif extra is not None and not extra(item):
                return False
        return True

    return [check]


def _combinator_check(keyword: str, branches: Any) -> Check:
    if not isinstance(branches, list) or not branches:
        raise Unsupported(keyword)
    compiled = [_compile(branch) for branch in branches]
    if keyword == "allOf":
        return lambda value: all(check(value) for check in compiled)
    if keyword == "anyOf":
        return lambda value: any(check(value) for check in compiled)
    return lambda value: sum(1 for check in compiled if check(value)) == 1


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Unsupported(f"count {value!r}")
    return value


def _bound(value: Any) -> Any:
    if not _is_number(value):
        raise Unsupported(f"bound {value!r}")
    return value
