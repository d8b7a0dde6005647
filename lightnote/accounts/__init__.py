"""Accounts: sign-up, email verification, password reset, per-user caps, export, deletion."""
