"""Accounts: authentication, login throttling, preferences, the account views and services."""
