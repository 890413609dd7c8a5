"""The ledger store: opens `vyre.db`, migrates on construction, writes in transactions.

It is the source of truth. The graph is derived from it and can always be rebuilt.
WAL mode lets short-lived readers (hooks, a second CLI) read while one process writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from vyre.errors import LedgerBusy, LedgerError
from vyre.ledger import search
from vyre.ledger.migrations import MIGRATIONS

if TYPE_CHECKING:
    from vyre.models import Thread

# Which turns turns_fts covers: what was said, by the person or the assistant.
SEARCHED = "by IN ('person', 'agent') AND kind = 'text'"


def ts_text(value: datetime | None) -> str | None:
    return value.isoformat(timespec="microseconds") if value else None


def ts_value(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


class Ledger:
    def __init__(self, path: Path, *, busy_timeout_ms: int = 5000):
        self.path = path
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = NORMAL")
            self.db.execute("PRAGMA cache_size = -65536")  # 64 MiB: FTS merges thrash a small cache
            self.db.execute("PRAGMA foreign_keys = ON")
            self._migrate()
        except sqlite3.OperationalError as exc:
            raise _translate(exc, path) from exc
        except sqlite3.DatabaseError as exc:
            raise LedgerError(f"the ledger at {path} is not readable: {exc}") from exc
        path.chmod(0o600)

    def close(self) -> None:
        self.db.close()

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; everything in it lands together or not at all."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _translate(exc, self.path) from exc
        try:
            yield self.db
        except BaseException:
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
    def index_turns(db: sqlite3.Connection, *, after: int) -> None:
        """Add turns stored after row `after` to the search indexes, in bulk (a trigger per
        row costs twice as much on a large ingest): turns_fts (words as written, which
        `memory ask` reads) and recall's (vyre/ledger/search.py, which keeps its own mark)."""
        db.execute(
            "INSERT INTO turns_fts (rowid, text) SELECT id, text FROM turns "
            f"WHERE id > ? AND {SEARCHED}",
            (after,),
        )
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
        return self.db.execute(
            "SELECT m.session, m.seq, m.rule, m.subject, m.subject_kind, m.rel, m.object, "
            "m.object_kind, m.quote, m.ts FROM mentions m JOIN wanted w ON w.id = m.session "
            "ORDER BY m.session, m.seq, m.rule, m.subject, m.rel, m.object"
        ).fetchall()


def _clip(text: str, most: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= most else line[: most - 1].rsplit(" ", 1)[0] + "…"


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


def _translate(exc: sqlite3.OperationalError, path: Path) -> LedgerError:
    if "locked" in str(exc) or "busy" in str(exc):
        return LedgerBusy(f"the ledger {path} is locked by another process; try again shortly")
    return LedgerError(f"the ledger {path} cannot be used: {exc}")
