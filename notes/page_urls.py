"""Browser pages for notes (the API lives in ``notes/urls.py``)."""

from __future__ import annotations

from notes import pages

urlpatterns = pages.pages.urlpatterns()
