"""Texts in both languages: the message catalogue, page texts, Chinese script helpers."""
