"""Password reset by email: Django's own views and tokens, with the mail in the page's
language and each request counted per client address (``throttle``).

A reset link may go to an address not verified yet: it is how a person who mistyped nothing
but never opened the verification mail gets back in. Whether an address has an account is
never told: the answer is the same either way.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import send_mail
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from lightnote.accounts.throttle import limit_by_address
from lightnote.errors import LightNoteError
from lightnote.texts.i18n import translate
from lightnote.texts.page_texts import page_locale


class LocalizedPasswordResetForm(PasswordResetForm):
    """Django's form; the mail is a text of ours, in the language of the request."""

    locale = "zh-CN"

    def send_mail(  # type: ignore[override]
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        path = reverse(
            "password_reset_confirm", kwargs={"uidb64": context["uid"], "token": context["token"]}
        )
        link = f"{context['protocol']}://{context['domain']}{path}"
        hours = max(1, settings.PASSWORD_RESET_TIMEOUT // 3600)
        body = translate(
            "ACCOUNT_RESET_BODY",
            self.locale,
            username=context["user"].get_username(),
            link=link,
            hours=hours,
        )
        send_mail(translate("ACCOUNT_RESET_SUBJECT", self.locale), body, from_email, [to_email])


def request_reset(request: HttpRequest, email: str) -> bool:
    """Count the request, then mail a reset link to every active account at ``email``.

    Return False for a malformed address (nothing sent); 429 ``RATE_LIMITED`` past the rate.
    """
    limit_by_address(request, "password_reset")
    form = LocalizedPasswordResetForm(data={"email": email})
    form.locale = page_locale(request)
    if not form.is_valid():
        return False
    form.save(request=request, use_https=request.is_secure())
    return True


class PasswordResetView(auth_views.PasswordResetView):
    """``/accounts/password_reset/``: Django's view, counted per address."""

    form_class = LocalizedPasswordResetForm

    def form_valid(self, form: Any) -> HttpResponse:
        try:
            request_reset(self.request, form.cleaned_data["email"])
        except LightNoteError as error:
            context = self.get_context_data(form=form)
            context["problem"] = error.message(page_locale(self.request))
            return self.render_to_response(context, status=error.status)
        return HttpResponseRedirect(self.get_success_url())
