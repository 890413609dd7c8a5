"""One graph file's fixed cost: a room's file written whole, and opened to be read.

Builds the bundled eval world once in a temporary home, takes the rows of its smallest and
its largest room's file (`GraphStore.read`), then, alternating the two rooms so both see the
same load, --runs times: writes each room's rows into a fresh graph folder
(`GraphStore.replace_room`, what a derive does per room), opens the written file to read its
digest and row counts (`GraphStore.state`, what a check of the graph against the ledger
does), and reads every row back (`GraphStore.read`). Every read is checked to give back the
rows written. Prints medians of CPU milliseconds (the process's own: the engine's threads
included, the machine's other work mostly not) and compares the small room's write and open
with bench/baseline.json ("graphfile"): fails when one is over --slack times its baseline.

Most of a small room's cost is the engine's fixed cost per file (schema, indexes,
checkpoint), not its rows: that cost is what the test suite and the corrections pay per
room touched, so it is the figure to keep low.

Usage: python bench/graphfile.py [--runs 15] [--engine ladybug|kuzu] [--slack 1.5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from common import baseline, verdict

WORLD = Path(__file__).resolve().parents[1] / "eval" / "worlds" / "memory"


def cpu_ms(fn: Callable[..., Any], *args: object) -> tuple[float, Any]:
    start = time.process_time()
    out = fn(*args)
    return (time.process_time() - start) * 1000, out


def _ids(facts: list) -> list[str]:
    # The order rows come back in follows the engine's plan: compare them as a set.
    return sorted(repr(f) for f in facts)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--engine", default=None, help="ladybug (default) or kuzu")
    ap.add_argument("--slack", type=float, default=1.5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="vyre-graphfile-") as work:
        home = Path(work, "home")
        spec = json.loads((WORLD / "world.json").read_text())
        os.environ["VYRE_HOME"] = str(home)
        os.environ["VYRE_NOW"] = spec["now"]
        from vyre.evaluate.memory import build
        from vyre.graph import GraphStore

        memory = build(WORLD, home, engine=args.engine)
        store = memory.store
        every = {room: store.read(room) for room in store.rooms()}
        memory.close()
        by_size = sorted(every.values(), key=lambda r: len(r.facts) + len(r.evidence))
        small, large = by_size[0], by_size[-1]
        cases = {"small": small, "large": large}
        ops = ("write", "open", "read")
        times: dict[str, list[float]] = {f"{c}_{op}": [] for c in cases for op in ops}
        for run in range(args.runs):
            for case, rows in cases.items():
                target = GraphStore(Path(work, f"g{run}-{case}"), args.engine)
                ms, _ = cpu_ms(target.replace_room, rows)
                times[f"{case}_write"].append(ms)
                ms, state = cpu_ms(target.state, rows.room)
                times[f"{case}_open"].append(ms)
                ms, back = cpu_ms(target.read, rows.room)
                times[f"{case}_read"].append(ms)
                if state.facts != len(rows.facts) or _ids(back.facts) != _ids(rows.facts):
                    print(f"FAIL the {case} room's file does not read back what was written")
                    return verdict(False)
                target.close()

    figures = {key: round(statistics.median(values), 2) for key, values in times.items()}
    print(f"engine: {args.engine or 'default'}; medians of {args.runs} runs, CPU ms")
    for case, rows in cases.items():
        print(
            f"  {case} room ({len(rows.facts)} facts, {len(rows.evidence)} evidence): "
            f"write {figures[f'{case}_write']} ms, open to read its state "
            f"{figures[f'{case}_open']} ms, read every row {figures[f'{case}_read']} ms"
        )
    print(json.dumps(figures))
    base = baseline("graphfile")
    ok = True
    if args.engine in (None, "ladybug") and base:
        for key in ("small_write", "small_open"):
            if figures[key] > base[key] * args.slack:
                over = f"{figures[key]} ms is over {args.slack}x the baseline {base[key]} ms"
                print(f"FAIL {key} {over}")
                ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
