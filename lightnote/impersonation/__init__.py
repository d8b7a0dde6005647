"""Admin read-only contexts: who acts, on whose data, and the one write gate."""
