"""The bench's verdict and report: the targets (PASS/FAIL; the one timed target, the burst's
ceiling, enforced only at full size) and the printed tables. Each path's p50 against the
authenticated no-op (``GET /api/v1/me/``) is reported, never enforced: the design is not bent
to a ratio (docs/performance.md)."""

from __future__ import annotations

from typing import Any

from bench.interference import noticeable


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("inf")


# The counts an API confirm may cost (tests/test_confirm_costs.py pins them too).
CONFIRM_SQL_MAX = 9  # with the account cap's read, as tests/test_confirm_costs.py pins
CONFIRM_REDIS_MAX = 3
BURST_CEILING_MS = 4000
LIST_FLATNESS = 1.2


def check_targets(results: dict[str, Any], timed: bool) -> list[dict[str, Any]]:
    paths = results["paths"]
    checks: list[dict[str, Any]] = []

    def check(name: str, value: Any, limit: Any, ok: bool, is_timed: bool) -> None:
        checks.append(
            {
                "target": name,
                "value": value,
                "limit": limit,
                "ok": ok,
                "timed": is_timed,
                "enforced": timed or not is_timed,
            }
        )

    confirm_counts = paths["confirm"]
    sql = confirm_counts.get("sql_per_request", {}).get("max")
    redis_trips = confirm_counts.get("redis_per_request", {}).get("max")
    check(
        "SQL statements per confirm (max)",
        sql,
        CONFIRM_SQL_MAX,
        sql is not None and sql <= CONFIRM_SQL_MAX,
        False,
    )
    check(
        "Redis round trips per confirm (max)",
        redis_trips,
        CONFIRM_REDIS_MAX,
        redis_trips is not None and redis_trips <= CONFIRM_REDIS_MAX,
        False,
    )
    writes = paths["repeat confirm"].get("sql_writes_per_request", {}).get("max")
    check("SQL writes per repeat confirm (max)", writes, 0, writes == 0, False)
    burst_result = results["burst"]
    check(
        "executions of one card under concurrent confirms",
        burst_result["executions"],
        1,
        burst_result["executions"] == 1 and burst_result["error_count"] == 0,
        False,
    )
    check(
        f"all {burst_result['concurrent']} concurrent confirms answered (ms)",
        burst_result["all_answered_ms"],
        BURST_CEILING_MS,
        burst_result["all_answered_ms"] <= BURST_CEILING_MS,
        True,
    )
    lists = results["lists"]
    small, large = results["config"]["list_rows"]
    for kind in ("todos", "notes"):
        value = ratio(
            lists[f"{kind} @ {large} rows"]["p50_ms"], lists[f"{kind} @ {small} rows"]["p50_ms"]
        )
        check(
            f"{kind} list p50 at {large} / at {small} rows",
            value,
            LIST_FLATNESS,
            value <= LIST_FLATNESS,
            True,
        )
    return checks


def print_report(results: dict[str, Any]) -> None:
    def table(title: str, rows: dict[str, Any]) -> None:
        print(f"\n{title}")
        header = ("path", "n", "p50", "p95", "p99", "SQL", "writes", "Redis")
        print("  {:<28}{:>5}{:>9}{:>9}{:>9}{:>9}{:>8}{:>7}".format(*header))
        for name, row in rows.items():
            counts = []
            for counter in ("sql", "sql_writes", "redis"):
                stats = row.get(f"{counter}_per_request")
                counts.append(
                    "-"
                    if stats is None
                    else (
                        f"{stats['max']}"
                        if stats["min"] == stats["max"]
                        else f"{stats['min']}-{stats['max']}"
                    )
                )
            print(
                f"  {name:<28}{row['n']:>5}{row['p50_ms']:>9.2f}{row['p95_ms']:>9.2f}"
                f"{row['p99_ms']:>9.2f}{counts[0]:>9}{counts[1]:>8}{counts[2]:>7}"
            )

    config = results["config"]
    print(
        f"\nLightNote bench ({config['size']}), {results['server']['model']}, "
        f"load average before {results['machine']['loadavg_before']}"
    )
    flush = results.get("flush_wait")
    if flush:
        print(
            f"Seeded in {results['seed_seconds']} s; waited {flush['waited_s']} s for MariaDB to "
            f"write the seed out ({flush['dirty_pages_after_seed']} -> "
            f"{flush['dirty_pages_at_start']} dirty pages"
            + (", timed out" if flush["timed_out"] else "")
            + ")"
        )
    table(
        "Paths (ms; SQL statements / writes / Redis round trips per request, counted in the"
        " server)",
        results["paths"],
    )
    ratios = results["ratios"]
    print(
        "  p50 against GET /api/v1/me/ (reported, not a target; 95 % interval, paired "
        "bootstrap): "
        + ", ".join(
            f"{k} {v:.2f}x" + _interval(results["paths"][k].get("ratio_95"))
            for k, v in ratios.items()
        )
    )
    seen = results.get("interference")
    if seen:
        print(
            f"  CPU while these were timed ({seen['seconds']} s, in cores): the bench's own "
            f"processes {seen['own_cores']:.2f}, other processes "
            f"{seen['other_processes_cores']:.2f}, kernel threads "
            f"{seen['kernel_threads_cores']:.2f}, stolen by the hypervisor "
            f"{seen['steal_cores']:.2f}"
        )
        if noticeable(seen):
            busiest = ", ".join(
                f"{other['name']} ({other['pid']}) {other['cores']:.2f}"
                for other in seen["busiest_others"]
            )
            print(
                "  note: other work took CPU while the paths were timed"
                + (f" ({busiest})" if busiest else "")
                + "; the timings read higher under such load (docs/performance.md)"
            )
    table("Lists, first page", results["lists"])
    b = results["burst"]
    print(
        f"\n{b['concurrent']} concurrent confirms of one card: {b['executions']} execution(s), "
        f"statuses {b['statuses']}, all answered in {b['all_answered_ms']:.0f} ms "
        f"(connections opened beforehand in {b['connect_ms']:.0f} ms), errors {b['error_count']}"
        + (f"; server: {b['server']}" if b.get("server") else "")
    )
    first = results.get("first_text")
    if first:
        print(f"\nTime to first visible text of a model turn ({first['model']}; ms)")
        print(f"  {'':<16}{'n':>5}{'first p50':>11}{'p95':>9}{'whole p50':>11}{'p95':>9}")
        for mode, label in (("streaming_off", "streaming off"), ("streaming_on", "streaming on")):
            row = first[mode]
            print(
                f"  {label:<16}{row['first_text']['n']:>5}{row['first_text']['p50_ms']:>11.0f}"
                f"{row['first_text']['p95_ms']:>9.0f}{row['whole_answer']['p50_ms']:>11.0f}"
                f"{row['whole_answer']['p95_ms']:>9.0f}"
            )
    if "comparison" in results:
        table(
            f"Previous worker model for comparison: {results['comparison']['model']}",
            results["comparison"]["paths"],
        )
    enforced = "" if config["size"] == "full" else " (timed targets not enforced at this size)"
    print(f"\nTargets{enforced}")
    for item in results["targets"]:
        verdict = "PASS" if item["ok"] else ("FAIL" if item["enforced"] else "miss")
        print(f"  {verdict:<5} {item['target']}: {item['value']} (limit {item['limit']})")


def _interval(interval: list[float] | None) -> str:
    return f" ({interval[0]:.2f}-{interval[1]:.2f})" if interval else ""
