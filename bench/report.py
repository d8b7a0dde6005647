"""The bench's verdict and report: the targets (PASS/FAIL, timed ones enforced only at full
size) and the printed tables."""

from __future__ import annotations

from typing import Any

from bench.interference import noticeable


def ratio(a: float, b: float) -> float:
    return round(a / b, 3) if b else float("inf")


def check_targets(results: dict[str, Any], timed: bool) -> list[dict[str, Any]]:
    paths = results["paths"]
    create = paths["direct create"]["p50_ms"]
    checks: list[dict[str, Any]] = []

    def check(
        name: str, value: Any, limit: Any, ok: bool, is_timed: bool, interval: Any = None
    ) -> None:
        checks.append(
            {
                "target": name,
                "value": value,
                "limit": limit,
                "ok": ok,
                "timed": is_timed,
                "enforced": timed or not is_timed,
                **({"interval_95": interval} if interval else {}),
            }
        )

    for path, limit in (("confirm", 1.3), ("repeat confirm", 1.0), ("card issue", 1.6)):
        value = ratio(paths[path]["p50_ms"], create)
        check(
            f"{path} p50 / direct create p50",
            value,
            limit,
            value <= limit,
            True,
            interval=paths[path].get("ratio_95"),
        )
    confirm_counts = paths["confirm"]
    sql = confirm_counts.get("sql_per_request", {}).get("max")
    redis_trips = confirm_counts.get("redis_per_request", {}).get("max")
    check("SQL statements per confirm (max)", sql, 8, sql is not None and sql <= 8, False)
    check(
        "Redis round trips per confirm (max)",
        redis_trips,
        4,
        redis_trips is not None and redis_trips <= 4,
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
        4000,
        burst_result["all_answered_ms"] <= 4000,
        True,
    )
    lists = results["lists"]
    small, large = results["config"]["list_rows"]
    for kind in ("todos", "notes"):
        value = ratio(
            lists[f"{kind} @ {large} rows"]["p50_ms"], lists[f"{kind} @ {small} rows"]["p50_ms"]
        )
        check(f"{kind} list p50 at {large} / at {small} rows", value, 1.2, value <= 1.2, True)
    return checks


def print_report(results: dict[str, Any]) -> None:
    def table(title: str, rows: dict[str, Any]) -> None:
        print(f"\n{title}")
        header = ("path", "n", "p50", "p95", "p99", "SQL", "writes", "SQL RT", "Redis")
        print("  {:<28}{:>5}{:>9}{:>9}{:>9}{:>9}{:>8}{:>8}{:>7}".format(*header))
        for name, row in rows.items():
            counts = []
            for counter in ("sql", "sql_writes", "sql_round_trips", "redis"):
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
                f"{row['p99_ms']:>9.2f}{counts[0]:>9}{counts[1]:>8}{counts[2]:>8}{counts[3]:>7}"
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
        "Paths (ms; SQL statements / writes / SQL round trips / Redis round trips per request,"
        " counted in the server)",
        results["paths"],
    )
    ratios = results["ratios"]
    print(
        "  ratios to direct create p50 (95 % interval, paired bootstrap): "
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
                + "; the ratios read higher under such load (docs/performance.md, Interference)"
            )
    table("Lists, first page", results["lists"])
    b = results["burst"]
    print(
        f"\n{b['concurrent']} concurrent confirms of one card: {b['executions']} execution(s), "
        f"statuses {b['statuses']}, all answered in {b['all_answered_ms']:.0f} ms "
        f"(connections opened beforehand in {b['connect_ms']:.0f} ms), errors {b['error_count']}"
        + (f"; server: {b['server']}" if b.get("server") else "")
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
        interval = item.get("interval_95")
        noise = f"; 95 % interval {interval[0]}-{interval[1]}" if interval else ""
        print(f"  {verdict:<5} {item['target']}: {item['value']} (limit {item['limit']}{noise})")


def _interval(interval: list[float] | None) -> str:
    return f" ({interval[0]:.2f}-{interval[1]:.2f})" if interval else ""
