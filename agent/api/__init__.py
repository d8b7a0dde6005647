"""The agent's HTTP layer (docs/api.md), one module per resource.

``sessions``: conversations and their messages; ``confirmations``: confirm, reject and
status of a card by its token; ``card_actions``: ask again, edit, undo and choose (each
answers a new card); ``continuations``: the final reply. ``base`` holds what they share:
the body-first check order and the token endpoints' shape. Routes: ``agent/urls.py``.
"""
