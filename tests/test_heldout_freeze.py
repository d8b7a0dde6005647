"""The held-out sets are frozen: every file's sha256 is pinned here (issues 43, 44).

A held-out row that is edited after it failed becomes a tuning row, so no file in
``tests/data/heldout/`` may change. Later work is measured on a NEW batch: write the file
before the work (sources and licences in its header, as the existing files do), add its sum
below and its loader to ``tests/heldout.py``, and record its first score in its header. A
file that is here but not pinned fails too, so a batch cannot slip in unfrozen.
"""

from __future__ import annotations

import hashlib

from tests.heldout import HELDOUT_DIR

FROZEN = {
    "guard_en.tsv": "04ad663aad4bb0ef01640b8e4a036cc6b0e958d9574a303490748a9a30b9e2d4",
    "guard_zh.tsv": "2f963b3c9c035e466339c15c812bcf76fe7be33eec152cf13515641653bf310c",
    "planner_en.tsv": "e91f381aa9a8aa75d0a04daf89a64322e1b4d99ccc722402eb44b1d0135a4bd5",
    "planner_en_b2.tsv": "9b9f216629731681eb9a638dcc7f8fb1955c06bb11ec933b31a637959e62dd68",
    "planner_items.tsv": "3a5dac1e33c6c4854f029121fe9db4053920c6be53a7c9ac4c194692ba7db745",
    "planner_zh.tsv": "5a77a6ff92e1e451d29dc1ab11f5b0c2f033d04adae1a6cd54843d9ae4fea51a",
    "planner_zh_b2.tsv": "b11ce7fa3f4ea16c9de712d042a6306e3800c6945dbfa7385e66e16f3f7e1e85",
}


def test_every_held_out_file_is_pinned_and_unchanged() -> None:
    present = {path.name for path in HELDOUT_DIR.iterdir() if path.is_file()}
    assert present == set(FROZEN), "a held-out file was added or removed: pin it here"
    for name, expected in FROZEN.items():
        digest = hashlib.sha256((HELDOUT_DIR / name).read_bytes()).hexdigest()
        assert digest == expected, f"{name} changed: held-out rows are frozen (add a new batch)"


def test_every_held_out_file_says_it_is_frozen_and_names_its_sources() -> None:
    for name in FROZEN:
        header = (HELDOUT_DIR / name).read_text(encoding="utf-8").split("\n", 12)
        assert any(line.startswith("# FROZEN") for line in header), name
    for name in (name for name in FROZEN if name != "planner_items.tsv"):
        text = (HELDOUT_DIR / name).read_text(encoding="utf-8")
        assert "Licence" in text or "licence" in text, name
        assert "# Before (first score" in text, name
