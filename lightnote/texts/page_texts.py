"""Page texts and page language: the one mechanism every server-rendered page uses.

A page's texts are a table ``{code: (zh-CN, en)}`` registered with ``define_page_texts``
beside the page that shows them (the item pages' in ``todos``/``notes``, the settings page's
in ``lightnote.accounts.preferences``, the chat's in ``agent.web.texts``); ``page_texts`` renders
one
or more tables, always with ``COMMON_TEXTS`` (navigation, paging, read-only notes), into the
templates' ``t``. The page's language is ``page_locale``: the language switch's cookie first,
which ``set_language_cookie`` writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from lightnote.texts.i18n import (
    DJANGO_LANGUAGES,
    define_messages,
    normalize_locale,
    request_locale,
    translate,
)

LANGUAGE_COOKIE_AGE = timedelta(days=365)
# Django's own language cookie, so the admin and the login page follow the same switch.
COOKIE_VALUES = DJANGO_LANGUAGES


def page_locale(request: HttpRequest) -> str:
    """Return the page's locale: the language switch's cookie, else ``request_locale``.

    The switch is a cookie, not the user's saved language: browsers always send
    Accept-Language, which ``request_locale`` ranks above the saved language, so only an
    explicit per-browser choice can override it — and it writes no user data (it works in an
    admin read-only context too).
    """
    return cookie_locale(request) or request_locale(request)


def cookie_locale(request: HttpRequest) -> str | None:
    """The locale the language switch's cookie chose, if any (it needs no database)."""
    return normalize_locale(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))


def set_language_cookie(response: HttpResponse, locale: str) -> None:
    """Make ``locale`` (a supported one) this browser's page language from now on."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        COOKIE_VALUES[locale],
        max_age=int(LANGUAGE_COOKIE_AGE.total_seconds()),
        path=settings.LANGUAGE_COOKIE_PATH,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def define_page_texts(table: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """Register a page's texts (``define_messages``) and return the table for ``page_texts``."""
    define_messages(table)
    return table


def page_texts(locale: str, *tables: Iterable[str]) -> dict[str, str]:
    """Render ``COMMON_TEXTS`` and every code of ``tables`` in ``locale``, for ``t``.

    A table is a ``define_page_texts`` table or any list of registered codes.
    """
    codes = [*COMMON_TEXTS, *(code for table in tables for code in table)]
    return {code: translate(code, locale) for code in codes}


COMMON_TEXTS = define_page_texts(
    {
        "PAGE_SEARCH": ("搜索", "Search"),
        "PAGE_FILTER": ("筛选", "Filter"),
        "PAGE_PREVIOUS": ("上一页", "Previous"),
        "PAGE_NEXT": ("下一页", "Next"),
        "PAGE_PAGE_N": ("第 {number} 页", "Page {number}"),
        "PAGE_READONLY_NOTE": (
            "只读查看：管理员只读上下文中不能修改任何数据。",
            "Read-only view: nothing can be changed inside an admin read-only context.",
        ),
        "PAGE_ZONE_NOTE": ("时间按 {zone} 显示。", "Times are shown in {zone}."),
        "PAGE_TRASH": ("回收站", "Trash"),
        "PAGE_TRASH_HEADING": ("回收站", "Trash"),
        "PAGE_TRASH_HINT": (
            "删除的内容会在回收站保留一段时间，之后永久清除。",
            "Deleted items stay here for a while, then they are removed for good.",
        ),
        "PAGE_TRASH_EMPTY": ("回收站是空的。", "The trash is empty."),
        "PAGE_TRASH_DELETED_AT": ("删除于", "Deleted"),
        "PAGE_RESTORE": ("恢复", "Restore"),
        "PAGE_BACK_TO_LIST": ("返回列表", "Back to the list"),
        "PAGE_NAV_CHAT": ("对话", "Chat"),
        "PAGE_NAV_TODOS": ("待办", "Todos"),
        "PAGE_NAV_NOTES": ("笔记", "Notes"),
        "PAGE_NAV_SETTINGS": ("设置", "Settings"),
        # The base page's own (templates/base.html, through {% page_text %}).
        "PAGE_SKIP_LINK": ("跳到正文", "Skip to the content"),
        "PAGE_NAV_LABEL": ("主导航", "Main"),
        "PAGE_ZONE_LINK": ("时区（在设置中修改）", "Time zone (change in Settings)"),
        "PAGE_LANGUAGE": ("语言", "Language"),
        "PAGE_LOG_OUT": ("退出登录", "Log out"),
        "PAGE_MENU": ("菜单", "Menu"),
    }
)
