"""Every named rule is exercised by the bundled world: at least one fact memory holds that
gold also lists carries it. A rule no gold fact carries could break unseen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import WORLD
from vyre import config
from vyre.evaluate.memory import _match, load_world
from vyre.rooms.derive import RULE_CONFIDENCE

# Not extraction rules of a scored fact: the project's own teaching, the domain-to-org link
# (gold does not score domain_of) and the remote's identity line (repo_for carries it).
NOT_SCORED = {"org.project", "domain_of.name", "repo.git_remote"}


@pytest.fixture(scope="module")
def carried(built_homes, tmp_path_factory) -> dict[str, list[str]]:
    home = tmp_path_factory.mktemp("world")
    (home / "settings.json").write_text(
        json.dumps({"relations.prefers": True, "relations.decided": True})
    )
    spec, gold = load_world(WORLD)
    now = config.parse_time(spec["now"])
    import os

    old = os.environ.get("VYRE_HOME")
    os.environ["VYRE_HOME"] = str(home)
    try:
        memory = built_homes.build(WORLD, Path(home))
        out: dict[str, list[str]] = {}
        for room in sorted({g["room"] for g in gold["facts"]}):
            for fact in memory.facts(room, now=now):
                if any(g["room"] == room and _match(g, fact) for g in gold["facts"]):
                    for rule in fact.rules:
                        out.setdefault(rule, []).append(f"{fact.subject} {fact.rel}")
        memory.close()
    finally:
        if old is not None:
            os.environ["VYRE_HOME"] = old
    return out


def test_every_named_rule_carries_a_gold_fact(carried):
    idle = sorted(set(RULE_CONFIDENCE) - NOT_SCORED - set(carried))
    assert idle == []


def test_titles_come_in_many_forms(carried):
    forms = {r for r in carried if r.startswith("has_title.")}
    assert len(forms) >= 7  # "before the name" and "the org's, before" share one rule
