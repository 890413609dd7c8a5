"""The bundled lessons world, through the real hook entry, gated as CI gates it (one run; the
held-out worlds are in test_learn_eval_heldout, so the suite runs them beside it). The entry
runs in this process, and every eighth PreToolUse call again as the command Claude Code runs:
any answer of the two that differs is an error, and errors fail the gate."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from vyre.evaluate.learn import gate, score

WORLD = ROOT / "eval" / "lessons" / "world"


@pytest.fixture(scope="module")
def world():
    return score(WORLD, in_process=True)


def test_the_bundled_lessons_world_passes_every_gate(world):
    assert gate(world) == [], json.dumps(world["misses"], indent=1)
    assert world["counts"]["violations"] >= 60 and world["counts"]["guards"] >= 40
    assert world["counts"]["daemon_replayed"] > 50  # the daemon pass ran and agreed
    assert world["counts"]["real_checked"] >= 40  # real hook processes answered as in process
    assert (
        world["hook_ms"]["daemon_down"]["n"]
        == world["counts"]["real_checked"] - (world["hook_ms"]["daemon_up"]["n"])
    )  # the latency figures are the real processes' only


def test_a_real_hook_that_answers_otherwise_than_the_entry_in_process_is_an_error(
    tmp_path, monkeypatch
):
    from vyre.evaluate import learn

    guard = {"id": "g1", "tool": "Bash", "input": {"command": "rm -rf ~/.vyre"}}
    (tmp_path / "lessons.json").write_text(json.dumps({"lessons": [], "guards": [guard]}))
    monkeypatch.setattr(learn, "REAL_SAMPLE", 1)
    agreed = score(tmp_path, daemon=False, in_process=True)
    assert agreed["errors"] == 0 and agreed["counts"]["real_checked"] == 1
    assert agreed["guards_caught"] == 1.0
    monkeypatch.setattr(learn._Player, "_process", lambda self, event, data, ident: None)
    result = score(tmp_path, daemon=False, in_process=True)
    assert result["errors"] == 1 and "real hook: allow" in result["misses"]["errors"][0]["error"]
    assert any(p.startswith("errors 1") for p in gate(result))


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
