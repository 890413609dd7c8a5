"""A room's derive gives the same rows however it got there: the faster paths in
`vyre.rooms.derive` (a sort in C, a deadline's close by bisection) equal the rules they
replace, and what a process remembers between derives (the org and person keys, each rule's
one-session confidence) never changes a later derive's rows: a room derived after each of
its random sessions arrives equals the same room derived from nothing."""

from __future__ import annotations

import dataclasses
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
    # a one-word org said by a cue, and longer names written in passing that start with it
    [("org.context", "Tallow", "org", "is", "org", "kind")],
    [("org.run", "Tallow Cloud", "run", "alias", "Tallow Cloud", "run")],
    [("org.run", "Tallow cloud", "run", "alias", "Tallow cloud", "run")],
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


# -- a room derived again with its memo (the daemon's) equals it derived from nothing ------------

CORRECTIONS = [
    # (kind, action, subject, subject kind, rel, object, object kind, value)
    ("merge", None, "person:dana reyes", "person", None, "person:marc bell", "person", None),
    ("split", None, "person:marcus bell", "person", None, None, None, None),
    # an org merged into a person: one entity said with two kinds, which the pipeline unifies
    ("merge", None, "person:astrid", "person", None, "org:bramble dental", "org", None),
    ("correct", "wrong", "org:bramble dental", "org", "is", None, None, None),
    ("correct", "wrong", "person:dana reyes", "person", "works_at", "org:harlow legal", "org",
     None),
    ("correct", "ended", "person:dana reyes", "person", "has_title", "value:office manager",
     "value", None),
    ("correct", "replace", "person:dana reyes", "person", "works_at", "org:harlow legal", "org",
     "Fennel Cycles"),
    ("correct", "confirm", "thing:intranet beta", "thing", "deadline", "date:2026-04-02", "date",
     None),
]  # fmt: skip

# one change to the room: a new session, a turn appended to one, a session gone, a session
# now shared (or in this room only again), a correction made or undone, the org or the
# settings changed
CHANGE = st.one_of(
    st.tuples(st.just("new"), SESSION),
    st.tuples(st.just("append"), st.integers(0, 99), SESSION),
    st.tuples(st.just("gone"), st.integers(0, 99)),
    st.tuples(st.just("place"), st.integers(0, 99)),
    st.tuples(st.just("correct"), st.integers(0, len(CORRECTIONS) - 1)),
    st.tuples(st.just("org"), st.sampled_from([None, "Harlow Legal", "Bramble Dental Ltd"])),
    st.tuples(st.just("settings"), st.booleans()),
)


def _correction(n: int, i: int):
    from vyre.models import Correction

    kind, action, subj, skind, rel, obj, okind, value = CORRECTIONS[i]
    return Correction(
        id=n,
        kind=kind,
        action=action,
        subject=subj,
        subject_label=subj.split(":", 1)[1],
        subject_kind=skind,
        rel=rel,
        object=obj,
        object_label=obj.split(":", 1)[1] if obj else None,
        object_kind=okind,
        value=value,
        at=T0 + timedelta(days=20),
        created=T0 + timedelta(days=30),
    )


class _Room:
    """A room's sessions, corrections, org and settings as the changes leave them."""

    def __init__(self, sessions: list) -> None:
        self.sessions = {f"s{n:03d}": list(s) for n, s in enumerate(sessions)}
        self.corrections: dict[int, object] = {}
        self.org: str | None = "Harlow Legal"
        self.choices = True
        self.made = 0

    def change(self, change: tuple) -> None:
        what, *args = change
        ids = sorted(self.sessions)
        if what == "new":
            self.made += 1
            self.sessions[f"t{self.made:03d}"] = list(args[0])
        elif what == "append" and ids:
            turns, alone = self.sessions[ids[args[0] % len(ids)]]
            self.sessions[ids[args[0] % len(ids)]] = [turns + args[1][0], alone]
        elif what == "gone" and len(ids) > 1:
            del self.sessions[ids[args[0] % len(ids)]]
        elif what == "place" and ids:
            turns, alone = self.sessions[ids[args[0] % len(ids)]]
            self.sessions[ids[args[0] % len(ids)]] = [turns, not alone]
        elif what == "correct":
            if args[0] in self.corrections:
                del self.corrections[args[0]]  # undone
            else:
                self.corrections[args[0]] = _correction(len(self.corrections) + 1, args[0])
        elif what == "org":
            self.org = args[0]
        elif what == "settings":
            self.choices = args[0]

    def input(self) -> RoomInput:
        rows, single = [], set()
        for sid in sorted(self.sessions):
            turns, alone = self.sessions[sid]
            if alone:
                single.add(sid)
            for seq, (turn, day) in enumerate(turns):
                when = None if day is None else T0 + timedelta(days=day, minutes=seq)
                ts = when.isoformat() if when else None
                for rule, subj, skind, rel, obj, okind in TURNS[turn]:
                    rows.append((sid, seq, rule, subj, skind, rel, obj, okind, f"{subj} {obj}", ts))
        return RoomInput(
            room="harlow",
            digest="d",
            mentions=sorted(rows, key=lambda m: (m[0], m[1], m[2], m[3], m[5], m[6])),
            single=single,
            org=self.org,
            settings={"relations.prefers": self.choices, "relations.decided": self.choices},
            corrections=list(self.corrections.values()),
        )


def _seen(rows, inp: RoomInput) -> tuple:
    """The rows as values (the objects are handed on, and the pipeline changes their kinds)."""
    return (
        [dataclasses.astuple(f) for f in rows.facts],
        [dataclasses.astuple(e) for e in rows.evidence],
        sorted(inp.named),
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(SESSION, min_size=1, max_size=6), st.lists(CHANGE, min_size=1, max_size=12))
def test_a_room_derived_with_its_memo_after_each_change_equals_it_derived_from_nothing(
    sessions, changes
):
    """As the daemon derives a room again after each change with what its last derive
    worked out (`RoomMemo`), and hands the rows on to be unified (`one_kind_per_entity`
    changes their kinds in place): each derive's rows equal the same room derived from
    nothing, whatever changed (sessions new, appended to, gone or moved, corrections made
    and undone, merges and splits, the org and the settings)."""
    from vyre.graph import one_kind_per_entity

    room = _Room(sessions)
    memo = derive.RoomMemo()
    for change in [("settings", True), *changes]:
        room.change(change)
        inp = room.input()
        rows = derive_room(inp, memo)
        kept = _seen(rows, inp)
        one_kind_per_entity(rows.facts)
        fresh = room.input()
        assert kept == _seen(derive_room(fresh), fresh)


def test_a_memo_works_out_again_only_the_sessions_that_changed():
    """One turn appended to one session of many: that session's share is worked out again,
    every other session's is kept, and the rows no changed session reaches are the same
    objects as before."""
    room = _Room([([(i % len(TURNS), i)], True) for i in range(40)])
    memo = derive.RoomMemo()
    before = derive_room(room.input(), memo)
    parts = dict(memo.parts)
    room.change(("append", 5, ([(0, 61)], True)))
    inp = room.input()
    after = derive_room(inp, memo)
    assert [s for s in parts if memo.parts[s] is not parts[s]] == ["s005"]
    same = {id(f) for f in before.facts} & {id(f) for f in after.facts}
    assert len(same) > len(after.facts) // 2
    fresh = room.input()
    assert _seen(after, inp) == _seen(derive_room(fresh), fresh)


def test_the_memos_held_stay_within_their_bound():
    """The daemon's memos (`HeldMentions.memo`): a room is given the memo of its last derive
    while the rooms' mentions stay within the bound, the rooms derived longest ago let
    theirs go first, and a room over the bound alone gets none (it is derived from
    nothing)."""
    from vyre.rooms.pipeline import HeldMentions

    held = HeldMentions(memo_limit=100)
    first = held.memo("a", 40)
    assert first is not None and held.memo("a", 45) is first  # the same room: its memo
    other = held.memo("b", 50)
    assert other is not None and other is not first
    assert held.memo("c", 30) is not None  # 45 + 50 + 30 > 100: room a lets its memo go
    assert held.memo("b", 50) is other
    assert held.memo("a", 45) is not first
    assert held.memo("big", 101) is None
    assert held.memo("big", 101) is None
