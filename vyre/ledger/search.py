"""The search index over what was said: SQLite FTS5 in the ledger, kept up to date by ingest.

Recall (`vyre.ask.recall`) reads it; ingest feeds it through `Ledger.index_turns`, once per
batch, in the batch's own transaction. What must stay true:

- It covers the person's and the assistant's text in main sessions (`SEARCHED`): tool output,
  program text and subagent (sidechain) turns are stored in the ledger, never searched.
- Words are stemmed (FTS5's Porter tokenizer over unicode61, diacritics folded), so "painted"
  finds "painting".
- A document's rowid carries what ranking needs without a lookup: the session's number, the
  turn's place among that session's searched turns (so the turns before and after it are the
  rowids beside it), who said it and whether it asks something. `Doc` unpacks it.
- Each document also has a `scope` column of tokens that place it in rooms without naming
  any room: one per folder holding the session's `cwd`, one for the session, and `all`.
  Projects and picks can change at any time and the index never has to: a room's query
  names its folders and picks (`Scope.expression`). A session's tokens change only when its
  `cwd` first becomes known, and then its documents are written again.
- The index is contentless (no second copy of the text); a turn deleted from the ledger (a
  rewritten file, an assistant message continued in a later batch) takes its document with
  it (trigger `recall_turn_gone`), and the session is written again at the next batch, so a
  document's neighbours are always its neighbours.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass

# Which turns search covers: what was said, by the person or the assistant, in main sessions.
SEARCHED = "t.by IN ('person', 'agent') AND t.kind = 'text' AND t.sidechain = 0"

# rowid = session number << SESSION_SHIFT | place << PLACE_SHIFT | person << 1 | asks
SESSION_SHIFT = 22
PLACE_SHIFT = 2
MAX_PLACE = (1 << (SESSION_SHIFT - PLACE_SHIFT)) - 1  # a session's turns past this go unsearched


@dataclass(frozen=True, slots=True)
class Doc:
    """What a document's rowid says about its turn."""

    rowid: int

    @property
    def session(self) -> int:
        return self.rowid >> SESSION_SHIFT

    @property
    def place(self) -> int:
        """The session number and the turn's place in it: neighbours differ by one."""
        return self.rowid >> PLACE_SHIFT

    @property
    def person(self) -> bool:
        return bool(self.rowid & 2)

    @property
    def asks(self) -> bool:
        return bool(self.rowid & 1)


def rowid(session_no: int, place: int, *, person: bool, asks: bool) -> int:
    return (session_no << SESSION_SHIFT) | (place << PLACE_SHIFT) | (person << 1) | int(asks)


def asks(text: str) -> bool:
    """A turn that ends on a question: its answer is the turn after it."""
    return text.rstrip().endswith("?")


# -- scope tokens ------------------------------------------------------------------------------


def _token(kind: str, value: str) -> str:
    # Digits last: the Porter stemmer leaves a token ending in a digit as it is.
    return kind + str(int.from_bytes(hashlib.blake2b(value.encode(), digest_size=7).digest()))


def folder_token(folder: str) -> str:
    folder = folder.rstrip("/") or "/"
    return _token("f", folder)


def session_token(session: str) -> str:
    return _token("s", session)


def scope_text(session: str, cwd: str | None) -> str:
    """`all`, the session, and every folder from `/` down to the session's cwd."""
    tokens = ["all", session_token(session)]
    if cwd and cwd.startswith("/"):
        parts = [p for p in cwd.split("/") if p]
        tokens.append(folder_token("/"))
        tokens.extend(folder_token("/" + "/".join(parts[: i + 1])) for i in range(len(parts)))
    return " ".join(tokens)


# -- keeping it up to date ---------------------------------------------------------------------


# The sessions an index_new writes: the stale ones (their partial index, m020) and those with
# new turns (by rowid range, then by the session's own index): never a scan of every session.
STALE_OR_NEW = (
    "SELECT no, session, scope, places, dirty FROM recall_sessions WHERE dirty = 1 "
    "OR session IN (SELECT DISTINCT session FROM turns NOT INDEXED WHERE id > ?)"
)
ANY_STALE = "SELECT 1 FROM recall_sessions WHERE dirty = 1 LIMIT 1"


def index_new(db: sqlite3.Connection) -> int:
    """Index every searched turn stored since the last call (all of them the first time, so
    a ledger from before this index catches up on its next ingest). Sessions whose documents
    went stale (a deleted turn, a cwd learned late) are written again whole. Runs inside the
    caller's transaction. Returns the documents written."""
    mark = int(_meta(db, "recall.turn") or 0)
    top = db.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0]
    if top <= mark and not _dirty(db):
        return 0
    # NOT INDEXED: the new turns by their rowid range; the planner otherwise walks the whole
    # (session, seq) index for its order (0.3 s at 2 M turns for a session's few new turns)
    rows = db.execute(
        "SELECT t.id, t.session, t.by, t.text, s.cwd FROM turns t NOT INDEXED "
        f"LEFT JOIN sessions s ON s.id = t.session WHERE t.id > ? AND {SEARCHED} "
        "ORDER BY t.session, t.seq",
        (mark,),
    ).fetchall()
    known = {
        session: [no, scope, places, dirty]
        for no, session, scope, places, dirty in db.execute(STALE_OR_NEW, (mark,))
    }
    cwds: dict[str, str | None] = {}
    for _, session, _, _, cwd in rows:
        cwds[session] = cwds.get(session) or cwd
    stale = {s for s, (_, _, _, dirty) in known.items() if dirty}
    stale |= {
        s for s, (_, scope, _, _) in known.items() if s in cwds and scope != scope_text(s, cwds[s])
    }
    docs: list[tuple] = []
    for turn, session, by, text, _ in rows:
        if session in stale:
            continue
        if session not in known:
            scope = scope_text(session, cwds[session])
            no = db.execute(
                "INSERT INTO recall_sessions (session, scope) VALUES (?, ?)", (session, scope)
            ).lastrowid
            known[session] = [no, scope, 0, 0]
        entry = known[session]
        if entry[2] > MAX_PLACE:
            continue
        docs.append(_doc(entry[0], entry[2], turn, by, text, entry[1]))
        entry[2] += 1
    _write(db, docs)
    db.executemany(
        "UPDATE recall_sessions SET places = ?, changed = ? WHERE no = ?",
        [(places, top, no) for s, (no, _, places, _) in known.items() if s not in stale],
    )
    written = len(docs)
    for session in sorted(stale):
        no, scope = known[session][:2]
        written += _rewrite(db, session, no, scope, top)
    _set_meta(db, "recall.turn", str(top))
    return written


def _doc(no: int, place: int, turn: int, by: str, text: str, scope: str) -> tuple:
    """(rowid, text, scope, turn, words) for one document."""
    ident = rowid(no, place, person=by == "person", asks=asks(text))
    return ident, text, scope, turn, len(text.split())


def _write(db: sqlite3.Connection, docs: list[tuple]) -> None:
    db.executemany(
        "INSERT INTO recall_fts (rowid, text, scope) VALUES (?, ?, ?)", [d[:3] for d in docs]
    )
    db.executemany(
        "INSERT INTO recall_docs (id, turn, words) VALUES (?, ?, ?)",
        [(d[0], d[3], d[4]) for d in docs],
    )


def _rewrite(db: sqlite3.Connection, session: str, no: int, old_scope: str, mark: int) -> int:
    """Write a session's documents again from its turns (new places, current scope)."""
    lo, hi = no << SESSION_SHIFT, ((no + 1) << SESSION_SHIFT) - 1
    for doc, text in db.execute(
        "SELECT d.id, t.text FROM recall_docs d JOIN turns t ON t.id = d.turn "
        "WHERE d.id BETWEEN ? AND ?",
        (lo, hi),
    ).fetchall():
        db.execute(
            "INSERT INTO recall_fts (recall_fts, rowid, text, scope) VALUES ('delete', ?, ?, ?)",
            (doc, text, old_scope),
        )
    db.execute("DELETE FROM recall_docs WHERE id BETWEEN ? AND ?", (lo, hi))
    rows = db.execute(
        f"SELECT t.id, t.by, t.text, s.cwd FROM turns t LEFT JOIN sessions s ON s.id = t.session "
        f"WHERE t.session = ? AND {SEARCHED} ORDER BY t.seq",
        (session,),
    ).fetchall()
    scope = scope_text(session, next((r[3] for r in rows if r[3]), None))
    docs = [
        _doc(no, place, turn, by, text, scope)
        for place, (turn, by, text, _) in enumerate(rows[: MAX_PLACE + 1])
    ]
    _write(db, docs)
    db.execute(
        "UPDATE recall_sessions SET scope = ?, places = ?, dirty = 0, changed = ? WHERE no = ?",
        (scope, len(docs), mark, no),
    )
    return len(docs)


def behind(db: sqlite3.Connection) -> bool:
    """Turns are stored that the index does not have yet."""
    top = db.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0]
    return top > int(_meta(db, "recall.turn") or 0) or _dirty(db)


def _dirty(db: sqlite3.Connection) -> bool:
    return db.execute(ANY_STALE).fetchone() is not None


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def generation(db: sqlite3.Connection) -> str:
    """Changes whenever the index does (for caches of what depends on it)."""
    return _meta(db, "recall.turn") or "0"
