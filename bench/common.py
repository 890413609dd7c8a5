"""What every benchmark shares: the p95 it quotes, the committed baseline, the verdict."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

BASELINE = Path(__file__).with_name("baseline.json")


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))]


def baseline(section: str) -> dict | None:
    """This benchmark's figures in bench/baseline.json, if recorded."""
    return json.loads(BASELINE.read_text()).get(section) if BASELINE.exists() else None


def verdict(ok: bool) -> int:
    print("ok" if ok else "FAIL")
    return 0 if ok else 1


def run_cli(args: list[str], env: dict) -> tuple[float, float, str]:
    """(seconds, CPU seconds, stdout) of `vyre ARGS` in a process of its own, as typed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(
        [str(Path(sys.executable).with_name("vyre")), *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    ).stdout
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return seconds, cpu, out


def generated_home(work: Path, sessions: int, projects: int = 30) -> tuple[Path, Path]:
    """(transcripts root, Vyre home) of a generated heavy user: built once under `work`, with
    one project per generated folder, and reused when `work` already holds them."""
    import os
    import sys
    import time

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import corpus

    from vyre.api import Memory

    root, home = work / "claude" / "projects", work / "home"
    os.environ["VYRE_HOME"] = str(home)
    os.environ["CLAUDE_CONFIG_DIR"] = str(root.parent)
    if not any(root.glob("*/*.jsonl")):
        t = time.perf_counter()
        stats = corpus.generate(root, sessions=sessions, projects=projects)
        print(f"corpus: {stats['files']:,} files ({time.perf_counter() - t:.0f} s)")
    if not (home / "vyre.db").exists():
        with Memory(home) as memory:
            for n in range(1, projects + 1):
                memory.project_add(
                    f"p{n:02d}", f"p{n:02d}", [f"/home/bench/work/p{n:02d}"], caller="local"
                )
            t = time.perf_counter()
            report = memory.ingest(root).report
            print(f"home built: {report.records:,} records in {time.perf_counter() - t:.1f} s")
    return root, home
