"""CI's gate on `memory ask`: the bundled world and the world by another author, each held
to issue 10's targets or, where a target is not reached yet, to the figure reached (a
ratchet that only goes up). Grounded 100 % and leakage 0 are never ratcheted."""

from __future__ import annotations

import json

import pytest

from tests.conftest import JUNIPER, ROOT, WORLD, require_shared
from vyre.errors import WorldError
from vyre.evaluate.ask import HARD, LOWER_IS_BETTER, TARGETS, gate, raise_ratchet, score

RATCHETS = ROOT / "eval" / "ratchets"


@pytest.fixture(scope="module")
def bundled():
    return score(WORLD)


@pytest.fixture(scope="module")
def juniper():
    return score(require_shared(JUNIPER))


@pytest.mark.parametrize("name", ["bundled", "juniper"])
def test_each_world_holds_its_targets_or_its_ratchet(name, request):
    result = request.getfixturevalue(name)
    ratchet = json.loads((RATCHETS / f"ask-{result['world']}.json").read_text())
    assert gate(result, ratchet) == []
    assert result["grounded"] == 1.0 and result["leakage"] == 0
    for metric, held in ratchet.items():
        assert metric not in HARD
        # a ratchet stands only for a target not met yet
        assert (held > TARGETS[metric]) if metric in LOWER_IS_BETTER else held < TARGETS[metric]


def test_the_bundled_world_asks_every_kind_and_every_reason_to_abstain(bundled):
    kinds = {r["kind"] for r in bundled["results"] if not r["abstain"]}
    assert {"who", "date", "decision", "file", "config", "bug", "count", "person"} <= kinds
    gold = json.loads((WORLD / "gold.json").read_text())["ask"]
    assert {q["why"] for q in gold if q.get("abstain")} == {"leak", "unknown", "untrusted"}


def test_a_gate_fails_on_nothing_and_on_a_figure_below_its_ratchet(bundled, tmp_path):
    assert gate({**bundled, "accuracy": None}) != []  # not scored is never a pass
    assert gate({**bundled, "leakage": 1}) != []
    assert gate({**bundled, "accuracy": 0.5}, {"accuracy": 0.6}) != []
    assert gate({**bundled, "accuracy": 0.65}, {"accuracy": 0.6}) == []
    assert raise_ratchet({**bundled, "accuracy": 0.7}, {"accuracy": 0.6}) == {"accuracy": 0.7}
    assert raise_ratchet({**bundled, "accuracy": 0.5}, {"accuracy": 0.6}) == {"accuracy": 0.6}
    assert raise_ratchet({**bundled, "accuracy": 0.9}, {"accuracy": 0.6}) == {}
    (tmp_path / "transcripts").mkdir()
    (tmp_path / "world.json").write_text('{"name": "empty", "now": "2026-01-01T00:00:00Z"}')
    (tmp_path / "gold.json").write_text('{"facts": []}')
    with pytest.raises(WorldError):
        score(tmp_path)
