"""Full ingest and derive on a generated corpus, beside json.loads alone on the same files.

Prints records per second for both and their ratio (the figure to keep low), as medians of
--runs runs, and compares them with bench/baseline.json (fails when the ratio is more than
--slack worse than the baseline, or the rate is under the 50,000 records/s target).

Usage: python bench/ingest.py [--sessions 2000] [--runs 3] [--keep DIR]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from common import baseline, verdict

from vyre.api import Memory

TARGET = 50_000  # records per second, ingest and derive together (issue 2)


def one_run(root: Path) -> tuple[float, float, int]:
    """(ingest seconds, derive seconds, records) into a fresh home."""
    with tempfile.TemporaryDirectory(prefix="vyre-bench-") as home:
        os.environ["VYRE_HOME"] = home
        memory = Memory(Path(home))
        try:
            for n in range(1, 31):
                memory.project_add(
                    f"p{n:02d}", f"p{n:02d}", [f"/home/bench/work/p{n:02d}"], caller="local"
                )
            t0 = time.perf_counter()
            report = memory.ingest(root).report
            total = time.perf_counter() - t0
            derive_seconds = memory.last_derive_seconds
        finally:
            memory.close()
    return total - derive_seconds, derive_seconds, report.records


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", type=Path, default=None, help="Reuse or keep the corpus here.")
    ap.add_argument("--slack", type=float, default=0.5, help="Allowed ratio worsening (x).")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="vyre-corpus-"))
    if not any(root.glob("*/*.jsonl")):
        stats = corpus.generate(root, sessions=args.sessions)
        print(f"corpus: {stats['files']:,} files, {stats['lines']:,} lines in {root}")
    loads = [corpus.json_loads_seconds(root) for _ in range(args.runs)]
    loads_s = statistics.median(s for s, _ in loads)
    lines = loads[0][1]
    runs = [one_run(root) for _ in range(args.runs)]
    ingest_s = statistics.median(r[0] for r in runs)
    derive_s = statistics.median(r[1] for r in runs)
    total_s = statistics.median(r[0] + r[1] for r in runs)
    records = runs[0][2]
    rate = records / total_s
    loads_rate = lines / loads_s
    ratio = loads_rate / rate
    figures = {
        "records": records,
        "json_loads_records_per_s": round(loads_rate),
        "ingest_s": round(ingest_s, 2),
        "derive_s": round(derive_s, 2),
        "total_s": round(total_s, 2),
        "records_per_s": round(rate),
        "ratio_to_json_loads": round(ratio, 2),
    }
    print(json.dumps(figures, indent=2))
    print(
        f"ingest+derive {rate:,.0f} records/s (median of {args.runs}); json.loads alone "
        f"{loads_rate:,.0f}/s; ratio {ratio:.2f}x; target {TARGET:,}/s"
    )
    ok = rate >= TARGET
    base = baseline("ingest")
    if base and ratio > base["ratio_to_json_loads"] * (1 + args.slack):
        print(
            f"FAIL ratio {ratio:.2f} is worse than baseline "
            f"{base['ratio_to_json_loads']:.2f} by more than {args.slack:.0%}"
        )
        ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
