"""PreToolUse as Claude Code runs it, with 200 active lessons: the exact command `vyre harness
install` writes, a new process per call, a Bash payload on stdin.

Prints p50/p95 beside the same interpreter's `python -c pass` measured in the same run, with
the daemon down and up (target: p95 within 1.7x of `python -c pass`, and the same answer
either way), and one in-process check pass over the 200 lessons, the code the daemon runs
(target under 0.5 ms). Compares with bench/baseline.json.

Usage: python bench/learn.py [--runs 100]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import baseline, p95, verdict

from vyre.api import Memory
from vyre.daemon import process
from vyre.hooks.commands import hook_command
from vyre.learn.checks import Call
from vyre.learn.judge import decide, load

COMMANDS = [
    "cd web && npm run build && git push origin feature/checkout",
    "git status",
    "sed -n '1,40p' src/app.ts | grep -n export",
    "python -m pytest -q tests/test_cart.py",
]


def lessons(n: int) -> list[tuple[str, str]]:
    """n sentences of the four shapes, each about its own program, folder or word."""
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append((f"never use `tool{i} --danger`", "block"))
        elif kind == 1:
            out.append((f"don't touch generated{i}/", "ask"))
        elif kind == 2:
            out.append((f"in docs never use the word 'buzzword{i}'", "block"))
        else:
            out.append((f"always run `lint{i}` after editing ts", "remind"))
    return out


def timed(argv: list[str], payload: bytes, runs: int, env: dict) -> tuple[list[float], set]:
    times, answers = [], set()
    for _ in range(runs):
        t = time.perf_counter()
        run = subprocess.run(argv, input=payload, capture_output=True, env=env)
        times.append((time.perf_counter() - t) * 1000)
        answers.add(run.stdout)
    return sorted(times), answers


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--lessons", type=int, default=200)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vyre-learnbench-"))
    home, work = root / "vyre", root / "work"
    work.mkdir()
    env = {**os.environ, "VYRE_HOME": str(home), "HOME": str(root)}
    env.pop("CLAUDECODE", None)
    os.environ.update(env)
    with Memory(home) as memory:
        for sentence, level in lessons(args.lessons):
            memory.learn.add(sentence, level=level, caller="local")
    active = load(str(home))
    assert len(active) == args.lessons, len(active)

    # one check pass in process: guards plus every lesson, over a few kinds of call
    calls = [Call("Bash", {"command": c}, str(work), dict(env)) for c in COMMANDS]
    passes = []
    for _ in range(300):
        for c in COMMANDS:
            call = Call("Bash", {"command": c}, str(work), dict(env))
            t = time.perf_counter()
            decide(call, active)
            passes.append((time.perf_counter() - t) * 1000)
    del calls

    payload = json.dumps(
        {
            "session_id": "bench",
            "cwd": str(work),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": COMMANDS[0]},
            "tool_use_id": "toolu_bench",
        }
    ).encode()
    command = shlex.split(hook_command("PreToolUse"))
    base, _ = timed([sys.executable, "-c", "pass"], b"", args.runs, env)
    down, down_answers = timed(command, payload, args.runs, env)
    (root / ".claude" / "projects").mkdir(parents=True)
    os.environ["CLAUDE_CONFIG_DIR"] = str(root / ".claude")
    process.start(home)
    try:
        up, up_answers = timed(command, payload, args.runs, env)
    finally:
        process.stop(home)
        shutil.rmtree(root, ignore_errors=True)
    same = down_answers == up_answers and len(up_answers) == 1
    figures = {
        "lessons": args.lessons,
        "python_c_pass_ms": {"p50": round(statistics.median(base), 1), "p95": round(p95(base), 1)},
        "pretooluse_daemon_down_ms": {
            "p50": round(statistics.median(down), 1),
            "p95": round(p95(down), 1),
        },
        "pretooluse_daemon_up_ms": {
            "p50": round(statistics.median(up), 1),
            "p95": round(p95(up), 1),
        },
        "check_pass_ms": {
            "p50": round(statistics.median(passes), 3),
            "p95": round(p95(passes), 3),
        },
        "same_answer_up_and_down": same,
    }
    print(json.dumps(figures, indent=2))
    ratio_down, ratio_up = p95(down) / p95(base), p95(up) / p95(base)
    print(
        f"PreToolUse p95 {p95(down):.1f} ms daemon down ({ratio_down:.2f}x), {p95(up):.1f} ms "
        f"up ({ratio_up:.2f}x) beside python -c pass p95 {p95(base):.1f} ms (target 1.7x); "
        f"check pass p50 {statistics.median(passes):.3f} ms (target 0.5); same answer: {same}"
    )
    ok = ratio_down <= 1.7 and ratio_up <= 1.7 and statistics.median(passes) < 0.5 and same
    base_line = baseline("learn")
    if base_line and p95(down) > base_line["pretooluse_daemon_down_ms"]["p95"] * 2:
        print("FAIL: over twice the baseline")
        ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
