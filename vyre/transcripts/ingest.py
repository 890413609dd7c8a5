"""Read Claude Code transcripts into the ledger, incrementally by byte offset per file.

What must stay true:
- A file is read from where the last run stopped; only whole lines are taken. A last line
  with no newline is taken only if it parses (a writer may still be appending it).
- A file that shrank, or whose first bytes changed, is a rewrite: its session is read
  again whole and its turns replaced, in the same transaction.
- Each file is one transaction: turns, mentions and the new offset land together, so a
  crash or a vanished file never loses or duplicates a turn.
- `seq` is a record's 0-based line index in its file. The session id is the file's stem.
- Bad lines (corrupt JSON, non-UTF-8, not an object, unknown type) are skipped and counted.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import orjson

from vyre.errors import MissingRoot
from vyre.ledger import Ledger
from vyre.transcripts.classify import IGNORED, Draft, drafts

HEAD_BYTES = 256
BATCH_FILES = 200
BATCH_BYTES = 32 << 20

# extract(draft, session_id) -> mention rows (rule, subject, subject_kind, rel, object,
# object_kind, quote); the ingest adds session, seq and ts.
Extractor = Callable[[Draft], list[tuple]]


@dataclass
class IngestReport:
    files: int = 0
    read: int = 0  # files with new bytes
    records: int = 0
    turns: int = 0
    by: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    ignored: Counter = field(default_factory=Counter)
    rewrites: int = 0
    pending: int = 0  # unfinished last lines left for the next run
    empty: int = 0  # 0-byte files (nothing to read yet)
    sessions: set[str] = field(default_factory=set)  # sessions that changed

    def summary(self) -> str:
        by = ", ".join(f"{k} {v:,}" for k, v in sorted(self.by.items()))
        line = f"{self.files:,} files ({self.read:,} with new lines), {self.turns:,} new turns"
        if by:
            line += f" ({by})"
        skipped = sum(self.skipped.values())
        if skipped:
            reasons = ", ".join(f"{v:,} {k}" for k, v in sorted(self.skipped.items()))
            line += f"; skipped {skipped:,} lines: {reasons}"
        else:
            line += "; skipped 0 lines"
        if self.empty:
            line += f"; {self.empty} empty files"
        if self.pending:
            line += f"; {self.pending} unfinished last lines left for next time"
        if self.rewrites:
            line += f"; {self.rewrites} rewritten files read again"
        return line


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
    progress: Callable[[int], None] | None = None,
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


def _ingest_file(db, path: Path, state, claimed: dict, extract: Extractor, report) -> int:
    """Read one file's new lines into the open transaction; returns the bytes read."""
    key = str(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
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
    except (FileNotFoundError, PermissionError, IsADirectoryError):
        report.skipped["unreadable file"] += 1
        return 0
    skip = 0
    if open_end and data[:1] == b"\n":
        skip = 1  # the newline that ends a line already taken without one
    chunks = data[skip:].split(b"\n")
    tail = chunks.pop()  # bytes after the last newline ('' when the data ends in one)
    consumed = len(data) - len(tail)
    parsed = [_parse(chunk) for chunk in chunks]
    open_end = 0
    if tail:
        last = _parse(tail)
        if isinstance(last, (dict, tuple)):
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
    db, session: str, parent, first_seq: int, parsed: list, extract, report, *, continued: bool
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
    for i, record in enumerate(parsed):
        seq = first_seq + i
        if isinstance(record, str):  # a reason the line could not be read
            if record != "empty":
                report.skipped[record] += 1
            continue
        if isinstance(record, tuple):  # a type we never read, seen without parsing
            report.records += 1
            report.ignored[record[1]] += 1
            continue
        report.records += 1
        kind = record.get("type")
        if kind in ("user", "assistant"):
            ts = _ts(record.get("timestamp"))
            _note_session(meta, record, ts)
            turns.extend(drafts(record, seq, ts))
        elif kind == "summary":
            if isinstance(record.get("summary"), str):
                meta["title"] = record["summary"][:200]
        elif kind in IGNORED:
            report.ignored[kind] += 1
            if meta["cwd"] is None and isinstance(record.get("cwd"), str):
                meta["cwd"] = record["cwd"]
        else:
            report.skipped["unknown record type"] += 1
    _merge_assistant_messages(db, session, turns, continued)
    rows, mentions = [], []
    for d in turns:
        rows.append((session, d.seq, d.ts, d.role, d.by, d.kind, d.text, int(d.sidechain), d.msg))
        report.turns += 1
        report.by[d.by] += 1
        for m in extract(d):
            mentions.append((session, d.seq, *m, d.ts))
    db.executemany(
        "INSERT INTO turns (session, seq, ts, role, by, kind, text, sidechain, msg) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", mentions)
    _upsert_session(db, session, meta)


def _merge_assistant_messages(db, session: str, turns: list[Draft], continued: bool) -> None:
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


def _note_session(meta: dict, record: dict, ts: str | None) -> None:
    if meta["cwd"] is None and isinstance(record.get("cwd"), str):
        meta["cwd"] = record["cwd"]
    if record.get("isSidechain"):
        meta["sidechain"] = True
        if meta["parent"] is None and isinstance(record.get("sessionId"), str):
            meta["parent"] = record["sessionId"]
    if ts:
        meta["first"] = min(meta["first"] or ts, ts)
        meta["last"] = max(meta["last"] or ts, ts)


def _upsert_session(db, session: str, meta: dict) -> None:
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


# Claude Code writes compact JSON, so a record's own type appears as these bytes. Lines of
# types we never read are recognised without parsing them (half of all lines are progress).
_PROGRESS = b'"type":"progress"'
_SNAPSHOT = b'"type":"file-history-snapshot"'
_USER, _ASSISTANT, _SUMMARY = b'"type":"user"', b'"type":"assistant"', b'"type":"summary"'
_IGNORED_PROGRESS = ("ignored", "progress")
_IGNORED_SNAPSHOT = ("ignored", "file-history-snapshot")


def _parse(chunk: bytes):
    """A record dict, ("ignored", type) for a line we never read, or why the line is skipped."""
    if not chunk or chunk.isspace():
        return "empty"
    unread = (
        _IGNORED_PROGRESS
        if _PROGRESS in chunk
        else _IGNORED_SNAPSHOT
        if _SNAPSHOT in chunk
        else None
    )
    if (
        unread
        and chunk[:1] == b"{"
        and _USER not in chunk
        and _ASSISTANT not in chunk
        and _SUMMARY not in chunk
    ):
        return unread
    try:
        value = orjson.loads(chunk)
    except orjson.JSONDecodeError:
        # orjson is strict where Claude Code is not (lone surrogates): ask the stdlib too
        try:
            value = json.loads(chunk)
        except UnicodeDecodeError:
            return "not UTF-8"
        except ValueError:
            return "corrupt JSON"
    return value if isinstance(value, dict) else "not a JSON object"


def _ts(value) -> str | None:
    """A record's timestamp as naive-UTC ISO text, or None."""
    if not isinstance(value, str):
        return None
    if len(value) == 24 and value[23] == "Z" and value[19] == ".":  # Claude Code's own form
        return value[:23] + "000"
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed.isoformat(timespec="microseconds")


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def reextract(ledger: Ledger, extract: Extractor, sessions: Iterable[str] | None = None) -> int:
    """Run the rules again over stored turns (after the rules changed). Returns turns read."""
    where, args = ("", ())
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
        out = []
        for session, seq, ts, role, by, kind, text, side, msg in rows:
            d = Draft(seq, ts, role, by, kind, text, bool(side), msg)
            out.extend((session, seq, *m, ts) for m in extract(d))
            count += 1
        db.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", out)
        db.execute("UPDATE sessions SET version = version + 1")
    return count
