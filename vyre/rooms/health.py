"""Whether the graph matches the ledger, and putting it right from the ledger.

The graph is derived, so it is never trusted where it disagrees with the ledger's record of
what each derive wrote (`vyre.ledger.graph_rooms`):
- a room whose file is missing, or is not the file that was written (its stamp: size and
  time, which a copied home keeps), or that the record does not know, is derived again; this
  look costs a `stat` per room and runs every time the graph is opened, which every read
  goes through;
- a file the engine cannot read (truncated, noise, another schema), or whose digest and row
  counts are not those recorded, is deleted and derived again when it is read (`vyre doctor`
  looks inside every file at once);
- graph files of the single-file layout Vyre used before are deleted.
Each repair is said in one line on the `vyre` logger.
"""

from __future__ import annotations

import logging

from vyre.errors import GraphDamaged
from vyre.graph import GraphStore, RoomRows, RoomState
from vyre.graph.engine import engine_files
from vyre.ledger import Ledger, graph_rooms
from vyre.reports import GraphHealth

log = logging.getLogger("vyre")


def mismatched(ledger: Ledger, store: GraphStore) -> list[str]:
    """Rooms whose file is not the one the ledger recorded (one `stat` per room)."""
    record = graph_rooms.recorded(ledger)
    rooms = set(record) | set(store.rooms())
    return sorted(r for r in rooms if r not in record or store.stamp(r) != record[r].stamp)


def unlike_record(ledger: Ledger, store: GraphStore, room: str) -> str:
    """Why a room's file is not what the ledger recorded, looking inside it ('' when it is).
    Raises GraphDamaged when the engine cannot read it."""
    return _unlike(graph_rooms.recorded(ledger).get(room), store.state(room), room)


def unlike_rows(ledger: Ledger, rows: RoomRows | None, room: str) -> str:
    """`unlike_record` for rows just read from the room's file (None: it has none), so a
    read that checks the file opens it once."""
    have = RoomState(rows.digest, len(rows.facts), len(rows.evidence)) if rows else None
    return _unlike(graph_rooms.recorded(ledger).get(room), have, room)


def _unlike(want: graph_rooms.Record | None, have: RoomState | None, room: str) -> str:
    if have is None or want is None:
        return "missing" if want else ""
    if tuple(have) != tuple(want)[:3]:
        return (
            f"the memory graph file of room {room!r} holds {have.facts} facts and "
            f"{have.evidence} evidence rows where {want.facts} and {want.evidence} were written"
        )
    return ""


def look(ledger: Ledger, store: GraphStore, *, deep: bool = False) -> GraphHealth:
    """What does not match; `deep` also opens every file (for `vyre doctor`)."""
    health = GraphHealth(str(store.folder), rooms=mismatched(ledger, store))
    if deep:
        for room in store.rooms():
            if room in health.rooms:
                continue
            try:
                why = unlike_record(ledger, store, room)
            except GraphDamaged as exc:
                health.damaged[room] = exc.line()
                continue
            if why:
                health.damaged[room] = why
    return health


def forget(ledger: Ledger, store: GraphStore, health: GraphHealth) -> None:
    """Delete the files the look found and their record: the next derive writes them again
    (and the main graph reads its inputs from the rooms' files, not from a file it found)."""
    for room in [*health.rooms, *health.damaged]:
        store.discard(room)
    graph_rooms.forget(ledger, [*health.rooms, *health.damaged])


def old_layout(store: GraphStore) -> str:
    """Delete the single graph file Vyre kept before one file per room; say so ('' if none)."""
    old = store.folder.parent / f"memory.{store.name}"
    files = engine_files(old)
    for path in files:
        path.unlink(missing_ok=True)
    return f"the memory graph now keeps one file per room (was {old})" if files else ""
