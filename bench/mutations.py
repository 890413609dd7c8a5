"""The larger mutation campaign behind tests/test_reliability.py: figures, not a gate in pytest.

For each seed and each class, every source transcript (../shared/corpora and the bundled
world) is copied with --rate of its lines mutated, read into a fresh ledger, and compared with
a reference run where those lines are blank. Then, for each seed, one home with every class
mixed goes through the whole product: ingest, derive, every room's facts, why and overview.

Prints lines mutated, read as records, skipped and repaired by reason, tracebacks (any
exception out of ingest, derive or a read), turns lost, turns doubled and turns from lines
nobody mutated, and compares with bench/baseline.json ("mutations": all of the failure
figures must stay 0). Nothing is written outside a temp folder.

Usage: python bench/mutations.py [--seeds 5] [--rate 0.08] [--huge]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import baseline, verdict

from tests import mutations
from tests.mutations import CLASSES, compare, lines_in, mutated_copies, read_into, turns


def one_class(tmp: Path, klass: str, seed: int, rate: float, figures: dict) -> None:
    mutated, reference, where = mutated_copies(tmp, [klass], f"bench:{klass}:{seed}", rate)
    figures["mutated"] += sum(map(len, where.values()))
    try:
        ledger, report = read_into(tmp / "home", mutated)
    except Exception:
        figures["tracebacks"] += 1
        figures["examples"].append(f"{klass}/{seed}: {traceback.format_exc(limit=2)}")
        return
    ref, _ = read_into(tmp / "ref-home", reference)
    figures["lines"] += lines_in(mutated)
    figures["records"] += report.records
    figures["skipped"].update(report.skipped)
    figures["repaired"].update(report.repaired)
    counted = report.records + sum(report.skipped.values()) + report.pending
    figures["uncounted"] += lines_in(mutated) - counted
    lost, doubled, extra = compare(turns(ledger), turns(ref), where)
    figures["lost"] += len(lost)
    figures["doubled"] += len(doubled)
    figures["extra"] += len(extra)
    ledger.close()
    ref.close()


def whole_product(tmp: Path, seed: int, rate: float, figures: dict) -> None:
    from vyre.api import Memory

    mutated, _, _ = mutated_copies(tmp, sorted(CLASSES), f"bench:all:{seed}", rate)
    try:
        with Memory(tmp / "vyre") as memory:
            memory.ingest(mutated)
            for room in memory.reader.rooms():
                for fact in memory.facts(room):
                    memory.why(fact.subject, fact.rel, room=room)
                memory.overview(room)
            memory.derive(force=True)
    except Exception:
        figures["tracebacks"] += 1
        figures["examples"].append(f"all/{seed}: {traceback.format_exc(limit=3)}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rate", type=float, default=0.08)
    parser.add_argument("--huge", action="store_true", help="values of 150 KB and 1.2 MB too")
    args = parser.parse_args()
    if args.huge:
        mutations.HUGE_REPEATS = (50_000, 400_000)
    figures: dict = {
        "mutated": 0,
        "lines": 0,
        "records": 0,
        "uncounted": 0,
        "tracebacks": 0,
        "lost": 0,
        "doubled": 0,
        "extra": 0,
        "skipped": Counter(),
        "repaired": Counter(),
        "examples": [],
    }
    started = time.perf_counter()
    for seed in range(args.seeds):
        for klass in sorted(CLASSES):
            with tempfile.TemporaryDirectory() as tmp:
                one_class(Path(tmp), klass, seed, args.rate, figures)
        with tempfile.TemporaryDirectory() as tmp:
            whole_product(Path(tmp), seed, args.rate, figures)
    seconds = time.perf_counter() - started
    print(
        f"{figures['mutated']:,} mutated lines in {figures['lines']:,} lines "
        f"({len(CLASSES)} classes x {args.seeds} seeds, rate {args.rate}), {seconds:.0f} s"
    )
    print(
        f"read as records {figures['records']:,}; every line counted: {figures['uncounted'] == 0}"
    )
    for name in ("skipped", "repaired"):
        items = ", ".join(f"{n:,} {why}" for why, n in figures[name].most_common())
        print(f"{name} {sum(figures[name].values()):,}: {items}")
    failures = {k: figures[k] for k in ("tracebacks", "lost", "doubled", "extra", "uncounted")}
    print("failures: " + ", ".join(f"{k} {v}" for k, v in failures.items()))
    for example in figures["examples"][:5]:
        print(example)
    base = baseline("mutations") or {}
    return verdict(all(v <= base.get(k, 0) for k, v in failures.items()))


if __name__ == "__main__":
    sys.exit(main())
