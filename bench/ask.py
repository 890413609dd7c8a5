"""`memory ask` speed, the two targets of issue 10.

1. A personal-fact answer end to end through the CLI with the daemon (`vyre memory ask
   "what's my wife's name?"` as a new process, the daemon up): target under 50 ms at the
   median. `python -c pass` runs beside it, so the figure reads against the interpreter's own
   start on the same machine at the same moment.
2. Ask without a model inside the daemon on the 10,000-session home of `bench/daemon.py`
   (who, when, which and personal questions, answered and not): target p95 under 100 ms.

Usage: python bench/ask.py [--runs 30] [--sessions 10000] [--calls 300] [--keep DIR] [--quick]
(--quick skips the 10,000-session home.)
"""

from __future__ import annotations

import argparse
import json
import os
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
from common import baseline, p95, verdict

from tests.transcript import Transcript
from vyre.api import Memory
from vyre.daemon import process
from vyre.daemon.protocol import DaemonUnavailable, call
from vyre.daemon.server import Daemon

VENV = Path(sys.executable).parent
HOME_DIR = "/home/bench"
PERSONAL_TARGET_MS = 50.0
ASK_TARGET_P95_MS = 100.0


def personal_cli(runs: int) -> dict:
    """Median and p95 of `vyre memory ask` for a personal fact, a new process each time."""
    with tempfile.TemporaryDirectory(prefix="vyre-askbench-") as tmp:
        root, home = Path(tmp) / "projects", Path(tmp) / "home"
        t = Transcript(root, cwd=HOME_DIR, session="life", start="2026-09-01T09:00:00Z")
        t.user("book a table for two on saturday, my wife is Juno and she likes the window")
        t.assistant("Booked.")
        t.write()
        Memory(home).ingest(root)[0]
        env = {**os.environ, "VYRE_HOME": str(home), "CLAUDE_CONFIG_DIR": str(root.parent)}
        os.environ.update(VYRE_HOME=str(home), CLAUDE_CONFIG_DIR=str(root.parent))
        process.start(home)
        try:
            command = [
                str(VENV / "vyre"),
                "memory",
                "ask",
                "what's my wife's name?",
                "--cwd",
                HOME_DIR,
            ]
            first = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            assert "Your wife is Juno" in first.stdout, first.stdout + first.stderr
            ask_ms, bare_ms = [], []
            for _ in range(runs):
                s = time.perf_counter()
                subprocess.run(command, env=env, capture_output=True, check=False)
                ask_ms.append((time.perf_counter() - s) * 1000)
                s = time.perf_counter()
                subprocess.run([sys.executable, "-c", "pass"], capture_output=True, check=False)
                bare_ms.append((time.perf_counter() - s) * 1000)
        finally:
            process.stop(home)
    return {
        "cli_ms": {"p50": round(statistics.median(ask_ms), 1), "p95": round(p95(ask_ms), 1)},
        "python_c_pass_ms": {
            "p50": round(statistics.median(bare_ms), 1),
            "p95": round(p95(bare_ms), 1),
        },
    }


def large_home(sessions: int, calls: int, keep: Path | None) -> dict:
    work = keep or Path(tempfile.mkdtemp(prefix="vyre-askbench-large-"))
    root, home = work / "claude" / "projects", work / "home"
    os.environ["VYRE_HOME"] = str(home)
    os.environ["CLAUDE_CONFIG_DIR"] = str(root.parent)
    if not any(root.glob("*/*.jsonl")):
        corpus.generate(root, sessions=sessions, projects=30)
    if not (home / "vyre.db").exists():
        with Memory(home) as memory:
            for n in range(1, 31):
                memory.project_add(f"p{n:02d}", f"p{n:02d}", [f"/home/bench/work/p{n:02d}"])
            memory.ingest(root)
    daemon = Daemon(home, root)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    while True:
        try:
            call("ping", caller="local", home=home, timeout=600)
            break
        except DaemonUnavailable:
            time.sleep(0.1)
    questions = []
    for n in range(1, 31):
        project = corpus.build_project(n)
        cwd = f"/home/bench/work/p{n:02d}"
        for person in project.people[:2]:
            questions.append((f"Who is {person.full}?", cwd))
            questions.append((f"What is {person.first}'s role at {person.org.name}?", cwd))
        questions.append((f"When is the {project.orgs[0].name} release due?", cwd))
        questions.append(("Which branch did we decide to deploy from?", cwd))
        questions.append(("What's my wife's name?", cwd))
        questions.append(("Does the parser handle tabs?", cwd))
    lines = [
        json.dumps({"op": "ask", "args": {"question": q, "cwd": c}, "caller": "cli"}).encode()
        for q, c in questions
    ]
    for line in lines[:30]:  # warm the rooms
        daemon.handle(line)
    inside, answered = [], 0
    for i in range(calls):
        line = lines[i % len(lines)]
        t = time.perf_counter()
        reply = daemon.handle(line)
        inside.append((time.perf_counter() - t) * 1000)
        answered += not reply["result"]["abstained"]
    daemon.stop.set()
    thread.join(30)
    return {
        "sessions": sessions,
        "ask_in_daemon_ms": {
            "p50": round(statistics.median(inside), 2),
            "p95": round(p95(inside), 2),
        },
        "answered": round(answered / len(inside), 2),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--keep", type=Path, default=None, help="Reuse or keep the large home.")
    ap.add_argument("--quick", action="store_true", help="Skip the 10,000-session home.")
    args = ap.parse_args()
    figures = {"personal": personal_cli(args.runs)}
    ok = figures["personal"]["cli_ms"]["p50"] < PERSONAL_TARGET_MS
    print(
        f"personal fact through the CLI and the daemon: p50 {figures['personal']['cli_ms']['p50']}"
        f" ms (python -c pass {figures['personal']['python_c_pass_ms']['p50']} ms; target "
        f"{PERSONAL_TARGET_MS} ms)"
    )
    if not args.quick:
        figures["large"] = large_home(args.sessions, args.calls, args.keep)
        p95_ms = figures["large"]["ask_in_daemon_ms"]["p95"]
        print(
            f"ask in the daemon, {args.sessions:,} sessions: p95 {p95_ms} ms "
            f"(target {ASK_TARGET_P95_MS} ms)"
        )
        ok = ok and p95_ms < ASK_TARGET_P95_MS
        base = baseline("ask")
        if base and "large" in base and p95_ms > base["large"]["ask_in_daemon_ms"]["p95"] * 2:
            print("FAIL: ask is over twice the baseline")
            ok = False
    print(json.dumps(figures, indent=2))
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
