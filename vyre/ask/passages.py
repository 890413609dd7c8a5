"""Turns for a question, ranked: a stand-in for `vyre.ask.recall.search` (issue 10, recall)
until it lands, with the same shape of hit. BM25 over the searched turns (FTS5), the
question's content words OR-ed, narrowed to the room's sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from vyre.ask.question import STOP, words
from vyre.ledger.store import ts_value
from vyre.resolve import fold

if TYPE_CHECKING:
    from vyre.api import Memory


@dataclass(frozen=True)
class Hit:
    session: str
    seq: int
    role: str
    by: str
    text: str
    ts: datetime | None
    score: float


def search(memory: Memory, query: str, *, sessions: frozenset[str], limit: int = 10) -> list[Hit]:
    terms = sorted({fold(w).replace('"', "") for w in words(query) if fold(w) not in STOP})
    if not terms:
        return []
    match = " OR ".join(f'"{t}"' for t in terms)
    rows = memory.ledger.db.execute(
        "SELECT t.session, t.seq, t.role, t.by, t.text, t.ts, bm25(turns_fts) AS r "
        "FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid WHERE turns_fts MATCH ? "
        "AND t.sidechain = 0 ORDER BY r, t.session, t.seq LIMIT 2000",
        (match,),
    ).fetchall()
    out = [
        Hit(s, q, role, by, text, ts_value(ts), -r)
        for s, q, role, by, text, ts, r in rows
        if s in sessions
    ]
    return out[:limit]
