"""Database backends: Django's own, with the few changes LightNote's hot paths need."""
