"""The final reply after a confirmed action: its state machine and its store."""
