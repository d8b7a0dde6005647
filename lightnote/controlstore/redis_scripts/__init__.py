"""The Lua scripts of the control store, read once from this package's ``.lua`` files."""

from __future__ import annotations

import functools
from importlib import resources


@functools.cache
def script_text(name: str) -> str:
    """Return the source of ``<name>.lua`` (read once per process)."""
    return resources.files(__package__).joinpath(f"{name}.lua").read_text(encoding="utf-8")
