"""Which receipts back which claims: same session, same kind of action, the item it names.

A claim is backed only by a *succeeded* receipt of this session whose action is of the same
kind (create / update / status change / delete) and whose item is the one the claim names.
A claim that names no item needs exactly one such receipt (two creates make "created it"
ambiguous). A claim of no stated kind ("Done.", 搞定) needs exactly one receipt of any kind.
Sweeping claims ("deleted all your other todos") and kinds no tool performs (archive, share)
are never backed: a receipt proves one action on one item.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent.guard.claims import OTHER, Claim

# capability id -> kind of action
CAPABILITY_KINDS = {
    "todo.create": "create",
    "note.create": "create",
    "todo.update": "update",
    "note.update": "update",
    "todo.status.set": "status",
    "todo.delete": "delete",
    "note.delete": "delete",
    # an undo's compensations: a todo back from the trash, a created note into it
    "todo.restore": "restore",
    "note.discard": "delete",
}


@dataclass(frozen=True)
class Backing:
    """What one succeeded receipt can back."""

    action_id: str
    kind: str
    resource_type: str  # "todo" | "note"
    names: frozenset[str]  # normalised title(s) of the item it acted on


def backing_for(
    *, action_id: Any, capability: str, resource_type: str, result: dict[str, Any] | None
) -> Backing | None:
    """Return the backing of one succeeded receipt (None for a capability of no known kind)."""
    kind = CAPABILITY_KINDS.get(capability)
    if kind is None:
        return None
    names = set()
    for key in ("title", "previous_title", "old_title"):
        value = (result or {}).get(key)
        if isinstance(value, str) and value.strip():
            names.add(normalise_name(value))
    previous = (result or {}).get("previous")
    if isinstance(previous, dict) and isinstance(previous.get("title"), str):
        names.add(normalise_name(previous["title"]))
    return Backing(
        action_id=str(action_id), kind=kind, resource_type=resource_type, names=frozenset(names)
    )


def normalise_name(name: str) -> str:
    return " ".join(name.casefold().split()).strip(" .。!！")


def _names_item(backing: Backing, item: str) -> bool:
    wanted = normalise_name(item)
    return bool(wanted) and any(
        wanted == name or (len(wanted) >= 2 and (wanted in name or name in wanted))
        for name in backing.names
    )


def is_backed(
    claim: Claim,
    items: Iterable[str],
    backings: list[Backing],
    *,
    mentioned: Iterable[str] = (),
    focus: Backing | None = None,
    another: bool = False,
) -> bool:
    """Say whether ``claim`` (naming ``items``) is backed by one of ``backings``.

    ``mentioned`` are receipt titles found unquoted in the clause: they name the item too.
    ``focus`` is the one action a final reply is about: a claim naming no item refers to it.
    ``another``: the claim speaks of an item other than the focus's ("I also added another
    todo", 又新建了一条), so the focus does not back it.
    """
    if claim.sweeping or claim.kind == OTHER:
        return False
    candidates = [
        backing
        for backing in backings
        if (claim.kind is None or backing.kind == claim.kind)
        and (claim.resource_type is None or backing.resource_type == claim.resource_type)
    ]
    if another and focus is not None:
        candidates = [backing for backing in candidates if backing != focus]
        focus = None
    named = [*items, *mentioned]
    if named:
        return all(any(_names_item(backing, item) for backing in candidates) for item in named)
    if focus is not None:
        return focus in candidates
    return len(candidates) == 1
