"""Where the test suite's time goes, per test: a pytest plugin, and a report of what it wrote.

The plugin needs no conftest change: put bench/ on the path and name it with `-p`, as
`make test` runs the suite (each xdist worker writes its own file):

    TIMELINE_OUT=/tmp/tl/run1 PYTHONPATH=bench env -u PYTHONDONTWRITEBYTECODE \
        .venv/bin/pytest -p suite_timeline -n 4 --dist loadscope --no-loadscope-reorder
    .venv/bin/python bench/suite_timeline.py /tmp/tl/run1 [--tests 40]

For each test (setup, call and teardown together) it records the wall time, the worker's
CPU (`time.process_time`), the CPU of the worker's children it reaped
(`getrusage(RUSAGE_CHILDREN)`: a CLI or hook run to its end; not a daemon, which is
reparented, nor a browser still open), the graph files this worker wrote and opened to read
(count and CPU), and the head of the command line of every process it started. The report
prints the sums, the modules by CPU and the costliest tests. Nothing here asserts a time:
speed is compared old against new, side by side (see bench/ and the lead's notes).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import glob
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_rows: list[dict[str, Any]] = []
_counts: collections.Counter[str] = collections.Counter()
_cpu: collections.Counter[str] = collections.Counter()
_started: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event == "subprocess.Popen":
        argv = args[1]
        words = argv if isinstance(argv, (list, tuple)) else [argv]
        _started.append(" ".join(os.path.basename(str(w)) for w in words[:3])[:100])


def _count_graph_files() -> None:
    from vyre.graph import store

    real_write, real_reading = store.GraphStore._write, store.GraphStore.reading

    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return real_write(self, *args, **kwargs)
        finally:
            _counts["writes"] += 1
            _cpu["writes"] += time.process_time() - start

    @contextlib.contextmanager
    def reading(self: Any, room: str) -> Iterator[Any]:
        start = time.process_time()
        with real_reading(self, room) as engine:
            _counts["reads"] += engine is not None
            yield engine
        _cpu["reads"] += time.process_time() - start

    store.GraphStore._write = write  # type: ignore[method-assign]
    store.GraphStore.reading = reading  # type: ignore[method-assign]


def _now() -> tuple[float, float, float]:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), time.process_time(), children.ru_utime + children.ru_stime


def pytest_configure(config: Any) -> None:
    sys.addaudithook(_audit)
    _count_graph_files()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: Any, nextitem: Any) -> Iterator[None]:
    _counts.clear()
    _cpu.clear()
    _started.clear()
    before = _now()
    yield
    after = _now()
    _rows.append(
        {
            "id": item.nodeid,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
            "wall": after[0] - before[0],
            "cpu": after[1] - before[1],
            "children": after[2] - before[2],
            "writes": _counts["writes"],
            "write_cpu": _cpu["writes"],
            "reads": _counts["reads"],
            "read_cpu": _cpu["reads"],
            "started": list(_started),
        }
    )


def pytest_sessionfinish(session: Any) -> None:
    out = os.environ.get("TIMELINE_OUT")
    if out:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(f"{out}.{worker}.jsonl", "w") as f:
            f.writelines(json.dumps(row) + "\n" for row in _rows)


def report(prefix: str, tests: int) -> None:
    rows = [
        json.loads(line)
        for name in glob.glob(f"{prefix}.*.jsonl")
        for line in Path(name).read_text().splitlines()
    ]
    if not rows:
        raise SystemExit(f"no {prefix}.*.jsonl")
    total = {k: sum(r[k] for r in rows) for k in ("wall", "cpu", "children", "write_cpu")}
    print(
        f"{len(rows)} tests: wall {total['wall']:.1f} s summed, CPU {total['cpu']:.1f} s "
        f"(+ children reaped {total['children']:.1f} s); graph files written "
        f"{sum(r['writes'] for r in rows)} ({total['write_cpu']:.1f} s CPU), opened to read "
        f"{sum(r['reads'] for r in rows)} ({sum(r['read_cpu'] for r in rows):.1f} s CPU); "
        f"processes started {sum(len(r['started']) for r in rows)}"
    )
    modules: dict[str, list[float]] = collections.defaultdict(lambda: [0.0] * 6)
    for r in rows:
        m = modules[r["id"].split("::")[0]]
        for i, k in enumerate(("cpu", "children", "wall", "writes", "reads")):
            m[i] += r[k]
        m[5] += len(r["started"])
    print("\nmodule                                       CPU  children   wall  writes reads procs")
    for name, m in sorted(modules.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        print(f"{name:<42} {m[0]:6.1f} {m[1]:8.1f} {m[2]:7.1f} {m[3]:6.0f} {m[4]:5.0f} {m[5]:4.0f}")
    print(f"\nthe {tests} costliest tests (CPU + children)")
    for r in sorted(rows, key=lambda r: -(r["cpu"] + r["children"]))[:tests]:
        print(f"{r['cpu']:6.2f} {r['children']:6.2f} {r['wall']:6.2f} w{r['writes']:<4} {r['id']}")
    started = collections.Counter(p for r in rows for p in r["started"])
    print("\nprocesses started, by command")
    for command, n in started.most_common(15):
        print(f"{n:5} {command}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("prefix", help="TIMELINE_OUT of the run")
    ap.add_argument("--tests", type=int, default=40)
    args = ap.parse_args()
    report(args.prefix, args.tests)
