"""Graph reads and writes for memory: one class, narrow methods, Cypher inside.

Writes replace whole rooms in one transaction; nothing here reads the clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pyarrow as pa

from vyre.graph.engine import Engine
from vyre.graph.schema import SCHEMA


@dataclass
class FactRow:
    id: str
    room: str
    subject: str  # entity id
    subject_kind: str
    subject_label: str
    rel: str
    object: str  # entity id
    object_kind: str
    object_label: str
    confidence: float
    source: str = "extracted"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    seen: datetime | None = None
    sessions: int = 0
    rules: str = ""
    status: str = ""


@dataclass
class EvidenceRow:
    fact: str
    room: str
    subject: str  # entity id (the edge starts at the fact's subject)
    session: str
    seq: int
    ts: datetime | None
    rule: str
    quote: str


@dataclass
class RoomRows:
    room: str
    digest: str
    facts: list[FactRow] = field(default_factory=list)
    evidence: list[EvidenceRow] = field(default_factory=list)


_FACT_RETURN = (
    "f.id, f.room, s.id, s.kind, f.subject_label, f.rel, o.id, o.kind, f.object_label, "
    "f.confidence, f.source, f.valid_from, f.valid_to, f.seen, f.sessions, f.rules, f.status"
)


class GraphStore:
    def __init__(self, path: Path, engine: str | None = None):
        self.engine = Engine(path, engine)
        for statement in SCHEMA:
            self.engine.execute(statement)
        self._entities: set[str] | None = None
        self._turns: set[str] | None = None

    def close(self) -> None:
        self.engine.close()

    # -- writes -------------------------------------------------------------------------

    def replace_rooms(self, rooms: list[RoomRows]) -> None:
        """Replace these rooms' rows, all in one transaction."""
        if not rooms:
            return
        entities = self._known("Entity")
        turns = self._known("Turn")
        new_entities: dict[str, str] = {}
        new_turns: dict[str, tuple] = {}
        for room in rooms:
            for f in room.facts:
                for eid, kind in ((f.subject, f.subject_kind), (f.object, f.object_kind)):
                    if eid not in entities:
                        new_entities.setdefault(eid, kind)
            for e in room.evidence:
                tid = f"{e.session}#{e.seq}"
                if tid not in turns:
                    new_turns.setdefault(tid, (e.session, e.seq, e.ts))
        names = [r.room for r in rooms]
        with self.engine.transaction():
            self.engine.execute(
                "MATCH ()-[f:FACT]->() WHERE f.room IN $rooms DELETE f", {"rooms": names}
            )
            self.engine.execute(
                "MATCH ()-[e:EVIDENCE]->() WHERE e.room IN $rooms DELETE e", {"rooms": names}
            )
            self.engine.copy(
                "Entity",
                pa.table(
                    {
                        "id": list(new_entities),
                        "kind": list(new_entities.values()),
                    }
                ),
            )
            self.engine.copy(
                "Turn",
                pa.table(
                    {
                        "id": list(new_turns),
                        "session": [t[0] for t in new_turns.values()],
                        "seq": pa.array([t[1] for t in new_turns.values()], pa.int64()),
                        "ts": pa.array([t[2] for t in new_turns.values()], pa.timestamp("us")),
                    }
                ),
            )
            facts = [f for r in rooms for f in r.facts]
            self.engine.copy("FACT", _fact_table(facts))
            evidence = [e for r in rooms for e in r.evidence]
            self.engine.copy(
                "EVIDENCE",
                pa.table(
                    {
                        "from": [e.subject for e in evidence],
                        "to": [f"{e.session}#{e.seq}" for e in evidence],
                        "fact": [e.fact for e in evidence],
                        "room": [e.room for e in evidence],
                        "rule": [e.rule for e in evidence],
                        "quote": [e.quote for e in evidence],
                    }
                ),
            )
            for room in rooms:
                self.engine.execute(
                    "MERGE (r:Room {id: $room}) SET r.digest = $digest",
                    {"room": room.room, "digest": room.digest},
                )
        entities.update(new_entities)
        turns.update(new_turns)

    def drop_rooms(self, names: Iterable[str]) -> None:
        names = sorted(set(names))
        if not names:
            return
        with self.engine.transaction():
            self.engine.execute(
                "MATCH ()-[f:FACT]->() WHERE f.room IN $rooms DELETE f", {"rooms": names}
            )
            self.engine.execute(
                "MATCH ()-[e:EVIDENCE]->() WHERE e.room IN $rooms DELETE e", {"rooms": names}
            )
            self.engine.execute("MATCH (r:Room) WHERE r.id IN $rooms DELETE r", {"rooms": names})

    def prune(self) -> None:
        """Drop entities and turns no fact points at any more (after rooms were replaced)."""
        with self.engine.transaction():
            self.engine.execute(
                "MATCH (t:Turn) WHERE NOT EXISTS { MATCH ()-[:EVIDENCE]->(t) } DELETE t"
            )
            self.engine.execute(
                "MATCH (e:Entity) WHERE NOT EXISTS { MATCH (e)-[:FACT]-() } "
                "AND NOT EXISTS { MATCH (e)-[:EVIDENCE]->() } DELETE e"
            )
        self._entities = self._turns = None

    def _known(self, table: str) -> set[str]:
        attr = "_entities" if table == "Entity" else "_turns"
        if getattr(self, attr) is None:
            rows = self.engine.execute(f"MATCH (n:{table}) RETURN n.id")
            setattr(self, attr, {r[0] for r in rows})
        return getattr(self, attr)

    # -- reads --------------------------------------------------------------------------

    def digests(self) -> dict[str, str]:
        return dict(self.engine.execute("MATCH (r:Room) RETURN r.id, r.digest"))

    def facts(self, room: str | None = None) -> list[FactRow]:
        if room is None:
            rows = self.engine.execute(
                f"MATCH (s:Entity)-[f:FACT]->(o:Entity) RETURN {_FACT_RETURN}"
            )
        else:
            rows = self.engine.execute(
                f"MATCH (s:Entity)-[f:FACT]->(o:Entity) WHERE f.room = $room RETURN {_FACT_RETURN}",
                {"room": room},
            )
        return [FactRow(*row) for row in rows]

    def evidence(self, room: str | None = None) -> list[EvidenceRow]:
        ret = "e.fact, e.room, s.id, t.session, t.seq, t.ts, e.rule, e.quote"
        if room is None:
            rows = self.engine.execute(f"MATCH (s:Entity)-[e:EVIDENCE]->(t:Turn) RETURN {ret}")
        else:
            rows = self.engine.execute(
                f"MATCH (s:Entity)-[e:EVIDENCE]->(t:Turn) WHERE e.room = $room RETURN {ret}",
                {"room": room},
            )
        return [EvidenceRow(*row) for row in rows]

    def dump(self) -> list[tuple]:
        """Every row, sorted: for tests that compare whole graphs."""
        out = [("entity", *r) for r in self.engine.execute("MATCH (e:Entity) RETURN e.id, e.kind")]
        out += [
            ("turn", *r)
            for r in self.engine.execute("MATCH (t:Turn) RETURN t.id, t.session, t.seq, t.ts")
        ]
        out += [("fact", *vars(f).values()) for f in self.facts()]
        out += [("evidence", *vars(e).values()) for e in self.evidence()]
        out += [("room", *r) for r in self.engine.execute("MATCH (r:Room) RETURN r.id, r.digest")]
        return sorted(out, key=repr)


def _fact_table(facts: list[FactRow]) -> pa.Table:
    ts = pa.timestamp("us")
    return pa.table(
        {
            "from": [f.subject for f in facts],
            "to": [f.object for f in facts],
            "id": [f.id for f in facts],
            "room": [f.room for f in facts],
            "rel": [f.rel for f in facts],
            "subject_label": [f.subject_label for f in facts],
            "object_label": [f.object_label for f in facts],
            "confidence": pa.array([f.confidence for f in facts], pa.float64()),
            "source": [f.source for f in facts],
            "valid_from": pa.array([f.valid_from for f in facts], ts),
            "valid_to": pa.array([f.valid_to for f in facts], ts),
            "seen": pa.array([f.seen for f in facts], ts),
            "sessions": pa.array([f.sessions for f in facts], pa.int64()),
            "rules": [f.rules for f in facts],
            "status": [f.status for f in facts],
        }
    )


class MainQueries:
    """The Cypher questions the main graph (`'*'`) is built from, over the rooms' own rows."""

    def __init__(self, store: GraphStore):
        self.engine = store.engine

    def room_count(self) -> int:
        rows = self.engine.execute("MATCH (r:Room) WHERE r.id <> '*' RETURN count(r)")
        return int(rows[0][0]) if rows else 0

    def org_rooms(self) -> dict[str, int]:
        """How many rooms hold each org."""
        rows = self.engine.execute(
            "MATCH (o:Entity)-[f:FACT]->(:Entity) WHERE f.rel = 'is' AND o.kind = 'org' "
            "AND f.room <> '*' RETURN o.id, count(DISTINCT f.room)"
        )
        return {r[0]: int(r[1]) for r in rows}

    def org_session_share(self) -> tuple[dict[str, int], int]:
        """Sessions mentioning each org, and sessions in all."""
        rows = self.engine.execute(
            "MATCH (o:Entity)-[f:FACT]->(s:Entity) WHERE f.rel = 'mentioned_in' "
            "AND o.kind = 'org' AND f.room <> '*' RETURN o.id, count(DISTINCT s.id)"
        )
        total = self.engine.execute(
            "MATCH (:Entity)-[f:FACT]->(s:Entity) WHERE f.rel = 'mentioned_in' "
            "AND f.room <> '*' RETURN count(DISTINCT s.id)"
        )
        return {r[0]: int(r[1]) for r in rows}, int(total[0][0]) if total else 0

    def taught_orgs(self) -> set[str]:
        rows = self.engine.execute(
            "MATCH (o:Entity)-[f:FACT]->(:Entity) WHERE f.rel = 'client_of' "
            "AND f.source = 'taught' RETURN DISTINCT o.id"
        )
        return {r[0] for r in rows}

    def shared_addresses(self) -> list[tuple[str, str]]:
        """Pairs of people who share an address in some room: one identity in the main graph."""
        rows = self.engine.execute(
            "MATCH (a:Entity)-[f:FACT]->(m:Entity)<-[g:FACT]-(b:Entity) "
            "WHERE f.rel = 'has_address' AND g.rel = 'has_address' AND a.id < b.id "
            "AND f.room <> '*' AND g.room <> '*' RETURN DISTINCT a.id, b.id"
        )
        return [(r[0], r[1]) for r in rows]

    def works_at_disagreements(self) -> list[tuple]:
        """Open works_at winners of one person that differ between two rooms."""
        return [
            tuple(r)
            for r in self.engine.execute(
                "MATCH (p:Entity)-[a:FACT]->(x:Entity), (p)-[b:FACT]->(y:Entity) "
                "WHERE a.rel = 'works_at' AND b.rel = 'works_at' AND a.room <> '*' "
                "AND b.room <> '*' AND a.room < b.room AND x.id <> y.id "
                "AND a.valid_to IS NULL AND b.valid_to IS NULL "
                "RETURN p.id, x.id, a.valid_from, a.seen, y.id, b.valid_from, b.seen"
            )
        ]
