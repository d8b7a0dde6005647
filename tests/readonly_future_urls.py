"""The project's URLs plus a page written later that knows nothing about admin contexts
(tests/test_admin_impersonation.py: the gate covers it anyway)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import path

from lightnote.urls import urlpatterns as project_urlpatterns
from todos import services


@login_required
def future_page(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        services.todo_create(owner=request.user, title=request.POST.get("title", "x"))
        return HttpResponse("created", status=201)
    return HttpResponse("a page")


urlpatterns = [path("future/", future_page), *project_urlpatterns]
handler404 = "lightnote.accounts.views.not_found"
handler500 = "lightnote.accounts.views.server_error"
