"""The whole prompt hook as Claude Code runs it: the exact command `vyre harness install`
writes, a new process per call, a recorded UserPromptSubmit payload on stdin.

Prints p50/p95 with the daemon up (target p95 under 20 ms) and down (under 30 ms, and
empty), beside the same interpreter's `python -c pass`, and compares with
bench/baseline.json. The home is the bundled eval world.

Usage: python bench/hook.py [--runs 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import baseline, p95, verdict

from vyre.daemon import process
from vyre.evaluate.memory import build
from vyre.hooks.commands import hook_command

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = (ROOT / "tests" / "payloads" / "UserPromptSubmit.json").read_bytes()


def timed(argv: list[str], runs: int, env: dict) -> tuple[list[float], bytes]:
    times, out = [], b""
    for _ in range(runs):
        t = time.perf_counter()
        run = subprocess.run(argv, input=PAYLOAD, capture_output=True, env=env)
        times.append((time.perf_counter() - t) * 1000)
        out = run.stdout
    return sorted(times), out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="vyre-hookbench-"))
    env = {**os.environ, "VYRE_HOME": str(home), "VYRE_NOW": "2026-10-01T12:00:00Z"}
    os.environ.update(env)
    build(ROOT / "eval" / "worlds" / "memory", home).close()
    command = shlex.split(hook_command("UserPromptSubmit"))
    base, _ = timed([sys.executable, "-c", "pass"], args.runs, env)
    down, down_out = timed(command, args.runs, env)
    process.start(home)
    try:
        up, up_out = timed(command, args.runs, env)
    finally:
        process.stop(home)
    assert json.loads(up_out)["hookSpecificOutput"]["additionalContext"], "no facts came back"
    figures = {
        "python_c_pass_ms": {"p50": round(statistics.median(base), 1), "p95": round(p95(base), 1)},
        "hook_daemon_up_ms": {"p50": round(statistics.median(up), 1), "p95": round(p95(up), 1)},
        "hook_daemon_down_ms": {
            "p50": round(statistics.median(down), 1),
            "p95": round(p95(down), 1),
        },
        "daemon_down_output_empty": down_out == b"",
    }
    print(json.dumps(figures, indent=2))
    print(
        f"hook p95 {p95(up):.1f} ms with the daemon (target 20), {p95(down):.1f} ms without "
        f"(target 30, empty: {down_out == b''}); python -c pass p95 {p95(base):.1f} ms; "
        f"ratio {statistics.median(up) / statistics.median(base):.2f}x at the median"
    )
    ok = p95(up) < 20 and p95(down) < 30 and down_out == b""
    base_line = baseline("hook")
    if base_line and p95(up) > base_line["hook_daemon_up_ms"]["p95"] * 2:
        print("FAIL: over twice the baseline")
        ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
