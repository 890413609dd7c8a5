"""Cost after a change against the size of the home (issue 7: "cost after a change
proportional to the change").

For each home size in `--sizes` (homes of `bench/corpus.py`, 30 projects, built once under
`--work` by `common.generated_home` and reused), the same changes are timed:

- `vyre ingest` as a user types it with no daemon (a process of its own), after one new
  session in project p07, and after ten new sessions there: CPU and wall, medians of `--runs`;
- the daemon up on that home: the CPU it spends on one line appended to a live session of p07,
  from the append until the line is visible to a prompt hook and the main graph has followed
  (a fixed window of `WINDOW_S`, its idle CPU over the same time taken off), median of
  `--runs`; and how long the line took to be visible.

A cost that follows the change stays about flat while the home grows: the figure to read is
each cost at the largest home over the same cost at the smallest, beside how many times bigger
that home is. What still grows with the home, by design: a stat per transcript file (without
the daemon nothing else tells an append; ~3 us a file), and the changed room, which is derived
and written whole in a fresh process (the daemon derives it from its memo, by what changed).
The target (`TARGET_GROWTH`) is decided here, since the issue names no number: the same
change may cost at most twice as much on a home 15 times bigger. Until it is reached, the gate
is the `proportional` entry of bench/baseline.json (a ratchet: each growth may not be over
`--slack` worse than the figure recorded). Ten new sessions beside one show what a bigger
change adds (most of a fresh process is its fixed cost: imports, stores opened).

Heavy: run it with `nice -n 19`; a 30,000-session home is 3.6 GB of transcripts under --work.

Usage: python bench/proportional.py --work DIR [--sizes 2000,10000,30000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import corpus
from common import baseline, generated_home, run_cli, verdict
from scale import proc_cpu_s

from tests.transcript import Transcript
from vyre.daemon.protocol import DaemonUnavailable, call

TARGET_GROWTH = 2.0  # the same change on a home ~15x bigger costs at most this many times more
WINDOW_S = 5.0  # a line's work in the daemon: visible, then the main graph (after 3 s quiet)
CWD = "/home/bench/work/p07"


def _medians(**series: list[float]) -> dict[str, float]:
    return {name: round(statistics.median(values), 3) for name, values in series.items()}


def fresh_ingest(root: Path, env: dict, sessions: int, runs: int) -> dict:
    """A fresh `vyre ingest` after `sessions` new sessions in p07: medians (s)."""
    walls, cpus = [], []
    for i in range(runs + 1):  # the first run warms the disk cache and the plan kept
        for _ in range(sessions):
            corpus.append_session(root, project=7, seed=time.time_ns())
        wall, cpu, out = run_cli(["ingest", str(root)], env)
        if not out.strip().splitlines()[-1].startswith("derived 1 room"):
            raise SystemExit(f"more than p07 derived: {out.strip().splitlines()[-1]}")
        if i:
            walls.append(wall)
            cpus.append(cpu)
    return _medians(wall_s=walls, cpu_s=cpus)


def daemon_line(home: Path, root: Path, env: dict, runs: int) -> dict:
    """The daemon's CPU for one appended line, and how long until a hook sees it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.daemon", "run"], env=env, stdout=subprocess.DEVNULL
    )
    try:
        while True:
            try:
                if call("status", caller="local", home=home, timeout=600)["ingests"] >= 1:
                    break
            except DaemonUnavailable:
                pass
            time.sleep(0.2)
        time.sleep(WINDOW_S)
        cpu0, t0 = proc_cpu_s(proc.pid), time.monotonic()
        time.sleep(2 * WINDOW_S)
        idle_rate = (proc_cpu_s(proc.pid) - cpu0) / (time.monotonic() - t0)
        t = Transcript(
            root, cwd=CWD, session=f"live-{time.time_ns()}", start="2026-09-30T10:00:00Z"
        )
        cpus, visible = [], []
        for i in range(runs + 1):  # the first line makes the live session's file
            name = "Quinn Pr" + "".join(chr(97 + (time.time_ns() // 26**k) % 26) for k in range(6))
            t.user(f"{name}, the release manager at Northwind Dental, signs off today.")
            cpu0, started = proc_cpu_s(proc.pid), time.monotonic()
            if i == 0:
                t.write()
            else:
                with t.path.open("ab") as f:
                    f.write(t.lines()[-1] + b"\n")
            ask = {"prompt": f"Ask {name} about it", "cwd": CWD}
            while name not in (call("enrich", ask, caller="hook", home=home) or ""):
                time.sleep(0.01)
            seen = time.monotonic() - started
            time.sleep(max(0.0, WINDOW_S - seen))
            spent = proc_cpu_s(proc.pid) - cpu0 - idle_rate * (time.monotonic() - started)
            if i:
                cpus.append(spent)
                visible.append(seen)
        return _medians(cpu_s=cpus, visible_s=visible)
    finally:
        proc.terminate()
        proc.wait(60)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True, help="Homes are built (once) under here.")
    ap.add_argument("--sizes", default="2000,10000,30000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--slack", type=float, default=0.5, help="Allowed worsening (x) vs baseline.")
    args = ap.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    if len(sizes) < 2:
        raise SystemExit("--sizes needs two home sizes or more to compare")
    figures: dict[int, dict] = {}
    for size in sizes:
        work = args.work / f"home-{size}"
        root, home = generated_home(work, size)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(VYRE_HOME=str(home), CLAUDE_CONFIG_DIR=str(root.parent))
        figures[size] = {
            "sessions": sum(1 for _ in root.glob("*/*.jsonl")),
            "one_session": fresh_ingest(root, env, 1, args.runs),
            "ten_sessions": fresh_ingest(root, env, 10, args.runs),
            "daemon_one_line": daemon_line(home, root, env, args.runs),
        }
        print(json.dumps({size: figures[size]}), flush=True)
    small, big = figures[sizes[0]], figures[sizes[-1]]
    bigger = big["sessions"] / small["sessions"]
    ok = True
    base = (baseline("proportional") or {}).get("growth", {})
    print(
        f"the same change on a home {bigger:.1f}x bigger ({small['sessions']:,} -> "
        f"{big['sessions']:,} sessions) costs, CPU (target at most {TARGET_GROWTH}x):"
    )
    for change, what in (
        ("one_session", "a fresh `vyre ingest` after one new session"),
        ("ten_sessions", "a fresh `vyre ingest` after ten new sessions"),
        ("daemon_one_line", "the daemon, one appended line"),
    ):
        growth = big[change]["cpu_s"] / max(small[change]["cpu_s"], 1e-6)
        reached = "reached" if growth <= TARGET_GROWTH else "missed"
        was = f"baseline {base[change]:.2f}x" if change in base else "no baseline"
        print(
            f"  {what:48} {small[change]['cpu_s']:.3f} -> {big[change]['cpu_s']:.3f} s  "
            f"{growth:.2f}x ({reached}; {was})"
        )
        if bigger >= 10 and change in base and growth > base[change] * (1 + args.slack):
            print(f"FAIL {what}: {growth:.2f}x is over {1 + args.slack}x the baseline")
            ok = False
    for size in sizes:
        f = figures[size]
        more = f["ten_sessions"]["cpu_s"] - f["one_session"]["cpu_s"]
        print(f"  at {size:,} sessions, nine sessions more cost {more:+.3f} s of CPU")
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
