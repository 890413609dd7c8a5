"""Re-derive the rooms whose inputs changed, then the main graph; notice a graph that lost rows.

A room's digest covers everything its rows are a function of: the rules and derive versions,
the relevant settings, its project (org, folders, picks) and, for each of its sessions, the
session's version and whether it is shared with another room, and the corrections that can
change its rows (`vyre.rooms.corrections.reach`: one scoped to everything counts only in the
rooms whose mentions name its subject, as their last derive found them). Rooms whose digest
matches the ledger's record of their last derive are left alone, so appending to one session
re-derives only the rooms that session is in (and `'*'`), and a correction only the rooms
that name what it corrects (and `'*'`).

What must stay true:
- One room at a time, derived and its file written before the next is read: memory stays
  bounded by the largest room, not the home, and a crash keeps every room written before it.
- After the graph commits a room, the ledger records its digest and row counts
  (`vyre.ledger.graph_rooms`), and staleness is judged against that record. The graph is
  trusted only where it matches it (`vyre.rooms.health`).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from vyre.extract import RULES_VERSION
from vyre.graph import GraphError, GraphStore, MainInput, RoomRows, one_kind_per_entity
from vyre.ledger import Ledger, graph_rooms
from vyre.ledger import corrections as corrections_store
from vyre.models import Correction, DeriveReport
from vyre.rooms.corrections import ENTITY_KINDS, in_scope, needs_names, reach
from vyre.rooms.derive import RoomInput, derive_room
from vyre.rooms.main_graph import derive_main, main_input
from vyre.rooms.membership import session_rooms
from vyre.rooms.names import MAIN, UNFILED

DERIVE_VERSION = "1"


def plan(ledger: Ledger, settings: dict) -> tuple[dict, dict, dict, dict]:
    """(room -> digest, room -> sessions, session -> rooms, room -> the digest of all but its
    corrections, `base`) for the ledger as it is."""
    corrections = corrections_store.active(ledger)
    named = graph_rooms.names(ledger) if needs_names(corrections) else {}
    # only what a room's digest and membership read, in table order: at 30,000 sessions the
    # full rows in id order (`Ledger.sessions`) cost several times this scan
    sessions = [
        {"id": sid, "parent": parent, "cwd": cwd, "version": version}
        for sid, parent, cwd, version in ledger.db.execute(
            "SELECT id, parent, cwd, version FROM sessions"
        ).fetchall()
    ]
    projects = ledger.projects()
    membership = session_rooms(sessions, projects)
    by_room: dict[str, list[dict]] = defaultdict(list)
    for s in sessions:
        for room in membership[s["id"]]:
            by_room[room].append(s)
    config = {p["slug"]: p for p in projects}
    for slug in config:
        by_room.setdefault(slug, [])
    toggles = {k: v for k, v in sorted(settings.items()) if k.startswith("relations.")}
    digests, bases = {}, {}
    for room, members in by_room.items():
        h = hashlib.blake2b(digest_size=16)
        project = config.get(room)
        h.update(
            json.dumps(
                [
                    RULES_VERSION,
                    DERIVE_VERSION,
                    toggles,
                    room,
                    project and project["org"],
                    project and project["folders"],
                    project and project["picks"],
                ]
            ).encode()
        )
        for s in sorted(members, key=lambda s: s["id"]):
            h.update(f"|{s['id']}:{s['version']}:{len(membership[s['id']])}".encode())
        scoped = in_scope(corrections, room)
        # what the room's names follow from: its sessions, project and identity changes
        h.update(f"|identity:{[c.id for c in scoped if c.kind != 'correct']}".encode())
        bases[room] = h.hexdigest()
        base, names = named.get(room, ("", None))
        digests[room] = _digest_with(
            bases[room], scoped, room, names if base == bases[room] else None
        )
    return digests, by_room, membership, bases


def _digest_with(
    base: str, scoped: list[Correction], room: str, names: frozenset[str] | None
) -> str:
    """A room's digest: its base and the corrections that can change it."""
    ids = [c.id for c in reach(scoped, room, names)]
    return hashlib.blake2b(f"{base}|corrections:{ids}".encode(), digest_size=16).hexdigest()


def derive(
    ledger: Ledger,
    store: GraphStore,
    settings: dict,
    *,
    force: bool = False,
    main: bool = True,
    written: Callable[[RoomRows], None] | None = None,
) -> DeriveReport:
    """Derive stale rooms, then (unless `main` is False) the main graph if anything changed.

    The daemon derives rooms at once and the main graph a moment later, beside its writer
    (`main_job`): prompts read rooms. `written(rows)` is told of each room's rows just before
    its file is written (an empty one when dropped), so a reader serves the new rows at once
    and never reads them back.
    """
    report, job = _derive_rooms(ledger, store, settings, force, written, want_main=main)
    if job is not None:
        rows = job.rows()
        record_rows(ledger, rows, write_rows(store, rows, written))
        report.facts += len(rows.facts)
        report.main_stale = False
    return report


@dataclass(frozen=True)
class MainJob:
    """What deriving the main graph reads, taken from the stores at one moment: `rows()` is a
    function of it alone, so it runs beside the writer, which goes on changing the stores."""

    digest: str
    inputs: dict[str, MainInput]
    corrections: list[Correction]

    def rows(self) -> RoomRows:
        return derive_main(self.inputs, self.digest, self.corrections)


def main_job(
    ledger: Ledger,
    store: GraphStore,
    settings: dict,
    written: Callable[[RoomRows], None] | None = None,
    *,
    force: bool = False,
) -> MainJob | None:
    """Stale rooms derived first, then what the main graph needs, or None when it is up to
    date. Taken under the writer's lock; then `job.rows()` and `write_rows` run off it (one
    main graph written at a time), and `record_rows` under it again. A room changed in
    between only makes the recorded main digest an old one: the next job derives it again.
    `force`: a job even when the main graph is up to date (`vyre derive --all`)."""
    return _derive_rooms(ledger, store, settings, False, written, want_main=True, force_main=force)[
        1
    ]


def _derive_rooms(
    ledger: Ledger,
    store: GraphStore,
    settings: dict,
    force: bool,
    written: Callable[[RoomRows], None] | None,
    *,
    want_main: bool,
    force_main: bool = False,
) -> tuple[DeriveReport, MainJob | None]:
    digests, by_room, membership, bases = plan(ledger, settings)
    record = graph_rooms.recorded(ledger)
    stale = sorted(r for r in digests if force or _digest(record, r) != digests[r])
    gone = sorted(r for r in record.keys() | set(store.rooms()) if r not in digests and r != MAIN)
    report = DeriveReport(rooms=stale, dropped=gone)
    orgs = {p["slug"]: p["org"] for p in ledger.projects()}
    corrections = corrections_store.active(ledger)
    inputs = store.main_inputs()  # what the main graph reads from each room, kept beside it

    def single(room: str) -> set[str]:
        return {s["id"] for s in by_room[room] if len(membership[s["id"]]) == 1}

    for room in stale:
        alone = single(room)
        scoped = in_scope(corrections, room)
        inp = RoomInput(
            room=room,
            digest=digests[room],
            mentions=ledger.mentions(s["id"] for s in by_room[room]),
            single=alone,
            org=orgs.get(room) if room != UNFILED else None,
            settings=settings,
            corrections=scoped,
        )
        rows = derive_room(inp)
        # the names this derive found decide which corrections count here from now on
        names = frozenset(n for n in inp.named if n.split(":", 1)[0] in ENTITY_KINDS)
        graph_rooms.keep_names(ledger, room, bases[room], names)
        rows.digest = digests[room] = _digest_with(bases[room], scoped, room, names)
        record_rows(ledger, rows, write_rows(store, rows, written))
        inputs[room] = main_input(rows, alone)
        store.keep_input(inputs[room])  # beside the room's file, for the next process
        report.facts += len(rows.facts)
    for room in gone:
        store.drop_room(room)
        graph_rooms.forget(ledger, [room])
        if written:
            written(RoomRows(room=room, digest=""))
    main_corrections = in_scope(corrections, MAIN)
    main_digest = hashlib.blake2b(
        json.dumps([sorted(digests.items()), [c.id for c in main_corrections]]).encode(),
        digest_size=16,
    ).hexdigest()
    report.main_stale = force or force_main or _digest(record, MAIN) != main_digest
    if not (want_main and (stale or gone or report.main_stale)):
        return report, None
    for room, digest in digests.items():
        if room not in inputs or inputs[room].digest != digest:
            # no input kept for the room as it is now (a home from before inputs were
            # kept, or one lost): read what the main graph needs from the room's file
            held = store.read(room)
            if held is None or held.digest != digest:
                raise GraphError(f"the graph file of room {room!r} is not the one derived")
            inputs[room] = main_input(held, single(room))
            store.keep_input(inputs[room])
    return report, MainJob(main_digest, {room: inputs[room] for room in digests}, main_corrections)


def _digest(record: dict[str, graph_rooms.Record], room: str) -> str:
    held = record.get(room)
    return held.digest if held else ""


def write_rows(
    store: GraphStore, rows: RoomRows, written: Callable[[RoomRows], None] | None = None
) -> str:
    """A room's (or the main graph's) file written anew; its stamp. Readers are given the rows
    before the file is written: they are a function of the committed ledger, and a new line is
    visible without waiting for the engine's write."""
    one_kind_per_entity(rows.facts)
    if written:
        written(rows)
    return store.replace_room(rows)


def record_rows(ledger: Ledger, rows: RoomRows, stamp: str) -> None:
    """The ledger records a room only once its file is in place (`write_rows`)."""
    row = graph_rooms.Record(rows.digest, len(rows.facts), len(rows.evidence), stamp)
    graph_rooms.record(ledger, rows.room, row)
