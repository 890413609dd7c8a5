"""CI's gate on recall: LoCoMo's evidence turns (written outside the team) and an ask world's
sources, scored through `Memory.recall`, held to the committed ratchet."""

from __future__ import annotations

import json

import pytest

from tests.conftest import JUNIPER, ROOT, SHARED, WORLD, require_shared
from vyre.evaluate import recall as scorer

BASELINE = json.loads((ROOT / "eval" / "recall_baseline.json").read_text())
LOCOMO = SHARED / "benchmarks" / "locomo"


@pytest.fixture(scope="module")
def locomo():
    return scorer.locomo(require_shared(LOCOMO))


def test_locomo_recall_holds_the_ratchet_and_beats_bm25_in_every_category(locomo):
    assert scorer.gate(locomo, BASELINE) == []
    assert locomo["categories"]["overall"]["n"] == 1536  # categories 1-4, as the README counts
    assert locomo["categories"]["adversarial"]["n"] == 446


def test_the_ratchet_is_above_bm25_alone():
    for metric, floor in BASELINE["locomo"].items():
        assert floor > scorer.BM25["overall"][metric]


def test_an_empty_result_is_not_scored():
    assert scorer.gate({"categories": {}}, BASELINE) == ["no LoCoMo question was scored"]


@pytest.mark.parametrize(("name", "folder"), [("memory", WORLD), ("juniper", JUNIPER)])
def test_ask_worlds_sources_are_recalled_without_leaking(name, folder):
    result = scorer.world(folder if folder == WORLD else require_shared(folder))
    assert result["n"] >= 20
    assert scorer.world_gate(result, BASELINE["worlds"][name]) == []
