"""The person corrects memory's answers where they appear, and tells memory about their life.

- `correct(answer, "replace", object)`: the same question gets the person's answer at once
  (`via: corrected`, source "your correction"). For a personal answer ("your wife is ..."),
  the text is also told to memory (`remember`), so "who is my wife" has it too.
- `correct(answer, "wrong")`: that answer is never given to that question again; ask says
  "You said ... is wrong." and tries again when memory learns something new.
- `correct(answer, "forget")`: the turns the answer cited never ground an answer again, and
  the personal facts they said stop counting.
- `undo(fix)` undoes any of them (the told row included). Rows are marked undone, never
  deleted. Owner callers only: a model's callers never correct memory.
Events carry ids, actions and kinds, never the question or the answer.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from datetime import datetime

from vyre.ask import personal
from vyre.callers import require_owner
from vyre.errors import CorrectionError
from vyre.ledger import Ledger
from vyre.ledger.store import ts_text

ACTIONS = ("replace", "wrong", "forget")


def remember(ledger: Ledger, text: str, *, caller: str, when: datetime) -> dict:
    """Store what the person tells memory about their life; refuse what it cannot read."""
    require_owner(caller)
    try:
        fact = personal.parse_told(text)
    except ValueError as exc:
        raise CorrectionError(f"memory could not read that as a fact: {exc}") from None
    with ledger.transaction() as db:
        rid = _remember_row(db, fact, text, caller, when)
        _event(db, when, "remembered", {"id": rid, "attr": fact.attr})
    return {
        "id": rid,
        "fact": fact.sentence(),
        "who": fact.who,
        "attr": fact.attr,
        "value": fact.value,
    }


def _remember_row(
    db: sqlite3.Connection, fact: personal.PersonalFact, text: str, caller: str, when: datetime
) -> int:
    cur = db.execute(
        "INSERT INTO remembered (who, attr, value, at, text, caller, created) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (fact.who, fact.attr, fact.value, fact.at, text.strip(), caller, ts_text(when)),
    )
    return int(cur.lastrowid or 0)


def correct(
    ledger: Ledger, answer: str, action: str, value: str | None, *, caller: str, when: datetime
) -> dict:
    require_owner(caller)
    if action not in ACTIONS:
        raise CorrectionError(
            f"an answer can be corrected with {', '.join(ACTIONS)}, not {action!r}"
        )
    row = ledger.db.execute(
        "SELECT id, qkey, room, kind, answer, via, sources FROM answers WHERE id = ?", (answer,)
    ).fetchone()
    if row is None:
        raise CorrectionError(f"no answer {answer!r} (answer ids come with each reply)")
    _, qkey, room, kind, text, _via, sources = row
    if action == "replace" and not (value and value.strip()):
        raise CorrectionError("replace needs the right answer (--object)")
    if action in ("wrong", "forget") and text.startswith("Not sure yet"):
        raise CorrectionError(f"{action} corrects an answer; this reply gave none")
    with ledger.transaction() as db:
        told = None
        if action == "replace" and kind == "personal":
            try:
                fact = personal.parse_told(value or "")
            except ValueError:
                fact = None
            if fact is not None:
                told = _remember_row(db, fact, value or "", caller, when)
        cur = db.execute(
            "INSERT INTO answer_fixes (answer, qkey, room, kind, action, object, wrong, sources, "
            "remembered, caller, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                answer,
                qkey,
                room,
                kind,
                action,
                value.strip() if value else None,
                text if action == "wrong" else None,
                sources if action == "forget" else "[]",
                told,
                caller,
                ts_text(when),
            ),
        )
        fix = int(cur.lastrowid or 0)
        _event(db, when, "answer_corrected", {"fix": fix, "action": action, "kind": kind})
    return {"fix": fix, "answer": answer, "action": action, "kind": kind, "remembered": told}


def undo(ledger: Ledger, fix: int, *, caller: str, when: datetime) -> dict:
    require_owner(caller)
    row = ledger.db.execute(
        "SELECT id, action, remembered, undone FROM answer_fixes WHERE id = ?", (fix,)
    ).fetchone()
    if row is None:
        raise CorrectionError(f"no answer correction {fix}")
    if row[3]:
        raise CorrectionError(f"answer correction {fix} is already undone")
    with ledger.transaction() as db:
        db.execute("UPDATE answer_fixes SET undone = ? WHERE id = ?", (ts_text(when), fix))
        if row[2]:
            db.execute(
                "UPDATE remembered SET undone = ? WHERE id = ? AND undone IS NULL",
                (ts_text(when), row[2]),
            )
        _event(db, when, "answer_uncorrected", {"fix": fix, "action": row[1]})
    return {"fix": fix, "undone": True}


def listing(ledger: Ledger) -> dict:
    cols = ("id", "answer", "kind", "action", "object", "wrong", "created", "undone")
    rows = [
        dict(zip(cols, r, strict=True))
        for r in ledger.db.execute(
            f"SELECT {', '.join(cols)} FROM answer_fixes ORDER BY id"
        ).fetchall()
    ]
    active = [r for r in rows if not r["undone"]]
    return {
        "answers": rows,
        "by_kind": dict(sorted(Counter(r["kind"] for r in active).items())),
        "by_action": dict(sorted(Counter(r["action"] for r in active).items())),
    }


def _event(db: sqlite3.Connection, when: datetime, kind: str, data: dict) -> None:
    db.execute(
        "INSERT INTO events (ts, kind, data) VALUES (?, ?, ?)",
        (ts_text(when), kind, json.dumps(data, sort_keys=True)),
    )


__all__ = ["ACTIONS", "correct", "listing", "remember", "undo"]
