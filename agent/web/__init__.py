"""The agent's chat page: server-rendered, htmx-enhanced, over the API's own functions."""
