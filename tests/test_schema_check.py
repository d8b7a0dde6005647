"""The compiled schema check says "valid" exactly when jsonschema finds no error
(``agent.tools.schema_check``): compared on generated instances, near-valid and arbitrary,
for every registered tool's schemas and for schemas using each keyword the check knows."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agent.tools.schema import AWARE_ISO_PATTERN, UUID_PATTERN, schema_violations
from agent.tools.schema_check import compile_check
from agent.tools.tool_registry import registry

EXAMPLES = int(os.environ.get("LIGHTNOTE_HYPOTHESIS_EXAMPLES", "300"))

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
)
ANY_JSON = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)


def _numbers_near(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    low = schema.get("minimum", -5)
    high = schema.get("maximum", low + 10)
    integers = st.integers(min_value=int(low) - 2, max_value=int(high) + 2)
    return integers | integers.map(float) | st.floats(min_value=low - 2, max_value=high + 2)


def _strings_near(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    most = schema.get("maxLength", 20)
    options = [st.text(max_size=most + 2), st.text(min_size=most, max_size=most + 1)]
    if "pattern" in schema:
        options.append(st.from_regex(schema["pattern"], fullmatch=True))
        options.append(st.from_regex(schema["pattern"]))  # a match anywhere
    return st.one_of(options)


def _objects_near(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    properties = schema.get("properties", {})
    near = {name: values_near(child) for name, child in properties.items()}
    required = [name for name in schema.get("required", []) if name in near]
    extras = st.dictionaries(st.sampled_from(["zz", "extra", "Title"]), ANY_JSON, max_size=1)
    whole = st.fixed_dictionaries(
        {name: near[name] for name in required},
        optional={name: value for name, value in near.items() if name not in required},
    )
    loose = st.fixed_dictionaries({}, optional=near)
    with_extra = st.tuples(whole, extras).map(lambda pair: {**pair[1], **pair[0]})
    return st.one_of(whole, loose, with_extra)


def values_near(schema: Any) -> st.SearchStrategy[Any]:
    """Instances close to ``schema``'s edges: right and wrong types, bounds, lengths,
    pattern matches, enum members, required and extra keys, plus anything at all."""
    if not isinstance(schema, dict):
        return ANY_JSON
    options: list[st.SearchStrategy[Any]] = [ANY_JSON, SCALARS]
    if "enum" in schema:
        options.append(st.sampled_from(schema["enum"]))
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    if {"integer", "number"} & set(types) or "minimum" in schema or "maximum" in schema:
        options.append(_numbers_near(schema))
    if "string" in types or {"pattern", "minLength", "maxLength"} & set(schema):
        options.append(_strings_near(schema))
    if "array" in types or "items" in schema:
        most = schema.get("maxItems", 3)
        options.append(st.lists(values_near(schema.get("items")), max_size=most + 1))
    if "object" in types or "properties" in schema:
        options.append(_objects_near(schema))
    for keyword in ("oneOf", "anyOf", "allOf"):
        for branch in schema.get(keyword, []):
            if isinstance(branch, dict) and set(branch) - {"required"}:
                options.append(values_near(branch))
    return st.one_of(options)


def values_valid(schema: Any) -> st.SearchStrategy[Any]:
    """Instances meant to pass ``schema`` (not guaranteed: combinators and bounds are
    approximated); with :func:`perturbed` they put the comparison at the edge of valid."""
    if not isinstance(schema, dict):
        return ANY_JSON
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    types = schema.get("type", [])
    kind = types if isinstance(types, str) else (types[0] if types else None)
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        valid = {name: values_valid(child) for name, child in properties.items()}
        wanted = list(schema.get("required", []))
        for branch in schema.get("allOf", []):
            wanted += branch.get("required", []) if isinstance(branch, dict) else []
        required = [name for name in wanted if name in valid]
        return st.fixed_dictionaries(
            {name: valid[name] for name in required},
            optional={name: value for name, value in valid.items() if name not in required},
        )
    if kind == "array":
        least, most = schema.get("minItems", 0), schema.get("maxItems", 3)
        return st.lists(values_valid(schema.get("items")), min_size=least, max_size=min(most, 4))
    if kind == "integer":
        low = schema.get("minimum", -10)
        return st.integers(min_value=low, max_value=schema.get("maximum", low + 100))
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        least = schema.get("minLength", 0)
        return st.text(min_size=least, max_size=min(schema.get("maxLength", 12), least + 12))
    if "anyOf" in schema or "oneOf" in schema:
        branches = schema.get("anyOf", []) + schema.get("oneOf", [])
        return st.one_of([values_valid(branch) for branch in branches])
    return values_near(schema)


def perturbed(schema: Any) -> st.SearchStrategy[Any]:
    """A valid-leaning object with one key changed, dropped or added."""
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    if not properties:
        return values_near(schema)
    names = sorted(properties)

    def change(draw: Any) -> Any:
        instance = dict(draw(values_valid(schema)))
        how = draw(st.sampled_from(["replace", "drop", "add"]))
        name = draw(st.sampled_from(names))
        if how == "replace":
            instance[name] = draw(values_near(properties[name]) | perturbed(properties[name]))
        elif how == "drop":
            instance.pop(name, None)
        else:
            instance[draw(st.sampled_from(["zz", "extra", name]))] = draw(ANY_JSON)
        return instance

    return st.composite(change)()


def _tool_schemas() -> list[tuple[str, dict[str, Any]]]:
    schemas = []
    for tool in registry.all_tools():
        schemas.append((f"{tool.name}.schema", tool.schema))
        if getattr(tool, "prepared_schema", None) is not None:
            schemas.append((f"{tool.name}.prepared_schema", tool.prepared_schema))
    return schemas


# Schemas using each keyword the check knows, in the shapes tools do not use today.
KEYWORD_SCHEMAS: list[tuple[str, dict[str, Any]]] = [
    ("numbers", {"type": "number", "minimum": -1.5, "maximum": 3}),
    ("integer bounds", {"type": "integer", "minimum": 0, "maximum": 2}),
    ("untyped bounds", {"minimum": 1, "maxLength": 2, "minItems": 1}),
    ("type list", {"type": ["string", "null", "boolean"], "minLength": 2}),
    ("mixed enum", {"enum": ["a", 1, 2.5, None]}),
    ("enum of ints", {"type": ["integer", "boolean"], "enum": [0, 1]}),
    ("pattern anywhere", {"type": "string", "pattern": "b+c"}),
    ("array", {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}),
    ("items false", {"items": False}),
    (
        "open object",
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "additionalProperties": {"type": "integer"},
            "required": ["a"],
        },
    ),
    (
        "combinators",
        {
            "allOf": [{"type": "object"}, {"required": ["x"]}],
            "anyOf": [{"properties": {"x": {"type": "string"}}}, {"required": ["y"]}],
            "oneOf": [{"required": ["y"]}, {"required": ["z"]}],
            "properties": {"x": {}, "y": {"type": "null"}, "z": {"format": "email"}},
        },
    ),
    ("boolean branches", {"anyOf": [False, {"type": "string"}], "allOf": [True, {"minLength": 1}]}),
    ("nothing", {"description": "anything at all", "$comment": "open"}),
    ("uuid", {"type": "string", "pattern": UUID_PATTERN}),
    ("aware time", {"type": ["string", "null"], "pattern": AWARE_ISO_PATTERN}),
]


def test_every_registered_tool_schema_compiles() -> None:
    """Each tool's schemas take the compiled check (or valid args would still pay for
    jsonschema on every card issue and confirm)."""
    schemas = _tool_schemas()
    assert len(schemas) >= 15
    uncompiled = [name for name, schema in schemas if compile_check(schema) is None]
    assert uncompiled == []


@pytest.mark.parametrize(
    ("name", "schema"), _tool_schemas() + KEYWORD_SCHEMAS, ids=lambda value: str(value)[:40]
)
@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_the_check_agrees_with_jsonschema(name: str, schema: dict[str, Any], data: Any) -> None:
    check = compile_check(schema)
    assert check is not None, name
    validator = Draft202012Validator(schema)
    instance = data.draw(st.one_of(values_valid(schema), perturbed(schema), values_near(schema)))
    assert check(instance) is validator.is_valid(instance), (name, instance)


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        ({"type": "integer"}, True, False),  # a boolean is never a number
        ({"type": "integer"}, 2.0, True),  # an integral float is an integer
        ({"type": "integer"}, 2.5, False),
        ({"type": "number"}, False, False),
        ({"enum": [1, 2]}, True, False),  # True is not 1
        ({"enum": [1, 2]}, 1.0, True),  # 1.0 is 1
        ({"enum": ["1"]}, 1, False),
        ({"type": "string", "pattern": "^a"}, "ba", False),
        ({"type": "string", "pattern": "a"}, "ba", True),  # re.search, not a full match
        ({"pattern": "^a$"}, 7, True),  # a string keyword ignores other types
        ({"minLength": 2}, "é", False),  # code points
        ({"format": "email"}, "not an email", True),  # format asserts nothing here
        ({"properties": {"a": False}}, {"a": 1}, False),
        ({"properties": {"a": False}}, {"b": 1}, True),
        ({"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}, {"a": 1, "b": 2}, False),
        ({"additionalProperties": False}, {}, True),
    ],
)
def test_edges_as_jsonschema_reads_them(schema: dict[str, Any], instance: Any, valid: bool) -> None:
    check = compile_check(schema)
    assert check is not None
    assert check(instance) is valid
    assert Draft202012Validator(schema).is_valid(instance) is valid


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"type": "object", "patternProperties": {"^x": {"type": "string"}}},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"not": {"type": "string"}},
        {"const": 1},
        {"enum": [[1], {"a": 1}]},
        {"enum": [True, 1]},
        {"type": "decimal"},
        {"properties": {"a": {"uniqueItems": True}}},
    ],
)
def test_a_schema_with_anything_else_is_left_to_jsonschema(schema: dict[str, Any]) -> None:
    assert compile_check(schema) is None


def test_invalid_args_still_get_jsonschema_s_reasons() -> None:
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string", "minLength": 1}},
        "required": ["title"],
        "additionalProperties": False,
    }
    assert schema_violations(schema, {"title": "ok"}) == {}
    assert schema_violations(schema, {"title": "", "x": 1}) == {
        "title": ["invalid"],
        "x": ["unknown"],
    }
    assert schema_violations(schema, {}) == {"title": ["required"]}
