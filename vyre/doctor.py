"""`vyre doctor`: check a home's stores and files, and repair what can be repaired.

Checks (each a `Finding`, in this order): the home folder (yours, 0700); the daemon's files
(no symbolic link planted at `daemon.lock`, `daemon.log` or `vyre.sock`, no socket left by a
daemon that died); the ledger (there, not empty, a SQLite file, `PRAGMA integrity_check` and
`foreign_key_check` clean, no migration from a newer Vyre); the backup of your own rows (the
newest one reads whole and holds the rows as they are now); the graph (`Memory.graph_health`:
each room's file opens, and holds the digest and row counts the ledger recorded for it).

What must stay true:
- Checking never writes. Repair never deletes what it replaces: a damaged ledger is moved
  aside (`vyre.db.damaged-<time>`), never overwritten, and repair refuses while a daemon runs.
- Repair salvages every readable row of the tables the registry (`table_kinds`) names as the
  user's or as read from outside, skipping unreadable pages; puts back from the newest backup
  any of the user's rows the salvage lost; reads the transcripts that still exist again whole;
  and derives every room. Derived tables (mentions, search indexes) start empty and are rebuilt.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from vyre.daemon.protocol import LOCK_NAME, LOG_NAME, SOCKET_NAME
from vyre.errors import DaemonControlError, VyreError
from vyre.ledger import Ledger, backup
from vyre.ledger.migrations import MIGRATIONS

LEDGER = "vyre.db"


@dataclass
class Finding:
    check: str  # what was looked at: home, files, ledger, backup, graph
    ok: bool
    detail: str  # one line
    repair: str = ""  # what `--repair` does about it ("" when nothing can or need be done)

    def line(self) -> str:
        mark = "ok  " if self.ok else "FAIL"
        fix = f" (--repair: {self.repair})" if self.repair and not self.ok else ""
        return f"{mark} {self.check}: {self.detail}{fix}"


def check(home: Path) -> list[Finding]:
    """Every check, without writing anything."""
    out = [_home(home)]
    out += _files(home)
    ledger = _ledger(home)
    out.append(ledger)
    out.append(_backup(home, ledger.ok))
    out.append(_graph(home, ledger.ok))
    return out


# -- checks --------------------------------------------------------------------------------------


def _home(home: Path) -> Finding:
    try:
        info = os.stat(home)
    except OSError:
        return Finding("home", True, f"{home} does not exist yet (made on first use)")
    if not stat.S_ISDIR(info.st_mode):
        return Finding("home", False, f"{home} is not a folder")
    if info.st_uid != os.getuid():
        return Finding("home", False, f"{home} belongs to uid {info.st_uid}, not you")
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        return Finding("home", False, f"{home} is open to others (mode {mode:o})", "chmod 700")
    return Finding("home", True, f"{home} is yours alone (0700)")


def _files(home: Path) -> list[Finding]:
    out = []
    for name in (LOCK_NAME, LOG_NAME, SOCKET_NAME, LEDGER, backup.FOLDER):
        path = home / name
        if path.is_symlink():
            fix = "remove the link (not its target)" if name != LEDGER else ""
            out.append(Finding("files", False, f"{path} is a symbolic link", fix))
    sock = home / SOCKET_NAME
    if sock.exists() and not sock.is_symlink() and not _daemon_answers(home):
        out.append(Finding("files", False, f"{sock} is left by a daemon that stopped", "remove it"))
    ledger = home / LEDGER
    if ledger.is_file() and not ledger.is_symlink() and stat.S_IMODE(ledger.stat().st_mode) & 0o077:
        out.append(Finding("files", False, f"{ledger} is readable by others", "chmod 600"))
    if not out:
        out.append(Finding("files", True, "no planted links, no stale socket"))
    return out


def _ledger(home: Path) -> Finding:
    path = home / LEDGER
    if not path.exists():
        return Finding("ledger", True, "none yet (made on first use)")
    size = path.stat().st_size
    if size == 0:
        return Finding("ledger", False, f"{path} is empty (0 bytes)", _REBUILD)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return Finding("ledger", False, f"{path} cannot be opened: {exc}", _REBUILD)
    try:
        problems = [r[0] for r in db.execute("PRAGMA integrity_check(20)")]
        if problems != ["ok"]:
            return Finding("ledger", False, f"damaged: {problems[0]}", _REBUILD)
        orphans = db.execute("PRAGMA foreign_key_check").fetchall()
        if orphans:
            return Finding(
                "ledger", False, f"{len(orphans)} rows point at rows that are gone", _REBUILD
            )
        applied = [r[0] for r in db.execute("SELECT id FROM migrations")]
        turns = db.execute("SELECT count(*) FROM turns").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        return Finding("ledger", False, f"damaged: {exc}", _REBUILD)
    finally:
        db.close()
    known = {name for name, _ in MIGRATIONS}
    newer = sorted(set(applied) - known)
    if newer:
        return Finding("ledger", False, f"written by a newer Vyre (migration {newer[0]})")
    return Finding("ledger", True, f"sound ({size / 1e6:,.1f} MB, {turns:,} turns)")


_REBUILD = "move it aside, salvage what reads, restore your rows from the backup, read again"


def _backup(home: Path, ledger_ok: bool) -> Finding:
    found = backup.newest(home)
    files = backup.backups(home)
    note = f" ({files.index(found[0])} newer unreadable)" if found and found[0] != files[0] else ""
    if not ledger_ok or not (home / LEDGER).exists():
        if found:
            return Finding("backup", True, f"{found[0].name} holds {_rows(found[1])}{note}")
        if ledger_ok:
            return Finding("backup", True, "nothing of yours to back up yet")
        return Finding("backup", False, "no backup: a repair cannot restore your own rows")
    db = sqlite3.connect(f"file:{home / LEDGER}?mode=ro", uri=True)
    try:
        current = backup.snapshot(db)
    finally:
        db.close()
    if found is None:
        if not any(t["rows"] for t in current["tables"].values()):
            return Finding("backup", True, "nothing of yours to back up yet")
        return Finding("backup", False, f"no backup of {_rows(current)}", "write one")
    if found[1]["digest"] != backup.digest(current):
        return Finding("backup", False, f"{found[0].name} is behind the ledger", "write one")
    return Finding("backup", True, f"{found[0].name} holds {_rows(current)}{note}")


def _rows(snap: dict) -> str:
    counts = [(n, len(t["rows"])) for n, t in snap["tables"].items() if t["rows"]]
    return ", ".join(f"{k:,} {n}" for n, k in counts) or "no rows"


def _graph(home: Path, ledger_ok: bool) -> Finding:
    if not ledger_ok:
        return Finding("graph", False, "not checked: the ledger comes first", "derived again")
    if not (home / LEDGER).exists():
        return Finding("graph", True, "nothing derived yet")
    from vyre.daemon.client import open_memory

    try:
        with open_memory("cli", home) as memory:  # a running daemon's: it holds the graph
            result = memory.graph_health()
    except VyreError as exc:
        return Finding("graph", False, exc.line(), "derived again")
    return Finding("graph", result.ok, result.summary(), "derived again")


def _daemon_answers(home: Path) -> bool:
    from vyre.daemon.process import status

    try:
        return status(home) is not None
    except VyreError:
        return False


# -- repair ----------------------------------------------------------------------------------------


def repair(home: Path, root: Path) -> list[str]:
    """Mend what `check` found; returns what was done, one line each."""
    if _daemon_answers(home):
        raise DaemonControlError("a daemon holds this home: `vyre daemon stop` first")
    done: list[str] = []
    if home.is_dir() and stat.S_IMODE(home.stat().st_mode) & 0o077:
        home.chmod(0o700)
        done.append(f"made {home} yours alone (0700)")
    for name in (LOCK_NAME, LOG_NAME, SOCKET_NAME):
        path = home / name
        if path.is_symlink():
            path.unlink()
            done.append(f"removed the link {path} (its target is untouched)")
    sock = home / SOCKET_NAME
    if sock.exists():
        sock.unlink()
        done.append(f"removed the stale socket {sock}")
    ledger = _ledger(home)
    if not ledger.ok and not ledger.repair:
        done.append(f"left the ledger as it is: {ledger.detail}")
        return done
    if not ledger.ok:
        done += rebuild_ledger(home, root)
    elif (home / LEDGER).is_file() and stat.S_IMODE((home / LEDGER).stat().st_mode) & 0o077:
        (home / LEDGER).chmod(0o600)
        done.append("made the ledger 0600")
    return done + _refresh(home, root, derive=not ledger.ok)


def _refresh(home: Path, root: Path, *, derive: bool) -> list[str]:
    from vyre.api import Memory

    out = []
    with Memory(home) as memory:  # opening backs up the user's rows when they changed
        if not _backup(home, True).ok:
            memory.ledger.backup(force=True)
            out.append("wrote a backup of your rows")
        if derive:
            if root.is_dir():
                read = memory.ingest(root, main=False).report
                out.append(f"read the transcripts again: {read.turns:,} turns")
            derived = memory.derive(force=True)
            out.append(f"derived every room again: {derived.summary()}")
        elif not _graph(home, True).ok:
            out.append(memory.graph_health(repair=True).summary())  # those rooms derived again
    return out


def rebuild_ledger(home: Path, root: Path) -> list[str]:
    """Move the damaged ledger aside and build a new one from what can be read of it and
    from the newest backup. The transcripts are read again by the caller."""
    path = home / LEDGER
    found = backup.newest(home)  # chosen first: what follows writes backups of its own
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    aside = path.with_name(f"{LEDGER}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            os.replace(part, f"{aside}{suffix}")
    out = [f"moved the damaged ledger to {aside.name}"]
    ledger = Ledger(path)
    try:
        salvaged, lost = _salvage(aside, ledger)
        if salvaged:
            out.append(
                "salvaged "
                + ", ".join(f"{n:,} {t}" for t, n in salvaged.items() if n)
                + (f"; {lost:,} unreadable ranges skipped" if lost else "")
            )
        if found:
            with ledger.transaction() as db:
                added = backup.restore(db, found[1])
            restored = ", ".join(f"{n:,} {t}" for t, n in added.items() if n)
            out.append(f"restored from {found[0].name}: {restored or 'nothing missing'}")
        else:
            out.append("no backup to restore your rows from")
        reread = _forget_files_on_disk(ledger, root)
        if reread:
            out.append(f"{reread:,} transcripts still on disk will be read again whole")
        ledger.backup()
    finally:
        ledger.close()
    return out


def _salvage(source: Path, ledger: Ledger) -> tuple[dict[str, int], int]:
    """Copy every readable row of the tables registered as the user's or as read from
    outside, from a damaged ledger. Returns rows copied per table and ranges skipped."""
    try:
        old = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        old.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError:
        return {}, 0  # not a SQLite file at all: nothing to salvage
    copied: dict[str, int] = {}
    lost = 0
    try:
        for table in backup.registered(ledger.db, "user") + backup.registered(ledger.db, "source"):
            try:
                columns = [r[1] for r in old.execute(f'PRAGMA table_info("{table}")')]
            except sqlite3.DatabaseError:
                continue
            have = {r[1] for r in ledger.db.execute(f'PRAGMA table_info("{table}")')}
            shared = [c for c in columns if c in have]
            if shared:
                copied[table], skipped = _copy(old, ledger, table, shared)
                lost += skipped
    finally:
        old.close()
    return copied, lost


def _copy(
    old: sqlite3.Connection, ledger: Ledger, table: str, columns: list[str]
) -> tuple[int, int]:
    """Rows by rowid range, halving any range that cannot be read. Returns (copied, skipped
    ranges)."""
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    try:
        lo, hi = old.execute(f'SELECT min(rowid), max(rowid) FROM "{table}"').fetchone()
    except sqlite3.DatabaseError:
        lo, hi = 1, 1 << 40
    if lo is None:
        return 0, 0
    copied, skipped = 0, 0
    ranges = [(lo, hi)]
    with ledger.transaction() as db:
        while ranges:
            a, b = ranges.pop()
            try:
                rows = old.execute(
                    f'SELECT {names} FROM "{table}" WHERE rowid BETWEEN ? AND ?', (a, b)
                ).fetchall()
            except sqlite3.DatabaseError:
                if a == b or b - a > (1 << 40):
                    skipped += 1
                else:
                    mid = (a + b) // 2
                    ranges += [(mid + 1, b), (a, mid)]
                continue
            before = db.total_changes
            db.executemany(f'INSERT OR IGNORE INTO "{table}" ({names}) VALUES ({marks})', rows)
            copied += db.total_changes - before
    return copied, skipped


def _forget_files_on_disk(ledger: Ledger, root: Path) -> int:
    """Sessions whose transcript still exists are read again whole (their salvaged turns
    may have holes); those whose transcript is gone keep what was salvaged. A transcript is
    found by its `files` row or, when the salvage lost that row, by its session's name."""
    from vyre.transcripts.ingest import session_key, transcript_files

    on_disk = {session_key(p)[0] for p in transcript_files(root)} if root.is_dir() else set()
    rows = ledger.db.execute("SELECT path, session FROM files").fetchall()
    again = {s for p, s in rows if Path(p).is_file()}
    tracked = {s for _, s in rows}
    stored = {r[0] for r in ledger.db.execute("SELECT DISTINCT session FROM turns")}
    again |= {s for s in stored - tracked if s.split("~")[0] in on_disk}
    with ledger.transaction() as db:
        for session in sorted(again):
            db.execute("DELETE FROM turns WHERE session = ?", (session,))
            db.execute("DELETE FROM files WHERE session = ?", (session,))
    return len(again)
