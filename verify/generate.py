"""Write the Promela model of the confirmation protocol from its transition table.

``verify/transitions.tsv`` holds every move of the card, continuation and choice machines;
this module turns each ``(machine, event)`` into one Promela inline, a compare-and-set as
the Lua script does it, and puts them in front of ``verify/protocol.pml`` (the processes and
the properties, written by hand). ``--mutant NAME`` writes the model with one seeded bug
(``MUTANTS``), which the checker must catch.

    python -m verify.generate [--mutant NAME] [--no-ltl] > model.pml
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TABLE = HERE / "transitions.tsv"
PROCESSES = HERE / "protocol.pml"
MARKER = "/* @transitions@ (verify/generate.py puts the moves of verify/transitions.tsv here) */"

# The Promela names of each machine's record: state, attempt holder, lease passed, outcome.
PREFIX = {"card": "c_", "continuation": "k_", "choice": "h_"}

# What a guard token means, over the record ``r`` and the caller ``who`` (``arg``: the
# outcome the caller brings). The receipt is the card's, in the database.
GUARDS = {
    "owner": "is_owner(who)",  # the script compares the record's owner hash and session
    "deadline": "!deadline_passed[who]",  # the claim's attempt deadline, against Redis TIME
    "attempt": "{p}holder[r] == who",  # compare-and-set on the attempt id
    "lease_passed": "{p}lease[r]",  # takeover: the holder's lease has passed
    "kind_unknown": "{p}kind[r] == K_UNKNOWN",
    "fail_needs_lease": "(arg != K_FAILED || {p}lease[r])",  # "not executed" after the lease
    "receipt_succeeded": "receipt[r] == R_SUCCEEDED",  # this action's succeeded receipt
    "row_succeeded": "receipt[r] == R_SUCCEEDED",  # the history row commits with it
}

# What an effect token writes besides the state.
EFFECTS = {
    "hold": "{p}holder[r] = who; {p}lease[r] = 0",  # the attempt id is stored, a new lease
    "lease_clear": "{p}holder[r] = who; {p}lease[r] = 0",  # Lua keeps the attempt id
    "outcome": "{p}kind[r] = arg",
    "forget": "{p}holder[r] = 0; {p}lease[r] = 0; {p}kind[r] = K_NONE",
}

# Seeded bugs: each drops one guard from one move, or defines a macro protocol.pml reads.
MUTANTS: dict[str, dict[str, Any]] = {
    "claim-without-owner-check": {"drop": ("card", "claim", "owner")},
    "continuation-before-receipt": {"drop": ("continuation", "activate", "receipt_succeeded")},
    "rerun-after-lost-commit": {"define": "RERUN_AFTER_LOST_COMMIT"},
    "claim-without-deadline": {"drop": ("card", "claim", "deadline")},
}


@dataclass(frozen=True)
class Row:
    machine: str
    source: str
    event: str
    target: str
    guards: tuple[str, ...]
    effects: tuple[str, ...]
    function: str
    calls: tuple[str, ...]

    @property
    def passes_attempt(self) -> bool:
        """Return True when the caller passes its attempt id (so a repeat answers ALREADY)."""
        return "attempt" in self.guards or "hold" in self.effects


@dataclass(frozen=True)
class Table:
    rows: tuple[Row, ...]
    state_types: dict[str, str]  # machine -> dotted path of the code's state enum

    def states(self, machine: str) -> list[str]:
        """Return the machine's states in the order the table first names them."""
        seen: list[str] = []
        for row in self.rows:
            if row.machine != machine:
                continue
            for state in (row.source, row.target):
                if state not in ("-", "*", "gone") and state not in seen:
                    seen.append(state)
        return seen

    def machines(self) -> list[str]:
        return list(dict.fromkeys(row.machine for row in self.rows))


def _tokens(cell: str) -> tuple[str, ...]:
    return () if cell == "-" else tuple(part.strip() for part in cell.split(","))


def read_table(path: Path = TABLE) -> Table:
    """Read the transition table (``ValueError`` for an unknown guard, effect or machine)."""
    rows: list[Row] = []
    state_types: dict[str, str] = {}
    header_seen = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("#! states "):
            _, _, machine, dotted = line.split()
            state_types[machine] = dotted
            continue
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header_seen:
            header_seen = True
            continue
        if len(cells) != 8:
            raise ValueError(f"{path.name}:{number}: expected 8 tab-separated cells")
        machine, source, event, target, guard, effect, function, calls = cells
        row = Row(
            machine,
            source,
            event,
            target,
            _tokens(guard),
            _tokens(effect),
            function,
            _tokens(calls),
        )
        if machine not in PREFIX:
            raise ValueError(f"{path.name}:{number}: unknown machine {machine!r}")
        unknown = [g for g in row.guards if g not in GUARDS] + [
            e for e in row.effects if e not in EFFECTS
        ]
        if unknown:
            raise ValueError(f"{path.name}:{number}: unknown guard or effect {unknown}")
        rows.append(row)
    return Table(rows=tuple(rows), state_types=state_types)


def mutate(table: Table, mutant: str | None) -> tuple[Table, list[str]]:
    """Return the table with ``mutant``'s guard dropped, and the macros it defines."""
    if mutant is None:
        return table, []
    spec = MUTANTS[mutant]
    if "define" in spec:
        return table, [str(spec["define"])]
    machine, event, guard = spec["drop"]
    rows = tuple(
        replace(row, guards=tuple(g for g in row.guards if g != guard))
        if (row.machine, row.event) == (machine, event)
        else row
        for row in table.rows
    )
    if rows == table.rows:
        raise ValueError(f"mutant {mutant}: no {machine} {event} row has the guard {guard}")
    return replace(table, rows=rows), []


def constant(machine: str, state: str) -> str:
    return f"{machine.upper()}_{state.upper()}"


def _state_defines(table: Table) -> list[str]:
    lines: list[str] = []
    for machine in table.machines():
        lines.append(f"#define {constant(machine, 'absent')} 0")
        states = table.states(machine)
        for number, state in enumerate(states, start=1):
            lines.append(f"#define {constant(machine, state)} {number}")
        lines.append(f"#define {constant(machine, 'gone')} {len(states) + 1}")
    return lines


def _source_test(table: Table, row: Row, p: str) -> str:
    if row.source == "*":
        live = [constant(row.machine, s) for s in table.states(row.machine)]
        return "(" + " || ".join(f"{p}st[r] == {c}" for c in live) + ")"
    if row.source == "-":
        return f"{p}st[r] == {constant(row.machine, 'absent')}"
    return f"{p}st[r] == {constant(row.machine, row.source)}"


def _inline(table: Table, machine: str, event: str, rows: list[Row]) -> list[str]:
    """One compare-and-set: ALREADY (2) for the same attempt's repeat, else the first row
    whose state and guards hold (1), else refused (0) — as ``record_transition.lua``."""
    p = PREFIX[machine]
    branches: list[tuple[str, str]] = []
    repeat = next((row for row in rows if row.passes_attempt), None)
    if repeat is not None:
        same = f"{p}st[r] == {constant(machine, repeat.target)} && {p}holder[r] == who"
        if "outcome" in repeat.effects:
            same += f" && {p}kind[r] == arg"
        branches.append((same, "ok = 2"))
    for row in rows:
        test = " && ".join(
            [_source_test(table, row, p)] + [GUARDS[g].format(p=p) for g in row.guards]
        )
        writes = [f"{p}st[r] = {constant(machine, row.target)}"]
        writes += [EFFECTS[e].format(p=p) for e in row.effects]
        branches.append((test, "; ".join([*writes, "ok = 1"])))
    origin = ", ".join(sorted({row.function for row in rows}))
    lines = [f"/* {machine} {event}: {origin} */", f"inline {machine}_{event}(r, who, arg, ok) {{"]
    # d_step: one indivisible step, as the script runs in Redis; "ok = 0" first so that the
    # call is always executable (never a guard that blocks its caller).
    lines += ["  d_step {", "    ok = 0;"]
    depth = 0
    for test, action in branches:
        pad = "  " * (depth + 2)
        lines += [f"{pad}if", f"{pad}:: ({test}) -> {action}", f"{pad}:: else ->"]
        depth += 1
    lines.append("  " * (depth + 2) + "skip")
    for level in range(depth - 1, -1, -1):
        lines.append("  " * (level + 2) + "fi")
    lines += ["  }", "}"]
    return lines


def transitions(table: Table) -> list[str]:
    """Return the Promela of every move: the state constants and one inline per event."""
    lines = ["/* Generated by verify/generate.py from verify/transitions.tsv: do not edit. */"]
    lines += _state_defines(table)
    grouped: dict[tuple[str, str], list[Row]] = {}
    for row in table.rows:
        grouped.setdefault((row.machine, row.event), []).append(row)
    for (machine, event), rows in grouped.items():
        lines += _inline(table, machine, event, rows)
    return lines


def model(
    *, mutant: str | None = None, ltl: bool = True, bounds: Iterable[tuple[str, int]] = ()
) -> str:
    """Return the whole Promela model: bounds, the generated moves, then the processes."""
    table, defines = mutate(read_table(), mutant)
    head = [f"#define {name} {value}" for name, value in bounds]
    head += [f"#define {name} 1" for name in defines]
    if not ltl:
        head.append("#define NO_LTL 1")
    body = PROCESSES.read_text(encoding="utf-8")
    if MARKER not in body:
        raise ValueError(f"{PROCESSES.name} has no {MARKER} line")
    return "\n".join(head) + "\n" + body.replace(MARKER, "\n".join(transitions(table)), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutant", choices=sorted(MUTANTS))
    parser.add_argument("--no-ltl", action="store_true", help="leave the LTL claims out")
    args = parser.parse_args(argv)
    sys.stdout.write(model(mutant=args.mutant, ltl=not args.no_ltl) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
