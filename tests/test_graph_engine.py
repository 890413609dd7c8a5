"""The graph engine adapter, against both supported engines (GRAPH_ENGINE.md).

Each check runs in its own interpreter: one process can load only one of the two engines.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, python_prints
from vyre.graph import GraphError, GraphStore

ENGINES = ["ladybug", "kuzu"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("check", ["canary", "parameters", "second_writer", "edits"])
def test_engine_check(engine, check):
    """canary: ladybug 0.21+ answered re-executed parameterised 2-hop queries wrongly from
    its plan cache; the adapter turns it off. parameters: a query's $names must equal the
    parameters. second_writer: a second read-write open is refused with GraphBusy. edits: a
    room's file changed in place by what changed holds what the file written whole holds."""
    run = subprocess.run(
        [sys.executable, "-m", "tests.engine_checks", check, engine],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_unknown_engine_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VYRE_GRAPH_ENGINE", "neo4j")
    with pytest.raises(GraphError, match="must be one of"):
        GraphStore(tmp_path / "g")


WRITE_ALONE = """
import sys, tempfile
from datetime import datetime
from pathlib import Path
from vyre.graph import EvidenceRow, FactRow, GraphStore, RoomRows
when = datetime(2026, 9, 1, 10, 30, 0, 123000)
store = GraphStore(Path(tempfile.mkdtemp()) / "graph")
# one fact (its rows created from a parameter) and 600 (bulk-loaded from Arrow tables)
for room, n in (("p1", 1), ("p2", 600)):
    facts = [FactRow(f"f{i}", room, f"person:ada {i}", "person", "Ada", "works_at", "org:acme",
                     "org", "Acme", 0.9, valid_from=when, valid_to=None if i % 2 else when,
                     seen=when, sessions=i, rules="works_at.at") for i in range(n)]
    evidence = [EvidenceRow(f"f{i}", room, f"person:ada {i}", "s1", i, when, "works_at.at",
                            'Ada "at" Acme') for i in range(n)]
    rows = RoomRows(room, "d1", facts, evidence)
    store.replace_room(rows)
    back = store.read(room)
    assert (back.facts, back.evidence, back.digest) == (rows.facts, rows.evidence, "d1"), back
    if n == 1:  # a small room is written and read as Python rows, without pyarrow
        assert "pyarrow" not in sys.modules
        small = back
assert "pyarrow" in sys.modules  # the big room was bulk-loaded through Arrow
assert store.read("p1") == small  # read through Arrow now: the same rows
print(sorted(m for m in ("pandas", "networkx") if m in sys.modules))
try:
    import pandas  # noqa: F401
except ImportError:
    pass
else:  # pyarrow still hands tables to pandas when asked
    import pyarrow as pa
    assert list(pa.table({"a": [1, 2]}).to_pandas()["a"]) == [1, 2]
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_writing_a_room_loads_neither_pandas_nor_networkx(engine, tmp_path):
    """Both engines import pandas to tell a DataFrame from an Arrow table when a bulk load is
    prepared, and pyarrow on its first list; 0.4-0.5 s of a one-off `vyre ingest`. A small
    room needs no pyarrow at all, and reads the same rows without it as with it."""
    assert _run_alone(WRITE_ALONE, engine) == "[]"


# the same rows in the `vyre` command's own process, where pyarrow is loaded without numpy
WRITE_LEAN = (
    "import vyre\nvyre.own_process = True\n"
    + WRITE_ALONE.split("print(sorted")[0]
    + "print(sorted(m for m in ('pandas', 'networkx', 'numpy') if m in sys.modules))\n"
)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_vyre_commands_process_writes_and_reads_rooms_without_numpy(engine):
    """pyarrow without numpy costs 0.05 s to import instead of 0.14: the `vyre` command's
    process, where nothing converts to numpy or pandas, loads it so (`vyre.own_process`)."""
    assert _run_alone(WRITE_LEAN, engine) == "[]"


def _run_alone(code: str, engine: str) -> str:
    """What `code` prints in a fresh interpreter on `engine` (which must exit 0)."""
    return python_prints(code, env={**os.environ, "VYRE_GRAPH_ENGINE": engine}).strip()
