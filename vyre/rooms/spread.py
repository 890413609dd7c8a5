"""Many stale rooms derived at once by forked worker processes (a first build, `vyre derive
--all`), each room's file written by the worker that derived it.

After a first build a third of the time went to deriving 32 rooms and writing their files one
after the other, on one core. Each room is independent: a worker (`Pool` of
`vyre.transcripts.workers`, forked with the plan already made) is given a room's mentions, read
by the writer (SQLite's state is not to be used across a fork), derives the room and writes its
file under a temporary name. The writer takes the rooms in their order, as a derive in one
process does, and does everything that touches the ledger or the room's name: it keeps the
names, puts the file in place, records it and keeps its main-graph input. What must stay true:

- The rows are those one process derives (tested room by room, with the ledger's records).
- A worker that fails or dies costs only speed: the writer derives that room itself, so any
  error is raised where it would have been.
- No worker waits for its next room: each holds up to `DEPTH` rooms, the next one's mentions
  read (and handed over) while it derives the last. A room's mentions go to its worker in a
  file (`job_path`, pickled, read and deleted by the worker), not down its pipe: only the
  file's name is sent, so the writer never waits on a busy worker's full pipe (and a worker
  never waits for the writer to feed it a big room through 64 KiB at a time).
- Memory: one room per worker at a time, and no more than `AHEAD_SESSIONS` sessions' rooms in
  the workers' hands at once (a bigger room goes alone).
- Only a derive of `SPREAD_SESSIONS` or more sessions in two rooms or more, in a process that
  may fork (no other thread: never the daemon), with `ingest.workers` above 1, is spread.
- A kill leaves each room's old file or its new one (a worker dies with the writer; its
  temporary file, and any room's mentions not yet read, are removed when the graph is next
  opened for writing: `*.tmp-*`).
"""

from __future__ import annotations

import os
import pickle
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from vyre.graph import GraphStore, MainInput, RoomRows
from vyre.ledger import Ledger
from vyre.transcripts.workers import Pool, can_fork, worker_count

SPREAD_SESSIONS = 400  # fewer sessions to derive than this: forking costs more than it saves
AHEAD_SESSIONS = 4000  # sessions of the rooms in the workers' hands at once
DEPTH = 2  # rooms a worker holds at once: the one it derives and the next

# room, its mentions -> its rows, the names they resolve to, what the main graph reads of it
Derived = Callable[[str, list[tuple]], tuple[RoomRows, frozenset[str], MainInput]]


@dataclass(frozen=True, slots=True)
class Done:
    """A room a worker derived: what the writer records of it, and its file's temporary path."""

    names: frozenset[str]
    digest: str
    given: MainInput
    facts: int
    evidence: int
    temp: Path


class RoomWorkers:
    """`rooms()`: each stale room in order, with a worker's `Done` or None (the caller derives
    that room itself)."""

    def __init__(
        self,
        ledger: Ledger,
        store: GraphStore,
        settings: dict,
        stale: list[str],
        by_room: Mapping[str, list[dict]],
        derived: Derived,
    ) -> None:
        self._ledger, self._store, self._derived = ledger, store, derived
        self._stale, self._by_room = stale, by_room
        self._count = worker_count(settings.get("ingest.workers"))

    def rooms(self) -> Iterator[tuple[str, Done | None]]:
        sessions = sum(len(self._by_room[room]) for room in self._stale)
        count = min(self._count, len(self._stale))
        if count < 2 or sessions < SPREAD_SESSIONS or not can_fork():
            yield from ((room, None) for room in self._stale)
            return
        self._store.warm()  # the engine and pyarrow loaded once, here, for every worker
        with Pool(self._work, count) as pool:
            yield from self._spread(pool)

    def _spread(self, pool: Pool) -> Iterator[tuple[str, Done | None]]:
        """Each room's result in the rooms' order; rooms are sent while a worker holds fewer
        than `DEPTH` and those in hand stay within `AHEAD_SESSIONS` sessions (a bigger room
        goes alone), so the one that finishes has its next room already."""
        todo = deque(self._stale)
        order: deque[tuple[str, bool]] = deque()  # taken in turn: (room, whether a worker has it)
        ahead = 0  # sessions of the rooms sent and not taken

        def fill() -> None:
            nonlocal ahead
            while todo and pool.waiting < DEPTH * len(pool.live):
                room = todo[0]
                weight = len(self._by_room[room])
                if pool.waiting and ahead + weight > AHEAD_SESSIONS:
                    return
                try:
                    job = self._job(room)
                except OSError:  # no room on disk for its mentions: the caller derives it
                    self.job_path(room).unlink(missing_ok=True)
                    order.append((todo.popleft(), False))
                    continue
                if not pool.send(room, job, weight):
                    job[1].unlink(missing_ok=True)
                    return
                order.append((todo.popleft(), True))
                ahead += weight

        fill()
        while todo or order:
            if not order:  # no worker left to send to: the rest are the caller's
                yield todo.popleft(), None
                continue
            room, sent = order.popleft()
            if not sent:
                yield room, None
                continue
            ahead -= len(self._by_room[room])
            done = pool.take()
            # a worker that died or failed may not have read its room's mentions
            self.job_path(room).unlink(missing_ok=True)
            fill()  # the next room is read while the caller stores this one
            yield room, done if isinstance(done, Done) else None

    def job_path(self, room: str) -> Path:
        """Where this writer leaves a room's mentions for the worker that derives it."""
        return self._store.folder / f"mentions.{room}.tmp-{os.getpid()}"

    def _job(self, room: str) -> tuple[str, Path]:
        """A room's job: its mentions, read here (a worker may not use the ledger) and left
        in a file of this user's only."""
        said = self._ledger.mentions(s["id"] for s in self._by_room[room])
        path = self.job_path(room)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            pickle.dump(said, out, protocol=pickle.HIGHEST_PROTOCOL)
        return room, path

    def _work(self, job: tuple[str, Path]) -> Done:
        """In a worker: read the room's mentions, derive it and write its file under a
        temporary name."""
        room, path = job
        with open(path, "rb") as given:
            said = pickle.load(given)
        path.unlink()
        rows, names, given_main = self._derived(room, said)
        del said
        temp = self._store.write_temp(rows, one_commit=True)  # a worker ends soon
        return Done(names, rows.digest, given_main, len(rows.facts), len(rows.evidence), temp)
