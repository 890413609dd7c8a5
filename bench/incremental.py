"""Append one session to a large home and ingest again: only the touched rooms re-derive.

Builds a home from a generated corpus (2,000 sessions, 30 projects), then --runs times
appends one new session to a project and times `Memory.ingest` (scan, read, derive). Prints
the median and the rooms re-derived, and compares with bench/baseline.json. Target: under
1 second (issue 2).

With `--work DIR` (a home of `--sessions` built there once by `common.generated_home` and
reused: heavy, run it with `nice -n 19`), it times what a user without the daemon waits
for instead: `vyre ingest` as typed, a fresh process each run (imports, stores opened, the
scan, the new session read, its room derived and written), its bytecode compiled as an
install has it. Prints the median wall and CPU beside issue 7's target (≤ 1 s at 30,000
sessions) and compares with the `incremental.fresh` baseline of a home of the same size as a
ratchet (fails `--slack` worse).

Usage: python bench/incremental.py [--sessions 2000] [--runs 5] [--keep DIR]
       python bench/incremental.py --work DIR --sessions 30000 [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from common import baseline, generated_home, run_cli, verdict

from vyre.api import Memory

TARGET_S = 1.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="A corpus to copy (not changed).")
    ap.add_argument("--work", type=Path, help="Time fresh `vyre ingest` on a home kept here.")
    ap.add_argument("--slack", type=float, default=0.5, help="Allowed worsening (x) vs baseline.")
    args = ap.parse_args()
    if args.work:
        return fresh(args)
    work = Path(tempfile.mkdtemp(prefix="vyre-incr-"))
    root = work / "projects"
    if args.keep and any(args.keep.glob("*/*.jsonl")):
        shutil.copytree(args.keep, root)
    else:
        corpus.generate(root, sessions=args.sessions)
    os.environ["VYRE_HOME"] = str(work / "home")
    memory = Memory(work / "home")
    for n in range(1, 31):
        memory.project_add(f"p{n:02d}", f"p{n:02d}", [f"/home/bench/work/p{n:02d}"], caller="local")
    t0 = time.perf_counter()
    memory.ingest(root)
    print(
        f"home built in {time.perf_counter() - t0:.1f} s "
        f"({len(memory.ledger.sessions()):,} sessions)"
    )
    times, touched = [], []
    for i in range(args.runs):
        corpus.append_session(root, project=(i % 30) + 1, seed=1000 + i)
        t = time.perf_counter()
        derived = memory.ingest(root).derived
        times.append(time.perf_counter() - t)
        touched.append(derived.rooms)
    memory.close()
    shutil.rmtree(work, ignore_errors=True)
    median = statistics.median(times)
    figures = {
        "median_s": round(median, 3),
        "max_s": round(max(times), 3),
        "rooms_rederived": sorted({len(r) for r in touched}),
    }
    print(json.dumps(figures))
    print(
        f"append one session + ingest: median {median * 1000:.0f} ms over {args.runs} runs; "
        f"rooms re-derived each time: {touched[0]} (target under {TARGET_S:.0f} s)"
    )
    ok = median < TARGET_S and all(len(r) == 1 for r in touched)
    base = baseline("incremental")
    if base and median > base["median_s"] * 2:
        print(f"FAIL median {median:.3f} s is over twice the baseline {base['median_s']} s")
        ok = False
    return verdict(ok)


def fresh(args: argparse.Namespace) -> int:
    """`vyre ingest` after one new session, each run a process of its own, no daemon."""
    root, home = generated_home(args.work, args.sessions)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(VYRE_HOME=str(home), CLAUDE_CONFIG_DIR=str(root.parent))
    sessions = sum(1 for _ in root.glob("*/*.jsonl"))
    walls, cpus, said = [], [], []
    for i in range(args.runs + 1):  # the first run compiles bytecode and warms the disk cache
        corpus.append_session(root, project=7, seed=time.time_ns())
        wall, cpu, out = run_cli(["ingest", str(root)], env)
        if i:
            walls.append(wall)
            cpus.append(cpu)
            said.append(out.strip().splitlines()[-1])
    figures = {
        "sessions": sessions,
        "median_s": round(statistics.median(walls), 3),
        "cpu_s": round(statistics.median(cpus), 3),
        "max_s": round(max(walls), 3),
    }
    print(json.dumps(figures))
    base = (baseline("incremental") or {}).get("fresh") or {}
    same = abs(base.get("sessions", 0) - sessions) < 0.05 * sessions
    was = f"baseline {base['median_s']} s wall, {base['cpu_s']} s CPU" if same else "no baseline"
    print(
        f"fresh `vyre ingest` after one new session, {sessions:,} sessions: median "
        f"{figures['median_s']:.2f} s wall, {figures['cpu_s']:.2f} s CPU over {args.runs} runs "
        f"(target ≤ 1 s at 30,000 sessions; {was}); {said[-1]}"
    )
    ok = all(s.startswith("derived 1 room") for s in said)
    if not ok:
        print(f"FAIL more than the new session's room derived: {said}")
    if same and figures["cpu_s"] > base["cpu_s"] * (1 + args.slack):
        print(f"FAIL CPU {figures['cpu_s']} s is over {1 + args.slack}x the baseline")
        ok = False
    if sessions >= 30000 and figures["median_s"] > TARGET_S:
        print(f"(target missed: {figures['median_s']:.2f} s > {TARGET_S:.0f} s)")
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
