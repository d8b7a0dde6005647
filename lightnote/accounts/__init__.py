"""Accounts: authentication, login throttling, preferences, sign-up, email verification,
password reset, per-user caps, export and deletion; the account views and services."""
