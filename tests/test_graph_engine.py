"""The graph engine adapter, against both supported engines (GRAPH_ENGINE.md).

Each check runs in its own interpreter: one process can load only one of the two engines.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT
from vyre.graph import GraphError, GraphStore

ENGINES = ["ladybug", "kuzu"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("check", ["canary", "parameters", "second_writer"])
def test_engine_check(engine, check):
    """canary: ladybug 0.21+ answered re-executed parameterised 2-hop queries wrongly from
    its plan cache; the adapter turns it off. parameters: a query's $names must equal the
    parameters. second_writer: a second read-write open is refused with GraphBusy."""
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
