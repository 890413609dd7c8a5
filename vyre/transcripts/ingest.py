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
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from vyre.errors import MissingRoot
from vyre.ledger import Ledger
from vyre.models import IngestReport
from vyre.transcripts.classify import Draft
from vyre.transcripts.lines import Read, Repaired, Unread, parse, read

HEAD_BYTES = 256
BATCH_FILES = 200
BATCH_BYTES = 32 << 20

# extract(draft, session_id) -> mention rows (rule, subject, subject_kind, rel, object,
# object_kind, quote); the ingest adds session, seq and ts.
Extractor = Callable[[Draft], list[tuple]]


def transcript_files(root: Path) -> list[Path]:
    """Every transcript under root: sessions, `agent-*.jsonl` beside them, and subagents."""
    return sorted(p for p in root.rglob("*.jsonl") if p.is_file())


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
) -> IngestReport:
    """Read new lines under root (or only `paths`, when a watcher knows what changed)."""
    root = Path(root).expanduser()
    if not root.is_dir():
        raise MissingRoot(f"no Claude Code projects folder at {root}")
    report = IngestReport()
    files = sorted(paths) if paths is not None else transcript_files(root)
    report.files = len(files)
    known = {
        row[0]: row[1:]
        for row in ledger.db.execute(
            "SELECT path, session, offset, lines, head, head_len, open_end FROM files"
        )
    }
    claimed = {row[1]: row[0] for row in ledger.db.execute("SELECT path, session FROM files")}
    pending = list(files)
    while pending:
        # Files land in batches: one transaction per batch keeps commits cheap, and a crash
        # rolls a whole batch back (rows and offsets together), so nothing is half-read.
        done, size = 0, 0
        with ledger.transaction() as db:
            last = db.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0]
            while pending and done < BATCH_FILES and size < BATCH_BYTES:
                path = pending.pop(0)
                size += _ingest_file(db, path, known.get(str(path)), claimed, extract, report)
                done += 1
            ledger.index_turns(db, after=last)
        if progress:
            progress(done)
    return report


def _ingest_file(
    db: sqlite3.Connection,
    path: Path,
    state: tuple | None,
    claimed: dict[str, str],
    extract: Extractor,
    report: IngestReport,
) -> int:
    """Read one file's new lines into the open transaction; returns the bytes read."""
    key = str(path)
    try:
        with _open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            head = f.read(HEAD_BYTES)
            if state is not None:
                session, offset, lines, head_hash, head_len, open_end = state
                rewrite = size < offset or _digest(head[:head_len]) != head_hash
            else:
                session, offset, lines, rewrite = _new_session_id(path, claimed), 0, 0, False
                open_end = 0
            if rewrite:
                offset, lines, open_end = 0, 0, 0
            if size == 0:
                report.empty += 1
            if size == offset:
                return 0
            f.seek(offset)
            data = f.read(size - offset)
    except (OSError, _NotRegular):
        report.skipped["unreadable file"] += 1
        return 0
    skip = 0
    if open_end and data[:1] == b"\n":
        skip = 1  # the newline that ends a line already taken without one
    chunks = data[skip:].split(b"\n")
    tail = chunks.pop()  # bytes after the last newline ('' when the data ends in one)
    consumed = len(data) - len(tail)
    parsed = [parse(chunk) for chunk in chunks]
    open_end = 0
    if tail:
        last = parse(tail, whole=False)
        if not isinstance(last, str):
            parsed.append(last)
            consumed, open_end = len(data), 1
        else:
            report.pending += 1
    if consumed == skip and not rewrite:
        if skip:  # only the newline arrived: remember it is read, nothing else changed
            db.execute("UPDATE files SET offset = offset + 1, open_end = 0 WHERE path = ?", (key,))
        return 0  # nothing whole to read yet (an unfinished line stays pending)
    report.read += 1
    parent = session_key(path)[1]
    if rewrite:
        report.rewrites += 1
        db.execute("DELETE FROM turns WHERE session = ?", (session,))
        db.execute("DELETE FROM mentions WHERE session = ?", (session,))
    _store(db, session, parent, lines, parsed, extract, report, continued=offset > 0)
    head_len = min(len(head), HEAD_BYTES)
    db.execute(
        "INSERT INTO files (path, session, offset, lines, head, head_len, open_end) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
        "offset = excluded.offset, lines = excluded.lines, head = excluded.head, "
        "head_len = excluded.head_len, open_end = excluded.open_end",
        (
            key,
            session,
            offset + consumed,
            lines + len(parsed),
            _digest(head[:head_len]),
            head_len,
            open_end,
        ),
    )
    report.sessions.add(session)
    return len(data)


def _store(
    db: sqlite3.Connection,
    session: str,
    parent: str | None,
    first_seq: int,
    parsed: list,
    extract: Extractor,
    report: IngestReport,
    *,
    continued: bool,
) -> None:
    turns: list[Draft] = []
    meta = {
        "cwd": None,
        "title": None,
        "first": None,
        "last": None,
        "sidechain": False,
        "parent": parent,
    }
    for i, line in enumerate(parsed):
        if isinstance(line, str):  # a reason the line could not be read
            if line != "empty":
                report.skipped[line] += 1
            continue
        if isinstance(line, Unread):  # a type we never read, seen without parsing
            report.records += 1
            report.ignored[line.kind] += 1
            continue
        repair = line.reason if isinstance(line, Repaired) else None
        record = line.record if isinstance(line, Repaired) else line
        got = read(record, first_seq + i)
        if isinstance(got, str):
            report.skipped[got] += 1
            continue
        report.records += 1
        repair = repair or got.repaired
        if repair:
            report.repaired[repair] += 1
        if got.kind not in ("user", "assistant", "summary"):
            report.ignored[got.kind] += 1
        _note_session(meta, got)
        turns.extend(got.drafts)
    _merge_assistant_messages(db, session, turns, continued)
    rows, mentions = [], []
    for d in turns:
        rows.append((session, d.seq, d.ts, d.role, d.by, d.kind, d.text, int(d.sidechain), d.msg))
        report.turns += 1
        report.by[d.by] += 1
        try:
            found = extract(d)
        except Exception:  # a rule's bug must not stop ingest: the turn is kept, counted
            report.repaired["rules failed on a turn"] += 1
            continue
        for m in found:
            mentions.append((session, d.seq, *m, d.ts))
    db.executemany(
        "INSERT INTO turns (session, seq, ts, role, by, kind, text, sidechain, msg) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", mentions)
    _upsert_session(db, session, meta)


def _merge_assistant_messages(
    db: sqlite3.Connection, session: str, turns: list[Draft], continued: bool
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
            first[d.msg].text += "\n\n" + d.text
            continue
        row = (
            continued
            and db.execute(
                "SELECT id, seq, text, ts FROM turns "
                "WHERE session = ? AND msg = ? AND kind = 'text'",
                (session, d.msg),
            ).fetchone()
        )
        if row:  # continues a message stored earlier: update it and re-extract there
            d.seq, d.ts, d.text = row[1], row[3], row[2] + "\n\n" + d.text
            db.execute("DELETE FROM turns WHERE id = ?", (row[0],))
            db.execute("DELETE FROM mentions WHERE session = ? AND seq = ?", (session, row[1]))
        first[d.msg] = d
        keep.append(d)
    turns[:] = keep


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


def _new_session_id(path: Path, claimed: dict) -> str:
    """The file's stem, unless another file already owns that id (then a path-hashed one)."""
    stem = session_key(path)[0]
    owner = claimed.get(stem)
    if owner is None or owner == str(path):
        claimed[stem] = str(path)
        return stem
    unique = f"{stem}~{_digest(str(path).encode())[:8]}"
    claimed[unique] = str(path)
    return unique


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
    where, args = "", ()  # type: str, tuple[str, ...]
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
