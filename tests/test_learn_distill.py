"""Distill: the many ways people say a rule become the same checks; what no shape fits is
never forced into one. (The bundled lessons world scores this end to end; these pin shapes.)"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vyre.learn.checks import validate
from vyre.learn.distill import distill


@pytest.mark.parametrize(
    "sentence",
    [
        "never push to main",
        "Never push to main!",
        "Please don't ever push directly to main, it deploys.",
        "do not push to main",
        "no pushing to main",
        "stop pushing to main",
        "You must never push to the main branch.",
        "From now on, don't push straight to main.",
    ],
)
def test_ways_of_saying_never_push_to_main(sentence):
    found = distill(sentence)
    assert found.check == {
        "kind": "tool",
        "command": {"program": "git", "sub": ["push"], "args": ["main"]},
    }


@pytest.mark.parametrize(
    "sentence,kind",
    [
        ("use pnpm not npm", "tool"),
        ("We use uv, not pip.", "tool"),
        ("rg instead of grep please", "tool"),
        ("yarn only", "tool"),
        ("Only use bun.", "tool"),
        ("no yarn, we're a pnpm shop", "tool"),
        ("don't touch migrations/", "path"),
        ("Leave the infra/ directory alone.", "path"),
        ("Hands off the .github folder", "path"),
        ("never touch .env", "path"),
        ("don't modify package-lock.json by hand", "path"),
        ("in docs never use leverage", "phrase"),
        ("I don't want to see the word 'delve' anywhere", "phrase"),
        ("No more em dashes please", "phrase"),
        ("always run lint after editing ts", "after"),
        ("After editing any .py file, run black", "after"),
        ("run the tests before pushing", "after"),
        ("Tests must pass before you push", "after"),
        ("Never merge without running the tests first", "after"),
        ("Don't use WebFetch", "tool"),
        ("avoid rm -rf", "tool"),
        ("Do NOT run terraform apply.", "tool"),
    ],
)
def test_each_shape(sentence, kind):
    found = distill(sentence)
    assert found.ok and found.check["kind"] == kind, (sentence, found.reason, found.check)
    assert validate(found.check) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "Never be rude to the client.",
        "don't use tabs",
        "Don't make the functions too long",
        "Never open more than one pull request at a time.",
        "Don't sort the imports by hand",
        "Always try to find the root cause first",
        "please don't kill the mood with jargon",
        "stop apologising so much",
    ],
)
def test_rules_no_shape_fits_stay_rules_without_a_check(sentence):
    found = distill(sentence)
    assert not found.ok and found.rule, found.check


@pytest.mark.parametrize("sentence", ["Draft a note to Priya", "What does the cart do?", "yes"])
def test_ordinary_prompts_are_not_rules(sentence):
    assert not distill(sentence).rule


def test_scope_words():
    assert distill("never push to main in this repo").scope == "project"
    assert distill("never push to main, anywhere").scope == "all"
    assert distill("don't touch migrations/").scope == "project"  # inferred: a path
    assert distill("never say 'synergy'").scope == "all"  # inferred: style


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120))
def test_distill_never_crashes_and_only_returns_valid_checks(text):
    found = distill(text)
    assert found.check is None or validate(found.check) is None
