"""Replies kept by the question's hash: the same question over the same memory gets the same
reply (answer, confidence, sources), and costs a lookup.

A reply is kept under its key: the hash of the question as asked, its room, the reader (none
without a model), the day it was asked, and marks that name the memory it was answered from:
- the room's turns: recall's index mark when one of the room's sessions last changed, and the
  projects that place sessions in the room;
- the room's graph: the digest it was derived from;
- the person's own words: what they said of their life (`personal_said`, found again when a
  turn changes), what they told memory and their corrections (the highest row and the undone
  count of `remembered`, `answer_fixes` and `memory_corrections`).
Whatever an answer can read changes one of them, so a changed memory or correction is a new
key and the old reply is never served again (it ages out of the bounded store). The day is in
the key because decay and deadlines are computed when read: a kept reply carries at most a
day of decay, and is the same all day.

What must stay true:
- Kept in this process only (the daemon keeps them for every caller): nothing is written, and
  the question itself is not kept, only its hash (no question text in logs or events).
- A correction takes effect on the next ask: its mark is read before any kept reply.
- Marks are read again only after something was written to the ledger (`recall.seen`);
  otherwise a lookup costs one query.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from datetime import datetime
from typing import TYPE_CHECKING

from vyre.ask import recall
from vyre.ask.reply import AskReply

if TYPE_CHECKING:
    from vyre.api import Memory

KEPT_MOST = 1024  # replies kept per home (a few MB at most)

Key = tuple[object, ...]

_lock = threading.Lock()
_replies: dict[str, OrderedDict[Key, AskReply]] = {}
# ledger path -> (its write mark, the person's marks, room -> the room's marks)
_marks: dict[str, tuple[tuple[int, int, int], tuple[int, ...], dict[str, tuple]]] = {}

_TOLD = (
    "SELECT (SELECT coalesce(max(id), 0) FROM remembered), "
    "(SELECT count(undone) FROM remembered), "
    "(SELECT coalesce(max(id), 0) FROM answer_fixes), "
    "(SELECT count(undone) FROM answer_fixes), "
    "(SELECT coalesce(max(id), 0) FROM memory_corrections), "
    "(SELECT count(undone) FROM memory_corrections), "
    "(SELECT coalesce(max(rowid), 0) FROM personal_said), "
    "(SELECT count(*) FROM personal_said)"
)


def key(memory: Memory, question: str, room: str, now: datetime, reader: str) -> Key:
    """The key a reply to `question` in `room` is kept under now."""
    asked = hashlib.blake2b(question.encode(), digest_size=16).digest()
    return (asked, room, reader, now.date().isoformat(), *version(memory, room))


def version(memory: Memory, room: str) -> tuple:
    """Marks that change whenever anything an answer in `room` reads changes."""
    ledger = memory.ledger
    path = str(ledger.path)
    recall.projects(ledger)  # brings the index up to date first (it may write)
    seen = recall.seen(ledger)
    held = _marks.get(path)
    if held is None or held[0] != seen:
        told = tuple(int(v) for v in ledger.db.execute(_TOLD).fetchone())
        held = (seen, told, {})
        _marks[path] = held
    rooms = held[2]
    if room not in rooms:
        rooms[room] = (*recall.marks(ledger, room), _digest(memory, room))
    return (*held[1], *rooms[room])


def _digest(memory: Memory, room: str) -> str:
    try:
        return memory.reader.room(memory.check_room(room)).digest
    except Exception:  # a room with no graph: the same as ask's fact step reads
        return ""


def get(memory: Memory, at: Key) -> AskReply | None:
    with _lock:
        kept = _replies.get(str(memory.ledger.path))
        if kept is None or at not in kept:
            return None
        kept.move_to_end(at)
        return kept[at]


def put(memory: Memory, at: Key, reply: AskReply) -> None:
    with _lock:
        kept = _replies.setdefault(str(memory.ledger.path), OrderedDict())
        kept[at] = reply
        while len(kept) > KEPT_MOST:
            kept.popitem(last=False)  # the reply asked for longest ago


def forget(memory: Memory) -> None:
    """Drop every kept reply and mark of this home (tests; a home opened again)."""
    path = str(memory.ledger.path)
    with _lock:
        _replies.pop(path, None)
        _marks.pop(path, None)


__all__ = ["KEPT_MOST", "forget", "get", "key", "put", "version"]
