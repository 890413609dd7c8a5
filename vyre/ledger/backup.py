"""A rolling backup of the rows only the user wrote, beside the ledger.

Transcripts can be read again; projects, picks, corrections, lessons and what the user told
memory cannot. Which tables those are is the ledger's own registry (`table_kinds`, kind
'user'), which the migration adding such a table fills in: this module holds no list.

What must stay true:
- A backup is written whenever those rows change (the ledger notices a write to a
  registered table and calls `keep` once it is committed) and only then: the newest backup
  always holds the rows as they are now. The newest `KEEP` backups are kept.
- A backup is one JSON file, written whole or not at all (a temp file, fsync, rename), 0600
  in a 0700 folder, never through a symbolic link.
- A ledger that cannot be read is never backed up: the backups of a good ledger are never
  replaced by rows read from a damaged one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from vyre.files import write_atomic

FOLDER = "backups"
PREFIX = "user-rows-"
KEEP = 20
FORMAT = 1


def registered(db: sqlite3.Connection, kind: str = "user") -> list[str]:
    """Registered tables of this kind that exist, in the order they were registered."""
    try:
        names = [
            r[0]
            for r in db.execute(
                "SELECT name FROM table_kinds WHERE kind = ? ORDER BY rowid", (kind,)
            )
        ]
    except sqlite3.OperationalError:  # a ledger from before the registry
        return []
    present = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [n for n in names if n in present]


def snapshot(db: sqlite3.Connection) -> dict:
    """The user's rows, table by table, with their columns."""
    tables = {}
    for name in registered(db):
        cursor = db.execute(f'SELECT * FROM "{name}" ORDER BY rowid')
        columns = [c[0] for c in cursor.description]
        tables[name] = {"columns": columns, "rows": [_row(r) for r in cursor.fetchall()]}
    migrations = [r[0] for r in db.execute("SELECT id FROM migrations ORDER BY rowid")]
    return {"format": FORMAT, "migrations": migrations, "tables": tables}


def _row(row: tuple) -> list:
    """A row as JSON holds it: bytes (a passkey's public key) as {"hex": ...}."""
    return [{"hex": v.hex()} if isinstance(v, bytes) else v for v in row]


def _value(v: object) -> object:
    return bytes.fromhex(v["hex"]) if isinstance(v, dict) and "hex" in v else v


def digest(snap: dict) -> str:
    body = json.dumps([snap["tables"]], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(body.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def folder(home: Path) -> Path:
    return home / FOLDER


def backups(home: Path) -> list[Path]:
    """Backup files, newest first."""
    where = folder(home)
    if not where.is_dir():
        return []
    return sorted(where.glob(f"{PREFIX}*.json"), reverse=True)


def _digest_in(path: Path) -> str:
    return path.stem.rsplit("-", 1)[-1]


def read(path: Path) -> dict | None:
    """A backup's content, or None when it cannot be read (cut short, not ours)."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    if not isinstance(data.get("tables"), dict) or digest(data) != data.get("digest"):
        return None
    return data


def newest(home: Path) -> tuple[Path, dict] | None:
    """The newest backup that reads whole."""
    for path in backups(home):
        data = read(path)
        if data is not None:
            return path, data
    return None


def keep(db: sqlite3.Connection, home: Path, known: str | None = None) -> str:
    """Write a backup if the user's rows differ from `known` (the digest of the newest
    backup; read from disk when not given). Returns the rows' digest."""
    snap = snapshot(db)
    current = digest(snap)
    if known is None:
        names = backups(home)
        known = _digest_in(names[0]) if names else ""
    if current == known:
        return current
    empty = not any(t["rows"] for t in snap["tables"].values())
    if empty and not backups(home):
        return current  # nothing the user wrote yet, and never was: no file to keep
    snap["digest"] = current
    snap["taken"] = datetime.now(UTC).isoformat(timespec="microseconds")
    _write(home, snap)
    return current


def _write(home: Path, snap: dict) -> Path:
    where = folder(home)
    where.mkdir(mode=0o700, exist_ok=True)
    if where.is_symlink() or not where.is_dir():
        raise OSError(f"{where} is not a folder of its own")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    path = where / f"{PREFIX}{stamp}-{snap['digest']}.json"  # the digest, to compare unread
    data = json.dumps(snap, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    write_atomic(path, data, 0o600)
    for old in backups(home)[KEEP:]:
        old.unlink(missing_ok=True)
    return path


def restore(db: sqlite3.Connection, snap: dict) -> dict[str, int]:
    """Put back every row of the backup that the ledger lacks (by primary key), table by
    table in registry order. Rows the ledger has are left as they are. Returns rows added."""
    added = {}
    present = set(registered(db))
    for name, table in snap["tables"].items():
        if name not in present:
            continue
        have = {r[1] for r in db.execute(f'PRAGMA table_info("{name}")')}
        keep_at = [i for i, c in enumerate(table["columns"]) if c in have]
        columns = ", ".join(f'"{table["columns"][i]}"' for i in keep_at)
        marks = ", ".join("?" for _ in keep_at)
        before = db.total_changes
        db.executemany(
            f'INSERT OR IGNORE INTO "{name}" ({columns}) VALUES ({marks})',
            ([_value(row[i]) for i in keep_at] for row in table["rows"]),
        )
        added[name] = db.total_changes - before
    return added
