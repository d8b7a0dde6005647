"""Read-only impersonation in a real browser (Playwright + Debian's Chromium), phone and
desktop: from the user's admin page, through the confirmation step with a reason, to the
chat page with the banner naming both people, and back to the admin with its end button.

Skipped, with the reason, when the browser is missing — unless ``REQUIRE_SERVICES=1``. Set
``LIGHTNOTE_SCREENSHOT_DIR`` to keep the screenshots. The database is touched only before
the browser starts and after it closes (see ``test_browser_chat.py``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from agent.models import AgentSession, Message
from lightnote.models import AdminContext, AuditEvent
from tests.test_browser_chat import CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS
from tests.test_browser_pages import _serious_violations, _shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_browser_start_from_the_admin_banner_everywhere_end_returns_to_the_admin(
    live_server: Any, make_user: Any, sync_playwright: Any, viewport: str
) -> None:
    make_user("root", is_staff=True, is_superuser=True)  # password "pw-root"
    alice = make_user("alice")
    for number in range(52):  # 53 in all, 50 at a time: the oldest three on the next page
        AgentSession.objects.create(owner=alice, title=f"Earlier question {number}")
    session = AgentSession.objects.create(owner=alice, title="Weekly report question")
    Message.objects.create(session=session, role="user", text="What is still open this week?")
    violations: dict[str, list[str]] = {}

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(locale="en-US", viewport=VIEWPORTS[viewport])
            context.set_default_timeout(TIMEOUT_MS)
            page = context.new_page()
            page.goto(
                f"{live_server.url}/admin/login/?next=/admin/lightnote/user/{alice.pk}/change/"
            )
            page.get_by_label(re.compile("Username")).fill("root")
            page.get_by_label(re.compile("Password")).fill("pw-root")
            page.get_by_label(re.compile("Password")).press("Enter")
            page.wait_for_url(re.compile(rf"/admin/lightnote/user/{alice.pk}/change/$"))
            _shot(page, f"admin-user-view-as-{viewport}")

            page.get_by_role("link", name="View as this user (read-only)").click()
            page.wait_for_url(re.compile(r"/impersonate/$"))
            page.get_by_role("button", name="Start the read-only view").click()
            page.locator(".errornote").wait_for()  # a reason is required
            page.get_by_label("Reason").fill("Support ticket 42: missing todo")
            _shot(page, f"admin-view-as-confirm-{viewport}")
            page.get_by_role("button", name="Start the read-only view").click()

            page.wait_for_url(re.compile(r"/$"))
            banner = page.locator(".admin-context-banner")
            assert "root is viewing alice's data" in banner.inner_text()
            page.get_by_role("link", name="Weekly report question").wait_for()
            _shot(page, f"chat-admin-context-{viewport}")
            violations["chat"] = _serious_violations(page)

            page.get_by_role("link", name="Show older conversations").click()
            page.get_by_role("link", name="Earlier question 0", exact=True).wait_for()
            assert page.get_by_role("link", name="Weekly report question").count() == 0
            _shot(page, f"chat-admin-context-older-{viewport}")
            violations["older"] = _serious_violations(page)
            page.get_by_role("link", name="Back to the newest conversations").click()

            page.get_by_role("link", name="Weekly report question").click()
            page.get_by_text("What is still open this week?").wait_for()
            assert page.locator("#composer").count() == 0
            page.locator("nav.site-nav").get_by_role("link", name="Todos").click()
            assert "alice" in page.locator(".admin-context-banner").inner_text()

            page.get_by_role("button", name="End viewing and return to the admin").click()
            page.wait_for_url(re.compile(r"/admin/lightnote/admincontext/[0-9a-f-]+/change/$"))
            page.get_by_text("Support ticket 42: missing todo").first.wait_for()
            assert page.locator(".lightnote-admin-banner").count() == 0
            _shot(page, f"admin-context-ended-{viewport}")
        finally:
            browser.close()

    context_row = AdminContext.objects.get()
    assert context_row.ended_at is not None
    assert context_row.reason == "Support ticket 42: missing todo"
    assert AuditEvent.objects.filter(
        event_type="admin.request", details__context_id=str(context_row.id)
    ).exists()
    assert Message.objects.filter(session=session).count() == 1  # nothing written there
    assert {name: found for name, found in violations.items() if found} == {}
