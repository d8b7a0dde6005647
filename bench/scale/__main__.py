"""``python -m bench.scale``: see bench/scale/run.py."""

from bench.scale.run import run

raise SystemExit(run())
