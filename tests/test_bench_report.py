"""``make bench``'s ratios: the sampling noise it reports beside each one, and the report."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from bench.measure import ratio_interval
from bench.report import check_targets, print_report


def _drifting_rounds(rounds: int, factor: float, seed: int) -> tuple[list[float], list[float]]:
    """Per round a base time and one ``factor`` times it, both moved by the same machine
    drift (a slow stretch doubles both), plus a little noise of their own."""
    rng = random.Random(seed)
    base, times = [], []
    for i in range(rounds):
        drift = 2.0 if (i // 50) % 2 else 1.0
        base.append(3.0 * drift * rng.uniform(0.98, 1.02))
        times.append(3.0 * factor * drift * rng.uniform(0.98, 1.02))
    return times, base


def test_the_interval_holds_the_ratio_and_is_the_same_for_the_same_samples() -> None:
    rng = random.Random(1)
    base = [rng.lognormvariate(1.2, 0.3) for _ in range(400)]
    times = [value * 1.3 * rng.lognormvariate(0, 0.2) for value in base]
    point = statistics.median(times) / statistics.median(base)
    low, high = ratio_interval(times, base, random.Random(7))
    assert low < point < high
    assert 0 < high - low < 0.3
    assert ratio_interval(times, base, random.Random(7)) == (low, high)


def test_rounds_are_resampled_whole_so_a_drift_both_paths_shared_adds_no_noise() -> None:
    times, base = _drifting_rounds(400, 1.3, seed=3)
    low, high = ratio_interval(times, base, random.Random(5))
    assert low <= 1.3 <= high
    assert high - low < 0.05
    # Unpaired, the same samples would look far noisier: which rounds a draw takes moves
    # each median between the fast and the slow stretch on its own.
    unpaired = random.Random(5)
    ratios = sorted(
        statistics.median(unpaired.choices(times, k=400))
        / statistics.median(unpaired.choices(base, k=400))
        for _ in range(400)
    )
    assert ratios[389] - ratios[10] > 4 * (high - low)


def test_more_rounds_give_a_narrower_interval() -> None:
    rng = random.Random(2)
    base = [rng.lognormvariate(1.2, 0.4) for _ in range(2000)]
    times = [rng.lognormvariate(1.2, 0.4) * 1.3 for _ in range(2000)]
    low_few, high_few = ratio_interval(times[:100], base[:100], random.Random(9))
    low_many, high_many = ratio_interval(times, base, random.Random(9))
    assert high_many - low_many < (high_few - low_few) / 2


def test_samples_that_are_not_one_per_round_are_refused() -> None:
    with pytest.raises(ValueError):
        ratio_interval([1.0, 2.0], [1.0], random.Random(0))
    with pytest.raises(ValueError):
        ratio_interval([], [], random.Random(0))


def _results(confirm_p50: float, interval: list[float]) -> dict[str, Any]:
    def path(p50: float, **extra: object) -> dict[str, Any]:
        return {"n": 500, "p50_ms": p50, "p95_ms": p50 * 1.5, "p99_ms": p50 * 2, **extra}

    counts = {"min": 1, "median": 1, "max": 1}
    results: dict[str, Any] = {
        "config": {"size": "full", "list_rows": [1000, 100000]},
        "server": {"model": "gunicorn gthread"},
        "machine": {"loadavg_before": [0.1, 0.1, 0.1]},
        "paths": {
            "direct create": path(4.0),
            "card issue": path(6.0, ratio_95=[1.45, 1.55]),
            "confirm": path(confirm_p50, ratio_95=interval),
            "repeat confirm": path(3.0, ratio_95=[0.72, 0.78], sql_writes_per_request=counts),
        },
        "lists": {
            f"{kind} @ {rows} rows": path(7.0)
            for kind in ("todos", "notes")
            for rows in (1000, 100000)
        },
        "burst": {
            "concurrent": 1000,
            "executions": 1,
            "error_count": 0,
            "all_answered_ms": 1300.0,
            "statuses": {"200": 999, "202": 1},
            "connect_ms": 60.0,
        },
    }
    results["paths"]["confirm"]["sql_per_request"] = {"min": 7, "median": 7, "max": 7}
    results["paths"]["confirm"]["redis_per_request"] = {"min": 2, "median": 2, "max": 2}
    results["paths"]["repeat confirm"]["sql_writes_per_request"] = {"min": 0, "median": 0, "max": 0}
    results["ratios"] = {
        name: round(results["paths"][name]["p50_ms"] / 4.0, 3)
        for name in ("card issue", "confirm", "repeat confirm")
    }
    return results


def test_ratios_are_reported_never_judged_and_the_counts_are_the_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = _results(5.3, [1.28, 1.37])
    results["targets"] = check_targets(results, timed=True)
    names = [target["target"] for target in results["targets"]]
    assert not any("p50 /" in name for name in names)  # no ratio is a target
    verdicts = {target["target"]: target["ok"] for target in results["targets"]}
    assert verdicts["SQL statements per confirm (max)"] is True
    assert verdicts["Redis round trips per confirm (max)"] is True
    assert verdicts["SQL writes per repeat confirm (max)"] is True
    assert verdicts["executions of one card under concurrent confirms"] is True
    print_report(results)
    out = capsys.readouterr().out
    assert "confirm 1.32x (1.28-1.37)" in out  # reported beside the others
    assert "FAIL" not in out


def test_a_fourth_redis_round_trip_or_a_second_execution_fails_its_target() -> None:
    results = _results(5.3, [1.28, 1.37])
    results["paths"]["confirm"]["redis_per_request"] = {"min": 3, "median": 3, "max": 4}
    results["burst"]["executions"] = 2
    verdicts = {t["target"]: t["ok"] for t in check_targets(results, timed=False)}
    assert verdicts["Redis round trips per confirm (max)"] is False
    assert verdicts["executions of one card under concurrent confirms"] is False
