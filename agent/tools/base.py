"""The tool base: the context a tool runs in, its results, and ``Tool`` / ``WriteTool``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

from django.utils import timezone

from agent.capabilities import CONFIRMATION_NONE, ENABLED, capability_by_id
from agent.tools.formatting import LOCALE_EN
from agent.tools.schema import args_invalid, camel_case
from lightnote.audit import CHANNEL_AGENT
from lightnote.texts.i18n import DEFAULT_LOCALE, normalize_locale, translate

if TYPE_CHECKING:
    from lightnote.models import User


# ``Tool.openai_spec``'s specs, built once (a tool's schema and descriptions are constants).
_OPENAI_SPECS: dict[tuple[Any, ...], dict[str, Any]] = {}


# --- context and results ---------------------------------------------------------------


@dataclass(frozen=True)
class ToolContext:
    """Who runs a tool, on whose data, where and when.

    ``actor`` sent the request; ``subject`` owns the data. They differ only inside an admin
    read-only context. ``zone`` is the subject's time zone: every due time is prepared and
    shown in it. ``now`` is explicit so preparation and previews are reproducible.
    ``channel`` is the audit channel a write reaches the services through (``agent`` for
    the chat's cards, ``mcp`` for an MCP client's).
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
    channel: str = CHANNEL_AGENT

    @classmethod
    def from_actor_context(
        cls,
        actor_context: Any,
        *,
        session_id: Any,
        locale: str | None,
        now: datetime | None = None,
        request_id: str = "",
        channel: str = CHANNEL_AGENT,
    ) -> ToolContext:
        """Build a context from ``lightnote.impersonation.context.ActorContext``."""
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
            channel=channel,
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
        camel = {camel_case(name): name for name in properties if camel_case(name) != name}
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
        """Return this tool as an OpenAI function spec (name = tool name).

        Built once per tool, locale and schema (every message turn offers every allowed
        tool): the spec is shared, read-only for its callers.
        """
        key = (type(self), self.name, locale, id(self.schema), id(self.description))
        spec = _OPENAI_SPECS.get(key)
        if spec is None:
            # Top-level combinators (oneOf "todo_id | todo_title") are enforced by the
            # server's validation; several OpenAI-compatible servers refuse them in
            # `parameters`.
            parameters = {
                key: value
                for key, value in self.schema.items()
                if key not in ("oneOf", "anyOf", "allOf", "$schema")
            }
            spec = _OPENAI_SPECS[key] = {
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description.get(locale) or self.description[LOCALE_EN],
                    "parameters": parameters,
                },
            }
        return spec


class WriteTool(Tool):
    """Base of a write tool: its results name a resource of ``resource_type``.

    A tool whose summary is one text of the item's ``{title}`` names it in ``result_code``;
    one whose offline reply is always the same text names it in ``reply_text_code``. A tool
    whose texts depend on the result overrides ``summarize`` / ``reply_code`` instead.
    """

    resource_type: ClassVar[str] = ""
    result_code: ClassVar[str] = ""
    reply_text_code: ClassVar[str] = ""

    def summarize(self, data: dict[str, Any], locale: str) -> str:
        if not self.result_code:
            raise NotImplementedError
        return translate(self.result_code, locale, title=data["title"])

    def reply_code(self, data: dict[str, Any]) -> str | None:
        return self.reply_text_code or None

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
