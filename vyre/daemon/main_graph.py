"""The main graph, and the rooms' files, derived and written beside the daemon's writer.

Deriving the main graph reads every room's inputs and writes one file: at 30,000 sessions that
takes seconds, and while it held the writer's lock no new line was read, so a session writing a
line every 2 s saw each one some 40 s late. Here the writer's lock is held only to take the job
and to record the file written; the derive and the write run without it, in a thread of their
own, while the watcher goes on reading lines and deriving rooms.

What must stay true:
- Under the writer's lock: stale rooms derived, then the main graph's inputs taken as they are
  (`vyre.rooms.pipeline.main_job`); after the write, the ledger's record of the new file.
  Nothing else of the main graph's work holds it.
- One main graph is written at a time (`lock`). It is always taken before the writer's lock,
  never while holding it: a thread that holds the writer's lock never waits for this one.
- Readers are given the new main rows as soon as they are derived, before the file is written;
  a read meanwhile is answered from the previous main graph at once.
- A kill at any point leaves the old file or the new one, whole (`vyre.graph.store`), and the
  ledger's record of the old one until the new one is recorded: the next start finds a file
  unlike its record, or a main digest that is not the plan's, and derives the main graph again.
- The rooms' files a derive left to write (`vyre.rooms.pipeline.LaterFiles`) are written by
  the same thread, before each main graph, each recorded under the writer's lock; so are
  they at `close`. A kill first leaves those rooms' old files and records: derived again.
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

from vyre import config
from vyre.api import Memory, no_cycle_collection
from vyre.graph import RoomRows
from vyre.rooms.pipeline import LaterFiles, main_job, record_rows, write_rows


class MainGraph:
    """Brings the main graph up to date, now (`run`) or in its own thread (`want`)."""

    def __init__(
        self,
        memory: Callable[[], Memory],
        writer: threading.RLock,
        failed: Callable[[BaseException], None],
        files: LaterFiles | None = None,
    ) -> None:
        self._memory = memory
        self._files = files or LaterFiles()
        self._files.woken = self.wake
        self._main_asked = False
        self._writer = writer
        self._failed = failed
        self.lock = threading.RLock()  # one main graph written at a time; before the writer's
        self._wanted = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.runs = 0  # main graphs written
        # how many derives of the memory the main graph that readers are served covers, and
        # whether the last run failed: a read of the main graph owed a change waits on these
        self._covered = 0
        self._failed_run = False
        self._served = threading.Condition()
        self._force = False  # `vyre derive --all` asked the background run for a new one
        self.last_seconds = 0.0  # how long the last one took, off the writer's lock and on it
        self.held_seconds = 0.0  # of which the writer's lock was held

    def run(self, *, force: bool = False) -> bool:
        """Derive and write the main graph if it is stale (`force`: even if not); whether it
        was written. Waits for one being written already. Never call it holding the writer's
        lock."""
        with self.lock:
            memory = self._memory()
            started = time.perf_counter()
            try:
                return self._run(memory, started, force)
            except BaseException:
                with self._served:
                    self._failed_run = True
                    self._served.notify_all()
                raise

    def _run(self, memory: Memory, started: float, force: bool) -> bool:
        with self._writer:
            covers = memory.derives  # the job below covers every derive so far
            job = main_job(
                memory.ledger,
                memory.store,
                config.settings(),
                memory.reader.publish,
                force=force,
                planner=memory.planner,
                mentions=memory.held_mentions,
                later=memory.later_files,
            )
            memory.main_stale = False
        held = time.perf_counter() - started
        if job is None:
            self._serve(covers)
            return False

        def publish(rows: RoomRows) -> None:
            memory.reader.publish(rows)
            self._serve(covers)

        with no_cycle_collection():  # the rows, their view and the file's columns: no cycles
            rows = job.rows()
            stamp = write_rows(memory.store, rows, publish)
        recording = time.perf_counter()
        with self._writer:
            record_rows(memory.ledger, rows, stamp)
        now = time.perf_counter()
        self.runs += 1
        self.last_seconds = now - started
        self.held_seconds = held + (now - recording)
        del job, rows
        trim_heap()
        return True

    def _serve(self, covers: int) -> None:
        with self._served:
            self._covered = max(self._covered, covers)
            self._failed_run = False
            self._served.notify_all()

    def wait_covering(self, derives: int, timeout: float) -> None:
        """Until the main graph readers are served covers the first `derives` derives (a reply
        said they were done), the last run failed, or `timeout` seconds passed."""
        with self._served:
            self._served.wait_for(
                lambda: self._covered >= derives or self._failed_run or self._stop.is_set(),
                timeout,
            )

    # -- in the background ------------------------------------------------------------------

    def want(self, *, force: bool = False) -> None:
        """Bring it up to date in the background thread, as soon as it is free (`force`: a new
        one even if it is up to date)."""
        self._force = self._force or force
        self._main_asked = True
        self.wake()

    def wake(self) -> None:
        """Write the rooms' files that wait (`LaterFiles`) in the background thread."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="vyre-main-graph", daemon=True)
            self._thread.start()
        self._wanted.set()

    def close(self, timeout: float = 60.0) -> None:
        """Let the background derive under way finish, and the rooms' files that wait be
        written (a kill would do no harm either: those rooms are derived again at the start)."""
        self._stop.set()
        self._wanted.set()
        with self._served:
            self._served.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
        elif self._files.waiting():
            self.write_files()

    def write_files(self) -> None:
        """Write the rooms' files that wait, newest rows first taken, each recorded in the
        ledger (with the main graph's input beside it) under the writer's lock."""
        with self.lock:
            memory = self._memory()
            while (item := self._files.take()) is not None:
                rows, given = item
                try:
                    with no_cycle_collection():
                        stamp = memory.store.replace_room(rows)  # off the writer's lock
                except BaseException:
                    self._files.done(rows.room)
                    raise  # the room is derived again: its record is the old file's
                with self._writer:
                    if self._files.done(rows.room):  # gone meanwhile: so is its file
                        memory.store.drop_room(rows.room)
                        continue
                    record_rows(memory.ledger, rows, stamp)
                    if memory.store.main_inputs().get(rows.room) is given:  # not newer
                        memory.store.keep_input(given)
                del rows, given, item

    def _loop(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            try:
                self.write_files()
                if self._stop.is_set():
                    return
                if self._main_asked:
                    self._main_asked = False
                    force, self._force = self._force, False
                    self.run(force=force)
            except Exception as exc:  # tried again later, never the end of the daemon
                self._failed(exc)
                if self._stop.is_set():
                    return


def trim_heap() -> None:
    """Hand the heap a derive freed back to the system. glibc keeps freed memory in its arenas
    (one per thread that allocated), so the rows of a room derived and dropped stay in the
    daemon's RSS until something asks; elsewhere this does nothing."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


_LIBC = _libc()
