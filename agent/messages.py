"""Texts of the agent protocol, in both languages."""

from __future__ import annotations

from lightnote.i18n import define_messages

define_messages({})
