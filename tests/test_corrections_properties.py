"""Properties of the user's decisions on test_corrections' two-room world, in a module of their
own so the suite runs them beside the rest (each example derives several times). Each property
has a module of its own (this one and test_corrections_reach_properties): each takes ~10 s of
CPU, and a worker carrying both ran 55-75 s alone on a 2-core machine."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_corrections import NOW, OWNER, two_rooms
from vyre.errors import CorrectionError


@pytest.fixture
def world(tmp_path):
    yield from two_rooms(tmp_path)


# -- property: any sequence of decisions, all undone, restores the graph -----------------------

OPS = st.lists(
    st.sampled_from(
        [
            ("correct", ("Marcus Bell", "works_at", "Harlow Legal"), "wrong", None),
            ("correct", ("Marcus Bell", "works_at", "Harlow Legal"), "ended", None),
            ("correct", ("Dana Reyes", "has_title", "office manager"), "replace", "director"),
            ("correct", ("Helen Quist", "works_at", "Bramble Dental"), "confirm", None),
            ("correct", ("Helen Quist", "has_title", "chief of staff"), "add", None),
            ("correct", ("Dana Reyes", "is", "person"), "wrong", None),
            ("merge", "Dana Reyes", "Marcus Bell", None),
            ("merge", "Helen Quist", "Marcus Bell", None),
            ("split", "Dana Reyes", "bramble", None),
            ("split", "Dana Reyes", None, None),
        ]
    ),
    min_size=1,
    max_size=6,
)


def _decide(memory, kind, a, b, value):
    """One owner decision; None when an earlier one took the fact away (nothing recorded)."""
    try:
        if kind == "correct":
            return memory.correct(a, b, value=value, caller=OWNER, now=NOW).correction.id
        if kind == "merge":
            return memory.merge(a, b, caller=OWNER, now=NOW).correction.id
        return memory.split(a, room=b, caller=OWNER, now=NOW).correction.id
    except CorrectionError:
        return None


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_any_sequence_of_decisions_then_undo_of_all_restores_the_graph(world, ops):
    memory, _ = world
    before = memory.store.dump()
    done = []
    for kind, a, b, value in ops:
        cid = _decide(memory, kind, a, b, value)
        if cid is not None:
            done.append(cid)
    for cid in reversed(done):
        memory.uncorrect(cid, caller=OWNER, now=NOW)
    assert memory.store.dump() == before
