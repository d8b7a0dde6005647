"""A card's whole life: issue, preview, checks, claim, execute, receipt, settle, reconcile, edit,
undo."""
