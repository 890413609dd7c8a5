"""Reading a big batch's new files in worker processes, ahead of the one writer.

A first build (or any batch of many new files) spends most of its time parsing lines and
running the rules over turns, one file at a time, on one core. Here worker processes do that
part (`ingest.prepare`: a whole file's turn and mention rows) for the files the ledger has no
row for yet, while the writer, in file order as always, decides each file's state inside its
transaction and stores the rows. What must stay true:

- The ledger is what one process writes, statement for statement: a worker's rows are used
  only when the writer, in its turn, finds the file is to be read from offset 0 and is the
  file the worker read (device, inode, size, first bytes); otherwise the writer reads the file
  itself. A worker that fails, dies or cannot open a file costs only its speed.
- Memory stays bounded: at most `WINDOW_BYTES` of files (eight per worker) are read ahead.
- Workers are forked from a process whose rules are already loaded (patterns, word lists),
  so each starts warm; a process with other threads (the daemon) is never forked (a thread
  may hold a lock the child would wait on forever): it reads every file itself.
- `ingest.workers` in settings.json caps the processes (1: none); by default one per CPU this
  process may run on. Batches under `MIN_BYTES` of new files are read here: forking costs
  more than they do.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from vyre.errors import ConfigError

if TYPE_CHECKING:
    from vyre.transcripts.ingest import Extractor, Prepared

MIN_BYTES = 8 << 20
WINDOW_BYTES = 64 << 20

# The extractor the workers run: set before they are forked, so it is never pickled.
_extract: Extractor | None = None


def worker_count(setting: object = None) -> int:
    """How many worker processes a big batch may use: the CPUs this process may run on,
    capped by the `ingest.workers` setting."""
    if setting is not None and (
        not isinstance(setting, int) or isinstance(setting, bool) or setting < 1
    ):
        raise ConfigError(f"ingest.workers must be a whole number, 1 or more (not {setting!r})")
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return min(cpus, setting) if isinstance(setting, int) else cpus


def can_fork() -> bool:
    """Whether worker processes can be forked safely here (POSIX, and no other thread)."""
    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _prepare(path: str) -> Prepared | None:
    from vyre.transcripts.ingest import prepare

    assert _extract is not None
    return prepare(path, _extract)


class Readers:
    """Worker processes reading `jobs` (paths, in the order the writer takes them) ahead of
    the writer. `take(path)` gives a worker's `Prepared` for the path, or None when there is
    none (not a job, a worker failed, or no workers); a context manager."""

    def __init__(
        self,
        jobs: list[tuple[str, int]],
        workers: int,
        extract: Extractor,
        warm: Callable[[], object] | None = None,
    ) -> None:
        self._jobs = deque(jobs)  # (path, bytes), not sent yet
        self._window: deque[tuple[str, int, Future]] = deque()
        self._ahead = 0  # bytes of the files in the window
        self._pool: ProcessPoolExecutor | None = None
        self._workers = min(workers, len(jobs))
        if self._workers < 2 or sum(n for _, n in jobs) < MIN_BYTES or not can_fork():
            self._jobs.clear()
            return
        global _extract
        _extract = extract
        if warm is not None:
            warm()  # loaded once here, shared by every worker forked from here
        self._pool = ProcessPoolExecutor(
            self._workers, mp_context=multiprocessing.get_context("fork")
        )
        self._fill()

    @property
    def workers(self) -> int:
        """Processes reading ahead (0: the writer reads every file itself)."""
        return self._workers if self._pool is not None else 0

    def _fill(self) -> None:
        """Send jobs until `WINDOW_BYTES` of files (or eight per worker) are read ahead; a
        file bigger than the window goes alone."""
        while self._jobs and self._pool is not None and len(self._window) < 8 * self._workers:
            path, size = self._jobs[0]
            if self._window and self._ahead + size > WINDOW_BYTES:
                return
            self._jobs.popleft()
            try:
                future = self._pool.submit(_prepare, path)
            except RuntimeError:  # the pool broke (a worker died): read the rest here
                self._stop()
                return
            self._window.append((path, size, future))
            self._ahead += size

    def take(self, path: Path | str) -> Prepared | None:
        key = str(path)
        if not self._window or self._window[0][0] != key:
            return None
        _, size, future = self._window.popleft()
        self._ahead -= size
        try:
            prepared = future.result()
        except Exception:  # a worker died or could not send its rows: read it here
            prepared = None
        self._fill()
        return prepared

    def _stop(self) -> None:
        self._jobs.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        self._window.clear()
        self._stop()
        global _extract
        _extract = None

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
