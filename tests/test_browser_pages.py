"""The todo, note and settings pages in a real browser (Playwright + Debian's Chromium), at a
phone size and a desktop size, with an accessibility check by the vendored axe-core
(``tests/vendor/axe.min.js``, MPL-2.0; no CDN).

Skipped, with the reason, when the browser is missing — unless ``REQUIRE_SERVICES=1``. Set
``LIGHTNOTE_SCREENSHOT_DIR=docs/screenshots`` to refresh the README's screenshots.
The database is touched only before the browser starts and after it closes (Playwright's
sync API runs an event loop on this thread; see ``test_browser_chat.py``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from notes.models import Note
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from todos.models import Todo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
SCREENSHOT_DIR = os.environ.get("LIGHTNOTE_SCREENSHOT_DIR", "")


def _serious_violations(page: Any) -> list[str]:
    """Run axe-core on the page; return the serious and critical violations, described."""
    # Evaluated through the DevTools protocol: an inline <script> tag would be refused by the
    # pages' Content-Security-Policy (which is the point of it).
    page.evaluate(AXE.read_text())
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{violation['id']} ({violation['impact']}): "
        + "; ".join(node["target"][0] for node in violation["nodes"][:3])
        for violation in result["violations"]
        if violation["impact"] in ("serious", "critical")
    ]


def _shot(page: Any, name: str) -> None:
    if SCREENSHOT_DIR:
        Path(SCREENSHOT_DIR).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOT_DIR) / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_manage_todos_and_notes_from_the_pages(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    user = make_user("pagewalker")  # password "pw-pagewalker"
    violations: dict[str, list[str]] = {}

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(
                locale="en-US", timezone_id="America/New_York", viewport=VIEWPORTS[viewport]
            )
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(f"{live_server.url}/todos/")
            page.wait_for_url(re.compile(r"/accounts/login/"))
            page.get_by_label(re.compile("Username|用户名")).fill("pagewalker")
            page.get_by_label(re.compile("Password|密码")).fill("pw-pagewalker")
            page.get_by_label(re.compile("Password|密码")).press("Enter")
            page.wait_for_url(re.compile(r"/todos/$"))
            page.locator("nav.site-nav").get_by_role("link", name="Todos").wait_for()
            violations["todos-empty"] = _serious_violations(page)

            # Create a todo with the picker: the list shows it, at the time typed. On a phone
            # the form is folded behind "New todo".
            if viewport == "phone":
                assert not page.get_by_label("Title").is_visible()
                page.locator("summary", has_text="New todo").click()
            page.get_by_label("Title").fill("Send the weekly report")
            page.get_by_label("Priority").select_option("2")
            page.get_by_label("Due").fill("2026-12-04T21:00")
            page.get_by_role("button", name="Add").click()
            page.get_by_text("Todo “Send the weekly report” added.").wait_for()
            row = page.locator(".item", has_text="Send the weekly report")
            assert "2026-12-04 21:00" in row.inner_text()
            _shot(page, f"todos-{viewport}")
            violations["todos"] = _serious_violations(page)

            # Detail: mark done, then delete through the confirmation step.
            row.get_by_role("link").click()
            page.get_by_role("button", name="Mark as done").click()
            page.get_by_text("is done.").wait_for()
            page.get_by_role("button", name="Reopen").wait_for()
            _shot(page, f"todo-detail-{viewport}")
            violations["todo-detail"] = _serious_violations(page)
            page.get_by_role("link", name="Delete").click()
            page.get_by_role("button", name="Yes, delete").click()
            page.get_by_text("Todo “Send the weekly report” deleted.").wait_for()

            # Notes: create one with tags, then filter by a tag.
            page.locator("nav.site-nav").get_by_role("link", name="Notes").click()
            page.get_by_label("Title").fill("Weekly meeting")
            page.get_by_label("Content").fill("Release on Monday\nRetro on Friday")
            page.get_by_label("Tags (comma-separated)").fill("work, meeting")
            page.get_by_role("button", name="Save note").click()
            page.get_by_text("Note “Weekly meeting” saved.").wait_for()
            page.get_by_role("link", name="#meeting").first.click()
            page.locator(".item", has_text="Weekly meeting").wait_for()
            _shot(page, f"notes-{viewport}")
            violations["notes"] = _serious_violations(page)

            # Settings: the browser's zone differs from the saved one: adopt it in one click.
            page.locator("nav.site-nav").get_by_role("link", name="Settings").click()
            suggestion = page.locator("#zone-suggestion")
            suggestion.wait_for(state="visible")
            assert "America/New_York" in suggestion.inner_text()
            _shot(page, f"settings-{viewport}")
            violations["settings"] = _serious_violations(page)
            suggestion.get_by_role("button", name="Use this zone").click()
            page.get_by_text("Settings saved.").wait_for()
            assert page.locator(".topbar .zone").inner_text() == "America/New_York"
        finally:
            browser.close()

    user.refresh_from_db()
    assert user.time_zone == "America/New_York"
    assert not Todo.objects.filter(owner=user).exists()
    note = Note.objects.get(owner=user)
    assert (note.content, note.tags) == ("Release on Monday\nRetro on Friday", ["work", "meeting"])
    assert {name: found for name, found in violations.items() if found} == {}
