"""Append one session to a large home and ingest again: only the touched rooms re-derive.

Builds a home from a generated corpus (2,000 sessions, 30 projects), then --runs times
appends one new session to a project and times `Memory.ingest` (scan, read, derive). Prints
the median and the rooms re-derived, and compares with bench/baseline.json. Target: under
1 second (issue 2).

Usage: python bench/incremental.py [--sessions 2000] [--runs 5] [--keep DIR]
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
from common import baseline, verdict

from vyre.api import Memory

TARGET_S = 1.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="A corpus to copy (not changed).")
    args = ap.parse_args()
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


if __name__ == "__main__":
    sys.exit(main())
