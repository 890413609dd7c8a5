"""A first build (full ingest and derive) on a generated corpus, beside json.loads alone on the
same lines, read in one process and with the worker processes (vyre/transcripts/workers.py).

Each run times json.loads over every line, then a first build into a fresh home with
`ingest.workers` 1 (the writer reads every file itself), then one with the default (one worker
per CPU), one after the other, so the three are side by side under the same load. Prints the
medians of --runs runs: seconds, records per second, the ratio to json.loads (the figure to
keep low: target 2.5x), CPU seconds (the workers' included) and peak RSS (the writer's and the
largest worker's). Compares the default's ratio with bench/baseline.json (fails when it is more
than --slack worse, or the rate is under the 50,000 records/s target).

The builds run as an installed vyre does: its bytecode compiled and the rules' patterns cached
beside it (PYTHONDONTWRITEBYTECODE, set in some shells and containers, would have every build
compile the package's sources and the ~110 patterns first: 0.5-1 s of the writer's CPU before
its workers are forked, which a pip install never pays).

Usage: python bench/ingest.py [--sessions 2000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus
from common import baseline, verdict

TARGET = 50_000  # records per second, ingest and derive together (issue 2)
TARGET_RATIO = 2.5  # the first build, to json.loads on the same lines (issue 7)

# One first build in a fresh interpreter: its peak RSS and its workers' are its own.
ONE_BUILD = """
import json, os, resource, sys, tempfile, time
from pathlib import Path
root, workers = Path(sys.argv[1]), sys.argv[2]
with tempfile.TemporaryDirectory(prefix="vyre-bench-") as home:
    os.environ["VYRE_HOME"] = home
    if workers != "default":
        Path(home, "settings.json").write_text(json.dumps({"ingest.workers": int(workers)}))
    from vyre.api import Memory
    memory = Memory(Path(home))
    for n in range(1, 31):
        folder = f"/home/bench/work/p{n:02d}"
        memory.project_add(f"p{n:02d}", f"p{n:02d}", [folder], caller="local")
    cpu, t0 = time.process_time(), time.perf_counter()
    report = memory.ingest(root).report
    total = time.perf_counter() - t0
    cpu = time.process_time() - cpu
    derive = memory.last_derive_seconds
    memory.close()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({
    "ingest_s": total - derive, "derive_s": derive, "total_s": total, "records": report.records,
    "workers": report.workers, "cpu_s": cpu + children.ru_utime + children.ru_stime,
    "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "worker_rss_mib": children.ru_maxrss / 1024,
}))
"""


def build_env() -> dict[str, str]:
    """The builds' environment: this checkout's package, bytecode written as installed."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    return env


def compiled() -> None:
    """The package's bytecode, the rules' pattern cache (`vyre/extract/compiled.py`) and
    the word lists' (`gazetteer._cache_dirs`), as an installed vyre that has run once has
    them, made before the first timed build."""
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "vyre", quiet=1)
    warm = "from vyre.extract import warm; warm()"
    with tempfile.TemporaryDirectory(prefix="vyre-bench-") as home:  # never the user's home
        subprocess.run(
            [sys.executable, "-c", warm], env={**build_env(), "VYRE_HOME": home}, check=True
        )


def one_build(root: Path, workers: str) -> dict:
    """A first build of root in a fresh home and interpreter (`workers`: a count or default)."""
    run = subprocess.run(
        [sys.executable, "-c", ONE_BUILD, str(root), workers],
        capture_output=True,
        text=True,
        check=True,
        env=build_env(),
    )
    return json.loads(run.stdout.strip().splitlines()[-1])


def medians(runs: list[dict], loads_rate: float) -> dict:
    total = statistics.median(r["total_s"] for r in runs)
    rate = runs[0]["records"] / total
    return {
        "workers": runs[0]["workers"],
        "ingest_s": round(statistics.median(r["ingest_s"] for r in runs), 2),
        "derive_s": round(statistics.median(r["derive_s"] for r in runs), 2),
        "total_s": round(total, 2),
        "cpu_s": round(statistics.median(r["cpu_s"] for r in runs), 2),
        "records_per_s": round(rate),
        "ratio_to_json_loads": round(loads_rate / rate, 2),
        "rss_mib": round(max(r["rss_mib"] for r in runs)),
        "worker_rss_mib": round(max(r["worker_rss_mib"] for r in runs)),
    }


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
    compiled()
    loads, one, default = [], [], []
    for _ in range(args.runs):  # interleaved: the three see the same load
        loads.append(corpus.json_loads_seconds(root))
        one.append(one_build(root, "1"))
        default.append(one_build(root, "default"))
    loads_s = statistics.median(s for s, _ in loads)
    loads_rate = loads[0][1] / loads_s
    figures = {
        "records": default[0]["records"],
        "json_loads_records_per_s": round(loads_rate),
        "load_average": round(os.getloadavg()[0], 1),
        "one_process": medians(one, loads_rate),
        **medians(default, loads_rate),
    }
    print(json.dumps(figures, indent=2))
    ratio, rate = figures["ratio_to_json_loads"], figures["records_per_s"]
    print(
        f"first build {rate:,.0f} records/s with {figures['workers']} workers "
        f"({figures['one_process']['records_per_s']:,}/s in one process); json.loads alone "
        f"{loads_rate:,.0f}/s; ratio {ratio:.2f}x "
        f"({figures['one_process']['ratio_to_json_loads']:.2f}x in one process; target "
        f"{TARGET_RATIO}x); target {TARGET:,}/s (medians of {args.runs})"
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
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.0f} s in all)")
    sys.exit(code)
