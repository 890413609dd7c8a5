"""The rooms' plan kept in the ledger (m017), for a process that plans once (a one-off `vyre
ingest`): it reads only the sessions written since the last plan and re-hashes only the rooms
they are in, where `Planner` from nothing reads every session (0.09 s at 30,000 sessions).
Its plan always equals `plan()` from nothing (tested on random changes and interrupted writes).

What is kept is what a `Planner` holds from derive to derive: each session as read (rowid,
version, parent, cwd), its own rooms and its rooms, each room's members, and each room's base
with the identity changes it was taken with. It is checked as `Planner` checks what it holds:
the sessions table's count and sums of versions and rowids must be those of the sessions kept
plus the ones an ingest said it wrote; otherwise (a write it was not told of, a row deleted by
hand, other versions, projects or relation settings) the plan is made from nothing and kept
anew. Read, checked and written in one transaction: a kill keeps the plan before it whole.
The rooms' sessions and the sessions' rooms are read from the ledger when asked (`_ByRoom`): a
derive asks for the stale rooms' alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from vyre.extract import RULES_VERSION
from vyre.ledger import Ledger
from vyre.ledger import corrections as corrections_store
from vyre.rooms.corrections import in_scope
from vyre.rooms.membership import own_rooms, picks_by_session
from vyre.rooms.pipeline import (
    DERIVE_VERSION,
    SESSION_COLUMNS,
    SESSIONS_KEY,
    Planner,
    finish,
    identity,
    room_hash,
)


class StoredPlan:
    """`Planner`'s `touched` and `plan`, from the plan the ledger keeps."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def touched(self, sessions: Iterable[str]) -> None:
        self._told.update(sessions)

    def plan(
        self, ledger: Ledger, settings: dict, *, planner: Planner | None = None
    ) -> tuple[dict, Mapping, Mapping, dict]:
        """The plan, from the one kept and the sessions told of; when that is not the table's,
        from nothing (or from a long-lived `planner`'s, which is current), and kept."""
        told = sorted(self._told)
        self._told.clear()
        with ledger.transaction() as db:
            projects = ledger.projects()
            toggles = {k: v for k, v in sorted(settings.items()) if k.startswith("relations.")}
            context = json.dumps([RULES_VERSION, DERIVE_VERSION, projects, toggles])
            rooms = _Changes(db, projects, toggles).apply(told, context)
            if rooms is None:
                return _from_nothing(ledger, db, settings, context, planner)
            digests, bases = finish(ledger, rooms, rooms.base)
            rooms.keep()
        by_room = _ByRoom(db, set(digests), rooms.members)  # a stale room is most often dirty
        return digests, by_room, by_room.membership, bases


def keep(ledger: Ledger, planner: Planner, settings: dict, wrote: Iterable[str]) -> None:
    """Keep a long-lived planner's plan (the daemon's, as it stops) for the next process
    without it, which would otherwise plan from nothing. Told the sessions the daemon wrote
    (`wrote`), the plan kept is brought up to date from them when it was current as the
    daemon started; else it is written from `planner`, which holds the plan already."""
    stored = StoredPlan()
    stored.touched(wrote)
    stored.plan(ledger, settings, planner=planner)


def _from_nothing(
    ledger: Ledger, db: Any, settings: dict, context: str, planner: Planner | None
) -> tuple:
    """`plan()` (a long-lived `planner`'s when given), kept in place of what was kept."""
    planner = planner or Planner()
    planned = planner.plan(ledger, settings)
    _keep(ledger, db, planner, planned, context)
    return planned


def _keep(ledger: Ledger, db: Any, planner: Planner, planned: tuple, context: str) -> None:
    """A planner's plan written in place of what was kept: only the rows that differ (a
    project changed or a write not told of changes few of 30,000 sessions)."""
    digests, by_room, membership, bases = planned
    held = planner.held()
    text: dict[frozenset[str], str] = {}  # few distinct sets of rooms
    for rooms in (*(s.own for s in held.values()), *membership.values()):
        if rooms not in text:
            text[rooms] = _rooms(rooms)
    rows = {
        sid: (sid, s.rowid, s.version, s.parent, s.cwd, text[s.own], text[membership[sid]])
        for sid, s in held.items()
    }
    kept = {row[0]: row for row in db.execute("SELECT * FROM plan_sessions").fetchall()}
    _gone(db, "plan_sessions WHERE id = ?", [(sid,) for sid in kept.keys() - rows.keys()])
    db.executemany(
        "INSERT OR REPLACE INTO plan_sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
        sorted(row for sid, row in rows.items() if kept.get(sid) != row),  # in key order
    )
    pairs = {(room, s["id"]) for room, members in by_room.items() for s in members}
    had = set(db.execute("SELECT room, session FROM plan_members").fetchall())
    _gone(db, "plan_members WHERE room = ? AND session = ?", sorted(had - pairs))
    db.executemany("INSERT INTO plan_members VALUES (?, ?)", sorted(pairs - had))
    identities = _identities(ledger, digests)
    db.execute("DELETE FROM plan_rooms")
    db.executemany(
        "INSERT INTO plan_rooms VALUES (?, ?, ?)",
        ((room, identities[room], bases[room]) for room in bases),
    )
    db.execute("DELETE FROM plan_state")
    db.execute("INSERT INTO plan_state VALUES (1, ?, ?, ?, ?, ?)", (context, *planner.key()))


def _gone(db: Any, where: str, keys: list[tuple]) -> None:
    db.executemany(f"DELETE FROM {where}", keys)


def _identities(ledger: Ledger, rooms: Iterable[str]) -> dict[str, str]:
    corrections = corrections_store.active(ledger)
    return {room: identity(in_scope(corrections, room)) for room in rooms}


class _Changes:
    """The kept plan brought up to date with the sessions an ingest wrote (`Planner._apply`'s
    steps, on the kept rows), and the rooms' bases (`base`), re-hashed where that changes."""

    def __init__(self, db: Any, projects: list[dict], toggles: dict) -> None:
        self.db, self.projects, self.toggles = db, projects, toggles
        self.config = {p["slug"]: p for p in projects}
        self.picked = picks_by_session(projects)
        self.homes: dict[str | None, frozenset[str]] = {}
        self.dirty: set[str] = set()
        self.kept: dict[str, tuple[str, str]] = {}  # room -> (identity, base) kept
        self.new: dict[str, tuple[str, str]] = {}  # room -> (identity, base) to keep
        self.gone: set[str] = set()
        self.members: dict[str, list[tuple]] = {}  # the dirty rooms' (`_members`)

    def apply(self, told: list[str], context: str) -> _Changes | None:
        """Self, or None when the kept plan is not the one of the table less what was told."""
        db = self.db
        state = db.execute("SELECT context, sessions, versions, rowids, top FROM plan_state")
        state = state.fetchone()
        if state is None or state[0] != context:
            return None
        count, versions, rowids, top = state[1:]
        rows = _in(db, f"SELECT rowid, {SESSION_COLUMNS} FROM sessions WHERE id IN", told)
        was = {r[0]: r[1:] for r in _in(db, "SELECT * FROM plan_sessions WHERE id IN", told)}
        changed = []
        for rowid, sid, parent, cwd, version in rows:
            held = was.get(sid)
            if held is None:
                count += 1
                versions += version
                rowids += rowid
            elif held[0] == rowid and held[1] == version:
                continue
            else:
                versions += version - held[1]
                rowids += rowid - held[0]
            top = rowid if top is None else max(top, rowid)
            changed.append((rowid, sid, parent, cwd, version))
        key = db.execute(SESSIONS_KEY).fetchone()
        if (count, versions, rowids, top) != tuple(key):
            return None
        self.state = key
        moved = []
        for rowid, sid, parent, cwd, version in changed:
            held = was.get(sid)
            if held is None or held[2] != parent or held[3] != cwd:
                own = _rooms(own_rooms(sid, cwd, self.projects, self.picked, self.homes))
                moved.append(sid)
            else:
                own = held[4]
            rooms = held[5] if held else ""
            self.dirty |= _set(rooms)
            db.execute(
                "INSERT OR REPLACE INTO plan_sessions VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, rowid, version, parent, cwd, own, rooms),
            )
        for sid in moved:  # a subagent is in its parent's rooms
            children = db.execute("SELECT id FROM plan_sessions WHERE parent = ?", (sid,))
            for member in (sid, *sorted(r[0] for r in children)):
                self._place(member)
        self.kept = {r[0]: (r[1], r[2]) for r in db.execute("SELECT * FROM plan_rooms")}
        for slug in self.config:
            if slug not in self.kept:
                self.dirty.add(slug)
        for room in sorted(self.dirty):
            self.members[room] = _members(db, room)
            if room not in self.config and not self.members[room]:
                self.gone.add(room)
        return self

    def _place(self, sid: str) -> None:
        db = self.db
        parent, own, before = db.execute(
            "SELECT parent, own, rooms FROM plan_sessions WHERE id = ?", (sid,)
        ).fetchone()
        if parent:
            found = db.execute("SELECT own FROM plan_sessions WHERE id = ?", (parent,)).fetchone()
            own = found[0] if found else own
        if own == before:
            return
        db.execute("UPDATE plan_sessions SET rooms = ? WHERE id = ?", (own, sid))
        for room in _set(before) - _set(own):
            db.execute("DELETE FROM plan_members WHERE room = ? AND session = ?", (room, sid))
        for room in _set(own):
            db.execute("INSERT OR IGNORE INTO plan_members VALUES (?, ?)", (room, sid))
        self.dirty |= _set(before) | _set(own)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted((self.kept.keys() | self.dirty) - self.gone))

    def base(self, room: str, identity: str) -> str:
        kept = self.kept.get(room)
        if room not in self.dirty and kept and kept[0] == identity:
            return kept[1]
        if room not in self.members:
            self.members[room] = _members(self.db, room)
        lines = ((r[0], r[3], len(_set(r[4]))) for r in self.members[room])
        h = room_hash(room, self.config.get(room), self.toggles, lines)
        h.update(identity.encode())
        self.new[room] = (identity, h.hexdigest())
        return self.new[room][1]

    def keep(self) -> None:
        db = self.db
        for room in self.gone:
            db.execute("DELETE FROM plan_rooms WHERE room = ?", (room,))
        db.executemany(
            "INSERT OR REPLACE INTO plan_rooms VALUES (?, ?, ?)",
            ((room, *kept) for room, kept in self.new.items()),
        )
        db.execute(
            "UPDATE plan_state SET sessions = ?, versions = ?, rowids = ?, top = ?", self.state
        )


def _rooms(rooms: Iterable[str]) -> str:
    return "\x1f".join(sorted(rooms))


def _set(rooms: str) -> set[str]:
    return set(rooms.split("\x1f")) if rooms else set()


def _in(db: Any, sql: str, ids: list[str]) -> list[tuple]:
    rows: list[tuple] = []
    for lo in range(0, len(ids), 500):
        part = ids[lo : lo + 500]
        rows += db.execute(f"{sql} ({','.join('?' * len(part))})", part).fetchall()
    return rows


def _members(db: Any, room: str) -> list[tuple]:
    """A room's sessions as the plan keeps them: (id, parent, cwd, version, rooms)."""
    return db.execute(
        "SELECT s.id, s.parent, s.cwd, s.version, s.rooms FROM plan_members m "
        "JOIN plan_sessions s ON s.id = m.session WHERE m.room = ? ORDER BY s.id",
        (room,),
    ).fetchall()


class _ByRoom(Mapping):
    """A plan's room -> its sessions, read from the kept plan when asked (a derive asks for
    its stale rooms alone), filling in their rooms in `membership` as it goes."""

    def __init__(self, db: Any, rooms: set[str], read: dict[str, list[tuple]]) -> None:
        self._db, self._rooms, self._read = db, rooms, read
        self._got: dict[str, list[dict]] = {}
        self.membership = _Membership(db)

    def __getitem__(self, room: str) -> list[dict]:
        if room not in self._got:
            if room not in self._rooms:
                raise KeyError(room)
            got = self.membership._got
            members = []
            read = self._read.pop(room, None)
            for sid, parent, cwd, version, rooms in read or _members(self._db, room):
                members.append({"id": sid, "parent": parent, "cwd": cwd, "version": version})
                got.setdefault(sid, frozenset(_set(rooms)))
            self._got[room] = members
        return self._got[room]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._rooms))

    def __len__(self) -> int:
        return len(self._rooms)


class _Membership(Mapping):
    """A plan's session -> its rooms, read from the kept plan when asked."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self._got: dict[str, frozenset[str]] = {}

    def __getitem__(self, sid: str) -> frozenset[str]:
        if sid not in self._got:
            found = self._db.execute("SELECT rooms FROM plan_sessions WHERE id = ?", (sid,))
            row = found.fetchone()
            if row is None:
                raise KeyError(sid)
            self._got[sid] = frozenset(_set(row[0]))
        return self._got[sid]

    def __iter__(self) -> Iterator[str]:
        return iter([r[0] for r in self._db.execute("SELECT id FROM plan_sessions ORDER BY id")])

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM plan_sessions").fetchone()[0])
