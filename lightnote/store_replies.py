"""Each request reads the control store's late replies before its response leaves.

:class:`StoreRepliesMiddleware` runs the request inside
:func:`lightnote.store_scripts.replies_at_end`: a script call sent with
``send_now_read_later`` (a confirm's settle after a success, ``agent.execution.confirm``)
has its reply read once the response is built, so that round trip overlaps the rendering and
the middleware instead of coming before them. Redis runs the script when it arrives; only
its reply waits, and it is read (its connection given back) before the response is handed
to the server, also when the view or a middleware raised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lightnote.store_scripts import replies_at_end


class StoreRepliesMiddleware:
    """Read what :func:`~lightnote.store_scripts.send_now_read_later` sent, at the end."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        with replies_at_end():
            return self.get_response(request)
