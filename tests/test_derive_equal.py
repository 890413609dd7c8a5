"""A room's derive gives the same rows however it got there: the faster paths in
`vyre.rooms.derive` (a sort in C, a deadline's close by bisection) equal the rules they
replace, and what a process remembers between derives (the org and person keys, each rule's
one-session confidence) never changes a later derive's rows: a room derived after each of
its random sessions arrives equals the same room derived from nothing."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vyre.resolve import names
from vyre.rooms import derive
from vyre.rooms.derive import DEADLINE_GRACE, Ev, RoomInput, derive_room

T0 = datetime(2026, 3, 2, 9, 0)

# One turn's mentions, as the rules store them: (rule, subject, kind, rel, object, kind).
# Several spellings of one person and org, short forms, a shared address, functional
# relations that move, deadlines said again later, a repo named bare and in full.
TURNS = [
    [("person.name", "Dana M. Reyes", "person", "is", "person", "kind")],
    [("person.short", "Dana", "person", "is", "person", "kind")],
    [
        ("person.name", "Dana Reyes", "person", "is", "person", "kind"),
        ("org.suffix", "Harlow Legal", "org", "is", "org", "kind"),
        ("works_at.appositive", "Dana Reyes", "person", "works_at", "Harlow Legal", "org"),
    ],
    [
        ("person.name", "Dana Reyes", "person", "is", "person", "kind"),
        ("org.legal", "Bramble Dental Ltd", "org", "is", "org", "kind"),
        ("works_at.joined", "Dana Reyes", "person", "works_at", "Bramble Dental", "org"),
    ],
    [("has_title.is", "Dana Reyes", "person", "has_title", "office manager", "value")],
    [("has_title.appositive", "Dana Reyes", "person", "has_title", "practice manager", "value")],
    [
        ("person.name", "Marcus Bell", "person", "is", "person", "kind"),
        ("address.email", "marcus@harlow.law", "address", "is", "address", "kind"),
        ("domain.email", "harlow.law", "domain", "is", "domain", "kind"),
        (
            "has_address.adjacent",
            "Marcus Bell",
            "person",
            "has_address",
            "marcus@harlow.law",
            "address",
        ),
    ],
    [
        ("person.name", "Marc Bell", "person", "is", "person", "kind"),
        (
            "has_address.adjacent",
            "Marc Bell",
            "person",
            "has_address",
            "marcus@harlow.law",
            "address",
        ),
    ],
    [
        ("address.email", "dana@brambledental.com", "address", "is", "address", "kind"),
        ("domain.email", "brambledental.com", "domain", "is", "domain", "kind"),
    ],
    [("org.context", "Harlow", "org", "is", "org", "kind")],
    [("deadline.due", "intranet beta", "thing", "deadline", "2026-03-20", "date")],
    [("deadline.by", "intranet beta", "thing", "deadline", "2026-04-02", "date")],
    [("deadline.deadline", "intranet beta", "thing", "deadline", "2026-04-20", "date")],
    [("deadline.ship", "booking widget", "thing", "deadline", "2026-03-05", "date")],
    [("client_of.words", "Harlow Legal", "org", "client_of", "owner", "owner")],
    [("repo.bare", "harlowlegal/intranet", "repo", "is", "repo", "kind")],
    [
        ("repo.url", "harlowlegal/intranet", "repo", "is", "repo", "kind"),
        ("repo.name", "intranet", "repo", "is", "repo", "kind"),
    ],
    [("prefers.words", "owner", "owner", "prefers", "plain css over a framework", "value")],
    [("prefers.words", "owner", "owner", "prefers", "plain css over a framework here", "value")],
    [("person.first", "Astrid", "person", "is", "person", "kind")],
    [
        ("person.nickname", "Adaeze Nwosu", "person", "alias", "Ada", "person"),
        ("person.name", "Adaeze Nwosu", "person", "is", "person", "kind"),
        ("person.short", "Ada", "person", "is", "person", "kind"),
    ],
]

# a session: which turns it says, each on a day of its own (or with no time), and whether it
# is in this room only
SESSION = st.tuples(
    st.lists(
        st.tuples(st.integers(0, len(TURNS) - 1), st.one_of(st.none(), st.integers(0, 60))),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)


def _mentions(sessions: list, start: int = 0) -> tuple[list[tuple], set[str]]:
    rows, single = [], set()
    for n, (turns, alone) in enumerate(sessions, start):
        sid = f"s{n:03d}"
        if alone:
            single.add(sid)
        for seq, (turn, day) in enumerate(turns):
            ts = (T0 + timedelta(days=day, minutes=seq)).isoformat() if day is not None else None
            for rule, subj, skind, rel, obj, okind in TURNS[turn]:
                rows.append((sid, seq, rule, subj, skind, rel, obj, okind, f"{subj} {obj}", ts))
    return sorted(rows, key=lambda m: (m[0], m[1], m[2], m[3], m[5], m[6])), single


def _derive(mentions: list[tuple], single: set[str]) -> tuple:
    inp = RoomInput(
        room="harlow",
        digest="d",
        mentions=mentions,
        single=single,
        org="Harlow Legal",
        settings={"relations.prefers": True, "relations.decided": True},
    )
    rows = derive_room(inp)
    return rows.facts, rows.evidence, sorted(inp.named)


def _forget() -> None:
    """What a process keeps between derives, dropped: a derive as a new process makes it."""
    names.org_key.cache_clear()
    names.person_key.cache_clear()
    derive._one_session.cache_clear()


@settings(max_examples=60, deadline=None)
@given(st.lists(SESSION, min_size=2, max_size=10))
def test_a_room_derived_after_each_new_session_equals_it_derived_from_nothing(sessions):
    """As the daemon derives a room after each new session, in one process; then the same
    rooms from nothing, largest first: what one derive leaves behind never changes another's
    rows (a short form resolved before its full name was said, two names joined by an address
    said later, a deadline said again)."""
    rooms = [_mentions(sessions[:n]) for n in range(1, len(sessions) + 1)]
    growing = [_derive(*room) for room in rooms]
    _forget()
    backwards = [_derive(*room) for room in reversed(rooms)][::-1]
    assert growing == backwards


def _cases(seed: int, count: int = 25) -> list[list]:
    """Rooms of random sessions, as `SESSION` draws them."""
    rng = random.Random(seed)
    days: list[int | None] = [None, *range(61)]
    return [
        [
            (
                [(rng.randrange(len(TURNS)), rng.choice(days)) for _ in range(rng.randint(1, 6))],
                rng.random() < 0.8,
            )
            for _ in range(rng.randint(2, 8))
        ]
        for _ in range(count)
    ]


FRESH = """
import pickle, sys
from tests.test_derive_equal import _cases, _derive, _mentions
cases = _cases(int(sys.argv[1]))
out = [[_derive(*_mentions(c[:n])) for n in range(len(c), 0, -1)][::-1] for c in cases[::-1]]
sys.stdout.buffer.write(pickle.dumps(out[::-1]))
"""


def test_a_rooms_rows_do_not_depend_on_what_its_process_derived_before():
    """Whatever any module keeps between derives (known to `_forget` or not): these rooms,
    derived after each of their sessions in this process (after whatever the suite derived),
    equal the same rooms derived in a new process in the opposite order, its first derive
    from nothing."""
    here = [[_derive(*_mentions(c[:n])) for n in range(1, len(c) + 1)] for c in _cases(7)]
    fresh = subprocess.run(
        [sys.executable, "-c", FRESH, "7"],
        capture_output=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert here == pickle.loads(fresh.stdout)


def test_the_rooms_rows_have_every_kind_of_fact_the_turns_say():
    """The examples above reach every path: votes that move, deadlines that close, addresses,
    domains, repos, folded choices and mentioned_in."""
    everything = [([(i, i) for i in range(len(TURNS))], True), ([(3, 70)], True)]
    facts, evidence, _ = _derive(*_mentions(everything))
    rels = {f.rel for f in facts}
    assert {
        "is",
        "works_at",
        "has_title",
        "deadline",
        "has_address",
        "domain_of",
        "client_of",
        "prefers",
        "mentioned_in",
    } <= rels
    assert any(f.status == "closed" for f in facts if f.rel == "works_at")
    assert evidence


EVIDENCE = st.lists(
    st.builds(
        Ev,
        st.one_of(st.none(), st.sampled_from([T0, T0 + timedelta(hours=1), T0 + timedelta(1)])),
        st.sampled_from(["a", "b", "c"]),
        st.integers(0, 3),
        st.sampled_from(["person.name", "person.short"]),
        st.sampled_from(["Dana", "Dana Reyes"]),
    ),
    max_size=12,
)


@given(EVIDENCE)
def test_oldest_first_is_the_order_of_turns_with_undated_first(evidence):
    expected = sorted(set(evidence), key=derive._ev_order)
    assert derive._oldest_first(evidence) == (expected if len(evidence) > 1 else evidence)


@settings(max_examples=60, deadline=None)
@given(st.lists(SESSION, min_size=1, max_size=8))
def test_a_deadline_closes_at_its_date_or_at_the_first_later_date_said_after_it(sessions):
    """The rule as written: per subject, oldest first, a deadline closes two days after its
    date, or when a different date is first said after its last mention, if sooner."""
    facts, _, _ = _derive(*_mentions(sessions))
    by_subject: dict[str, list] = {}
    for f in facts:
        if f.rel == "deadline":
            by_subject.setdefault(f.subject, []).append(f)
    for rows in by_subject.values():
        rows.sort(key=lambda f: (f.valid_from or datetime.min, f.object))
        for i, f in enumerate(rows):
            due = datetime.fromisoformat(f.object.removeprefix("date:")) + DEADLINE_GRACE
            later = [
                n.valid_from
                for n in rows[i + 1 :]
                if n.valid_from and f.seen and n.valid_from > f.seen
            ]
            assert f.valid_to == (min(due, later[0]) if later else due)
