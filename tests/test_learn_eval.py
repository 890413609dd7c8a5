"""The bundled lessons world, through the real hook entry, gated as CI gates it (one run; the
held-out worlds are in test_learn_eval_heldout, so the suite runs them beside it)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from vyre.evaluate.learn import gate, score

WORLD = ROOT / "eval" / "lessons" / "world"


@pytest.fixture(scope="module")
def world():
    return score(WORLD)


def test_the_bundled_lessons_world_passes_every_gate(world):
    assert gate(world) == [], json.dumps(world["misses"], indent=1)
    assert world["counts"]["violations"] >= 60 and world["counts"]["guards"] >= 40
    assert world["counts"]["daemon_replayed"] > 50  # the daemon pass ran and agreed


def test_an_empty_world_is_not_scored(tmp_path):
    (tmp_path / "lessons.json").write_text('{"lessons": []}')
    result = score(tmp_path, daemon=False)
    assert result["block_precision"] is None
    assert any("not scored" in p for p in gate(result))


def test_a_world_that_is_not_one_says_so(tmp_path, run_cli=None):
    from click.testing import CliRunner

    from vyre.cli.main import cli

    out = CliRunner().invoke(cli, ["eval", "learn", "--world", str(tmp_path)])
    assert out.exit_code == 1 and "not a lessons world" in out.output
