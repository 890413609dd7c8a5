"""What every benchmark shares: the p95 it quotes, the committed baseline, the verdict."""

from __future__ import annotations

import json
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
