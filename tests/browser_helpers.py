"""Shared setup of the chat browser tests: Chromium, a zh-CN page of a viewport, logged in.

The database is touched only before :func:`chat_page` starts the browser and after it has
closed it (see tests/test_browser_chat.py): a test reads what it asserts inside the block
and asserts after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from re import Pattern
from typing import Any

from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.test_browser_pages import VIEWPORTS


def login(
    page: Any, base: str, username: str, *, path: str = "/", landing: str | Pattern[str] = ""
) -> None:
    """Open ``path``, log in as ``username`` (password ``pw-<username>``) and wait to land.

    The page lands back on ``path`` unless ``landing`` (a URL or pattern) says otherwise.
    """
    page.goto(f"{base}{path}")
    page.wait_for_url(re.compile(r"/accounts/login/"))
    page.get_by_label(re.compile("Username|用户名")).fill(username)
    page.get_by_label(re.compile("Password|密码")).fill(f"pw-{username}")
    page.get_by_label(re.compile("Password|密码")).press("Enter")
    page.wait_for_url(landing or f"{base}{path}")


def open_menu(page: Any) -> None:
    """Open the top bar's menu where it is folded (a phone); a wide screen shows it all."""
    toggle = page.locator(".menu-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


@contextmanager
def chat_page(
    playwright: Any,
    base: str,
    username: str,
    viewport: str,
    *,
    path: str = "/",
    landing: str | Pattern[str] = "",
    locale: str = "zh-CN",
) -> Iterator[tuple[Any, Any]]:
    """Yield ``(context, page)``: a browser context of ``viewport`` speaking ``locale``
    (its Accept-Language), logged in.

    The browser is closed when the block ends, however it ends.
    """
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    try:
        context = browser.new_context(locale=locale, viewport=VIEWPORTS[viewport])
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        login(page, base, username, path=path, landing=landing)
        yield context, page
    finally:
        browser.close()
