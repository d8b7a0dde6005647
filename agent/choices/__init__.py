"""Choice cards: several candidates for one proposal, one pick; with their store."""
