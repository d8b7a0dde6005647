from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class Pagination(PageNumberPagination):
    """``{"count", "next", "previous", "results"}``; ``?page=``, ``?page_size=`` (max 200)."""

    page_size_query_param = "page_size"
    max_page_size = 200
