"""A property of the user's decisions on test_corrections' two-room world: the rooms a
correction was judged not to reach need no derive. In a module of its own (beside
test_corrections_properties) so xdist's `--dist loadscope` can run it on another worker."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_corrections import NOW, OWNER, two_rooms
from tests.test_corrections_properties import OPS, _decide
from tests.transcript import session


@pytest.fixture
def world(tmp_path):
    yield from two_rooms(tmp_path)


SESSIONS = st.sampled_from(
    [
        ("/w/bramble", "Marcus Bell from Harlow Legal called about the booking."),
        ("/w/harlow", "Helen Quist, the clinical lead at Bramble Dental, wrote in."),
        ("/w/harlow", "Dana Reyes signs the directory off."),
        ("/w/bramble", "Jo Park from Fennel Cycles has the director title."),
    ]
)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS, sessions=st.lists(SESSIONS, max_size=2), data=st.data())
def test_rooms_left_alone_by_a_correction_hold_what_a_derive_of_everything_writes(
    world, ops, sessions, data
):
    """Any decisions, and new sessions between them, leave the graph a derive of every room
    from the ledger writes: no room a correction was judged not to reach needed it."""
    memory, root = world
    done = []
    for i, (kind, a, b, value) in enumerate(ops):
        if sessions and data.draw(st.booleans()):
            cwd, text = sessions.pop()
            n = memory.ledger.db.execute("SELECT count(*) FROM sessions").fetchone()[0]
            session(root, cwd, f"p{n}", f"2026-09-{10 + i:02d}T10:00:00Z", text)
            memory.ingest(root)
        cid = _decide(memory, kind, a, b, value)
        if cid is not None:
            done.append(cid)
    kept = memory.store.dump()
    memory.derive(force=True)
    assert memory.store.dump() == kept
    for cid in reversed(done):
        memory.uncorrect(cid, caller=OWNER, now=NOW)
