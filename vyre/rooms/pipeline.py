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
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vyre.extract import RULES_VERSION
from vyre.graph import GraphError, GraphStore, MainInput, RoomRows, one_kind_per_entity
from vyre.ledger import Ledger, graph_rooms
from vyre.ledger import corrections as corrections_store
from vyre.reports import DeriveReport
from vyre.rooms.corrections import ENTITY_KINDS, in_scope, needs_names, reach
from vyre.rooms.derive import RoomInput, RoomMemo, derive_room
from vyre.rooms.main_graph import derive_main, main_input
from vyre.rooms.membership import own_rooms, picks_by_session
from vyre.rooms.names import MAIN, UNFILED
from vyre.rooms.spread import RoomWorkers

DERIVE_VERSION = "1"

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Correction
    from vyre.rooms.stored_plan import StoredPlan


def plan(ledger: Ledger, settings: dict) -> tuple[dict, dict, dict, dict]:
    """(room -> digest, room -> sessions, session -> rooms, room -> the digest of all but its
    corrections, `base`) for the ledger as it is, from nothing."""
    return Planner().plan(ledger, settings)


_Session = dict  # {"id", "parent", "cwd", "version"}: what a room's digest and membership read
SESSION_COLUMNS = "id, parent, cwd, version"  # a plan's reads of a session, after its rowid
_ALL_SESSIONS = f"SELECT rowid, {SESSION_COLUMNS} FROM sessions"


@dataclass(frozen=True)
class HeldSession:
    """What a `Planner` holds of one session: as read (rowid, version, parent, cwd) and the
    rooms it is in on its own (before a parent's rooms are taken)."""

    rowid: int
    version: int
    parent: str | None
    cwd: str | None
    own: frozenset[str]


# The sessions table's count, the sums of its versions and rowids (kept by triggers: m021)
# and its top rowid: every write changes one of them (see `Planner.key`).
SESSIONS_KEY = (
    "SELECT t.sessions, t.versions, t.rowids, (SELECT max(rowid) FROM sessions) "
    "FROM session_totals t"
)


class Planner:
    """`plan()` kept up to date from what changed: a long-lived planner (the daemon's) re-reads
    only the sessions that changed and re-hashes only the rooms they are in; its plan always
    equals `plan()` from nothing (tested on random changes).

    Sessions are only ever added or changed, and every write bumps a version, so the table's
    count, sum of versions and rowids change with every write (`key`): when they are what
    the sessions held add up to, nothing else changed; otherwise every session is read again
    and compared. `touched(ids)` names the sessions an ingest wrote, so they are read alone.
    A change of projects or of the relation settings plans again from nothing (rare, and
    every room's digest reads them)."""

    def __init__(self) -> None:
        self._context: tuple | None = None  # (projects, toggles) the rooms were hashed with
        self._reset()

    def _reset(self) -> None:
        self._sessions: dict[str, _Session] = {}
        self._total = 0  # the sum of the versions held
        self._rowids: dict[str, int] = {}
        self._rowid_sum = 0
        self._told: set[str] = set()
        self._homes: dict[str | None, frozenset[str]] = {}  # cwd -> its project's room
        self._picked: dict[str, frozenset[str]] = {}
        self._own: dict[str, frozenset[str]] = {}  # a session's rooms, before parent's
        self._children: dict[str, set[str]] = defaultdict(set)  # parent id -> subagents
        self._membership: dict[str, frozenset[str]] = {}
        self._by_room: dict[str, dict[str, _Session]] = {}
        self._hashed: dict[str, Any] = {}  # room -> blake2b of its project and members

    def touched(self, sessions: Iterable[str]) -> None:
        """These sessions were written: read them at the next plan."""
        self._told.update(sessions)

    def plan(self, ledger: Ledger, settings: dict) -> tuple[dict, dict, dict, dict]:
        """`plan(ledger, settings)`, from what changed since the last call."""
        projects = ledger.projects()
        toggles = {k: v for k, v in sorted(settings.items()) if k.startswith("relations.")}
        if (projects, toggles) != self._context:
            self._reset()  # everything from nothing
            self._context = (projects, toggles)
            self._picked = picks_by_session(projects)
        dirty = self._read_sessions(ledger)
        config = {p["slug"]: p for p in projects}
        for slug in config:
            self._by_room.setdefault(slug, {})
            if slug not in self._hashed:
                dirty.add(slug)
        for room in dirty:
            if not self._by_room.get(room) and room not in config:
                self._by_room.pop(room, None)
                self._hashed.pop(room, None)
                continue
            self._hashed[room] = self._hash(room, config.get(room), toggles)
        hashed = self._hashed

        def base(room: str, identity: str) -> str:
            h = hashed[room].copy()
            h.update(identity.encode())
            return h.hexdigest()

        digests, bases = finish(ledger, hashed, base)
        by_room = {room: list(members.values()) for room, members in self._by_room.items()}
        return digests, by_room, self._membership, bases

    def _read_sessions(self, ledger: Ledger) -> set[str]:
        """Bring the sessions held up to date; the rooms whose digest that changes."""
        db = ledger.db
        if not self._sessions:  # nothing held (a fresh process): every session, in one pass
            self._told.clear()
            return self._load(db.execute(_ALL_SESSIONS).fetchall())
        key = db.execute(SESSIONS_KEY).fetchone()
        rows: list[tuple] = []
        told = sorted(self._told)
        self._told.clear()
        for lo in range(0, len(told), 500):
            part = told[lo : lo + 500]
            rows += db.execute(
                f"{_ALL_SESSIONS} WHERE id IN ({','.join('?' * len(part))})",
                part,
            ).fetchall()
        dirty = self._apply(rows)
        if key != self.key():  # written behind our back (or deleted by hand): read them all
            rows = db.execute(_ALL_SESSIONS).fetchall()
            there = {row[1] for row in rows}
            for sid in [sid for sid in self._sessions if sid not in there]:
                dirty |= self._forget(sid)
            dirty |= self._apply(rows)
        return dirty

    def held(self) -> dict[str, HeldSession]:
        """Each session as of the last plan (`vyre.rooms.stored_plan` keeps them)."""
        rowids, own = self._rowids, self._own
        return {
            sid: HeldSession(rowids[sid], s["version"], s["parent"], s["cwd"], own[sid])
            for sid, s in self._sessions.items()
        }

    def key(self) -> tuple:
        """What the table's count, sum of versions, sum and top of rowids are when it holds
        exactly the sessions held: every write changes one of them (a version is bumped, a
        row added), and so does a row deleted by hand (nothing in Vyre deletes one), unless
        the newest is deleted and a new one with its version takes its rowid before a plan."""
        rowids = self._rowids
        return (len(rowids), self._total, self._rowid_sum, max(rowids.values(), default=None))

    def _load(self, rows: list[tuple]) -> set[str]:
        """`_apply` of every session to a planner that holds none, in two plain loops: what
        a fresh process plans (the same state, without the per-session bookkeeping of a
        change)."""
        sessions, rowids, own = self._sessions, self._rowids, self._own
        children = self._children
        projects = self._context[0] if self._context else []
        picked, homes = self._picked, self._homes
        for rowid, sid, parent, cwd, version in rows:
            sessions[sid] = {"id": sid, "parent": parent, "cwd": cwd, "version": version}
            rowids[sid] = rowid
            self._total += version
            self._rowid_sum += rowid
            if parent:
                children[parent].add(sid)
            own[sid] = own_rooms(sid, cwd, projects, picked, homes)
        membership, by_room = self._membership, self._by_room
        for sid, held in sessions.items():
            parent = held["parent"]
            rooms = own.get(parent, own[sid]) if parent else own[sid]
            membership[sid] = rooms
            for room in rooms:
                by_room.setdefault(room, {})[sid] = held
        return set(by_room)

    def _apply(self, rows: list[tuple]) -> set[str]:
        dirty: set[str] = set()
        moved: list[str] = []
        for rowid, sid, parent, cwd, version in rows:
            held = self._sessions.get(sid)
            if held is not None and held["version"] == version and self._rowids[sid] == rowid:
                continue
            if held is None:
                held = self._sessions[sid] = {"id": sid, "parent": None, "cwd": None, "version": 0}
            self._rowid_sum += rowid - self._rowids.get(sid, 0)
            self._rowids[sid] = rowid
            self._total += version - held["version"]
            held["version"] = version
            if held["parent"] != parent or held["cwd"] != cwd or sid not in self._own:
                if held["parent"] != parent:
                    self._children[held["parent"]].discard(sid)
                held["parent"], held["cwd"] = parent, cwd
                if parent:
                    self._children[parent].add(sid)
                self._own[sid] = self._own_rooms(sid, cwd)
                moved.append(sid)
            dirty |= self._membership.get(sid, frozenset())
        for sid in moved:  # a subagent is in its parent's rooms
            for member in (sid, *sorted(self._children.get(sid, ()))):
                dirty |= self._place(member)
        return dirty

    def _forget(self, sid: str) -> set[str]:
        held = self._sessions.pop(sid)
        self._total -= held["version"]
        self._rowid_sum -= self._rowids.pop(sid)
        self._children[held["parent"]].discard(sid)
        del self._own[sid]
        rooms = self._membership.pop(sid, frozenset())
        for room in rooms:
            self._by_room[room].pop(sid, None)
        dirty = set(rooms)
        for child in sorted(self._children.get(sid, ())):  # back in their own rooms
            dirty |= self._place(child)
        return dirty

    def _own_rooms(self, sid: str, cwd: str | None) -> frozenset[str]:
        projects = self._context[0] if self._context else []
        return own_rooms(sid, cwd, projects, self._picked, self._homes)

    def _place(self, sid: str) -> set[str]:
        """File one session in its rooms; the rooms it left or joined (or whose line of it
        changes: a session's line counts its rooms)."""
        s = self._sessions[sid]
        parent = s["parent"]
        rooms = self._own.get(parent, self._own[sid]) if parent else self._own[sid]
        before = self._membership.get(sid, frozenset())
        self._membership[sid] = rooms
        for room in before - rooms:
            self._by_room[room].pop(sid, None)
        for room in rooms:
            self._by_room.setdefault(room, {})[sid] = s
        return set(before | rooms)

    def _hash(self, room: str, project: dict | None, toggles: dict) -> Any:
        membership = self._membership
        members = self._by_room.get(room, {})
        lines = ((sid, members[sid]["version"], len(membership[sid])) for sid in sorted(members))
        return room_hash(room, project, toggles, lines)


def room_hash(
    room: str, project: dict | None, toggles: dict, members: Iterable[tuple[str, int, int]]
) -> Any:
    """The blake2b of a room's project and its members' lines (id, version, how many rooms
    it is in), in the members' id order: what its digest reads but the corrections."""
    h = hashlib.blake2b(digest_size=16)
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
    # one update of the members' lines joined: the same digest as one update per line
    h.update("".join(f"|{sid}:{version}:{rooms}" for sid, version, rooms in members).encode())
    return h


def identity(scoped: list[Correction]) -> str:
    """What a room's names follow from beside its sessions and project: its identity changes."""
    return f"|identity:{[c.id for c in scoped if c.kind != 'correct']}"


def finish(
    ledger: Ledger, rooms: Iterable[str], base: Callable[[str, str], str]
) -> tuple[dict, dict]:
    """(room -> digest, room -> base) of these rooms, `base(room, identity)` giving a room's
    digest of all but its corrections."""
    corrections = corrections_store.active(ledger)
    named = graph_rooms.names(ledger) if needs_names(corrections) else {}
    digests, bases = {}, {}
    for room in rooms:
        scoped = in_scope(corrections, room)
        bases[room] = base(room, identity(scoped))
        held, names = named.get(room, ("", None))
        digests[room] = _digest_with(
            bases[room], scoped, room, names if held == bases[room] else None
        )
    return digests, bases


MENTIONS_KEPT = 150_000  # rows held: a big room's (~1,000 sessions, ~15,000 rows) many times
# mentions whose rooms' last derive is remembered (`RoomMemo`, ~0.4 KiB a mention): the
# busiest room of the 30,000-session home (5,267 sessions, ~62,000 mentions) with room to spare
MEMO_MENTIONS = 80_000


class HeldMentions:
    """The mention rows of the sessions of the rooms derived last, by session and version (the
    daemon's): a room derived again reads only the sessions that changed since. A session's
    mentions change only with its version (they are written in the same transaction). At most
    `limit` rows are held: the rooms derived longest ago are let go first, never the room
    just read. Beside them, the memo of the last derive of the rooms derived last
    (`RoomMemo`), for rooms of `memo_limit` mentions in all at most."""

    def __init__(self, limit: int = MENTIONS_KEPT, memo_limit: int = MEMO_MENTIONS) -> None:
        self._held: dict[str, tuple[int, list[tuple]]] = {}  # session -> (version, rows)
        self._rooms: dict[str, list[str]] = {}  # room -> its sessions, oldest derive first
        self._limit = limit
        self._memos: dict[str, tuple[int, RoomMemo]] = {}  # room -> (mentions, memo)
        self._memo_limit = memo_limit

    def memo(self, room: str, mentions: int) -> RoomMemo | None:
        """The memo of the room's last derive, for a derive of these many mentions (None when
        the room is over the bound: it is derived from nothing); the rooms derived longest
        ago let theirs go first."""
        _, memo = self._memos.pop(room, (0, None))
        if mentions > self._memo_limit:
            return None
        self._memos[room] = (mentions, memo or RoomMemo())
        held = sum(n for n, _ in self._memos.values())
        while held > self._memo_limit:
            held -= self._memos.pop(next(iter(self._memos)))[0]
        return self._memos[room][1]

    def of(self, ledger: Ledger, room: str, members: list[_Session]) -> list[tuple]:
        """`ledger.mentions` of these sessions, in its order."""
        want = {s["id"]: s["version"] for s in members}
        stale = [sid for sid, v in want.items() if self._held.get(sid, (None,))[0] != v]
        if stale:
            found: dict[str, list[tuple]] = defaultdict(list)
            for row in ledger.mentions(stale):
                found[row[0]].append(row)
            for sid in stale:
                self._held[sid] = (want[sid], found.get(sid, []))
        rows: list[tuple] = []
        for sid in sorted(want):
            rows += self._held[sid][1]
        self._rooms.pop(room, None)
        self._rooms[room] = list(want)
        self._trim()
        return rows

    def _trim(self) -> None:
        kept = set().union(*self._rooms.values())
        for sid in [sid for sid in self._held if sid not in kept]:
            del self._held[sid]
        held = sum(len(rows) for _, rows in self._held.values())
        while held > self._limit and len(self._rooms) > 1:
            oldest = next(iter(self._rooms))
            del self._rooms[oldest]
            self._memos.pop(oldest, None)
            kept = set().union(*self._rooms.values())
            for sid in [sid for sid in self._held if sid not in kept]:
                held -= len(self._held.pop(sid)[1])


def _digest_with(
    base: str, scoped: list[Correction], room: str, names: frozenset[str] | None
) -> str:
    """A room's digest: its base and the corrections that can change it."""
    ids = [c.id for c in reach(scoped, room, names)]
    return hashlib.blake2b(f"{base}|corrections:{ids}".encode(), digest_size=16).hexdigest()


class LaterFiles:
    """Rooms' files written after the derive that made their rows, by a thread of the
    daemon's (`vyre.daemon.main_graph`): a new line is served, and a handed ingest answered,
    without waiting for the engine's write. A room whose file is still to be written counts
    as derived (its digest is the new one), so it is not derived again meanwhile; a kill
    before the file is recorded leaves the ledger's record of the old one, and the next start
    derives the room again. At most `limit` rooms wait at once (`vyre derive --all` writes
    the rest itself): memory holds a few rooms' rows, never the home's. The rows a room waits
    with are always its newest: a room derived again before its file was written is written
    once, as it is now."""

    def __init__(self, limit: int = 2) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, tuple[RoomRows, MainInput]] = {}
        self._writing: tuple[str, str] | None = None  # (room, digest) being written now
        self._dropped: set[str] = set()
        self.limit = limit
        self.woken: Callable[[], None] = lambda: None  # told when a room starts to wait

    def digests(self) -> dict[str, str]:
        """The digest of each room whose newest file is not recorded yet."""
        with self._lock:
            out = {self._writing[0]: self._writing[1]} if self._writing else {}
            out.update((room, rows.digest) for room, (rows, _) in self._pending.items())
            return out

    def put(self, rows: RoomRows, given: MainInput) -> bool:
        """Whether the room's file will be written later (else write it now): taken when the
        room already waits or is being written (its newest rows replace those), or while
        fewer than `limit` rooms wait."""
        with self._lock:
            room = rows.room
            being_written = self._writing is not None and self._writing[0] == room
            if room not in self._pending and not being_written and len(self._pending) >= self.limit:
                return False
            self._pending[room] = (rows, given)
            self._dropped.discard(room)
        self.woken()
        return True

    def drop(self, room: str) -> None:
        """The room is gone: its file is not written (or is removed once written)."""
        with self._lock:
            self._pending.pop(room, None)
            self._dropped.add(room)

    def take(self) -> tuple[RoomRows, MainInput] | None:
        with self._lock:
            if not self._pending:
                self._writing = None
                return None
            room = next(iter(self._pending))
            rows, given = self._pending.pop(room)
            self._writing = (room, rows.digest)
            return rows, given

    def done(self, room: str) -> bool:
        """The room's file is written; whether the room was dropped meanwhile."""
        with self._lock:
            self._writing = None
            if room in self._dropped:
                self._dropped.discard(room)
                return True
            return False

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._pending) or self._writing is not None


def derive(
    ledger: Ledger,
    store: GraphStore,
    settings: dict,
    *,
    force: bool = False,
    main: bool = True,
    written: Callable[[RoomRows], None] | None = None,
    planner: Planner | StoredPlan | None = None,
    mentions: HeldMentions | None = None,
    later: LaterFiles | None = None,
) -> DeriveReport:
    """Derive stale rooms, then (unless `main` is False) the main graph if anything changed.

    The daemon derives rooms at once and the main graph a moment later, beside its writer
    (`main_job`): prompts read rooms. `written(rows)` is told of each room's rows just before
    its file is written (an empty one when dropped), so a reader serves the new rows at once
    and never reads them back. A `planner` and the `mentions` held from the last derive
    (the daemon's) make the plan and the rooms' mentions cost what changed; with `later`,
    the rooms' files are written by another thread (`LaterFiles`).
    """
    report, job = _derive_rooms(
        ledger,
        store,
        settings,
        force,
        written,
        want_main=main,
        planner=planner,
        mentions=mentions,
        later=later,
    )
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
    planner: Planner | StoredPlan | None = None,
    mentions: HeldMentions | None = None,
    later: LaterFiles | None = None,
) -> MainJob | None:
    """Stale rooms derived first, then what the main graph needs, or None when it is up to
    date. Taken under the writer's lock; then `job.rows()` and `write_rows` run off it (one
    main graph written at a time), and `record_rows` under it again. A room changed in
    between only makes the recorded main digest an old one: the next job derives it again.
    `force`: a job even when the main graph is up to date (`vyre derive --all`)."""
    return _derive_rooms(
        ledger,
        store,
        settings,
        False,
        written,
        want_main=True,
        force_main=force,
        planner=planner,
        mentions=mentions,
        later=later,
    )[1]


def _derive_rooms(
    ledger: Ledger,
    store: GraphStore,
    settings: dict,
    force: bool,
    written: Callable[[RoomRows], None] | None,
    *,
    want_main: bool,
    force_main: bool = False,
    planner: Planner | StoredPlan | None = None,
    mentions: HeldMentions | None = None,
    later: LaterFiles | None = None,
) -> tuple[DeriveReport, MainJob | None]:
    started = time.perf_counter()
    digests, by_room, membership, bases = (planner or Planner()).plan(ledger, settings)
    record = graph_rooms.recorded(ledger)
    if later is not None:  # rooms derived whose files are still to be written
        for room, digest in later.digests().items():
            record[room] = graph_rooms.Record(digest, 0, 0, "")
    stale = sorted(r for r in digests if force or _digest(record, r) != digests[r])
    gone = sorted(r for r in record.keys() | set(store.rooms()) if r not in digests and r != MAIN)
    report = DeriveReport(rooms=stale, dropped=gone)
    took = _Steps(report.seconds, started)
    took("plan")
    orgs = {p["slug"]: p["org"] for p in ledger.projects()}
    corrections = corrections_store.active(ledger)
    # what the main graph reads from each room, kept beside it; a one-off ingest that leaves
    # the main graph for later writes its rooms' inputs without reading the others (the
    # daemon's files written later hand theirs over in the store's copy: read it there)
    inputs = store.main_inputs() if want_main or later is not None or store.inputs_read else {}

    def single(room: str) -> set[str]:
        return {s["id"] for s in by_room[room] if len(membership[s["id"]]) == 1}

    def derived(room: str, rows_said: list[tuple]) -> tuple[RoomRows, frozenset[str], MainInput]:
        """A room's rows, the names its mentions resolve to, and what the main graph reads."""
        alone, scoped = single(room), in_scope(corrections, room)
        inp = RoomInput(
            room=room,
            digest=digests[room],
            mentions=rows_said,
            single=alone,
            org=orgs.get(room) if room != UNFILED else None,
            settings=settings,
            corrections=scoped,
        )
        rows = derive_room(inp, mentions.memo(room, len(rows_said)) if mentions else None)
        # the names this derive found decide which corrections count here from now on
        names = frozenset(n for n in inp.named if n.split(":", 1)[0] in ENTITY_KINDS)
        rows.digest = _digest_with(bases[room], scoped, room, names)
        return rows, names, main_input(rows, alone)

    spread = None
    if written is None and later is None and mentions is None:
        spread = RoomWorkers(ledger, store, settings, stale, by_room, derived)
    for room, done in spread.rooms() if spread is not None else ((r, None) for r in stale):
        if done is not None:  # derived and written by a worker: put its file in place
            graph_rooms.keep_names(ledger, room, bases[room], done.names)
            digests[room] = done.digest
            inputs[room] = done.given
            stamp = store.put_in_place(room, done.temp)
            graph_rooms.record(
                ledger, room, graph_rooms.Record(done.digest, done.facts, done.evidence, stamp)
            )
            store.keep_input(inputs[room])
            report.facts += done.facts
            took("derive")
            continue
        took("plan")
        rows_said = (
            mentions.of(ledger, room, by_room[room])
            if mentions is not None
            else ledger.mentions(s["id"] for s in by_room[room])
        )
        took("mentions")
        rows, names, inputs[room] = derived(room, rows_said)
        del rows_said
        graph_rooms.keep_names(ledger, room, bases[room], names)
        digests[room] = rows.digest
        took("derive")
        if later is not None and later.put(rows, inputs[room]):
            one_kind_per_entity(rows.facts)
            if written:
                written(rows)  # served now; its file, its record and its input follow
            took("view")
        else:
            record_rows(ledger, rows, write_rows(store, rows, written, took))
            store.keep_input(inputs[room])  # beside the room's file, for the next process
            took("write")
        report.facts += len(rows.facts)
    for room in gone:
        if later is not None:
            later.drop(room)
        store.drop_room(room)
        graph_rooms.forget(ledger, [room])
        if written:
            written(RoomRows(room=room, digest=""))
    main_corrections = in_scope(corrections, MAIN)
    main_digest = _main_digest(digests, main_corrections)
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


def _main_digest(digests: dict[str, str], corrections: list[Correction]) -> str:
    """The main graph's digest: its rooms' digests and the corrections scoped to it."""
    return hashlib.blake2b(
        json.dumps([sorted(digests.items()), [c.id for c in corrections]]).encode(),
        digest_size=16,
    ).hexdigest()


def main_due(ledger: Ledger) -> bool:
    """Whether the main graph is older than the rooms the ledger recorded: a one-off ingest
    (`vyre ingest` without the daemon) writes the changed rooms and leaves the main graph to
    the next read of it, as the daemon does. Two small queries; no plan, no file opened."""
    record = graph_rooms.recorded(ledger)
    rooms = {room: held.digest for room, held in record.items() if room != MAIN}
    main = in_scope(corrections_store.active(ledger), MAIN)
    return _digest(record, MAIN) != _main_digest(rooms, main)


def _digest(record: dict[str, graph_rooms.Record], room: str) -> str:
    held = record.get(room)
    return held.digest if held else ""


def write_rows(
    store: GraphStore,
    rows: RoomRows,
    written: Callable[[RoomRows], None] | None = None,
    took: Callable[[str], None] | None = None,
) -> str:
    """A room's (or the main graph's) file written anew; its stamp. Readers are given the rows
    before the file is written: they are a function of the committed ledger, and a new line is
    visible without waiting for the engine's write."""
    one_kind_per_entity(rows.facts)
    if written:
        written(rows)
    if took:
        took("view")
    return store.replace_room(rows)


class _Steps:
    """Adds the time since the last call to the step named (a derive's `seconds`)."""

    def __init__(self, seconds: dict[str, float], started: float) -> None:
        self._seconds, self._at = seconds, started

    def __call__(self, step: str) -> None:
        now = time.perf_counter()
        self._seconds[step] = round(self._seconds.get(step, 0.0) + now - self._at, 4)
        self._at = now


def record_rows(ledger: Ledger, rows: RoomRows, stamp: str) -> None:
    """The ledger records a room only once its file is in place (`write_rows`)."""
    row = graph_rooms.Record(rows.digest, len(rows.facts), len(rows.evidence), stamp)
    graph_rooms.record(ledger, rows.room, row)
