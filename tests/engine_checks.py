"""Engine checks that must run in a process of their own.

ladybug and kuzu both register the same native types, so one process can load only one of
them. The tests run each check in a fresh interpreter with `python -m tests.engine_checks`.
"""

from __future__ import annotations

import dataclasses
import random
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from vyre.graph import EvidenceRow, FactRow, GraphBusy, GraphError, GraphStore, RoomRows
from vyre.graph.engine import Engine


def canary(name: str) -> int:
    """Wrong answers from 100 re-executions of a parameterised 2-hop query with a
    relationship-property filter, against a count computed in Python (0 is right)."""
    engine = Engine(Path(tempfile.mkdtemp()) / "g", name)
    engine.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
    engine.execute("CREATE REL TABLE E(FROM N TO N, room STRING)")
    rng = random.Random(7)
    engine.copy("N", pa.table({"id": pa.array(range(200), pa.int64())}))
    edges = [(rng.randrange(200), rng.randrange(200), f"r{rng.randrange(5)}") for _ in range(1000)]
    engine.copy(
        "E",
        pa.table(
            {
                "from": pa.array([e[0] for e in edges], pa.int64()),
                "to": pa.array([e[1] for e in edges], pa.int64()),
                "room": [e[2] for e in edges],
            }
        ),
    )
    query = (
        "MATCH (a:N)-[x:E]->(b:N)-[y:E]->(c:N) WHERE a.id = $start AND x.room = $room "
        "AND y.room = $room RETURN count(*)"
    )
    wrong = 0
    for _ in range(100):
        start, room = rng.randrange(200), f"r{rng.randrange(5)}"
        want = sum(
            1
            for a, b, r in edges
            if a == start and r == room
            for b2, _c, r2 in edges
            if b2 == b and r2 == room
        )
        wrong += engine.execute(query, {"start": start, "room": room})[0][0] != want
    engine.close()
    return wrong


def parameters(name: str) -> int:
    engine = Engine(Path(tempfile.mkdtemp()) / "g", name)
    engine.execute("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))")
    try:
        engine.execute("MATCH (n:N) WHERE n.id = $id DELETE n", {})
    except GraphError:
        return 0
    return 1


def second_writer(name: str) -> int:
    """Another process opening the graph this one holds gets GraphBusy, not a hang."""
    path = Path(tempfile.mkdtemp()) / "g"
    first = GraphStore(path, name)
    try:
        child = subprocess.run(
            [sys.executable, "-m", "tests.engine_checks", "open", name, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        first.close()
    return 0 if child.returncode == 3 and "in use by another process" in child.stdout else 1


def open_graph(name: str, path: str) -> int:
    try:
        GraphStore(Path(path), name).close()
    except GraphBusy as exc:
        print(exc)
        sys.exit(3)
    return 0


def edits(name: str) -> int:
    """A store that keeps what it wrote changes a copy of a room's file by what changed: after
    every one of a random run of changes (rows kept, changed, copied equal, added, dropped;
    evidence moved; kinds changed; entities gone; a fact's evidence left without it; big
    changes; the main graph too), its files hold exactly the rows a store writing each file
    whole holds. Failures: steps whose files differ, plus one if no copy was ever changed."""
    rng = random.Random(11)
    kept = GraphStore(Path(tempfile.mkdtemp()), name, keep_written=100_000)
    whole = GraphStore(Path(tempfile.mkdtemp()), name)
    changed = 0
    original = kept._edited

    def counted(*args: object) -> Path | None:
        nonlocal changed
        temp = original(*args)  # type: ignore[arg-type]
        changed += temp is not None
        return temp

    kept._edited = counted  # type: ignore[method-assign]
    rooms = {room: _random_rows(rng, room, rng.randrange(1, 160)) for room in ("p1", "p2", "*")}
    failures = 0
    for step in range(60):
        room = rng.choice(sorted(rooms))
        rows = rooms[room] = _changed_rows(rng, rooms[room], step)
        for store in (kept, whole):
            store.replace_room(
                RoomRows(rows.room, rows.digest, list(rows.facts), list(rows.evidence))
            )
        failures += _held(kept) != _held(whole)
    return failures + (changed < 20)


def _held(store: GraphStore) -> list[tuple]:
    """Every row of every file (`dump`), and the relation each evidence row carries."""
    out = store.dump()
    for room in store.rooms():
        with store.reading(room) as engine:
            assert engine is not None
            out += sorted(
                tuple(r)
                for r in engine.execute(
                    "MATCH ()-[e:EVIDENCE]->() RETURN e.fact, e.session, e.seq, e.rule, e.rel"
                )
            )
    return out


_KINDS = ("person", "org", "value")
_gone: dict[str, list[FactRow]] = {}  # room -> facts taken away, to bring back
_RELS = ("is", "works_at", "has_title", "mentioned_in")


def _fact(rng: random.Random, room: str, n: int) -> FactRow:
    subject, obj = f"e:{rng.randrange(n + 5)}", f"e:{rng.randrange(n + 5)}"
    rel = rng.choice(_RELS)
    return FactRow(
        id=f"{room}|{subject}|{rel}|{obj}",
        room=room,
        subject=subject,
        subject_kind=rng.choice(_KINDS),
        subject_label=f"S{rng.randrange(3)}",
        rel=rel,
        object=obj,
        object_kind=rng.choice(_KINDS),
        object_label=f"O{rng.randrange(3)}",
        confidence=rng.choice((0.5, 0.9)),
        source=rng.choice(("extracted", "user")),
        valid_from=rng.choice((None, datetime(2026, 1, 2))),
        valid_to=rng.choice((None, None, datetime(2026, 3, 4))),
        seen=rng.choice((None, datetime(2026, 2, 3, 4, 5))),
        sessions=rng.randrange(4),
        rules="person.name" if rng.random() < 0.5 else "",
        status=rng.choice(("", "", "closed")),
    )


def _said(rng: random.Random, f: FactRow, k: int) -> list[EvidenceRow]:
    return [
        EvidenceRow(f.id, f.room, f.subject, f"s{rng.randrange(9)}", k + i, None, "r", f"q{k}")
        for i in range(rng.randrange(1, 4))
    ]


def _random_rows(rng: random.Random, room: str, n: int) -> RoomRows:
    facts = {f.id: f for f in (_fact(rng, room, n) for _ in range(n))}
    evidence = [e for i, f in enumerate(facts.values()) for e in _said(rng, f, i)]
    return RoomRows(room, f"d{rng.random()}", sorted(facts.values(), key=lambda f: f.id), evidence)


def _changed_rows(rng: random.Random, rows: RoomRows, step: int) -> RoomRows:
    """The next rows of a room: usually a few rows changed, now and then most of them."""
    if rng.random() < 0.05:
        return _random_rows(rng, rows.room, rng.randrange(1, 160))
    facts = {f.id: f for f in rows.facts}
    said: dict[str, list[EvidenceRow]] = {}
    for e in rows.evidence:
        said.setdefault(e.fact, []).append(e)
    for _ in range(rng.randrange(0, 5)):
        what = rng.random()
        some = rng.choice(sorted(facts)) if facts else None
        if what < 0.25 or some is None:  # a new fact (maybe naming a new entity)
            f = _fact(rng, rows.room, len(facts) + 3)
            facts[f.id], said[f.id] = f, _said(rng, f, 1000 + step)
        elif what < 0.4:  # a fact changed
            facts[some] = dataclasses.replace(facts[some], sessions=facts[some].sessions + 1)
        elif what < 0.5:  # a copy equal to it (a derive from nothing makes new rows)
            facts[some] = dataclasses.replace(facts[some])
        elif what < 0.55 and _gone.get(rows.room):  # a fact back (its evidence stayed)
            f = _gone[rows.room].pop()
            facts[f.id] = f
        elif what < 0.6:  # a fact gone (its entities may go with it)
            _gone.setdefault(rows.room, []).append(facts.pop(some))
            if rng.random() < 0.7:
                said.pop(some, None)  # else its evidence stays (corrections took it away)
        elif what < 0.75:  # its evidence moved on
            said[some] = said.get(some, [])[1:] + _said(rng, facts[some], 2000 + step)
        elif what < 0.85:  # an entity's kind changed (its first row says which)
            facts[some] = dataclasses.replace(facts[some], subject_kind=rng.choice(_KINDS))
        else:  # evidence of a fact that is not there
            said.setdefault(f"{rows.room}|gone{step}", []).extend(_said(rng, facts[some], step))
    ordered = sorted(facts.values(), key=lambda f: f.id)
    return RoomRows(
        rows.room,
        f"d{rng.random()}",
        ordered,
        [e for fid in sorted(said) for e in said[fid]],
    )


CHECKS = {
    "canary": canary,
    "parameters": parameters,
    "second_writer": second_writer,
    "edits": edits,
}

if __name__ == "__main__":
    check, engine = sys.argv[1], sys.argv[2]
    if check == "open":
        sys.exit(open_graph(engine, sys.argv[3]))
    with tempfile.TemporaryDirectory() as scratch:  # each check's graphs go with it
        tempfile.tempdir = scratch
        failures = CHECKS[check](engine)
    print(f"{check} {engine}: {failures} failure(s)")
    sys.exit(1 if failures else 0)
