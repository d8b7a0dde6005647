"""``python -m bench``: run the benchmark (``bench/run.py`` says what it does)."""

from __future__ import annotations

import sys

from bench.run import main

sys.exit(main())
