"""Issue 7's scale figures on one home, each printed beside its target.

On a home built from `bench/corpus.py` (30 projects; `--sessions`, or `--home` and `--root` for
one built already, which is only read and copied):
- derive every room from nothing (`vyre derive --all` in a process of its own): seconds and
  peak RSS (target: 5 M records, about 50,000 sessions, within 1 GiB);
- after one new session, `vyre ingest` as a user types it with no daemon (a process of its
  own: imports, stores opened, the scan, the session's room derived and written; the main
  graph is left to its next read, which is timed after it); then, the daemon up, `vyre
  ingest` again (median of 3) (target ≤ 1 s at 30,000 sessions);
- the daemon on that home: RSS and CPU while idle for `--idle` seconds (targets ≤ 500 MiB and
  ≤ 1 % at 30,000 sessions), then a line appended every 2 s to one session while prompt hooks
  ask for it over the socket: how long until the new line is visible (target ≤ 1 s p95) and
  how many hooks came back empty (target 0 %).

Every transcript is dated a day back first (a real home is mostly old files), and a copied
home ingests once untimed (it meets its transcripts at new paths). Each figure is printed
beside the `scale` entry of bench/baseline.json and its target; it fails on a missed hard
target (a new line over 1 s p95, any empty hook) or a figure over `--slack` worse than a
baseline of the same number of sessions.

Heavy: run it with `nice -n 19`, on a corpus generated once under /tmp.

Usage: python bench/scale.py [--sessions 2000] [--home H --root R [--in-place]] [--idle 30]
       [--appends 20] [--skip-derive]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import corpus
from common import baseline, p95, run_cli, verdict

from tests.transcript import Transcript
from vyre.daemon.protocol import DaemonUnavailable, call

PY = sys.executable
TICK = os.sysconf("SC_CLK_TCK")


def run_py(code: str, env: dict) -> tuple[float, int, str]:
    """(seconds, peak RSS in MiB, stdout) of a fresh interpreter running `code`."""
    wrapped = (
        "import resource, time\n"
        "t = time.perf_counter()\n" + code + "\n"
        "print('SECONDS', time.perf_counter() - t)\n"
        "print('CPU', time.process_time())\n"
        "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run(
        [PY, "-c", wrapped], env=env, capture_output=True, text=True, check=True
    ).stdout
    seconds = float(out.split("SECONDS ")[1].split()[0])
    rss = int(out.split("MAXRSS ")[1].split()[0]) // 1024
    return seconds, rss, out


def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def proc_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=2000)
    ap.add_argument("--home", type=Path, help="A home built already (copied, not changed).")
    ap.add_argument("--root", type=Path, help="Its transcripts (copied, not changed).")
    ap.add_argument("--idle", type=float, default=30.0)
    ap.add_argument("--appends", type=int, default=20)
    ap.add_argument("--skip-derive", action="store_true")
    ap.add_argument(
        "--in-place",
        action="store_true",
        help="Use --home and --root as they are (sessions are added to them): for a home too "
        "big to copy.",
    )
    ap.add_argument("--slack", type=float, default=0.5, help="Allowed worsening (x) vs baseline.")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vyre-scale-"))
    root, home = work / "claude" / "projects", work / "home"
    if args.in_place:
        root, home = args.root, args.home
    env = {**os.environ, "VYRE_HOME": str(home), "CLAUDE_CONFIG_DIR": str(root.parent)}
    figures: dict = {}
    try:
        if args.in_place:
            pass  # its transcripts are old files already
        elif args.root:
            shutil.copytree(args.root, root)
        else:
            corpus.generate(root, sessions=args.sessions, projects=30)
        if not args.in_place:
            old = time.time() - 86400  # a real ~/.claude/projects is mostly old files
            for path in root.rglob("*.jsonl"):
                os.utime(path, (old, old))
        if args.home and not args.in_place:
            shutil.copytree(args.home, home, ignore=shutil.ignore_patterns("daemon.*", "*.sock"))
        build = "from vyre.api import Memory\nm = Memory()\n"
        if not args.home:
            build += (
                "for n in range(1, 31):\n"
                "    m.project_add(f'p{n:02d}', f'p{n:02d}', [f'/home/bench/work/p{n:02d}'],\n"
                "                  caller='local')\n"
            )
        # a copied home meets its transcripts at new paths: that first ingest settles them
        run_py(build + f"m.ingest({str(root)!r})\nm.close()", env)
        records = run_py(
            "from vyre.api import Memory\nm = Memory()\n"
            "print('RECORDS', m.ledger.db.execute('SELECT count(*) FROM turns').fetchone()[0])",
            env,
        )[2]
        figures["turns"] = int(records.split("RECORDS ")[1].split()[0])
        figures["sessions"] = sum(1 for _ in root.glob("*/*.jsonl"))
        if not args.skip_derive:
            seconds, rss, _ = run_py(
                "from vyre.api import Memory\nm = Memory()\nm.derive(force=True)\nm.close()", env
            )
            figures["derive_all"] = {"s": round(seconds, 1), "peak_rss_mib": rss}
        # one new session, then `vyre ingest` as a user types it, no daemon running
        corpus.append_session(root, project=7, seed=int(time.time()))
        seconds, cpu, out = run_cli(["ingest", str(root)], env)
        figures["ingest_one_session"] = {
            "s": round(seconds, 2),
            # the whole process's CPU, imports included: what a loaded machine stretches less
            "cpu_s": round(cpu, 2),
            "derived": out.strip().splitlines()[-1],
        }
        # the main graph that ingest left for later, derived by the first read of it
        seconds, _, out = run_py(
            "from vyre.api import Memory\nm = Memory()\nm.facts()\nm.close()", env
        )
        figures["main_first_read_s"] = round(seconds, 2)
        figures["daemon"] = daemon_figures(home, root, env, args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(figures, indent=2))
    return report(figures, baseline("scale") or {}, args.slack)


def report(figures: dict, base: dict, slack: float) -> int:
    """Each figure beside its baseline and its target; fails on a missed hard target (a new
    line over 1 s p95, an empty prompt hook) or a figure `slack` worse than the baseline of
    a home of the same size."""
    d, b = figures["daemon"], base.get("daemon", {})
    same = base.get("sessions") == figures["sessions"]
    print(
        f"{figures['sessions']:,} sessions, {figures['turns']:,} turns; baseline: "
        f"{base.get('sessions', 0):,} sessions{'' if same else ' (another size: not compared)'}"
    )
    rows = [  # what, now, baseline, unit, target, lower is better
        (
            "derive --all",
            figures.get("derive_all", {}).get("s"),
            base.get("derive_all", {}).get("s"),
            "s",
            "",
        ),
        (
            "derive --all peak RSS",
            figures.get("derive_all", {}).get("peak_rss_mib"),
            base.get("derive_all", {}).get("peak_rss_mib"),
            "MiB",
            "≤ 1024 MiB at 5 M records",
        ),
        (
            "ingest after one new session, alone",
            figures["ingest_one_session"]["s"],
            base.get("ingest_one_session_s"),
            "s",
            "≤ 1 s at 30k sessions",
        ),
        (
            "... its CPU, imports included",
            figures["ingest_one_session"].get("cpu_s"),
            base.get("ingest_one_session_cpu_s"),
            "s",
            "",
        ),
        (
            "... the main graph's first read after",
            figures.get("main_first_read_s"),
            base.get("main_first_read_s"),
            "s",
            "",
        ),
        (
            "`vyre ingest` of it, daemon up",
            d.get("cli_ingest_one_session_s"),
            b.get("cli_ingest_one_session_s"),
            "s",
            "≤ 1 s at 30k sessions",
        ),
        ("daemon RSS idle", d["rss_mib"], b.get("rss_mib"), "MiB", "≤ 500 MiB at 30k"),
        ("daemon CPU idle", d["idle_cpu_pct"], b.get("idle_cpu_pct"), "%", "≤ 1 % at 30k"),
        (
            "new line visible p50",
            d["visible_s"]["p50"],
            b.get("visible_s", {}).get("p50"),
            "s",
            "",
        ),
        (
            "new line visible p95",
            d["visible_s"]["p95"],
            b.get("visible_s", {}).get("p95"),
            "s",
            "≤ 1 s at 30k",
        ),
        (
            "prompt hooks empty under writes",
            d["empty_hooks_pct"],
            b.get("empty_hooks_pct"),
            "%",
            "0 %",
        ),
        (
            "prompt hook reply p95 under writes",
            d.get("hook_s", {}).get("p95"),
            b.get("hook_s", {}).get("p95"),
            "s",
            "",
        ),
        (
            "main graph derived and written",
            (d.get("main_graph") or {}).get("last_s"),
            (b.get("main_graph") or {}).get("last_s"),
            "s",
            "",
        ),
        (
            "... of which the writer's lock held",
            (d.get("main_graph") or {}).get("writer_held_s"),
            (b.get("main_graph") or {}).get("writer_held_s"),
            "s",
            "",
        ),
    ]
    ok = d["empty_hooks_pct"] == 0 and d["visible_s"]["p95"] <= 1.0
    print(f"{'':34} {'now':>10} {'baseline':>10}   target")
    for what, now, was, unit, target in rows:
        shown = "-" if now is None else f"{now:g} {unit}"
        kept = "-" if was is None else f"{was:g} {unit}"
        worse = same and now is not None and was and now > was * (1 + slack) and now - was > 0.1
        ok = ok and not worse
        flag = "   WORSE than baseline" if worse else ""
        print(f"{what:34} {shown:>10} {kept:>10}   {target or '-'}{flag}")
    steps = d.get("line_steps_s") or {}
    if steps:
        print(
            "a new line in the daemon, median s: "
            + ", ".join(f"{k} {v:g}" for k, v in steps.items())
        )
    return verdict(ok)


def daemon_figures(home: Path, root: Path, env: dict, args) -> dict:
    proc = subprocess.Popen([PY, "-m", "vyre.daemon", "run"], env=env)
    try:
        while True:
            try:
                call("ping", caller="local", home=home, timeout=600)
                break
            except DaemonUnavailable:
                time.sleep(0.2)
        while call("status", caller="local", home=home, timeout=600)["ingests"] < 1:
            time.sleep(0.2)  # `status` waits for the start's ingest: minutes on a big home
        time.sleep(3)  # the main graph follows a second after the start's ingest
        cpu0, t0 = proc_cpu_s(proc.pid), time.monotonic()
        time.sleep(args.idle)
        idle_pct = 100 * (proc_cpu_s(proc.pid) - cpu0) / (time.monotonic() - t0)
        rss = proc_rss_mib(proc.pid)
        # `vyre ingest` as a user types it, the daemon up: its own process, answered by the
        # daemon (which may have read the new session already: then only the scan is left)
        cli = []
        for n in range(3):
            corpus.append_session(root, project=7, seed=int(time.time()) + n)
            started = time.perf_counter()
            subprocess.run(
                [str(Path(PY).with_name("vyre")), "ingest", str(root)],
                env=env,
                check=True,
                capture_output=True,
            )
            cli.append(time.perf_counter() - started)
        visible, empty, hooks, waits, steps = write_load(home, root, args.appends)
        status = call("status", caller="local", home=home, timeout=600)
        return {
            "cli_ingest_one_session_s": round(statistics.median(cli), 2),
            "rss_mib": round(rss, 1),
            "idle_cpu_pct": round(idle_pct, 2),
            "visible_s": {
                "p50": round(statistics.median(visible), 3),
                "p95": round(p95(visible), 3),
            },
            "empty_hooks_pct": round(100 * empty / max(1, hooks), 2),
            "hooks": hooks,
            # how long a prompt hook's reply took under the write load
            "hook_s": {"p50": round(statistics.median(waits), 4), "p95": round(p95(waits), 4)},
            "rss_after_writes_mib": round(proc_rss_mib(proc.pid), 1),
            # where a new line's time went in the daemon (median seconds per step of the
            # derives that served the appended lines; absent from a daemon that does not say)
            "line_steps_s": {
                step: round(statistics.median(d[step] for d in steps if step in d), 3)
                for step in sorted({k for d in steps for k in d})
            },
            # the last main graph: its whole time, and how much of it held the writer's lock
            # (absent from a daemon before it was derived beside the writer)
            "main_graph": status.get("main_graph"),
        }
    finally:
        proc.terminate()
        proc.wait(60)


def write_load(
    home: Path, root: Path, appends: int
) -> tuple[list[float], int, int, list[float], list[dict]]:
    """A line every 2 s in one session while hooks ask about earlier lines, as a live session
    does: (seconds until each new line was visible, empty hook replies, hooks sent, seconds
    each hook's reply took, the daemon's steps of the derive that served each line)."""
    cwd = "/home/bench/work/p07"
    t = Transcript(root, cwd=cwd, session=f"live-{time.time_ns()}", start="2026-09-30T10:00:00Z")
    known: list[str] = []
    waits: list[float] = []
    empty = hooks = 0
    stop = threading.Event()
    lock = threading.Lock()

    def hook_load() -> None:
        nonlocal empty, hooks
        while not stop.is_set():
            with lock:
                names = list(known)
            if names:
                asked = time.perf_counter()
                text = call(
                    "enrich",
                    {"prompt": f"Ask {names[0]} about it", "cwd": cwd},
                    caller="hook",
                    home=home,
                )
                waits.append(time.perf_counter() - asked)
                hooks += 1
                empty += names[0] not in (text or "")
            time.sleep(0.05)

    asker = threading.Thread(target=hook_load, daemon=True)
    asker.start()
    visible = []
    steps: list[dict] = []
    run = time.time_ns() // 1000
    for i in range(appends):
        n = run + i
        name = "Quinn Ap" + "".join(chr(97 + (n // 26**k) % 26) for k in range(6))
        t.user(f"{name}, the release manager at Northwind Dental, signs off today.")
        started = time.perf_counter()
        if i == 0:
            t.write()
        else:  # appended, as Claude Code writes
            with t.path.open("ab") as f:
                f.write(t.lines()[-1] + b"\n")
        while name not in (
            call("enrich", {"prompt": f"Ask {name} about it", "cwd": cwd}, caller="hook", home=home)
            or ""
        ):
            time.sleep(0.01)
        visible.append(time.perf_counter() - started)
        last = call("status", caller="local", home=home).get("last_derive") or {}
        steps.append({k: v for k, v in last.items() if isinstance(v, float)})
        with lock:
            known.insert(0, name)
        time.sleep(max(0.0, 2.0 - (time.perf_counter() - started)))
    stop.set()
    asker.join(10)
    return visible, empty, hooks, waits, steps


if __name__ == "__main__":
    sys.exit(main())
