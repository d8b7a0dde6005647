"""The server-rendered chat page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


@login_required
def chat_page(request: HttpRequest) -> HttpResponse:
    return render(request, "agent/chat.html", {})
