"""One message turn: its readers, then persist and guard; the conversations themselves."""
