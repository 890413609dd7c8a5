"""CI's gate on memory quality: the bundled world must pass the ADR's thresholds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, WORLD
from vyre.evaluate.memory import gate, score

BASELINE = ROOT / "eval" / "baseline.json"


@pytest.fixture(scope="module")
def result():
    return score(WORLD, repeat=10)


def test_world_passes_thresholds_and_baseline(result):
    baseline = json.loads(BASELINE.read_text())
    assert gate(result, baseline) == []


def test_no_leakage_and_no_noise(result):
    assert result["leakage"] == 0, result["leaks"]
    assert result["absent_hits"] == {}


def test_kuzu_engine_gives_the_same_scores(result, tmp_path):
    """The same world through the CLI on Kùzu 0.11.3 (its own process: see engine_checks)."""
    env = {**os.environ, "VYRE_GRAPH_ENGINE": "kuzu", "VYRE_HOME": str(tmp_path / "k")}
    run = subprocess.run(
        [sys.executable, "-m", "vyre.cli.main", "eval", "memory", "--world", str(WORLD), "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    other = json.loads(run.stdout)
    keys = [
        "identity.precision",
        "identity.recall",
        "works_at.precision",
        "new_relations.min",
        "enrich.precision_at_3",
        "irrelevant.empty_rate",
        "leakage",
    ]
    assert {k: other[k] for k in keys} == {k: result[k] for k in keys}
