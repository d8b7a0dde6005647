"""Operating LightNote: health and readiness, metrics, structured logs, traces.

``docs/operations.md`` is the reference for what each piece exposes.
"""
