"""Many stale rooms derived at once by forked worker processes (a first build, `vyre derive
--all`), each room's file written by the worker that derived it.

After a first build a third of the time went to deriving 32 rooms and writing their files one
after the other, on one core. Each room is independent: a worker (`Pool` of
`vyre.transcripts.workers`, forked with the plan already made) is sent a room's mentions, read
by the writer (SQLite's state is not to be used across a fork), derives the room and writes its
file under a temporary name. The writer takes the rooms in their order, as a derive in one
process does, and does everything that touches the ledger or the room's name: it keeps the
names, puts the file in place, records it and keeps its main-graph input. What must stay true:

- The rows are those one process derives (tested room by room, with the ledger's records).
- A worker that fails or dies costs only speed: the writer derives that room itself, so any
  error is raised where it would have been.
- Memory: one room per worker at a time, and no more than `AHEAD_SESSIONS` sessions' rooms in
  the workers' hands at once (a bigger room goes alone).
- Only a derive of `SPREAD_SESSIONS` or more sessions in two rooms or more, in a process that
  may fork (no other thread: never the daemon), with `ingest.workers` above 1, is spread.
- A kill leaves each room's old file or its new one (a worker dies with the writer; its
  temporary file is removed when the graph is next opened for writing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from vyre.graph import GraphStore, MainInput, RoomRows
from vyre.ledger import Ledger
from vyre.transcripts.workers import Pool, can_fork, worker_count

SPREAD_SESSIONS = 400  # fewer sessions to derive than this: forking costs more than it saves
AHEAD_SESSIONS = 4000  # sessions of the rooms in the workers' hands at once

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
            keys = [(room, len(self._by_room[room])) for room in self._stale]
            for room, done in pool.results(keys, self._job, AHEAD_SESSIONS):
                yield room, done if isinstance(done, Done) else None

    def _job(self, room: str) -> tuple[str, list[tuple]]:
        """A room's job: its mentions, read here (a worker may not use the ledger)."""
        return room, self._ledger.mentions(s["id"] for s in self._by_room[room])

    def _work(self, job: tuple[str, list[tuple]]) -> Done:
        """In a worker: derive the room and write its file under a temporary name."""
        room, said = job
        rows, names, given = self._derived(room, said)
        del said
        temp = self._store.write_temp(rows)
        return Done(names, rows.digest, given, len(rows.facts), len(rows.evidence), temp)
