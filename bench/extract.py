"""Extraction time against the length of one message: every rule must stay linear.

Builds assistant messages of growing size (a paragraph of prose with names, titles, orgs, a
deadline and addresses, repeated) and times `extract` on each, median of --runs. Doubling the
input should about double the time: the figure to watch is the time per kilobyte, which stays
flat, and the growth from the smallest to the largest size, which stays near the size ratio.
Also times the message issue 7 measured (8,000 addresses, 173 KB: 11.4 s before).

Fails when the per-kilobyte time at the largest size is more than --slack times the one at
the smallest (a quadratic rule makes it grow with the size), or when it is worse than the
baseline by more than --slack.

Usage: python bench/extract.py [--runs 5] [--slack 2.0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import baseline, verdict

from vyre.extract import extract
from vyre.extract.gazetteer import given_names

PARAGRAPH = (
    "Priya Anand, the project architect at Keel & Ash Architects, sent the drawings. "
    "Marcus Bell from Harlow Legal says the intranet launch is due Friday. "
    "Write to dana{n}@harlow.law or see https://github.com/keel-ash/site for the code. "
    "Marlow Haulage Ltd's CFO, Rhys Talbot, wants the pack by Tuesday (24 November).\n"
)
SIZES_KB = (16, 32, 64, 128)


def message(kb: int) -> str:
    parts, n, size = [], 0, 0
    while size < kb * 1024:
        part = PARAGRAPH.format(n=n)
        parts.append(part)
        size += len(part)
        n += 1
    return "".join(parts)


def addresses(count: int) -> str:
    return "\n".join(f"- user{i}@example{i % 50}.io" for i in range(count))


def timed(text: str, runs: int, by: str = "agent") -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        extract(by, "text", text, "2026-11-19T10:00:00.000Z")
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--slack", type=float, default=2.0)
    args = ap.parse_args()
    given_names()  # loaded once per process, as in ingest: not part of a turn's time
    rows = []
    for kb in SIZES_KB:
        text = message(kb)
        seconds = timed(text, args.runs, "person")
        rows.append({"kb": kb, "seconds": round(seconds, 4), "ms_per_kb": seconds * 1000 / kb})
        print(f"{kb:4} KB  {seconds * 1000:8.1f} ms  {seconds * 1000 / kb:6.2f} ms/KB")
    heavy = addresses(8000)
    heavy_s = timed(heavy, max(1, args.runs // 2))
    print(f"8,000 addresses ({len(heavy) // 1024} KB): {heavy_s * 1000:.0f} ms")
    growth = rows[-1]["ms_per_kb"] / rows[0]["ms_per_kb"]
    figures = {
        "ms_per_kb_small": round(rows[0]["ms_per_kb"], 3),
        "ms_per_kb_large": round(rows[-1]["ms_per_kb"], 3),
        "per_kb_growth": round(growth, 2),
        "addresses_8000_s": round(heavy_s, 3),
    }
    print(json.dumps(figures, indent=2))
    ok = growth <= args.slack
    if not ok:
        print(f"FAIL time per KB grew {growth:.2f}x from {SIZES_KB[0]} KB to {SIZES_KB[-1]} KB")
    base = baseline("extract")
    if base and figures["ms_per_kb_large"] > base["ms_per_kb_large"] * args.slack:
        print(f"FAIL {figures['ms_per_kb_large']} ms/KB is over {args.slack}x the baseline")
        ok = False
    return verdict(ok)


if __name__ == "__main__":
    sys.exit(main())
