"""Declare in the OpenAPI schema the constraints the server enforces beyond the serializers'.

A drf-spectacular postprocessing hook. Each rule reads its limit from where the server
keeps it (the text policy's tables, the paginator, the zone list), so the schema cannot
drift from what is enforced:

- request bodies: no unknown field (``additionalProperties: false``, ``StrictSerializer``);
  a PATCH of an item gives ``version`` and at least one change; an edit's ``args`` are
  not empty;
- text fields: the input policy's refused code points (``lightnote.text_policy``) and,
  where a blank value is refused, at least one non-space character, as a ``pattern``;
- ``time_zone``: one of the allowed zone names (an ``enum``);
- ``page`` and ``page_size``: positive (a ``page_size`` over the paginator's maximum is
  capped to it, which the description says).

What a schema cannot express is described instead: a due time within the plausible window
(a year back, ten years ahead; ``lightnote.times.is_plausible``).
"""

from __future__ import annotations

from typing import Any

from lightnote.text_policy import BIDI_CONTROLS, CONTROLS, Kind

# (component, property) -> the text policy's field kind, for the fields it governs.
POLICY_FIELDS: dict[tuple[str, str], Kind] = {
    ("TodoCreateRequest", "title"): Kind.LINE,
    ("TodoCreateRequest", "description"): Kind.TEXT,
    ("TodoUpdateRequest", "title"): Kind.LINE,
    ("TodoUpdateRequest", "description"): Kind.TEXT,
    ("NoteCreateRequest", "title"): Kind.LINE,
    ("NoteCreateRequest", "content"): Kind.TEXT,
    ("NoteUpdateRequest", "title"): Kind.LINE,
    ("NoteUpdateRequest", "content"): Kind.TEXT,
    ("PatchedSessionRenameRequest", "title"): Kind.LINE,
}
# Tags are one-line texts too (each item of the array).
POLICY_ITEMS: dict[tuple[str, str], Kind] = {
    ("NoteCreateRequest", "tags"): Kind.LINE,
    ("NoteUpdateRequest", "tags"): Kind.LINE,
}
# Bodies whose every field but ``version`` is optional, yet one must be given.
VERSIONED_PATCHES = ("TodoUpdateRequest", "NoteUpdateRequest")
# Bodies validated whole although the method is PATCH (required stays required).
WHOLE_PATCHES: dict[str, list[str]] = {"PatchedSessionRenameRequest": ["title"]}
NON_EMPTY_OBJECTS = (("EditRequestSchemaRequest", "args"),)
PLAUSIBLE_TIMES = (("TodoCreateRequest", "due_at"), ("TodoUpdateRequest", "due_at"))
PLAUSIBLE_NOTE = (
    " Within a year back and ten years ahead of now (else 400 VALIDATION_ERROR, "
    "DATETIME_IMPLAUSIBLE); whole-minute offsets."
)


def _class_of(points: frozenset[int]) -> str:
    """A regex character class body (``\\uXXXX`` ranges) for ``points``."""
    ordered = sorted(points)
    ranges: list[tuple[int, int]] = []
    for point in ordered:
        if ranges and point == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return "".join(
        f"\\u{first:04x}" if first == last else f"\\u{first:04x}-\\u{last:04x}"
        for first, last in ranges
    )


def text_pattern(*, refused: frozenset[int], blank_allowed: bool) -> str:
    """A pattern refusing ``refused`` and, unless ``blank_allowed``, an all-space value."""
    body = _class_of(refused)
    if blank_allowed:
        return f"^[^{body}]*$"
    return f"^[^{body}]*[^\\s{body}][^{body}]*$"


def _refused(kind: Kind) -> frozenset[int]:
    # NUL is refused everywhere (DRF's CharField); the policy refuses more in its fields.
    if kind is Kind.LINE:
        return CONTROLS | BIDI_CONTROLS
    return CONTROLS  # bidi controls are stripped from a TEXT, not refused


def _string_fields(component: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (name, prop)
        for name, prop in component.get("properties", {}).items()
        if prop.get("type") == "string" and "format" not in prop and "enum" not in prop
    ]


def _declare_bodies(schemas: dict[str, Any]) -> None:
    for name, component in schemas.items():
        if not name.endswith("Request") or component.get("type") != "object":
            continue
        component["additionalProperties"] = False
        for field, prop in _string_fields(component):
            kind = POLICY_FIELDS.get((name, field))
            refused = _refused(kind) if kind else frozenset({0})
            # DRF trims a CharField and then refuses it blank unless it allows blank.
            blank_allowed = prop.get("minLength", 0) == 0
            prop["pattern"] = text_pattern(refused=refused, blank_allowed=blank_allowed)
        for (component_name, field), kind in POLICY_ITEMS.items():
            items = component.get("properties", {}).get(field, {}).get("items")
            if component_name == name and items is not None:
                items["pattern"] = text_pattern(refused=_refused(kind), blank_allowed=False)
    for name in VERSIONED_PATCHES:
        if name in schemas:
            schemas[name]["minProperties"] = 2
    for name, required in WHOLE_PATCHES.items():
        if name in schemas:
            schemas[name]["required"] = required
    for name, field in NON_EMPTY_OBJECTS:
        prop = schemas.get(name, {}).get("properties", {}).get(field)
        if prop is not None:
            prop["minProperties"] = 1
    for name, field in PLAUSIBLE_TIMES:
        prop = schemas.get(name, {}).get("properties", {}).get(field)
        if prop is not None:
            prop["description"] = (prop.get("description") or "") + PLAUSIBLE_NOTE


def _declare_zones(schemas: dict[str, Any]) -> None:
    from lightnote.times import allowed_time_zones

    zones = sorted(allowed_time_zones())
    for name, component in schemas.items():
        if not name.endswith("Request"):
            continue
        prop = component.get("properties", {}).get("time_zone")
        if prop is not None and prop.get("type") == "string" and not prop.get("readOnly"):
            prop.pop("pattern", None)
            prop["enum"] = zones


def _declare_required_bodies(paths: dict[str, Any]) -> None:
    """A PATCH validated whole has a required body (DRF's schema leaves it optional)."""
    whole = {f"#/components/schemas/{name}" for name in (*WHOLE_PATCHES, *VERSIONED_PATCHES)}
    for operations in paths.values():
        for operation in operations.values():
            body = operation.get("requestBody") if isinstance(operation, dict) else None
            if not body:
                continue
            refs = {
                media.get("schema", {}).get("$ref") for media in body.get("content", {}).values()
            }
            if refs & whole:
                body["required"] = True


def _declare_paging(paths: dict[str, Any]) -> None:
    from lightnote.rest.pagination import Pagination

    # A page_size above the maximum is capped, not refused (docs/api.md), so the maximum is
    # said in the description: a "maximum" would claim a 400 the server does not answer.
    limits = {"page": {"minimum": 1}, "page_size": {"minimum": 1}}
    capped = f"At most {Pagination.max_page_size}: a larger size is capped to it."
    for operations in paths.values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("name") in limits:
                    parameter["schema"].update(limits[parameter["name"]])
                    if parameter["name"] == "page_size":
                        parameter["description"] = capped


def declare_enforced_constraints(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (see the module docstring)."""
    schemas = result.get("components", {}).get("schemas", {})
    _declare_bodies(schemas)
    _declare_zones(schemas)
    _declare_paging(result.get("paths", {}))
    _declare_required_bodies(result.get("paths", {}))
    return result
