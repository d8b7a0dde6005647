"""System checks for the deployment (run by ``manage.py check``)."""

from __future__ import annotations
