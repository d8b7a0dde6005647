"""The chat page's form bodies: what each htmx form posts, validated before any action.

Tokens travel in the body, never in a URL.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import HttpRequest

from lightnote.errors import LightNoteError

TOKEN_MAX = 512


class MessageForm(forms.Form):
    text = forms.CharField(required=False, strip=True)
    session_id = forms.UUIDField(required=False)


class CardForm(forms.Form):
    token = forms.CharField(max_length=TOKEN_MAX)
    continuation_token = forms.CharField(max_length=TOKEN_MAX, required=False)
    session_id = forms.UUIDField()


class ReissueForm(forms.Form):
    card_id = forms.UUIDField()
    session_id = forms.UUIDField()


class ChooseForm(forms.Form):
    """A pick: the live choice's ``token``, or the ``card_id`` of a ready choice in history
    (exactly one of the two)."""

    token = forms.CharField(max_length=TOKEN_MAX, required=False)
    card_id = forms.UUIDField(required=False)
    session_id = forms.UUIDField()
    candidate_id = forms.UUIDField()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if bool(data.get("token")) == bool(data.get("card_id")):
            raise forms.ValidationError("name the choice by its token or by its card_id")
        return data


class EditForm(forms.Form):
    """A ready card's edit: its token, and only the values to change (empty: unchanged)."""

    token = forms.CharField(max_length=TOKEN_MAX)
    continuation_token = forms.CharField(max_length=TOKEN_MAX, required=False)
    session_id = forms.UUIDField()
    title = forms.CharField(required=False, strip=True)
    description = forms.CharField(required=False, strip=True)
    content = forms.CharField(required=False, strip=True)
    tags = forms.CharField(required=False, strip=True)
    priority = forms.TypedChoiceField(
        required=False,
        choices=[("", ""), ("0", "0"), ("1", "1"), ("2", "2")],
        coerce=int,
        empty_value=None,
    )
    due_at = forms.CharField(required=False, strip=True, max_length=100)

    EDITABLE = ("title", "description", "content", "tags", "priority", "due_at")

    def edits(self) -> dict[str, Any]:
        """Return the values the person changed (the tool re-validates them all).

        The form starts with the card's values (``was_<name>`` beside each input): a field
        left as it was, or emptied, is not an edit.
        """
        data = self.cleaned_data
        return {
            name: data[name]
            for name in self.EDITABLE
            if data.get(name) not in (None, "")
            and str(data[name]) != str(self.data.get(f"was_{name}", "")).strip()
        }


class ReplyForm(forms.Form):
    continuation_token = forms.CharField(max_length=TOKEN_MAX)
    session_id = forms.UUIDField()


@dataclass(frozen=True)
class CardFields:
    """The hidden fields every card form posts: tokens in the body, never in a URL."""

    token: str
    continuation_token: str
    session_id: uuid.UUID

    def as_context(self) -> dict[str, str]:
        return {
            "token": self.token,
            "continuation_token": self.continuation_token,
            "session_id": str(self.session_id),
        }


def valid_data(form: forms.Form) -> dict[str, Any]:
    if not form.is_valid():
        raise LightNoteError("VALIDATION_ERROR", extra={"fields": sorted(form.errors)})
    return form.cleaned_data


def card_fields(request: HttpRequest) -> CardFields:
    data = valid_data(CardForm(request.POST))
    return CardFields(data["token"], data["continuation_token"], data["session_id"])


def retry_fields(request: HttpRequest, form_class: type[forms.Form]) -> dict[str, Any] | None:
    """Return the posted hidden fields for a retry form, when they were valid."""
    form = form_class(request.POST)
    if not form.is_valid():
        return None
    return {key: str(value) for key, value in form.cleaned_data.items() if value}
