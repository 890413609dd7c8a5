"""The ledger's record of what each derive wrote to the graph (table `graph_rooms`).

Written after a room's graph file is in place. A crash between the two leaves a record older
than the file: the file's stamp does not match and the room is derived again. A file changed
or lost behind our back, or one whose rows are not those counted here, does not match
either. So the graph is trusted only where it matches this record (`vyre.rooms.health`).

Beside it (table `room_names`), the entities each room's mentions named when it was last
derived, with the digest of the inputs they follow from: which rooms a correction can change
is judged from them (`vyre.rooms.corrections.reach`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import NamedTuple

from vyre.ledger.store import Ledger


class Record(NamedTuple):
    digest: str
    facts: int
    evidence: int
    stamp: str  # the file's identity when it was written


def recorded(ledger: Ledger) -> dict[str, Record]:
    return {
        room: Record(*rest)
        for room, *rest in ledger.db.execute(
            "SELECT room, digest, facts, evidence, stamp FROM graph_rooms"
        )
    }


def record(ledger: Ledger, room: str, row: Record) -> None:
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO graph_rooms (room, digest, facts, evidence, stamp) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (room) DO UPDATE SET digest = excluded.digest, "
            "facts = excluded.facts, evidence = excluded.evidence, stamp = excluded.stamp",
            (room, *row),
        )


def forget(ledger: Ledger, rooms: Iterable[str] | None = None) -> None:
    """Drop the record of these rooms (every room when None): they will be derived again."""
    with ledger.transaction() as db:
        if rooms is None:
            db.execute("DELETE FROM graph_rooms")
        else:
            db.executemany("DELETE FROM graph_rooms WHERE room = ?", [(r,) for r in rooms])


def names(ledger: Ledger) -> dict[str, tuple[str, frozenset[str]]]:
    """room -> (the digest of the inputs they follow from, the entity ids its mentions name)."""
    return {
        room: (base, frozenset(json.loads(text)))
        for room, base, text in ledger.db.execute("SELECT room, base, names FROM room_names")
    }


def keep_names(ledger: Ledger, room: str, base: str, ids: Iterable[str]) -> None:
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO room_names (room, base, names) VALUES (?, ?, ?) ON CONFLICT (room) "
            "DO UPDATE SET base = excluded.base, names = excluded.names",
            (room, base, json.dumps(sorted(ids))),
        )
