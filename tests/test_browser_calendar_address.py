"""The calendar address on /settings/ in a real browser: made with one button, shown once on
its own page (readonly, selectable) and not again on a reload, then stopped — at phone and
desktop size, in both languages, with axe-core finding nothing serious."""

from __future__ import annotations

import re
from typing import Any

import pytest

from reminders.models import CalendarFeed
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.test_browser_crawl import COOKIE
from tests.test_browser_pages import VIEWPORTS, _serious_violations, _shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = {
    "zh-CN": ("生成新地址", "你的日历订阅地址", "返回设置", "停用地址", "已经显示过了"),
    "en": (
        "Make a new address",
        "Your calendar address",
        "Back to settings",
        "Stop the address",
        "already was",
    ),
}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("language", sorted(TEXTS))
def test_browser_make_show_and_stop_the_calendar_address(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str, language: str
) -> None:
    user = make_user("subscriber")
    make, heading, back, stop, shown_once = TEXTS[language]
    violations: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport=VIEWPORTS[viewport])
            context.set_default_timeout(TIMEOUT_MS)
            context.add_cookies(
                [{"name": "django_language", "value": COOKIE[language], "url": live_server.url}]
            )
            page = context.new_page()
            page.goto(f"{live_server.url}/accounts/login/")
            page.locator("#id_username").fill("subscriber")
            page.locator("#id_password").fill("pw-subscriber")
            page.locator("#id_password").press("Enter")
            page.wait_for_url(re.compile(r"/chat/|/$"))
            page.goto(f"{live_server.url}/settings/")
            page.get_by_role("button", name=make).click()
            page.get_by_role("heading", name=heading).wait_for()
            address = page.locator("#calendar-address").input_value()
            violations["address"] = _serious_violations(page)
            _shot(page, f"calendar-address-{language}-{viewport}")
            assert page.get_by_role("link", name=back).count() == 1
            # A reload neither shows it again nor makes another address.
            page.reload()
            page.wait_for_url(re.compile(r"/settings/$"))
            page.get_by_text(shown_once).wait_for()
            # The address shown still answers: no other address replaced it.
            path = address[address.index("/calendar/") :]
            assert page.request.get(f"{live_server.url}{path}").status == 200
            page.goto(f"{live_server.url}/calendar/address/")
            page.wait_for_url(re.compile(r"/settings/$"))
            page.get_by_role("button", name=stop).wait_for()
            violations["settings"] = _serious_violations(page)
            _shot(page, f"calendar-settings-{language}-{viewport}")
            page.get_by_role("button", name=stop).click()
            page.wait_for_url(re.compile(r"/settings/$"))
            assert page.get_by_role("button", name=stop).count() == 0
        finally:
            browser.close()
    assert re.fullmatch(r"https?://.+/calendar/[\w-]{22,}\.ics", address), address
    assert not CalendarFeed.objects.filter(owner=user).exists()
    assert {name: found for name, found in violations.items() if found} == {}
