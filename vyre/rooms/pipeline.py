"""Re-derive the rooms whose inputs changed, then the main graph.

A room's digest covers everything its rows are a function of: the rules and derive versions,
the relevant settings, its project (org, folders, picks) and, for each of its sessions, the
session's version and whether it is shared with another room. Rooms whose digest matches the
one stored beside their rows are left alone, so appending to one session re-derives only the
rooms that session is in (and `'*'`).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict

from vyre.extract import RULES_VERSION
from vyre.graph import GraphStore
from vyre.ledger import Ledger
from vyre.ledger import corrections as corrections_store
from vyre.models import DeriveReport
from vyre.rooms.corrections import in_scope
from vyre.rooms.derive import RoomInput, derive_room
from vyre.rooms.main_graph import derive_main
from vyre.rooms.membership import session_rooms
from vyre.rooms.names import MAIN, UNFILED

DERIVE_VERSION = "1"


def plan(ledger: Ledger, settings: dict) -> tuple[dict, dict, dict]:
    """(room -> digest, room -> sessions, session -> rooms) for the ledger as it is."""
    corrections = corrections_store.active(ledger)
    sessions = ledger.sessions()
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
    digests = {}
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
        h.update(f"|corrections:{[c.id for c in in_scope(corrections, room)]}".encode())
        digests[room] = h.hexdigest()
    return digests, by_room, membership


def derive(
    ledger: Ledger, store: GraphStore, settings: dict, *, force: bool = False, main: bool = True
) -> DeriveReport:
    """Derive stale rooms, then (unless `main` is False) the main graph if anything changed.

    The daemon derives rooms at once and the main graph a moment later: prompts read rooms.
    """
    digests, by_room, membership = plan(ledger, settings)
    stored = store.digests()
    stale = sorted(r for r in digests if force or stored.get(r) != digests[r])
    gone = sorted(r for r in stored if r not in digests and r != MAIN)
    report = DeriveReport(rooms=stale, dropped=gone)
    orgs = {p["slug"]: p["org"] for p in ledger.projects()}
    corrections = corrections_store.active(ledger)
    batch = []
    for room in stale:
        ids = [s["id"] for s in by_room[room]]
        rows = derive_room(
            RoomInput(
                room=room,
                digest=digests[room],
                mentions=ledger.mentions(ids),
                single={sid for sid in ids if len(membership[sid]) == 1},
                org=orgs.get(room) if room != UNFILED else None,
                settings=settings,
                corrections=in_scope(corrections, room),
            )
        )
        report.facts += len(rows.facts)
        batch.append(rows)
    store.replace_rooms(batch)
    store.drop_rooms(gone)
    main_corrections = in_scope(corrections, MAIN)
    main_digest = hashlib.blake2b(
        json.dumps([sorted(digests.items()), [c.id for c in main_corrections]]).encode(),
        digest_size=16,
    ).hexdigest()
    report.main_stale = stored.get(MAIN) != main_digest
    if main and (stale or gone or report.main_stale):
        main_rows = derive_main(store, main_digest, main_corrections)
        store.replace_rooms([main_rows])
        report.facts += len(main_rows.facts)
        store.prune()
        report.main_stale = False
    return report
