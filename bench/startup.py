"""Cold start-up of what a person starts by hand or Claude Code starts for them, side by side
with the same interpreter's `python -c pass`, in one run, interleaved (each round runs each
command once, so a noisy moment costs them all alike):

- `vyre --help`                       target: within 3x of `python -c pass` (median)
- a read command with the daemon up   target: within 5x (`vyre memory relevant ...`)
- `vyre mcp` answering `initialize`   target: under 500 ms (the reply's line on stdout)

Beside them, for the record (no target): click's own `vyre memory --help` (what any command
the daemon does not serve pays before it starts), and the same read with the daemon down
(the stores opened by the command). The home is the bundled eval world. Prints medians, p95s
and the ratios beside their targets, compares with bench/baseline.json ("startup") and exits
1 when a target is missed.

Usage: python bench/startup.py [--runs 30]
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
import time
from pathlib import Path

from common import baseline, p95, verdict

from vyre.daemon import process
from vyre.evaluate.memory import build

ROOT = Path(__file__).resolve().parents[1]
WORLD = ROOT / "eval" / "worlds" / "memory"
BIN = Path(sys.executable).parent
HELP_RATIO = 3.0
READ_RATIO = 5.0
MCP_MS = 500.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def run_ms(argv: list[str], env: dict) -> tuple[float, str]:
    t = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    ms = (time.perf_counter() - t) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()[-300:]}")
    return ms, done.stdout


def mcp_initialize_ms(env: dict, cwd: str) -> float:
    """From starting the server to its initialize reply, as Claude Code would see it."""
    t = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-I", "-m", "vyre.mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    try:
        assert server.stdin and server.stdout
        server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        server.stdin.flush()
        line = server.stdout.readline()
        ms = (time.perf_counter() - t) * 1000
        reply = json.loads(line)
        assert reply["result"]["serverInfo"]["name"] == "vyre", reply
        return ms
    finally:
        server.kill()
        server.wait()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="vyre-startbench-"))
    try:
        times = measure(home, args.runs)
    finally:
        shutil.rmtree(home, ignore_errors=True)  # the home it built, daemon stopped
    return report(times)


def measure(home: Path, runs: int) -> dict[str, list[float]]:
    """Each command's wall times in ms, the rounds interleaved."""
    env = {**os.environ, "VYRE_HOME": str(home), "VYRE_NOW": "2026-10-01T12:00:00Z"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a person's shell writes bytecode: measure that
    os.environ.update(env)
    build(WORLD, home).close()
    vyre = str(BIN / "vyre")
    keel = "/home/sam/work/keel-ash"
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "vyre --help": [vyre, "--help"],
        "vyre memory relevant (daemon up)": [
            vyre,
            "memory",
            "relevant",
            "Draft a note to Priya about the launch date",
            "--cwd",
            keel,
        ],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    times["vyre mcp: initialize"] = []
    times["vyre memory --help (click)"] = []
    times["the read, daemon down"] = []
    process.start(home)
    try:
        for argv in commands.values():  # one warm-up each: bytecode written, caches filled
            run_ms(argv, env)
        mcp_initialize_ms(env, str(home))
        for _ in range(runs):
            for name, argv in commands.items():
                ms, out = run_ms(argv, env)
                times[name].append(ms)
                if "relevant" in name:
                    assert "Priya Anand" in out, out
            times["vyre mcp: initialize"].append(mcp_initialize_ms(env, str(home)))
            click_help = [sys.executable, "-m", "vyre.cli.main", "memory", "--help"]
            times["vyre memory --help (click)"].append(run_ms(click_help, env)[0])
    finally:
        process.stop(home)
    read = commands["vyre memory relevant (daemon up)"]
    run_ms(read, env)
    for _ in range(max(3, runs // 3)):  # slower, and no daemon: fewer rounds
        times["the read, daemon down"].append(run_ms(read, env)[0])
    return times


def report(times: dict[str, list[float]]) -> int:
    """Print the figures beside their targets and the baseline; the exit code."""
    median = {name: statistics.median(t) for name, t in times.items()}
    base = median["python -c pass"]
    help_ratio = median["vyre --help"] / base
    read_ratio = median["vyre memory relevant (daemon up)"] / base
    mcp_ms = median["vyre mcp: initialize"]
    figures = {
        name: {"p50_ms": round(median[name], 1), "p95_ms": round(p95(t), 1)}
        for name, t in times.items()
    }
    figures["help_ratio"] = round(help_ratio, 2)
    figures["read_ratio"] = round(read_ratio, 2)
    print(json.dumps(figures))
    for name, t in times.items():
        print(f"{name:<36} p50 {median[name]:7.1f} ms   p95 {p95(t):7.1f} ms")
    print(f"vyre --help / python -c pass       {help_ratio:5.2f}x  (target within {HELP_RATIO}x)")
    print(f"read with the daemon up / pass     {read_ratio:5.2f}x  (target within {READ_RATIO}x)")
    print(f"vyre mcp answers initialize in     {mcp_ms:5.0f} ms (target under {MCP_MS:.0f} ms)")
    ok = help_ratio <= HELP_RATIO and read_ratio <= READ_RATIO and mcp_ms < MCP_MS
    recorded = baseline("startup")
    if recorded:
        for key in ("help_ratio", "read_ratio"):
            if figures[key] > recorded[key] * 1.5:
                print(f"FAIL {key} {figures[key]} is over 1.5x the baseline {recorded[key]}")
                ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
