"""Browser pages for todos (the API lives in ``todos/urls.py``)."""

from __future__ import annotations

from todos import pages

urlpatterns = pages.pages.urlpatterns()
