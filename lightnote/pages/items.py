"""What every item page shares: whose data it shows, whether it may write, and paging that
stays flat however many rows the owner has (its language and texts: ``lightnote.texts.page_texts``).

Pages call the same services and selectors as the API; a page never saves a model itself.
"""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.utils import timezone

from lightnote.errors import LightNoteError
from lightnote.impersonation.context import actor_context
from lightnote.models import User
from lightnote.text_policy import echoable
from lightnote.texts.i18n import define_messages, translate
from lightnote.texts.page_texts import page_locale, page_texts

PAGE_SIZE = 20
QUERY_MAX = 200  # the longest search or filter text a page reads (the API's ?q= limit)


@dataclass(frozen=True)
class PageViewer:
    """Whose data a page shows and whether it may offer writes (``readonly``: hide the
    forms; an admin context's writes are refused before the view runs,
    lightnote.impersonation.readonly)."""

    owner: User
    readonly: bool
    locale: str
    zone: zoneinfo.ZoneInfo

    def local(self, moment: datetime | None) -> datetime | None:
        return timezone.localtime(moment, self.zone) if moment else None


def page_viewer(request: HttpRequest) -> PageViewer:
    """Return the viewer of a logged-in page request (the subject in an admin context)."""
    context = actor_context(request)
    subject = context.subject
    return PageViewer(
        owner=subject,
        readonly=context.is_admin_readonly,
        locale=page_locale(request),
        zone=subject.zone,
    )


@dataclass
class Page:
    """One page of a list: its rows, its number and whether neighbours exist.

    It reads ``PAGE_SIZE + 1`` rows through the index that matches the list's sort and never
    counts the owner's rows, so a page costs the same at a thousand rows and at a hundred
    thousand.
    """

    items: list[Any]
    number: int
    has_next: bool
    has_previous: bool = field(init=False)

    def __post_init__(self) -> None:
        self.has_previous = self.number > 1


def page_of(queryset: QuerySet[Any], raw_number: Any, size: int = PAGE_SIZE) -> Page:
    """Return page ``raw_number`` (1-based; anything unreadable is page 1)."""
    try:
        number = max(1, min(int(raw_number), 10_000))
    except (TypeError, ValueError):
        number = 1
    start = (number - 1) * size
    rows: list[Model] = list(queryset[start : start + size + 1])
    return Page(items=rows[:size], number=number, has_next=len(rows) > size)


def error_text(error: LightNoteError, locale: str) -> str:
    """The person-facing sentence for a domain error (the code stays in the API)."""
    return error.message(locale)


class ItemPages:
    """The list and detail pages of one kind of owned item (todos, notes).

    A subclass names its templates and texts and maps form fields to its services; this class
    does the rest the same way for every kind: the viewer, read-only contexts, paging,
    version-checked writes, post/redirect/get, and errors as sentences with a 4xx status.
    """

    kind: str  # "todo" | "note": the URL names are "<kind>-page" and "<kind>-detail-page"
    list_template: str
    detail_template: str
    text_codes: dict[str, tuple[str, str]]  # a define_page_texts table
    query_keys: tuple[str, ...] = ("status", "q", "tag")  # what the list reads (and pages keep)

    # --- what a subclass provides ----------------------------------------------------------

    def rows(self, viewer: PageViewer, query: dict[str, str]) -> QuerySet[Any]:
        raise NotImplementedError

    def get(self, viewer: PageViewer, item_id: str) -> Any:
        raise NotImplementedError

    def create(self, viewer: PageViewer, form: dict[str, str]) -> Any:
        raise NotImplementedError

    def act(self, viewer: PageViewer, item: Any, action: str, form: dict[str, str]) -> str:
        """Apply a detail-page action; return the text code of the success message."""
        raise NotImplementedError

    def trash_rows(self, viewer: PageViewer) -> QuerySet[Any]:
        raise NotImplementedError

    def restore(self, viewer: PageViewer, item_id: str, version: int) -> Any:
        raise NotImplementedError

    def list_context(self, viewer: PageViewer, query: dict[str, str]) -> dict[str, Any]:
        return {}

    # --- the shared flow -------------------------------------------------------------------

    def render(
        self,
        request: HttpRequest,
        template: str,
        viewer: PageViewer,
        status: int = 200,
        **context: Any,
    ) -> Any:
        from django.shortcuts import render

        base = {
            "t": page_texts(viewer.locale, self.text_codes),
            "page_locale": viewer.locale,
            "viewer": viewer,
            "readonly": viewer.readonly,
            "zone_name": viewer.zone.key,
            "zone_note": translate("PAGE_ZONE_NOTE", viewer.locale, zone=viewer.zone.key),
        }
        return render(request, template, {**base, **context}, status=status)

    def list_page(self, request: HttpRequest) -> Any:
        from django.contrib import messages
        from django.shortcuts import redirect

        viewer = page_viewer(request)
        # Bounded like the API's ?q= (200): a search box cannot make the query unbounded.
        query = {key: request.GET.get(key, "").strip()[:QUERY_MAX] for key in self.query_keys}
        problem = None
        status = 200
        form: dict[str, str] = {}
        if request.method == "POST":
            form = posted_fields(request)
            try:
                item = self.create(viewer, form)
            except LightNoteError as error:
                problem, status = error_text(error, viewer.locale), error.status
            else:
                messages.success(
                    request,
                    translate(f"PAGE_{self.kind.upper()}_CREATED", viewer.locale, title=item.title),
                )
                return redirect(f"{self.kind}-page")
        page = page_of(self.rows(viewer, query), request.GET.get("page"))
        return self.render(
            request,
            self.list_template,
            viewer,
            status=status,
            page=page,
            query=query,
            problem=problem,
            form={key: echoable(value) for key, value in form.items()},
            **self.list_context(viewer, query),
        )

    def urlpatterns(self) -> list[Any]:
        """The kind's three pages, logged in only: the list, the trash and one item."""
        from django.contrib.auth.decorators import login_required
        from django.urls import path
        from django.views.decorators.http import require_http_methods

        def page(view: Any) -> Any:
            return login_required(require_http_methods(["GET", "HEAD", "POST"])(view))

        return [
            path("", page(self.list_page), name=f"{self.kind}-page"),
            path("trash/", page(self.trash_page), name=f"{self.kind}-trash-page"),
            path("<str:item_id>/", page(self.detail_page), name=f"{self.kind}-detail-page"),
        ]

    def trash_page(self, request: HttpRequest) -> Any:
        """The owner's deleted items, each with a version-checked "Restore"."""
        from django.contrib import messages
        from django.shortcuts import redirect

        viewer = page_viewer(request)
        problem = None
        status = 200
        if request.method == "POST":
            form = posted_fields(request)
            try:
                item = self.restore(viewer, form.get("id", ""), form_version(form))
            except LightNoteError as error:
                problem, status = error_text(error, viewer.locale), error.status
            else:
                messages.success(
                    request, translate("PAGE_ITEM_RESTORED", viewer.locale, title=item.title)
                )
                return redirect(f"{self.kind}-detail-page", item.id)
        page = page_of(self.trash_rows(viewer), request.GET.get("page"))
        return self.render(
            request,
            "lightnote/trash.html",
            viewer,
            status=status,
            page=page,
            query={},
            problem=problem,
            list_url=f"{self.kind}-page",
            trash_url=f"{self.kind}-trash-page",
        )

    def detail_page(self, request: HttpRequest, item_id: str) -> Any:
        from django.contrib import messages
        from django.shortcuts import redirect
        from django.urls import reverse

        viewer = page_viewer(request)
        try:
            item = self.get(viewer, item_id)
        except LightNoteError as error:
            return self.render(
                request,
                "lightnote/page_problem.html",
                viewer,
                status=404,
                problem=error_text(error, viewer.locale),
            )
        problem = None
        status = 200
        if request.method == "POST":
            action = request.POST.get("action", "")
            form = posted_fields(request)
            try:
                done = self.act(viewer, item, action, form)
            except LightNoteError as error:
                problem, status = error_text(error, viewer.locale), error.status
                try:
                    item = self.get(viewer, item_id)  # show what is stored now
                except LightNoteError:
                    return redirect(f"{self.kind}-page")
            else:
                messages.success(request, translate(done, viewer.locale, title=item.title))
                if action == "delete":
                    return redirect(f"{self.kind}-page")
                if "back" in form:
                    # A list's own action (its checkbox) goes back to that list as it was;
                    # only a query string of this site's list, never another address.
                    back = form["back"] if form["back"].startswith("?") else ""
                    return redirect(reverse(f"{self.kind}-page") + back)
                return redirect(f"{self.kind}-detail-page", item.id)
        confirm_delete = request.GET.get("confirm") == "delete" and not viewer.readonly
        return self.render(
            request,
            self.detail_template,
            viewer,
            status=status,
            item=item,
            problem=problem,
            confirm_delete=confirm_delete,
        )


def posted_fields(request: HttpRequest) -> dict[str, str]:
    """The posted form as plain strings (the last value of a repeated field), CSRF token aside."""
    return {
        key: str(request.POST.get(key, "")) for key in request.POST if key != "csrfmiddlewaretoken"
    }


def form_version(form: dict[str, str]) -> int:
    """The ``version`` a page form was rendered at: every page write is version-checked."""
    try:
        version = int(form.get("version", ""))
    except ValueError:
        raise LightNoteError("PAGE_FORM_STALE") from None
    if version < 1:
        raise LightNoteError("PAGE_FORM_STALE")
    return version


def form_text(value: str) -> str:
    """A textarea's value with the browser's CRLF line ends read back as LF."""
    return value.replace("\r\n", "\n")


def form_local_datetime(value: str, zone: zoneinfo.ZoneInfo, code: str) -> datetime | None:
    """Read a ``datetime-local`` field (the owner's wall clock) as an aware instant."""
    value = value.strip()
    if not value:
        return None
    try:
        naive = datetime.fromisoformat(value)
    except ValueError:
        raise LightNoteError(code) from None
    if naive.tzinfo is not None:
        raise LightNoteError(code)
    return naive.replace(tzinfo=zone)


define_messages(
    {
        "PAGE_ACTION_UNKNOWN": ("无法识别的操作。", "Unknown action."),
        "PAGE_ITEM_RESTORED": ("已从回收站恢复「{title}」。", "“{title}” is back from the trash."),
        "PAGE_FORM_STALE": (
            "这个表单已过期，请刷新页面后再试。",
            "This form is out of date; reload the page and try again.",
        ),
    }
)
