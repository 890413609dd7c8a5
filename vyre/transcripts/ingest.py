"""Read Claude Code transcripts into the ledger, incrementally by byte offset per file.

What must stay true:
- A file is read from where the last run stopped; only whole lines are taken. A last line
  with no newline is taken only if it parses (a writer may still be appending it).
- A file that shrank, or whose first bytes changed, is a rewrite: its session is read
  again whole and its turns replaced, in the same transaction.
- Each file is one transaction: turns, mentions and the new offset land together, so a
  crash or a vanished file never loses or duplicates a turn.
- `seq` is a record's 0-based line index in its file. The session id is the file's stem.
- Every line is read or skipped on its own (`lines.py`: the path from bytes to turns is
  total): a bad line is counted with its reason and never stops its file, its batch or the
  files after it. Only a regular file is opened (a FIFO named `*.jsonl` would block).
- A scan costs a stat per unchanged file: one that is the file read before (device,
  inode), read to its end, with the size and modification time it was left with (a time
  older than `SETTLE_NS` when recorded) is not opened. Any other file is opened and checked.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from vyre.errors import MissingRoot
from vyre.ledger import Ledger
from vyre.reports import IngestReport
from vyre.transcripts.classify import Draft
from vyre.transcripts.lines import Parsed, Read, Repaired, Unread, parse, read
from vyre.transcripts.workers import Readers

HEAD_BYTES = 256
TAIL_BYTES = 256  # fingerprinted just before the offset: a rewrite that kept the head shows
BATCH_FILES = 200
BATCH_BYTES = 32 << 20
SETTLE_NS = 2_000_000_000

# extract(draft, session_id) -> mention rows (rule, subject, subject_kind, rel, object,
# object_kind, quote); the ingest adds session, seq and ts.
Extractor = Callable[[Draft], list[tuple]]


def transcript_files(root: Path) -> list[Path]:
    """Every transcript under root: sessions, `agent-*.jsonl` beside them, and subagents."""
    return [Path(p) for p in _listing(root)]


def transcript_count(root: Path) -> int:
    """How many transcripts `ingest(root)` looks at (a progress bar's length), counted as it
    lists them: names, not a `Path` per file (on 30,000 files the Paths and their real
    paths cost more CPU than the rest of a one-off ingest after one new session)."""
    return len(_listing(Path(os.path.realpath(Path(root).expanduser()))))


def _listing(root: Path) -> list[str]:
    """The files `root.rglob("*.jsonl")` finds (symlinked folders are not entered), in its
    order, as strings: listed from the folder entries' types, not a stat per file."""
    found: list[str] = []
    folders = [str(root)]
    while folders:
        try:
            with os.scandir(folders.pop()) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir() and not entry.is_symlink():
                    folders.append(entry.path)
                elif entry.name.endswith(".jsonl") and entry.is_file():
                    found.append(entry.path)
            except OSError:
                continue
    return sorted(found, key=_path_order)


def _path_order(path: str) -> str:
    """Path order (part by part) as one string: the separator made the lowest character."""
    return path.replace(os.sep, "\0")


def session_key(path: Path) -> tuple[str, str | None]:
    """(session id, parent session) from a transcript's path."""
    if path.parent.name == "subagents":
        return path.stem, path.parent.parent.name
    return path.stem, None


def ingest(
    ledger: Ledger,
    root: Path,
    extract: Extractor,
    *,
    progress: Callable[[int], object] | None = None,
    paths: list[Path] | None = None,
    workers: int = 1,
    warm: Callable[[], object] | None = None,
    each_batch: Callable[[sqlite3.Connection], object] | None = None,
) -> IngestReport:
    """Read new lines under root (or only `paths`, when a watcher knows what changed). With
    `workers` > 1, a big batch's new files are read by that many processes ahead of this one,
    which writes (`workers.py`); `warm` loads the rules before they are forked. `each_batch`
    runs in each batch's transaction once its turns are stored (while the workers read on)."""
    given = Path(root).expanduser()
    if not given.is_dir():
        raise MissingRoot(f"no Claude Code projects folder at {given}")
    # Real paths: a relative root or a symlinked home names the files it named before.
    real = Path(os.path.realpath(given))
    if paths is None:
        files = _listing(real)
    else:
        files = sorted({str(_real_path(p, given, real)) for p in paths}, key=_path_order)
    report = IngestReport()
    report.files = len(files)
    pending = deque(_changed(ledger, files))
    if progress and len(pending) < len(files):
        progress(len(files) - len(pending))
    jobs = _new_files(ledger, pending) if workers > 1 and len(pending) > 1 else []
    with Readers(jobs, workers, extract, warm) as readers:
        report.workers = readers.workers
        while pending:
            # Files land in batches: one transaction per batch keeps commits cheap, and a
            # crash rolls a whole batch back (rows and offsets together), so nothing is
            # half-read. Each file's state is read inside the transaction: another process
            # may have read the same file a moment ago.
            done, size = 0, 0
            with ledger.transaction() as db:
                known = _states(db, list(islice(pending, BATCH_FILES)))
                while pending and done < BATCH_FILES and size < BATCH_BYTES:
                    path = pending.popleft()
                    ready = readers.take(path)
                    size += _ingest_file(
                        db, path, known.get(str(path)), real, extract, report, ready
                    )
                    done += 1
                ledger.index_turns(db)
                if each_batch is not None:
                    each_batch(db)
            if progress:
                progress(done)
    return report


def _new_files(ledger: Ledger, paths: Iterable[Path]) -> list[tuple[str, int]]:
    """(path, size) of the files the ledger has no row for: those a worker may read whole."""
    keys = [str(p) for p in paths]
    known: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        known.update(
            row[0]
            for row in ledger.db.execute(
                f"SELECT path FROM files WHERE path IN ({','.join('?' * len(chunk))})", chunk
            )
        )
    out = []
    for key in keys:
        if key not in known:
            try:
                out.append((key, os.stat(key).st_size))
            except OSError:
                continue
    return out


def _real_path(path: Path, given: Path, real: Path) -> Path:
    try:
        return real / Path(path).relative_to(given)
    except ValueError:
        return Path(os.path.realpath(path))


@dataclass(slots=True)
class _State:
    """A `files` row: how far one transcript file has been read."""

    path: str
    session: str
    offset: int = 0
    lines: int = 0
    head: str = ""
    head_len: int = 0
    open_end: int = 0
    dev: int | None = None
    ino: int | None = None
    tail: str = ""
    tail_len: int = 0
    mtime_ns: int | None = None  # when it was read to `offset` (None: not known yet)


_STATE = (
    "path, session, offset, lines, head, head_len, open_end, dev, ino, tail, tail_len, mtime_ns"
)
_ALIAS = _State("", "")  # this path names a file already read under another path


def _ingest_file(
    db: sqlite3.Connection,
    path: Path,
    known: _State | None,
    root: Path,
    extract: Extractor,
    report: IngestReport,
    ready: Prepared | None = None,
) -> int:
    """Read one file's new lines into the open transaction (or store what a worker read of
    it, `ready`, when it is what the writer would read); returns the bytes read."""
    key = str(path)
    try:
        with _open_regular(path) as f:
            st = os.fstat(f.fileno())
            size = st.st_size
            head = f.read(HEAD_BYTES)
            state = known or _same_file(db, path, root, st, head)
            if state is _ALIAS:
                report.aliases += 1
                return 0
            rewrite = False
            if state is None:  # a new file: its row is written whole once it is read
                state = _State(key, _new_session_id(db, path), dev=st.st_dev, ino=st.st_ino)
            else:
                if state.path != key:  # the same file, moved or reached another way
                    db.execute("UPDATE files SET path = ? WHERE path = ?", (key, state.path))
                    state.path = key
                rewrite = size < state.offset or _digest(head[: state.head_len]) != state.head
                if not rewrite and state.tail_len:
                    before = os.pread(f.fileno(), state.tail_len, state.offset - state.tail_len)
                    rewrite = _digest(before) != state.tail
            if rewrite:
                state.offset, state.lines, state.open_end = 0, 0, 0
            if size == 0:
                report.empty += 1
            if (state.dev, state.ino) != (st.st_dev, st.st_ino) or (
                state.offset and not state.tail_len
            ):
                _note_identity(db, f, state, st)
            if size == state.offset:
                if state.mtime_ns is None or state.mtime_ns != st.st_mtime_ns:
                    db.execute("UPDATE files SET mtime_ns = ? WHERE path = ?", (_settled(st), key))
                return 0
            if ready is not None and ready.fits(state, st, head):
                return _read_new(db, f, path, state, head, ready, rewrite, extract, report)
            f.seek(state.offset)
            data = f.read(size - state.offset)
            return _read_new(db, f, path, state, head, data, rewrite, extract, report)
    except (OSError, _NotRegular):
        report.skipped["unreadable file"] += 1
        return 0


def _read_new(
    db: sqlite3.Connection,
    f: BinaryIO,
    path: Path,
    state: _State,
    head: bytes,
    data: bytes | Prepared,
    rewrite: bool,
    extract: Extractor,
    report: IngestReport,
) -> int:
    """Store a file's new bytes, or what a worker made of them (`Prepared`, read from offset 0
    of this very file: the same rows, written here in the same order)."""
    key, offset = state.path, state.offset
    if isinstance(data, Prepared):
        taken, size = data.taken, data.size
        report.pending += taken.pending
    else:
        skip = 1 if state.open_end and data[:1] == b"\n" else 0  # ends a line already taken
        taken, size = _take(data, skip), len(data)
        report.pending += taken.pending
    skip, consumed = taken.skip, taken.consumed
    if consumed == skip and not rewrite:
        if skip:  # only the newline arrived: remember it is read, nothing else changed
            tail_hash, tail_len = _tail(f, offset + 1)
            db.execute(
                "UPDATE files SET offset = offset + 1, open_end = 0, tail = ?, tail_len = ? "
                "WHERE path = ?",
                (tail_hash, tail_len, key),
            )
        return 0  # nothing whole to read yet (an unfinished line stays pending)
    report.read += 1
    session = state.session
    parent = session_key(path)[1]
    if rewrite:
        report.rewrites += 1
        db.execute("DELETE FROM turns WHERE session = ?", (session,))
        db.execute("DELETE FROM mentions WHERE session = ?", (session,))
    if isinstance(data, Prepared):
        _add(report, data.counts)
        _write_turns(db, session, data.turns, data.found, data.meta)
        tail_hash, tail_len = data.tail
    else:
        _store(
            db, session, parent, state.lines, taken.parsed, extract, report, continued=offset > 0
        )
        if consumed >= TAIL_BYTES:
            tail_hash, tail_len = _digest(data[consumed - TAIL_BYTES : consumed]), TAIL_BYTES
        else:
            tail_hash, tail_len = _tail(f, offset + consumed)
    head_len = min(len(head), HEAD_BYTES)
    end = offset + consumed
    st = os.fstat(f.fileno())
    db.execute(
        f"INSERT INTO files ({_STATE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET "
        "offset = excluded.offset, lines = excluded.lines, head = excluded.head, "
        "head_len = excluded.head_len, open_end = excluded.open_end, dev = excluded.dev, "
        "ino = excluded.ino, tail = excluded.tail, tail_len = excluded.tail_len, "
        "mtime_ns = excluded.mtime_ns",
        (
            key,
            session,
            end,
            state.lines + taken.lines,
            _digest(head[:head_len]),
            head_len,
            taken.open_end,
            st.st_dev,
            st.st_ino,
            tail_hash,
            tail_len,
            _settled(st) if st.st_size == end else None,
        ),
    )
    report.sessions.add(session)
    return size


@dataclass(slots=True)
class _Taken:
    """The whole lines of a file's new bytes, parsed (`lines.parse`), and how far they go."""

    parsed: list[Parsed]  # emptied once stored or prepared (`lines` stays)
    lines: int  # whole lines taken
    skip: int  # 1: the bytes began with the newline of a line taken before without one
    consumed: int  # bytes taken, the skipped newline included
    open_end: int  # 1: the last line taken has no newline yet
    pending: int  # 1: an unfinished last line is left for the next run


def _take(data: bytes, skip: int) -> _Taken:
    chunks = data[skip:].split(b"\n")
    tail = chunks.pop()  # bytes after the last newline ('' when the data ends in one)
    consumed = len(data) - len(tail)
    parsed = [parse(chunk) for chunk in chunks]
    open_end = pending = 0
    if tail:
        last = parse(tail, whole=False)
        if not isinstance(last, str):
            parsed.append(last)
            consumed, open_end = len(data), 1
        else:
            pending = 1
    return _Taken(parsed, len(parsed), skip, consumed, open_end, pending)


@dataclass(slots=True)
class Prepared:
    """What a whole file gives, worked out away from the ledger (`prepare`, in a worker
    process): the rows `_store` would write for it read from offset 0, without the session
    id, which only the writer decides. Used only if the writer, in its turn, finds the file is
    to be read from offset 0 and is the file that was read (device, inode, size, first bytes)."""

    size: int
    dev: int
    ino: int
    head: bytes
    taken: _Taken
    turns: list[tuple]
    found: list[tuple]
    meta: dict
    counts: IngestReport
    tail: tuple[str, int]

    def fits(self, state: _State, st: os.stat_result, head: bytes) -> bool:
        return (
            state.offset == 0
            and state.lines == 0
            and (self.size, self.dev, self.ino) == (st.st_size, st.st_dev, st.st_ino)
            and self.head == head
        )


def prepare(path: str, extract: Extractor) -> Prepared | None:
    """A whole file's rows as `_store` makes them for a file read from its start (None when it
    cannot be opened: the writer then finds out why on its own)."""
    try:
        with _open_regular(Path(path)) as f:
            st = os.fstat(f.fileno())
            data = f.read(st.st_size)
    except (OSError, _NotRegular):
        return None
    if len(data) != st.st_size:
        return None
    taken = _take(data, 0)
    counts = IngestReport()
    turns, meta = _drafts(taken.parsed, 0, set(), session_key(Path(path))[1], counts)
    _merge_assistant_messages(None, "", turns, continued=False)
    rows, found = _extracted(turns, extract, counts)
    taken.parsed = []  # the records stay here: the writer needs only their rows
    consumed = taken.consumed
    n = min(TAIL_BYTES, consumed)
    tail = (_digest(data[consumed - n : consumed]), n) if n else ("", 0)
    return Prepared(
        st.st_size, st.st_dev, st.st_ino, data[:HEAD_BYTES], taken, rows, found, meta, counts, tail
    )


def _add(report: IngestReport, counts: IngestReport) -> None:
    """Add what `prepare` counted for one file to the ingest's report."""
    report.records += counts.records
    report.turns += counts.turns
    report.by.update(counts.by)
    report.skipped.update(counts.skipped)
    report.repaired.update(counts.repaired)
    report.ignored.update(counts.ignored)


def _changed(ledger: Ledger, files: list[str]) -> list[Path]:
    """The files to open: all but those a stat shows are as they were left. Judged outside
    the batches' transactions: a row another process writes meanwhile only ever records a
    file read further, so a file unchanged since the row read here has nothing new."""
    left = "SELECT path, dev, ino, offset, mtime_ns FROM files WHERE mtime_ns IS NOT NULL"
    if len(files) > 2000:  # most of the home: one pass over the table beats lookups
        known = {row[0]: row[1:] for row in ledger.db.execute(left).fetchall()}
    else:
        known = {}
        for start in range(0, len(files), 500):
            chunk = files[start : start + 500]
            where = f" AND path IN ({','.join('?' * len(chunk))})"
            known.update((row[0], row[1:]) for row in ledger.db.execute(left + where, chunk))
    return [Path(p) for p in files if (k := known.get(p)) is None or not _unchanged(p, k)]


def _unchanged(path: str, left: tuple[int, int, int, int]) -> bool:
    """Whether a file is as it was left (device, inode, size, modification time), by one
    stat. Anything else is opened and looked at."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) == left


def _settled(st: os.stat_result) -> int | None:
    """The file's modification time, once it is old enough to be trusted: timestamps are as
    coarse as the kernel's tick, so a file rewritten within a tick of its last write keeps its
    time; one written less than `SETTLE_NS` ago is opened again at the next scan (git's
    "racily clean" rule). Live sessions are the few files this leaves to open."""
    return st.st_mtime_ns if time.time_ns() - st.st_mtime_ns > SETTLE_NS else None


def _states(db: sqlite3.Connection, paths: list[Path]) -> dict[str, _State]:
    """The rows of these files, read in the open transaction (one query for a batch)."""
    keys = [str(p) for p in paths]
    rows = db.execute(
        f"SELECT {_STATE} FROM files WHERE path IN ({','.join('?' * len(keys))})", keys
    )
    return {row[0]: _State(*row) for row in rows}


def _state(db: sqlite3.Connection, where: str, *args: object) -> _State | None:
    row = db.execute(f"SELECT {_STATE} FROM files WHERE {where}", args).fetchone()
    return _State(*row) if row else None


def _same_file(
    db: sqlite3.Connection, path: Path, root: Path, st: os.stat_result, head: bytes
) -> _State | None:
    """The row of a file already read under another path, if this is that file: the same
    device and inode (a symlink, a hard link, a renamed folder), or the same session with
    the same first bytes (a home copied to another disk). `_ALIAS` when that other path is
    still a transcript under this root: then it, not this one, is the file read."""
    found = _state(db, "dev = ? AND ino = ?", st.st_dev, st.st_ino)
    if found is None:
        stem = session_key(path)[0]
        # the stem, or the stem with a path's hash (`stem~1a2b3c4d`): two index ranges
        for row in db.execute(
            f"SELECT {_STATE} FROM files WHERE session = ? OR (session > ? AND session < ?)",
            (stem, stem + "~", stem + "\x7f"),
        ).fetchall():
            candidate = _State(*row)
            if candidate.head and _digest(head[: candidate.head_len]) == candidate.head:
                found = candidate
                break
    if found is None:
        return None
    other = Path(found.path)
    if other.is_relative_to(root) and _is_transcript(other):
        try:
            same_inode = (os.stat(other).st_dev, os.stat(other).st_ino) == (st.st_dev, st.st_ino)
        except OSError:
            same_inode = False
        if same_inode or found.ino != st.st_ino:
            return _ALIAS
    return found


def _is_transcript(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _note_identity(db: sqlite3.Connection, f: BinaryIO, state: _State, st: os.stat_result) -> None:
    """Fill in the device, inode and tail fingerprint of a row that lacks them (a row from
    before they were kept, or a file that moved to another inode)."""
    state.dev, state.ino = st.st_dev, st.st_ino
    if state.offset and not state.tail_len:
        state.tail, state.tail_len = _tail(f, state.offset)
    db.execute(
        "UPDATE files SET dev = ?, ino = ?, tail = ?, tail_len = ? WHERE path = ?",
        (state.dev, state.ino, state.tail, state.tail_len, state.path),
    )


def _tail(f: BinaryIO, end: int) -> tuple[str, int]:
    """The fingerprint of the bytes just before `end`, and how many it covers."""
    n = min(TAIL_BYTES, end)
    return (_digest(os.pread(f.fileno(), n, end - n)), n) if n else ("", 0)


def _store(
    db: sqlite3.Connection,
    session: str,
    parent: str | None,
    first_seq: int,
    parsed: list[Parsed],
    extract: Extractor,
    report: IngestReport,
    *,
    continued: bool,
) -> None:
    seen = _uuids(db, session) if continued else set()
    turns, meta = _drafts(parsed, first_seq, seen, parent, report)
    _merge_assistant_messages(db, session, turns, continued)
    rows, found = _extracted(turns, extract, report)
    _write_turns(db, session, rows, found, meta)


def _drafts(
    parsed: list[Parsed], first_seq: int, seen: set[str], parent: str | None, report: IngestReport
) -> tuple[list[Draft], dict]:
    """The turns of parsed lines (a record seen before is skipped) and what they say of their
    session; counts every line into the report."""
    turns: list[Draft] = []
    meta: dict = {
        "cwd": None,
        "title": None,
        "first": None,
        "last": None,
        "sidechain": False,
        "parent": parent,
    }
    skipped, ignored, repaired = report.skipped, report.ignored, report.repaired
    records = 0
    for i, line in enumerate(parsed):
        if isinstance(line, str):  # a reason the line could not be read
            if line != "empty":
                skipped[line] += 1
            continue
        if isinstance(line, Unread):  # a type we never read, seen without parsing
            records += 1
            ignored[line.kind] += 1
            continue
        repair: str | None = None
        if isinstance(line, Repaired):
            record, repair = line.record, line.reason
        else:
            record = line
        got = read(record, first_seq + i)
        if isinstance(got, str):
            skipped[got] += 1
            continue
        if got.uuid and got.drafts:
            if got.uuid in seen:  # the same record written twice: its turns are stored
                skipped["duplicate uuid"] += 1
                continue
            seen.add(got.uuid)
            for d in got.drafts:
                d.uuids = got.uuid
        records += 1
        repair = repair or got.repaired
        if repair:
            repaired[repair] += 1
        if got.kind not in ("user", "assistant", "summary"):
            ignored[got.kind] += 1
        _note_session(meta, got)
        turns.extend(got.drafts)
    report.records += records
    return turns, meta


def _extracted(
    turns: list[Draft], extract: Extractor, report: IngestReport
) -> tuple[list[tuple], list[tuple]]:
    """The turns' rows and the rules' mentions in them, both without the session id."""
    rows, found = [], []
    by = report.by
    for d in turns:
        rows.append((d.seq, d.ts, d.role, d.by, d.kind, d.text, int(d.sidechain), d.msg, d.uuids))
        by[d.by] += 1
        try:
            mentions = extract(d)
        except Exception:  # a rule's bug must not stop ingest: the turn is kept, counted
            report.repaired["rules failed on a turn"] += 1
            continue
        for m in mentions:
            found.append((d.seq, *m, d.ts))
    report.turns += len(turns)
    return rows, found


def _write_turns(
    db: sqlite3.Connection, session: str, rows: list[tuple], found: list[tuple], meta: dict
) -> None:
    db.executemany(
        "INSERT INTO turns (session, seq, ts, role, by, kind, text, sidechain, msg, uuids) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(session, *row) for row in rows],
    )
    db.executemany(
        "INSERT INTO mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(session, *m) for m in found],
    )
    _upsert_session(db, session, meta)


# The first text turn of a message stored earlier: `kind = 'text'` lets SQLite use the
# partial index of those turns (m019), which holds nothing else.
MESSAGE_HEAD = (
    "SELECT id, seq, text, ts, uuids FROM turns WHERE session = ? AND msg = ? AND kind = 'text'"
)


def _merge_assistant_messages(
    db: sqlite3.Connection | None, session: str, turns: list[Draft], continued: bool
) -> None:
    """One assistant message is one turn, though Claude Code writes a line per block.

    Text from later lines of a message is appended to its first text turn, whether that
    turn is in this batch or was stored by an earlier run (then it is updated in place).
    """
    first: dict[str, Draft] = {}
    keep: list[Draft] = []
    for d in turns:
        if d.role != "assistant" or d.kind != "text" or not d.msg:
            keep.append(d)
            continue
        if d.msg in first:
            head = first[d.msg]
            head.text += "\n\n" + d.text
            head.uuids = _joined(head.uuids, d.uuids)
            continue
        row = continued and db is not None and db.execute(MESSAGE_HEAD, (session, d.msg)).fetchone()
        if row and db is not None:  # continues a message stored earlier: update it there
            d.seq, d.ts, d.text = row[1], row[3], row[2] + "\n\n" + d.text
            d.uuids = _joined(row[4], d.uuids)
            db.execute("DELETE FROM turns WHERE id = ?", (row[0],))
            db.execute("DELETE FROM mentions WHERE session = ? AND seq = ?", (session, row[1]))
        first[d.msg] = d
        keep.append(d)
    turns[:] = keep


def _uuids(db: sqlite3.Connection, session: str) -> set[str]:
    """The uuids of the records a session's stored turns were read from."""
    out: set[str] = set()
    for (uuids,) in db.execute(
        "SELECT uuids FROM turns WHERE session = ? AND uuids IS NOT NULL", (session,)
    ):
        out.update(uuids.split())
    return out


def _joined(a: str | None, b: str | None) -> str | None:
    return f"{a} {b}" if a and b else a or b


def _note_session(meta: dict, got: Read) -> None:
    if meta["cwd"] is None and got.cwd:
        meta["cwd"] = got.cwd
    if got.title:
        meta["title"] = got.title
    if got.sidechain:
        meta["sidechain"] = True
        if meta["parent"] is None and got.parent:
            meta["parent"] = got.parent
    if got.ts:
        meta["first"] = min(meta["first"] or got.ts, got.ts)
        meta["last"] = max(meta["last"] or got.ts, got.ts)


def _upsert_session(db: sqlite3.Connection, session: str, meta: dict) -> None:
    db.execute(
        "INSERT INTO sessions (id, parent, cwd, title, first_ts, last_ts, sidechain, version) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (id) DO UPDATE SET "
        "parent = coalesce(sessions.parent, excluded.parent), "
        "cwd = coalesce(sessions.cwd, excluded.cwd), "
        "title = coalesce(excluded.title, sessions.title), "
        "first_ts = min(coalesce(sessions.first_ts, excluded.first_ts), "
        "  coalesce(excluded.first_ts, sessions.first_ts)), "
        "last_ts = max(coalesce(sessions.last_ts, excluded.last_ts), "
        "  coalesce(excluded.last_ts, sessions.last_ts)), "
        "sidechain = max(sessions.sidechain, excluded.sidechain), "
        "version = sessions.version + 1",
        (
            session,
            meta["parent"],
            meta["cwd"],
            meta["title"],
            meta["first"],
            meta["last"],
            int(meta["sidechain"]),
        ),
    )


def _new_session_id(db: sqlite3.Connection, path: Path) -> str:
    """The file's stem, unless another file already owns that id (then a path-hashed one)."""
    stem = session_key(path)[0]
    owner = db.execute("SELECT path FROM files WHERE session = ?", (stem,)).fetchone()
    if owner is None or owner[0] == str(path):
        return stem
    return f"{stem}~{_digest(str(path).encode())[:8]}"


class _NotRegular(Exception):
    """A path named like a transcript that is not a regular file (a FIFO, a device)."""


def _open_regular(path: Path) -> BinaryIO:
    """The file for reading, only if it is a regular file. Opened without blocking, so a
    FIFO is refused rather than waited on for a writer that never comes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _NotRegular(str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def reextract(ledger: Ledger, extract: Extractor, sessions: Iterable[str] | None = None) -> int:
    """Run the rules again over stored turns (after the rules changed). Returns turns read."""
    where, args = "", ()  # type: tuple[str, tuple[str, ...]]
    if sessions is not None:
        ids = sorted(set(sessions))
        where = f" WHERE session IN ({','.join('?' * len(ids))})"
        args = tuple(ids)
    count = 0
    with ledger.transaction() as db:
        db.execute(f"DELETE FROM mentions{where}", args)
        rows = db.execute(
            f"SELECT session, seq, ts, role, by, kind, text, sidechain, msg FROM turns{where}",
            args,
        ).fetchall()
        out: list[tuple] = []
        for session, seq, ts, role, by, kind, text, side, msg in rows:
            d = Draft(seq, ts, role, by, kind, text, bool(side), msg)
            out.extend((session, seq, *m, ts) for m in extract(d))
            count += 1
        db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", out)
        db.execute("UPDATE sessions SET version = version + 1")
    return count
