"""The API's language as Django's active language, from the first middleware that can tell.

Django's ``LocaleMiddleware`` picks the language from the language cookie, then
Accept-Language, by its own rules; the API's rule is the project's (``request_locale``:
Accept-Language, else the user's language, else zh-CN). Under ``/api/`` this middleware,
right after ``LocaleMiddleware``, activates the project's choice from the header alone; the
API's authentication classes refine it with the user once they know them
(``activate_request_language``). So what DRF translates through gettext, its field messages
above all, is in the error body's language.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from lightnote.texts.i18n import activate_request_language


class ApiLanguageMiddleware:
    """Under ``/api/``: the project's language rule, not the cookie's, for gettext texts."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            # Before AuthenticationMiddleware: no user yet, the header or the default.
            activate_request_language(request)
        return self.get_response(request)
