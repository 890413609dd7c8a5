"""The user's word on memory: corrections, pins, mutes, merges and splits, as ledger rows.

What must stay true (ADR 0007 §4):
- Every decision is a row; undo marks it undone and nothing else, so undoing every row gives
  back exactly the graph from before.
- Only owner callers (`cli` at a real terminal, `deck`, `local`) may write or undo one; a
  session, a hook, an MCP tool or an agent never can.
- The `corrected` event carries ids, kinds and the prior rule, never labels, node ids,
  addresses, notes or session ids.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING

from vyre.callers import require_owner
from vyre.errors import CorrectionError
from vyre.ledger.store import Ledger, ts_text, ts_value
from vyre.vocabulary import ACTIONS

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Correction

_COLUMNS = (
    "id",
    "kind",
    "action",
    "scope",
    "subject",
    "subject_label",
    "subject_kind",
    "rel",
    "object",
    "object_label",
    "object_kind",
    "value",
    "at",
    "note",
    "created",
    "undone",
    "prior_source",
    "prior_rule",
    "prior_confidence",
)


def record(ledger: Ledger, row: dict, *, caller: str, created: datetime) -> Correction:
    """Store one decision (and, for a correction, its event). Returns the stored row."""
    require_owner(caller)
    if row["kind"] == "correct" and row.get("action") not in ACTIONS:
        raise CorrectionError(f"--action must be one of {', '.join(ACTIONS)}")
    values = {c: row.get(c) for c in _COLUMNS if c not in ("id", "created", "undone")}
    values["at"] = ts_text(values["at"]) if isinstance(values["at"], datetime) else values["at"]
    with ledger.transaction() as db:
        cur = db.execute(
            f"INSERT INTO memory_corrections ({', '.join(values)}, created) "
            f"VALUES ({', '.join('?' * len(values))}, ?)",
            (*values.values(), ts_text(created)),
        )
        cid = cur.lastrowid
        assert cid is not None  # an INSERT always has one
        if row["kind"] == "correct":
            _event(
                db,
                created,
                "corrected",
                {
                    "id": cid,
                    "action": row["action"],
                    "rel": row.get("rel"),
                    "scope": "all" if row["scope"] == "*" else "project",
                    "prior_source": row.get("prior_source"),
                    "prior_rule": row.get("prior_rule"),
                    "prior_confidence": row.get("prior_confidence"),
                },
            )
        elif row["kind"] in ("merge", "split"):
            _event(db, created, "merged" if row["kind"] == "merge" else "split", {"id": cid})
    return get(ledger, cid)


def undo(ledger: Ledger, cid: int, *, caller: str, when: datetime) -> Correction:
    require_owner(caller)
    current = get(ledger, cid)
    if current.undone:
        raise CorrectionError(f"correction {cid} is already undone")
    with ledger.transaction() as db:
        db.execute("UPDATE memory_corrections SET undone = ? WHERE id = ?", (ts_text(when), cid))
        _event(db, when, "uncorrected", {"id": cid, "kind": current.kind})
    return get(ledger, cid)


def get(ledger: Ledger, cid: int) -> Correction:
    row = ledger.db.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM memory_corrections WHERE id = ?", (cid,)
    ).fetchone()
    if row is None:
        raise CorrectionError(f"no correction {cid} (see `vyre memory corrections`)")
    return _model(row)


def listing(ledger: Ledger, *, undone: bool = True) -> list[Correction]:
    where = "" if undone else " WHERE undone IS NULL"
    rows = ledger.db.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM memory_corrections{where} ORDER BY id"
    ).fetchall()
    return [_model(r) for r in rows]


def active(ledger: Ledger) -> list[Correction]:
    return listing(ledger, undone=False)


def events(ledger: Ledger, kind: str | None = None) -> list[dict]:
    rows = ledger.db.execute(
        "SELECT kind, data FROM events" + (" WHERE kind = ?" if kind else "") + " ORDER BY id",
        (kind,) if kind else (),
    ).fetchall()
    return [{"kind": k, **json.loads(d)} for k, d in rows]


def _event(db: sqlite3.Connection, when: datetime, kind: str, data: dict) -> None:
    db.execute(
        "INSERT INTO events (ts, kind, data) VALUES (?, ?, ?)",
        (ts_text(when), kind, json.dumps(data, sort_keys=True)),
    )


def _model(row: tuple) -> Correction:
    from vyre.models import Correction

    data = dict(zip(_COLUMNS, row, strict=True))
    for key in ("at", "created", "undone"):
        data[key] = ts_value(data[key])
    return Correction(**data)
