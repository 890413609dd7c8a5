"""The memory graph: a folder holding one engine file per room, each written whole.

What must stay true:
- A room's file is written from nothing (or, by the daemon, as a copy of the file it
  wrote last, changed by what changed: `replace_room`) into a temporary file, closed (the
  engine checkpoints it), flushed to disk and renamed over the old one. A file in use is never
  written again, so a kill at any moment leaves each room's old file or its new one, whole.
  (Both engines lose committed rows, or crash the process that opens the file, when killed
  during a checkpoint of a file they write in place: issue 7.)
- Readers open files read-only: any number of them, in any process, beside the writer, and
  one that opened a room keeps reading that room as it was (the rename does not touch it).
- One process writes at a time: a writer holds `write.lock` in the folder for its life.
- Memory is bounded by one room: nothing reads or writes more than one file at a time.
- A file of another schema version, or one the engine cannot read, is `GraphDamaged`: the
  caller deletes it and derives that room again (the graph is derived from the ledger).
- Nothing here reads the clock.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import operator
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import IO, NamedTuple

from vyre.errors import GraphBusy, GraphDamaged, GraphError
from vyre.graph.engine import Engine, buffer_pool, engine_files, engine_name, remove
from vyre.graph.schema import SCHEMA, SCHEMA_VERSION


class _NoPandas:
    """An import finder that says pandas (and numpy, with `numpy`) is not installed."""

    def __init__(self, numpy: bool = False) -> None:
        self.unseen = ("pandas", "numpy") if numpy else ("pandas",)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in self.unseen:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@functools.cache
def _arrow() -> ModuleType:
    """pyarrow, imported when a file is first written or read (0.3 s with numpy: an ingest
    that finds nothing new needs neither).

    pyarrow looks for pandas the first time it converts a Python list (to recognise pandas
    objects) and imports it when it is installed: 0.4-0.5 s in every process that writes a
    graph file, for objects Vyre never gives it. Its first look is made here with pandas out
    of reach, so it goes on without. Nothing is lost: `to_pandas()` and `from_pandas()` still
    import pandas when called.

    In the `vyre` command's own process (`vyre.own_process`) pyarrow is imported with numpy
    out of reach too: pyarrow goes on without it, and its import costs 0.05 s instead of
    0.14. Vyre converts only Python lists and never to numpy or pandas; in that process
    nothing else does (pyarrow loaded so cannot convert to them later: `to_pandas()`
    crashes), so a library caller's process keeps numpy."""
    import vyre

    lean = vyre.own_process and "numpy" not in sys.modules and "pyarrow" not in sys.modules
    if "pandas" in sys.modules and not lean:
        import pyarrow

        return pyarrow
    finder = _NoPandas(numpy=lean)
    sys.meta_path.insert(0, finder)
    try:
        import pyarrow

        pyarrow.array([""])
    finally:
        sys.meta_path.remove(finder)
    return pyarrow


MAIN = "*"
LOCK_NAME = "write.lock"
_ROW_BYTES = 400  # about what one fact or evidence row takes in a file, for sizing the pool
_ONE_COMMIT_BYTES = 20_000 * _ROW_BYTES  # a file under this may be written in one transaction


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
_EVIDENCE_RETURN = "e.fact, e.room, s.id, e.session, e.seq, e.ts, e.rule, e.quote"


class RoomState(NamedTuple):
    """What a room's file holds: the digest it was derived from and its row counts."""

    digest: str
    facts: int
    evidence: int


@dataclass
class MainInput:
    """What the main graph reads from one room, kept beside the room's file (`keep_input`):
    the room's identity, works_at and address rows (with their evidence), the orgs it was
    taught, and how many of its sessions name each org (`shares`: org, '' for any entity ->
    (sessions in this room only, ids of sessions it shares with other rooms), so the main
    graph counts each session once)."""

    room: str
    digest: str
    facts: list[FactRow] = field(default_factory=list)
    evidence: list[EvidenceRow] = field(default_factory=list)
    shares: dict[str, tuple[int, frozenset[str]]] = field(default_factory=dict)


class GraphStore:
    """The graph folder of one home and engine. `write=False` opens it for reading only."""

    def __init__(
        self,
        folder: Path,
        engine: str | None = None,
        *,
        write: bool = True,
        pool_mib: int | None = None,
        keep_written: int = 0,
    ):
        """`keep_written`: keep the rows of the files this store writes, up to about this
        many rows in all (the rooms written longest ago let go first), so the next write of
        such a room changes a copy of its file by what changed (`replace_room`)."""
        self.folder = Path(folder)
        self.name = engine or engine_name()
        self.pool_mib = pool_mib
        self._keep_written = keep_written
        self._written: dict[str, _Written] = {}  # room -> its file as written, oldest first
        self._written_lock = threading.Lock()  # the daemon writes rooms from two threads
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._inputs: dict[str, MainInput] | None = None
        self._lock = None
        if write:
            self._lock = _take_lock(self.folder / LOCK_NAME)
            for leftover in self.folder.glob("*.tmp-*"):  # a write killed halfway
                leftover.unlink(missing_ok=True)

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    # -- files ------------------------------------------------------------------------------

    def path(self, room: str) -> Path:
        """`main.<engine>` for the main graph, `room.<slug>.<engine>` for a room."""
        return self.folder / (f"main.{self.name}" if room == MAIN else f"room.{room}.{self.name}")

    def rooms(self) -> list[str]:
        """The rooms that have a file."""
        out = []
        for p in self.folder.glob(f"*.{self.name}"):
            if p.name == f"main.{self.name}":
                out.append(MAIN)
            elif p.name.startswith("room."):
                out.append(p.name[len("room.") : -len(self.name) - 1])
        return sorted(out)

    def stamp(self, room: str) -> str | None:
        """The file's identity (size and modification time, to the nanosecond): each write
        makes a new file, so comparing it with the ledger's record needs no look inside, and
        a home copied with its times (a backup, a move) still matches."""
        try:
            st = self.path(room).stat()
        except FileNotFoundError:
            return None
        return f"{st.st_size}:{st.st_mtime_ns}"

    # -- writes -----------------------------------------------------------------------------

    def replace_room(self, rows: RoomRows) -> str:
        """Write a room's file anew; returns its stamp. A store that keeps what it wrote
        (`keep_written`, the daemon's) and finds the room's file as it left it changes a copy
        of that file by what changed instead, when that is little (`_edited`): a new line of
        a room of 5,000 facts costs its few rows, not the room's."""
        self._writable()
        one_kind_per_entity(rows.facts)
        held = self._take_written(rows.room)
        now = _Written.of(rows) if self._keep_written else None
        temp = None
        if held is not None and now is not None and held.stamp == self.stamp(rows.room):
            temp = self._edited(held, now, rows)
        edits = held.edits + 1 if temp is not None and held is not None else 0
        if temp is None:
            temp = self._whole(rows)
        stamp = self.put_in_place(rows.room, temp)
        if now is not None:
            now.stamp, now.edits = stamp, edits
            now.whole = held.whole if edits and held is not None else _size(stamp)
            self._keep(rows.room, now)
        return stamp

    def write_temp(self, rows: RoomRows, *, one_commit: bool = False) -> Path:
        """A room's file written whole under a temporary name of this process (a worker
        forked from the writer may write it); `put_in_place` makes it the room's file.

        `one_commit`: a small room's schema and rows in one transaction, for a process that
        ends soon after (a derive's worker). Each statement on its own is a commit, and a
        commit (its WAL records, their sync) costs more than a small statement: a room of
        157 facts written in 15.4 ms of CPU instead of 19.2. But a process keeps ~5 MiB more
        after it (a room of 7,000 rows: 107 -> 112 MiB of RSS after `malloc_trim`), which
        the daemon would carry, and every table's rows wait uncommitted at once (a room of
        550,000 rows peaked at 902 MiB instead of 805): a big room (`_ONE_COMMIT_BYTES`)
        always commits table by table."""
        self._writable()
        one_kind_per_entity(rows.facts)
        return self._whole(rows, one_commit)

    def _whole(self, rows: RoomRows, one_commit: bool = False) -> Path:
        def fill(engine: Engine) -> None:
            head = {_VERSION: SCHEMA_VERSION, _digest_key(rows.room): rows.digest}
            _load_rows(engine, rows.facts, rows.evidence, head)

        size = (len(rows.facts) + len(rows.evidence)) * _ROW_BYTES
        return self._write(rows.room, fill, size, one_commit and size < _ONE_COMMIT_BYTES)

    def warm(self) -> None:
        """Load what writing a file needs (the engine, pyarrow), before workers are forked
        to write files: each then starts with it loaded."""
        _arrow()
        Engine.load(self.name)

    def temp_path(self, room: str, pid: int) -> Path:
        """Where process `pid` writes a room's file before it is put in place."""
        live = self.path(room)
        return live.with_name(f"{live.name}.tmp-{pid}")

    def put_in_place(self, room: str, temp: Path) -> str:
        """A file `write_temp` wrote, renamed over the room's; returns its stamp."""
        self._writable()
        self._take_written(room)  # another file now: what was kept of the old one goes
        os.replace(temp, self.path(room))
        _fsync(self.folder)
        return self.stamp(room) or ""

    def _take_written(self, room: str) -> _Written | None:
        with self._written_lock:
            return self._written.pop(room, None)

    def _keep(self, room: str, written: _Written) -> None:
        with self._written_lock:
            self._written[room] = written
            held = sum(w.rows for w in self._written.values())
            while held > self._keep_written and len(self._written) > 1:
                held -= self._written.pop(next(iter(self._written))).rows
            if held > self._keep_written:  # a room bigger than the bound on its own
                self._written.clear()

    def _edited(self, held: _Written, now: _Written, rows: RoomRows) -> Path | None:
        """A copy of the room's file (as `held` says it holds) changed to hold `rows`, under
        a temporary name; None when that is not the cheaper way or cannot be done: a change
        of more than `_EDIT_SHARE` of the rows, an entity gone (an engine deletes no node of
        a table whose edges are stored one way) or a file grown well past its size when last
        written whole (deleted rows leave room behind)."""
        if held.entities.keys() - now.entities.keys():
            return None
        if _size(held.stamp) > 2 * held.whole + (1 << 20):
            return None
        facts = [f for fid, f in now.facts.items() if not _same_fact(held.facts.get(fid), f)]
        gone = [fid for fid in held.facts if fid not in now.facts]
        # a fact's evidence rows are written again whole: when they changed, or when the
        # fact came or went (an evidence row carries its fact's relation, '' without one)
        moved = {f.id for f in facts if f.id not in held.facts} | set(gone)
        evidence = {
            fid
            for fid, said in now.evidence.items()
            if not _same_rows(held.evidence.get(fid), said)
        }
        evidence.update(fid for fid in held.evidence if fid not in now.evidence or fid in moved)
        kinds = {eid: kind for eid, kind in now.entities.items() if held.entities.get(eid) != kind}
        changed = len(facts) + len(gone) + len(kinds) + len(evidence)
        if changed > _EDIT_SHARE * max(1, len(now.facts) + len(now.evidence)):
            return None
        live = self.path(rows.room)
        temp = self.temp_path(rows.room, os.getpid())
        remove(temp)
        shutil.copyfile(live, temp)
        new_ids = [eid for eid in kinds if eid not in held.entities]
        known = [(eid, kind) for eid, kind in kinds.items() if eid in held.entities]
        rel_of = {f.id: f.rel for f in rows.facts}
        said = [e for fid in sorted(evidence) for e in now.evidence.get(fid, ())]
        dropped = sorted({f.id for f in facts if f.id in held.facts} | set(gone))

        def edit(engine: Engine) -> None:
            if dropped:
                engine.execute(
                    "MATCH ()-[f:FACT]->() WHERE f.id IN $ids DELETE f", {"ids": dropped}
                )
            if evidence:
                engine.execute(
                    "MATCH ()-[e:EVIDENCE]->() WHERE e.fact IN $ids DELETE e",
                    {"ids": sorted(evidence)},
                )
            if known:
                engine.execute(
                    "UNWIND $rows AS r MATCH (m:Entity {id: r.id}) SET m.kind = r.kind",
                    {"rows": [{"id": eid, "kind": kind} for eid, kind in known]},
                )
            _load_columns(engine, new_ids, [kinds[eid] for eid in new_ids], facts, said, rel_of)

        return self._filled(temp, live.stat().st_size, edit)

    def keep_input(self, given: MainInput) -> None:
        """Keep what the main graph reads from a room in `input.<room>.json` beside the
        room's file (renamed into place whole). It is a cache: read back only for the digest
        it was derived from, and any that is missing, old or unreadable is taken from the
        room's file instead."""
        self._writable()
        path = self._input_path(given.room)
        temp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        temp.write_text(json.dumps(_input_json(given)))
        os.replace(temp, path)
        if self._inputs is not None:  # else read with the others when first asked for
            self._inputs[given.room] = given

    def _input_path(self, room: str) -> Path:
        return self.folder / f"input.{room}.json"

    def drop_room(self, room: str) -> None:
        self._writable()
        self._take_written(room)
        remove(self.path(room))
        self._input_path(room).unlink(missing_ok=True)
        if self._inputs is not None:
            self._inputs.pop(room, None)

    def discard(self, room: str) -> None:
        """Delete a room's file that is not what was written (it is derived again)."""
        self._take_written(room)
        remove(self.path(room))

    def _write(
        self, room: str, fill: Callable[[Engine], None], size: int, one_commit: bool = False
    ) -> Path:
        """The room's file written whole (and flushed to disk) under a temporary name."""
        temp = self.temp_path(room, os.getpid())
        remove(temp)

        def schema_then_fill(engine: Engine) -> None:
            for statement in SCHEMA:
                engine.execute(statement)
            fill(engine)

        return self._filled(temp, size, schema_then_fill, one_commit)

    def _filled(
        self, temp: Path, size: int, fill: Callable[[Engine], None], one_commit: bool = False
    ) -> Path:
        """`temp` (a new file or a copy) opened, filled, closed and flushed to disk; removed
        if filling it fails."""
        engine = Engine(temp, self.name, pool=buffer_pool(size, self.pool_mib))
        try:
            with engine.transaction() if one_commit else contextlib.nullcontext():
                fill(engine)
        except BaseException:
            engine.close()
            remove(temp)
            raise
        engine.close()  # checkpoints: the file is whole from here
        for extra in engine_files(temp):
            if extra != temp:
                extra.unlink()
        _fsync(temp)
        return temp

    def _writable(self) -> None:
        if self._lock is None:
            raise GraphError("this memory graph was opened for reading only")

    # -- reads ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def reading(self, room: str) -> Iterator[Engine | None]:
        """A room's file opened read-only (None when the room has no file)."""
        path = self.path(room)
        if not path.exists():
            yield None
            return
        engine = Engine(
            path, self.name, pool=buffer_pool(path.stat().st_size, self.pool_mib), read_only=True
        )
        try:
            rows = engine.execute("MATCH (m:Entity {id: $id}) RETURN m.kind", {"id": _VERSION})
            version = rows[0][0] if rows else None
            if version != SCHEMA_VERSION:
                raise GraphDamaged(
                    f"the memory graph file {path} was written by another version of Vyre "
                    f"(schema {version or 'before 6'}, this one reads {SCHEMA_VERSION})"
                )
            yield engine
        except GraphError as exc:
            if isinstance(exc, GraphDamaged) or "failed" not in str(exc):
                raise
            raise GraphDamaged(f"the memory graph file {path} cannot be read: {exc}") from exc
        finally:
            engine.close()

    def read(self, room: str) -> RoomRows | None:
        """A room's rows and digest, as its file holds them (None when it has no file), in
        the order of their place in the file: as written, unless a bulk load grouped a
        subject's edges (without the order, each engine's follows its plan's joins)."""
        with self.reading(room) as engine:
            if engine is None:
                return None
            digest = _digest(engine, room)
            where, params = _where("f", room, None, True)
            match = f"MATCH (s:Entity)-[f:FACT]->(o:Entity){where}"
            facts = _rows(_select(engine, match, "f", _FACT_RETURN, params), FactRow)
            where, params = _where("e", room, None, True)
            match = f"MATCH (s:Entity)-[e:EVIDENCE]->(:Entity){where}"
            evidence = _rows(_select(engine, match, "e", _EVIDENCE_RETURN, params), EvidenceRow)
        return RoomRows(room, digest, facts, evidence)

    def state(self, room: str) -> RoomState | None:
        """A room's digest and row counts, as its file holds them."""
        with self.reading(room) as engine:
            if engine is None:
                return None
            return _state(engine, room)

    def states(self) -> dict[str, RoomState]:
        """Every room's state (opens every file: for `vyre doctor`, not for every start)."""
        return {room: state for room in self.rooms() if (state := self.state(room)) is not None}

    def main_inputs(self) -> dict[str, MainInput]:
        """What the main graph reads from each room, by room, as kept beside the rooms'
        files (`keep_input`): read once, then kept here and updated as rooms are derived.
        The caller checks each one's digest against its room's."""
        if self._inputs is None:
            self._inputs = {}
            for path in sorted(self.folder.glob("input.*.json")):
                try:
                    held = _input_from(json.loads(path.read_text()))
                except (OSError, ValueError, KeyError, TypeError):
                    continue  # a cache: the room's file has the same rows
                if path.name == f"input.{held.room}.json":
                    self._inputs[held.room] = held
        return self._inputs

    @property
    def inputs_read(self) -> bool:
        """Whether `main_inputs` has read the kept inputs yet (a derive that leaves the main
        graph for later need not read them)."""
        return self._inputs is not None

    def digests(self) -> dict[str, str]:
        """Each room's digest, as its file holds it."""
        return {room: state.digest for room, state in self.states().items()}

    def facts(
        self, room: str | None = None, *, rels: Iterable[str] | None = None, mentions: bool = True
    ) -> list[FactRow]:
        """Fact rows, of one room or of every room; only relations `rels` when given;
        without the (many) mentioned_in rows when `mentions` is False."""
        match = "MATCH (s:Entity)-[f:FACT]->(o:Entity)"
        return self._each_room(room, "f", match, _FACT_RETURN, FactRow, rels, mentions)

    def evidence(
        self, room: str | None = None, *, rels: Iterable[str] | None = None, mentions: bool = True
    ) -> list[EvidenceRow]:
        match = "MATCH (s:Entity)-[e:EVIDENCE]->(:Entity)"
        return self._each_room(room, "e", match, _EVIDENCE_RETURN, EvidenceRow, rels, mentions)

    def _each_room(
        self,
        room: str | None,
        alias: str,
        match: str,
        returned: str,
        model: type,
        rels: Iterable[str] | None,
        mentions: bool,
    ) -> list:
        """One query's rows from one room's file, or from every room's in turn."""
        out: list = []
        for name in [room] if room is not None else self.rooms():
            with self.reading(name) as engine:
                if engine is None:
                    continue
                where, params = _where(alias, name, rels, mentions)
                out += _rows(_select(engine, match + where, alias, returned, params), model)
        return out

    def dump(self) -> list[tuple]:
        """Every row of every room's file, sorted: for tests that compare whole graphs."""
        out: list[tuple] = []
        for room in self.rooms():
            with self.reading(room) as engine:
                assert engine is not None
                for key, kind in engine.execute("MATCH (e:Entity) RETURN e.id, e.kind"):
                    if key.startswith(_DIGEST):
                        out.append(("room", room, key[len(_DIGEST) :], kind))
                    elif key != _VERSION:
                        out.append(("entity", room, key, kind))
                out += [
                    ("fact", room, *r)
                    for r in engine.execute(
                        f"MATCH (s:Entity)-[f:FACT]->(o:Entity) RETURN {_FACT_RETURN}"
                    )
                ]
                out += [
                    ("evidence", room, *r)
                    for r in engine.execute(
                        f"MATCH (s:Entity)-[e:EVIDENCE]->(:Entity) RETURN {_EVIDENCE_RETURN}"
                    )
                ]
        return sorted(out, key=repr)


# A change of more than this share of a file's rows is written whole: bulk-loading a file
# costs little more than changing a big part of a copy.
_EDIT_SHARE = 0.25
# what a fact edge holds (its kinds are its ends' Entity rows)
_fact_values = operator.attrgetter(
    "id", "room", "subject", "subject_label", "rel", "object", "object_label", "confidence",
    "source", "valid_from", "valid_to", "seen", "sessions", "rules", "status",
)  # fmt: skip


def _same_fact(old: FactRow | None, new: FactRow) -> bool:
    return old is new or (old is not None and _fact_values(old) == _fact_values(new))


def _same_rows(old: list[EvidenceRow] | None, new: list[EvidenceRow]) -> bool:
    return (
        old is not None
        and len(old) == len(new)
        and all(a is b or a == b for a, b in zip(old, new, strict=True))
    )


def _size(stamp: str) -> int:
    return int(stamp.split(":", 1)[0]) if stamp else 0


@dataclass
class _Written:
    """A file as the store wrote it: its rows by fact (the objects written: a derive hands
    unchanged rows out again, so most compare by identity), its Entity rows, its stamp, how
    many times a copy of it was changed since it was last written whole, and that size."""

    facts: dict[str, FactRow]
    evidence: dict[str, list[EvidenceRow]]  # fact id -> its rows
    entities: dict[str, str]
    rows: int
    stamp: str = ""
    edits: int = 0
    whole: int = 0

    @classmethod
    def of(cls, rows: RoomRows) -> _Written:
        evidence: dict[str, list[EvidenceRow]] = {}
        for e in rows.evidence:
            held = evidence.get(e.fact)
            if held is None:
                evidence[e.fact] = [e]
            else:
                held.append(e)
        head = {_VERSION: SCHEMA_VERSION, _digest_key(rows.room): rows.digest}
        return cls(
            {f.id: f for f in rows.facts},
            evidence,
            _entities(rows.facts, rows.evidence, head),
            len(rows.facts) + len(rows.evidence),
        )


def _take_lock(path: Path) -> IO[str]:
    """A POSIX lock, as the engines take on their files: it dies with its process, and it is
    the process's (a second store in the same process, as in tests, is not refused)."""
    handle = open(path, "a+")  # noqa: SIM115 (held for the writer's life)
    try:
        fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise GraphBusy(
            f"the memory graph in {path.parent} is in use by another process "
            "(is `vyre daemon` running?)"
        ) from None
    os.chmod(path, 0o600)
    return handle


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# The file's own values are Entity rows (their kind is the value) under ids no entity has
# (an entity's id starts with its kind, a word): the schema's version, and the digest a room's
# file was derived from, under its room.
_VERSION = "#schema"
_DIGEST = "#room:"


def _digest_key(room: str) -> str:
    return _DIGEST + room


def _digest(engine: Engine, room: str) -> str:
    """The digest of `room`'s inputs as the file holds it ("" in another room's file)."""
    rows = engine.execute("MATCH (m:Entity {id: $id}) RETURN m.kind", {"id": _digest_key(room)})
    return rows[0][0] if rows else ""


def _state(engine: Engine, room: str) -> RoomState:
    params = {"room": room}
    digest = _digest(engine, room)
    facts = engine.execute("MATCH ()-[f:FACT]->() WHERE f.room = $room RETURN count(*)", params)
    evidence = engine.execute(
        "MATCH ()-[e:EVIDENCE]->() WHERE e.room = $room RETURN count(*)", params
    )
    return RoomState(digest, int(facts[0][0]), int(evidence[0][0]))


def one_kind_per_entity(facts: list[FactRow]) -> None:
    """An entity node has one kind: give every row the kind its entity is written with (the
    first it is seen with), so rows held in memory equal the rows read back from the file."""
    kinds: dict[str, str] = {}
    for f in facts:
        kinds.setdefault(f.subject, f.subject_kind)
        kinds.setdefault(f.object, f.object_kind)
    for f in facts:
        f.subject_kind, f.object_kind = kinds[f.subject], kinds[f.object]


def _entities(facts: list[FactRow], evidence: list[EvidenceRow], head: dict[str, str]) -> dict:
    """A file's Entity rows (id -> kind): its own values (`head`: ids no entity has), then
    every fact's ends and every evidence row's subject, each with the first kind it has."""
    entities = dict(head)
    for f in facts:
        entities.setdefault(f.subject, f.subject_kind)
        entities.setdefault(f.object, f.object_kind)
    for e in evidence:
        entities.setdefault(e.subject, "")  # evidence of a fact corrections took away
    return entities


def _load_rows(
    engine: Engine, facts: list[FactRow], evidence: list[EvidenceRow], head: dict[str, str]
) -> None:
    """The rows, after the file's own values (`head`: Entity rows of ids no entity has)."""
    entities = _entities(facts, evidence, head)
    rel_of = {f.id: f.rel for f in facts}
    _load_columns(engine, list(entities), list(entities.values()), facts, evidence, rel_of)


def _load_columns(
    engine: Engine,
    ids: list[str],
    kinds: list[str],
    facts: list[FactRow],
    evidence: list[EvidenceRow],
    rel_of: dict[str, str],
) -> None:
    """Entity rows (`ids`, `kinds`), then fact and evidence edges between them (an evidence
    row carries its fact's relation: `rel_of`)."""
    _put(engine, "Entity", {"id": ids, "kind": kinds})
    _put(
        engine,
        "FACT",
        {
            "from": [f.subject for f in facts],
            "to": [f.object for f in facts],
            "id": [f.id for f in facts],
            "room": [f.room for f in facts],
            "rel": [f.rel for f in facts],
            "subject_label": [f.subject_label for f in facts],
            "object_label": [f.object_label for f in facts],
            "confidence": [f.confidence for f in facts],
            "source": [f.source for f in facts],
            "valid_from": [f.valid_from for f in facts],
            "valid_to": [f.valid_to for f in facts],
            "seen": [f.seen for f in facts],
            "sessions": [f.sessions for f in facts],
            "rules": [f.rules for f in facts],
            "status": [f.status for f in facts],
        },
        {
            "confidence": "float",
            "valid_from": "ts",
            "valid_to": "ts",
            "seen": "ts",
            "sessions": "int",
        },
    )
    _put(
        engine,
        "EVIDENCE",
        {
            "from": [e.subject for e in evidence],
            "to": [e.subject for e in evidence],  # a loop: the turn is the edge's own
            "fact": [e.fact for e in evidence],
            "room": [e.room for e in evidence],
            "rel": [rel_of.get(e.fact, "") for e in evidence],
            "rule": [e.rule for e in evidence],
            "quote": [e.quote for e in evidence],
            "session": [e.session for e in evidence],
            "seq": [e.seq for e in evidence],
            "ts": [e.ts for e in evidence],
        },
        {"seq": "int", "ts": "ts"},
    )


# A COPY costs about 10 ms of CPU to set up however few rows it loads, and a file takes four:
# most of what writing a small room cost. Rows created from one parameter cost about 0.02 ms
# each for a node and 0.13 ms for an edge (which looks up both ends), so a table with fewer
# rows than these is created, a bigger one copied (measured on both engines). An evidence
# edge is a loop, so its row looks up one end: bench/graphfile.py, 6 alternating rounds,
# the smallest room written in 23.3 -> 22.6 ms of CPU.
_CREATE_NODES_UNDER = 500
_CREATE_EDGES_UNDER = 100
_ENDS = {"FACT": ("Entity", "Entity"), "EVIDENCE": ("Entity", "Entity")}  # as in SCHEMA
_CAST = {"ts": "TIMESTAMP", "int": "INT64", "float": "DOUBLE"}


def _put(
    engine: Engine, table: str, columns: dict[str, list], types: dict[str, str] | None = None
) -> None:
    """Load a table's rows, given by column (an edge table's first two are its ends' ids);
    `types` names the columns that are not strings: ts, int or float."""
    types = types or {}
    names = list(columns)
    n = len(columns[names[0]])
    if n == 0:
        return
    ends = _ENDS.get(table)
    if n >= (_CREATE_EDGES_UNDER if ends else _CREATE_NODES_UNDER):
        pa = _arrow()
        kinds = {"ts": pa.timestamp("us"), "int": pa.int64(), "float": pa.float64()}
        engine.copy(
            table,
            pa.table(
                {
                    name: pa.array(values, kinds[types[name]]) if name in types else values
                    for name, values in columns.items()
                }
            ),
        )
        return
    # the parameter's rows are keyed c0, c1, ... (`from` and `to` are words of the language)
    given = [f"r.c{i}" for i in range(len(names))]
    for i, name in enumerate(names):
        if name in types:  # a column whose values are all None would be taken for strings
            given[i] = f"CAST({given[i]} AS {_CAST[types[name]]})"
    keys = [f"c{i}" for i in range(len(names))]
    rows = [dict(zip(keys, values, strict=True)) for values in zip(*columns.values(), strict=True)]
    if ends:
        props = ", ".join(f"{name}: {g}" for name, g in zip(names[2:], given[2:], strict=True))
        if columns["from"] == columns["to"]:  # loops (evidence): one look-up per row, not two
            match, end = f"MATCH (a:{ends[0]} {{id: r.c0}})", "a"
        else:
            match, end = f"MATCH (a:{ends[0]} {{id: r.c0}}), (b:{ends[1]} {{id: r.c1}})", "b"
        query = f"UNWIND $rows AS r {match} CREATE (a)-[:{table} {{{props}}}]->({end})"
    else:
        props = ", ".join(f"{name}: {g}" for name, g in zip(names, given, strict=True))
        query = f"UNWIND $rows AS r CREATE (:{table} {{{props}}})"
    engine.execute(query, {"rows": rows})


def _where(
    var: str, room: str | None, rels: Iterable[str] | None, mentions: bool
) -> tuple[str, dict]:
    clauses: list[str] = []
    params: dict[str, str | list[str]] = {}
    if room is not None:
        clauses.append(f"{var}.room = $room")
        params["room"] = room
    if rels is not None:
        clauses.append(f"{var}.rel IN $rels")
        params["rels"] = sorted(rels)
    if not mentions:
        clauses.append(f"{var}.rel <> 'mentioned_in'")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


# A read of fewer rows than this is taken as Python rows while pyarrow is not loaded: as fast
# as Arrow there (measured on both engines up to 5,000 rows; Arrow is 1.6x faster at 100,000),
# and a process that reads only small rooms (a CLI command, a hook without the daemon, the
# MCP server) then never imports pyarrow and numpy (0.15-0.25 s of CPU).
_PYTHON_ROWS_UNDER = 5000


def _select(engine: Engine, match: str, alias: str, returned: str, params: dict) -> list[Sequence]:
    """A query's values, column by column, in the order of the rows' place in the file (the
    engine's own order follows its plan's joins): as Python rows for a small result while
    pyarrow is not loaded, else through Arrow."""
    query = f"{match} RETURN {returned} ORDER BY offset(ID({alias}))"
    if "pyarrow" not in sys.modules:
        count = engine.execute(f"{match} RETURN count(*)", params)[0][0]
        if count < _PYTHON_ROWS_UNDER:
            return list(zip(*engine.execute(query, params), strict=True))  # no rows: no columns
    _arrow()  # pandas kept out before pyarrow converts anything
    table = engine.arrow(query, params)
    return [table.column(i).to_pylist() for i in range(table.num_columns)]


def _rows(columns: list[Sequence], cls: type) -> list:
    """Rows from a query's columns, equal values of a column being one object: a room's rows
    repeat their room, kinds, relations, rules, sessions and times thousands of times, and
    the daemon holds every room's rows (at 30,000 sessions 519 -> 319 MiB for its views)."""
    shared = []
    for column in columns:
        one: dict = {}
        shared.append([one.setdefault(v, v) for v in column])
    return [cls(*values) for values in zip(*shared, strict=True)]


def _input_json(given: MainInput) -> dict:
    def when(value: datetime | None) -> str | None:
        return value.isoformat() if value else None

    return {
        "room": given.room,
        "digest": given.digest,
        "facts": [
            {
                **vars(f),
                "valid_from": when(f.valid_from),
                "valid_to": when(f.valid_to),
                "seen": when(f.seen),
            }
            for f in given.facts
        ],
        "evidence": [{**vars(e), "ts": when(e.ts)} for e in given.evidence],
        "shares": {org: [n, sorted(ids)] for org, (n, ids) in given.shares.items()},
    }


def _input_from(data: dict) -> MainInput:
    def when(value: str | None) -> datetime | None:
        return datetime.fromisoformat(value) if value else None

    return MainInput(
        room=data["room"],
        digest=data["digest"],
        facts=[
            FactRow(
                **{
                    **f,
                    "valid_from": when(f["valid_from"]),
                    "valid_to": when(f["valid_to"]),
                    "seen": when(f["seen"]),
                }
            )
            for f in data["facts"]
        ],
        evidence=[EvidenceRow(**{**e, "ts": when(e["ts"])}) for e in data["evidence"]],
        shares={org: (int(n), frozenset(ids)) for org, (n, ids) in data["shares"].items()},
    )
