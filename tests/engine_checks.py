"""Engine checks that must run in a process of their own.

ladybug and kuzu both register the same native types, so one process can load only one of
them. The tests run each check in a fresh interpreter with `python -m tests.engine_checks`.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from vyre.graph import GraphBusy, GraphError, GraphStore
from vyre.graph.engine import Engine


def canary(name: str) -> int:
    """Wrong answers from 100 re-executions of a parameterised 2-hop query with a
    relationship-property filter, against a count computed in Python (0 is right)."""
    engine = Engine(Path(tempfile.mkdtemp()) / "g", name)
    engine.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
    engine.execute("CREATE REL TABLE E(FROM N TO N, room STRING)")
    rng = random.Random(7)
    engine.copy("N", pa.table({"id": pa.array(range(200), pa.int64())}))
    edges = [(rng.randrange(200), rng.randrange(200), f"r{rng.randrange(5)}") for _ in range(1000)]
    engine.copy(
        "E",
        pa.table(
            {
                "from": pa.array([e[0] for e in edges], pa.int64()),
                "to": pa.array([e[1] for e in edges], pa.int64()),
                "room": [e[2] for e in edges],
            }
        ),
    )
    query = (
        "MATCH (a:N)-[x:E]->(b:N)-[y:E]->(c:N) WHERE a.id = $start AND x.room = $room "
        "AND y.room = $room RETURN count(*)"
    )
    wrong = 0
    for _ in range(100):
        start, room = rng.randrange(200), f"r{rng.randrange(5)}"
        want = sum(
            1
            for a, b, r in edges
            if a == start and r == room
            for b2, _c, r2 in edges
            if b2 == b and r2 == room
        )
        wrong += engine.execute(query, {"start": start, "room": room})[0][0] != want
    engine.close()
    return wrong


def parameters(name: str) -> int:
    engine = Engine(Path(tempfile.mkdtemp()) / "g", name)
    engine.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
    try:
        engine.execute("MATCH (n:N) WHERE n.id = $id DELETE n", {})
    except GraphError:
        return 0
    return 1


def second_writer(name: str) -> int:
    """Another process opening the graph this one holds gets GraphBusy, not a hang."""
    path = Path(tempfile.mkdtemp()) / "g"
    first = GraphStore(path, name)
    try:
        child = subprocess.run(
            [sys.executable, "-m", "tests.engine_checks", "open", name, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        first.close()
    return 0 if child.returncode == 3 and "in use by another process" in child.stdout else 1


def open_graph(name: str, path: str) -> int:
    try:
        GraphStore(Path(path), name).close()
    except GraphBusy as exc:
        print(exc)
        sys.exit(3)
    return 0


CHECKS = {"canary": canary, "parameters": parameters, "second_writer": second_writer}

if __name__ == "__main__":
    check, engine = sys.argv[1], sys.argv[2]
    if check == "open":
        sys.exit(open_graph(engine, sys.argv[3]))
    with tempfile.TemporaryDirectory() as scratch:  # each check's graphs go with it
        tempfile.tempdir = scratch
        failures = CHECKS[check](engine)
    print(f"{check} {engine}: {failures} failure(s)")
    sys.exit(1 if failures else 0)
