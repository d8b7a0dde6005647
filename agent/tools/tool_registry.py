"""The tool registry: tools by name, validated against the capability table as they register."""

from __future__ import annotations

import re
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agent.capabilities import (
    CAPABILITIES,
    CONFIRMATION_NONE,
    ENABLED,
    WRITE,
    Capability,
    capability_for_unknown_tool,
)
from agent.tools.base import Tool
from agent.tools.formatting import LOCALE_EN
from agent.tools.schema import schema_objects
from lightnote.texts.i18n import LOCALES

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
            for node in schema_objects(schema):
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
