"""The ledger store: opens `vyre.db`, migrates on construction, writes in transactions.

It is the source of truth. The graph is derived from it and can always be rebuilt.
WAL mode lets short-lived readers (hooks, a second CLI) read while one process writes.

What must stay true:
- A ledger is never silently made anew over one that was there. A missing ledger is created
  whole (in a temp file, linked into place), so a 0-byte `vyre.db` is never Vyre's own: it is
  refused, as is a file SQLite cannot read, with `LedgerDamaged` pointing at `vyre doctor`.
- Damage found later (noise in one page) surfaces as `LedgerDamaged` from whichever
  statement read the page, not as a raw `sqlite3.DatabaseError`.
- A committed write to a table registered as the user's (`table_kinds`) refreshes the rolling
  backup beside the ledger (`backup.py`); opening a ledger that has none yet writes the first.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vyre.errors import LedgerBusy, LedgerDamaged, LedgerError
from vyre.ledger import backup, search
from vyre.ledger.migrations import MIGRATIONS
from vyre.wording import clip

if TYPE_CHECKING:
    from vyre.models import Thread

TITLE_CHARS = 60  # of a session's name, where memory names the session a fact came from


def ts_text(value: datetime | None) -> str | None:
    return value.isoformat(timespec="microseconds") if value else None


def ts_value(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def damaged(path: Path, why: str) -> LedgerDamaged:
    return LedgerDamaged(
        f"the ledger {path} is damaged ({why}); Vyre will not write over it. "
        "`vyre doctor` says what is wrong, `vyre doctor --repair` rebuilds it (keeping a copy)"
    )


def as_ledger_error(exc: sqlite3.Error, path: Path) -> LedgerError | None:
    """The ledger error a SQLite error means, or None for one that is a bug of ours."""
    text = str(exc)
    if type(exc) is sqlite3.DatabaseError:  # SQLITE_CORRUPT, SQLITE_NOTADB and the like
        return damaged(path, text)
    if isinstance(exc, sqlite3.OperationalError):
        if "locked" in text or "busy" in text:
            return LedgerBusy(f"the ledger {path} is locked by another process; try again shortly")
        if "malformed" in text or "disk" in text or "unable to open" in text:
            return LedgerError(f"the ledger {path} cannot be used: {text}")
    return None


class _Cursor(sqlite3.Cursor):
    """A cursor whose reads say which ledger is damaged, rather than raise raw SQLite."""

    connection: _Connection

    def _fail(self, exc: sqlite3.Error) -> Exception:
        return as_ledger_error(exc, self.connection.path) or exc

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self._run(super().execute, sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> _Cursor:
        return self._run(super().executemany, sql, seq_of_parameters)

    def _run(self, step: Callable[[str, Any], _Cursor], sql: str, args: Any) -> _Cursor:
        self.connection.note(sql)
        try:
            return step(sql, args)
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc
        finally:
            self.connection.after()

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(size if size is not None else self.arraysize)
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.Error as exc:
            raise self._fail(exc) from exc


class _Connection(sqlite3.Connection):
    """The ledger's connection: translated errors, and a backup after the user's writes."""

    path: Path = Path()
    user_writes: re.Pattern | None = None  # a write to one of the user's tables
    judged: dict[str, bool]  # statement -> whether it matches `user_writes`
    dirty = False
    on_user_write: Callable[[], None] | None = None

    def cursor(self, factory: Any = _Cursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> _Cursor:
        return self.cursor().executemany(sql, parameters)

    def note(self, sql: str) -> None:
        if self.user_writes is None:
            return
        # a statement's text is one of few (ingest runs the same ones thousands of times):
        # the pattern's scan of it is remembered, not run again for every row
        writes = self.judged.get(sql)
        if writes is None:
            writes = self.user_writes.match(sql) is not None
            if len(self.judged) >= 4096:
                self.judged.clear()
            self.judged[sql] = writes
        if writes:
            self.dirty = True

    def after(self) -> None:
        """Once a write to the user's rows is committed, keep a backup of them."""
        if self.dirty and not self.in_transaction and self.on_user_write is not None:
            self.dirty = False
            self.on_user_write()


class Ledger:
    def __init__(self, path: Path, *, busy_timeout_ms: int = 5000):
        self.path = path
        self._backup_digest: str | None = None
        created = not path.exists() and not path.is_symlink()
        if created:
            _create(path)
        try:
            if path.stat().st_size == 0:
                raise damaged(path, "it is empty: 0 bytes")
            self.db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, factory=_Connection
            )
            self.db.path = path
            self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA cache_size = -65536")  # 64 MiB: FTS merges thrash a small cache
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
            self._watch_user_rows()
        except sqlite3.Error as exc:
            raise as_ledger_error(exc, path) or damaged(path, str(exc)) from exc
        except OSError as exc:
            raise LedgerError(f"the ledger {path} cannot be opened: {exc.strerror}") from exc
        if not path.is_symlink():  # never chmod through a link
            path.chmod(0o600)
        if not created and not backup.backups(path.parent):
            self.backup()  # rows from before backups were kept (every write since is kept)

    # -- the user's rows ------------------------------------------------------------------

    def _watch_user_rows(self) -> None:
        names = backup.registered(self.db)
        if names:
            alternatives = "|".join(re.escape(n) for n in names)
            self.db.judged = {}
            self.db.user_writes = re.compile(
                rf"\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b[^;]*?\b(?:{alternatives})\b",
                re.IGNORECASE | re.DOTALL,
            )
        self.db.on_user_write = self.backup

    def backup(self, *, force: bool = False) -> None:
        """Refresh the rolling backup of the user's rows if they changed (`force`: compare
        with the newest file, not what this process last wrote). A backup that cannot be
        written never fails the write it follows (`vyre doctor` reports a stale one)."""
        known = None if force else self._backup_digest
        try:
            self._backup_digest = backup.keep(self.db, self.path.parent, known)
        except (OSError, LedgerError) as exc:
            print(f"vyre: could not back up your projects and corrections: {exc}", file=sys.stderr)

    @classmethod
    def read_only(cls, path: Path) -> Ledger:
        """A connection that only reads, for a reader beside the writer (a daemon's socket
        thread): in WAL mode it sees the last committed state, and neither waits for the
        writer nor makes it wait. Temporary tables still work. One thread at a time."""
        self = cls.__new__(cls)
        self.path = path
        self._backup_digest = None
        try:
            self.db = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro",
                uri=True,
                isolation_level=None,
                check_same_thread=False,
                factory=_Connection,
            )
            self.db.path = path
            self.db.execute("PRAGMA busy_timeout = 1000")
            self.db.execute("PRAGMA cache_size = -16384")
        except sqlite3.Error as exc:
            raise LedgerError(f"the ledger at {path} is not readable: {exc}") from exc
        return self

    def close(self) -> None:
        self.db.close()

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; everything in it lands together or not at all."""
        self.db.execute("BEGIN IMMEDIATE")  # a busy ledger raises LedgerBusy
        try:
            yield self.db
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")

    def _migrate(self) -> None:
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)"
        )
        done = {row[0] for row in self.db.execute("SELECT id FROM migrations")}
        for name, sql in MIGRATIONS:
            if name in done:
                continue
            with self.transaction() as db:
                for statement in _statements(sql):
                    db.execute(statement)
                db.execute(
                    "INSERT INTO migrations (id, applied) VALUES (?, datetime('now'))", (name,)
                )

    # -- search ---------------------------------------------------------------------------

    @staticmethod
    def index_turns(db: sqlite3.Connection) -> None:
        """Add the turns stored since the last time to recall's search index
        (vyre/ledger/search.py keeps the mark), in bulk: a trigger per row costs twice as
        much on a large ingest."""
        search.index_new(db)

    def catch_up_search(self) -> bool:
        """Index what is not indexed yet (a ledger from before the index, turns stored by a
        process that did not index). False when another process holds the write lock."""
        if not search.behind(self.db):
            return True
        try:
            with self.transaction() as db:
                search.index_new(db)
        except LedgerBusy:
            return False
        return True

    # -- meta ---------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- projects -----------------------------------------------------------------------

    def projects(self) -> list[dict]:
        rows = self.db.execute("SELECT slug, name, org FROM projects ORDER BY slug").fetchall()
        folders: dict[str, list[str]] = {}
        for slug, folder in self.db.execute(
            "SELECT slug, folder FROM project_folders ORDER BY slug, folder"
        ):
            folders.setdefault(slug, []).append(folder)
        picks: dict[str, list[str]] = {}
        for slug, session in self.db.execute("SELECT slug, session FROM picks ORDER BY 1, 2"):
            picks.setdefault(slug, []).append(session)
        return [
            {
                "slug": slug,
                "name": name,
                "org": org,
                "folders": folders.get(slug, []),
                "picks": picks.get(slug, []),
            }
            for slug, name, org in rows
        ]

    # -- sessions and turns -------------------------------------------------------------

    def sessions(self) -> list[dict]:
        cols = ("id", "parent", "cwd", "title", "first_ts", "last_ts", "sidechain", "version")
        rows = self.db.execute(f"SELECT {', '.join(cols)} FROM sessions ORDER BY id").fetchall()
        return [dict(zip(cols, row, strict=True)) for row in rows]

    def session(self, session_id: str) -> dict | None:
        return next((s for s in self._sessions_where("id = ?", session_id)), None)

    def _sessions_where(self, where: str, *args: object) -> Iterable[dict]:
        cols = ("id", "parent", "cwd", "title", "first_ts", "last_ts", "sidechain", "version")
        for row in self.db.execute(f"SELECT {', '.join(cols)} FROM sessions WHERE {where}", args):
            yield dict(zip(cols, row, strict=True))

    def turn(self, session: str, seq: int) -> dict | None:
        row = self.db.execute(
            "SELECT session, seq, ts, role, by, kind, text FROM turns "
            "WHERE session = ? AND seq = ?",
            (session, seq),
        ).fetchone()
        if not row:
            return None
        keys = ("session", "seq", "ts", "role", "by", "kind", "text")
        return dict(zip(keys, row, strict=True))

    def session_names(self, sessions: Iterable[str]) -> dict[str, str]:
        """Each session's title, else the first words the person typed in it, else its id."""
        ids = sorted(set(sessions))
        out: dict[str, str] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            marks = ", ".join("?" * len(chunk))
            for sid, title in self.db.execute(
                f"SELECT id, title FROM sessions WHERE id IN ({marks})", chunk
            ):
                if title:
                    out[sid] = _clip(title)
        for sid in ids:
            if sid in out:
                continue
            # the (session, seq) index walks to the first typed prompt and stops there
            row = self.db.execute(
                "SELECT text FROM turns WHERE session = ? AND by = 'person' ORDER BY seq LIMIT 1",
                (sid,),
            ).fetchone()
            if row:
                out[sid] = _clip(row[0])
        return {sid: out.get(sid, f"session {sid[:8]}") for sid in ids}

    def thread(self, session: str, seq: int, window: int) -> Thread:
        from vyre.errors import MemoryUseError
        from vyre.models import Thread, TurnView

        meta = self.session(session)
        if meta is None:
            raise MemoryUseError(f"no session {session!r} in memory")
        rows = self.db.execute(
            "SELECT seq, ts, role, by, kind, text FROM turns WHERE session = ? "
            "AND seq BETWEEN ? AND ? ORDER BY seq",
            (session, seq - window, seq + window),
        ).fetchall()
        lo, hi = self.db.execute(
            "SELECT min(seq), max(seq) FROM turns WHERE session = ?", (session,)
        ).fetchone()
        turns = tuple(
            TurnView(seq=r[0], ts=ts_value(r[1]), role=r[2], by=r[3], kind=r[4], text=r[5])
            for r in rows
        )
        first = turns[0].seq if turns else seq
        last = turns[-1].seq if turns else seq
        return Thread(
            session=session,
            title=meta["title"],
            cwd=meta["cwd"],
            turns=turns,
            before=max(lo, first - window) if lo is not None and lo < first else None,
            after=min(hi, last + window) if hi is not None and hi > last else None,
        )

    def turn_counts(self) -> dict[str, int]:
        return dict(self.db.execute("SELECT by, count(*) FROM turns GROUP BY by"))

    def mentions(self, sessions: Iterable[str]) -> list[tuple]:
        """Mention rows for these sessions, in (session, seq) order."""
        ids = sorted(set(sessions))
        if not ids:
            return []
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (id TEXT PRIMARY KEY)")
        self.db.execute("DELETE FROM wanted")
        self.db.executemany("INSERT INTO wanted (id) VALUES (?)", ((i,) for i in ids))
        # the wanted sessions first, each looked up by the index: a room's few thousand rows,
        # not a walk of every mention in the home (the planner's own choice at 30,000 sessions)
        return self.db.execute(
            "SELECT m.session, m.seq, m.rule, m.subject, m.subject_kind, m.rel, m.object, "
            "m.object_kind, m.quote, m.ts FROM wanted w CROSS JOIN mentions m "
            "ON m.session = w.id ORDER BY m.session, m.seq, m.rule, m.subject, m.rel, m.object"
        ).fetchall()


def _clip(text: str) -> str:
    return clip(text, TITLE_CHARS)


def _statements(sql: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies whole."""
    out, buf = [], []
    for line in sql.strip().splitlines():
        buf.append(line)
        text = "\n".join(buf).strip()
        if sqlite3.complete_statement(text):
            out.append(text)
            buf = []
    return [s for s in out if s.strip(" ;\n")]


def _create(path: Path) -> None:
    """A new ledger, made whole in a temp file and linked into place: a crash leaves no
    0-byte `vyre.db`, and of two processes creating one at once, one ledger wins."""
    tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("CREATE TABLE migrations (id TEXT PRIMARY KEY, applied TEXT NOT NULL)")
    finally:
        db.close()
    tmp.chmod(0o600)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another process made it first: theirs is the ledger
    finally:
        tmp.unlink(missing_ok=True)
