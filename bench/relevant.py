"""`relevant` in process on the eval world: p50 and p95 over every labelled prompt.

A warm Memory (as the daemon and a long-lived caller hold it) answers each enrich and
irrelevant prompt of the world --repeat times. Target: p95 under 2 ms (issue 8: it runs on
every prompt).

Usage: python bench/relevant.py [--world eval/worlds/memory] [--repeat 200]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import baseline, p95, verdict

from vyre.config import parse_time
from vyre.evaluate.memory import build, load_world

ROOT = Path(__file__).resolve().parents[1]
TARGET_P95_MS = 2.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--world", type=Path, default=ROOT / "eval" / "worlds" / "memory")
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    spec, gold = load_world(args.world)
    now = parse_time(spec["now"])
    with tempfile.TemporaryDirectory(prefix="vyre-rel-") as home:
        os.environ["VYRE_HOME"] = home
        memory = build(args.world, Path(home))
        prompts = [(c["prompt"], c.get("cwd")) for c in gold["enrich"] + gold["irrelevant"]]
        for prompt, cwd in prompts:  # warm the room caches
            memory.relevant(prompt, cwd, now=now)
        times = []
        for _ in range(args.repeat):
            for prompt, cwd in prompts:
                t = time.perf_counter()
                memory.relevant(prompt, cwd, now=now)
                times.append((time.perf_counter() - t) * 1000)
        memory.close()
    p50, p95_ms = statistics.median(times), p95(times)
    print(json.dumps({"p50_ms": round(p50, 3), "p95_ms": round(p95_ms, 3), "calls": len(times)}))
    print(
        f"relevant in process: p50 {p50:.3f} ms, p95 {p95_ms:.3f} ms over {len(times):,} calls "
        f"(target p95 under {TARGET_P95_MS} ms)"
    )
    ok = p95_ms < TARGET_P95_MS
    base = baseline("relevant")
    if base and p95_ms > base["p95_ms"] * 2:
        print(f"FAIL p95 {p95_ms:.3f} ms is over twice the baseline {base['p95_ms']} ms")
        ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
