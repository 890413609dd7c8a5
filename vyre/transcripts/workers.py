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
- Memory stays bounded: at most `WINDOW_BYTES` of files (`AHEAD` per worker) are read ahead,
  and a worker's finished rows wait for the writer in its pipe (1 MiB, `_widen`).
- A worker holds nothing of its parent's but its two pipes: every other inherited descriptor
  (the ledger, the daemon's lock, a socket) is closed as it starts, and it is killed when its
  parent dies, so a killed daemon leaves no process holding its lock.
- Workers are forked from a process whose rules are already loaded (patterns, word lists),
  so each starts warm; a process with other threads is never forked (a thread may hold a lock
  the child would wait on forever): it reads every file itself.
- `ingest.workers` in settings.json caps the processes (1: none); by default one per CPU this
  process may run on. Batches under `MIN_BYTES` of new files are read here: forking costs
  more than they do.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import pickle
import select
import signal
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vyre.errors import ConfigError

if TYPE_CHECKING:
    from vyre.transcripts.ingest import Extractor, Prepared

MIN_BYTES = 8 << 20
WINDOW_BYTES = 64 << 20
# Jobs a worker has on hand: enough that it never runs dry while the writer commits a batch
# (an FTS flush and a WAL checkpoint, 20-40 ms: eight files were ~10 ms of a worker's work,
# and both workers then stood idle at every commit).
AHEAD = 32
_SIZE = struct.Struct("<Q")  # each message: its length, then its bytes
_PR_SET_PDEATHSIG = 1
_PIPE_BYTES = 1 << 20  # Linux's default pipe-max-size for an unprivileged user

# The extractor the workers run and the files they may be sent: set before they are forked,
# so neither is pickled. A job is a file's index in `_paths`: a few bytes down the pipe
# however long the path (`AHEAD` jobs always fit a pipe of the smallest size, one page).
_extract: Extractor | None = None
_paths: list[str] = []


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
    return hasattr(os, "fork") and threading.active_count() == 1


def _prepare(job: int) -> Prepared | None:
    from vyre.transcripts.ingest import prepare

    assert _extract is not None
    return prepare(_paths[job], _extract)


@dataclass(slots=True)
class _Worker:
    pid: int
    jobs: int  # the pipe we send jobs down
    results: int  # the pipe its results come back up
    sent: int = 0  # the weight of the jobs sent and not taken yet
    out: int = 0  # jobs sent and not taken yet
    buffer: bytearray = field(default_factory=bytearray)
    done: deque[bytes] = field(default_factory=deque)  # results read, in its jobs' order
    alive: bool = True


class Pool:
    """Forked processes each running `work(job)` (a job and its result are pickled across),
    warm with everything this process held when they were forked. Results are taken in the
    order the jobs were sent (`take`); a job whose worker failed or died gives None, and the
    caller does it itself. A context manager. Forks only when `can_fork()`: check `workers`
    (0: none were forked).

    A worker must not use what it inherited of this process's open files or connections
    (SQLite's state of an open database, above all: a connection opened in the child would
    share it and fail, or worse). What it needs of them comes in its jobs."""

    def __init__(self, work: Callable[[Any], object], count: int) -> None:
        self._window: deque[tuple[str, int, _Worker]] = deque()  # sent, not taken
        self._workers: list[_Worker] = []
        if count < 2 or not can_fork():
            return
        try:
            for _ in range(count):
                self._workers.append(_fork(work))
        except OSError:  # no more processes: work with those there are, or here
            if len(self._workers) < 2:
                self.close()

    @property
    def workers(self) -> int:
        """Processes working (0: the caller does every job itself)."""
        return len(self._workers)

    @property
    def live(self) -> list[_Worker]:
        return [w for w in self._workers if w.alive]

    @property
    def waiting(self) -> int:
        """Jobs sent and not taken yet."""
        return len(self._window)

    def send(self, key: str, job: object, weight: int = 1) -> bool:
        """Give a job (known as `key`) to the live worker with the fewest jobs, then the
        least weight, on hand; False when no worker can take it (the caller does it)."""
        data = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        while live := self.live:
            worker = min(live, key=lambda w: (w.out, w.sent))
            try:
                _write_all(worker.jobs, _SIZE.pack(len(data)) + data)
            except OSError:
                self._lost(worker)
                continue
            worker.sent += weight
            worker.out += 1
            self._window.append((key, weight, worker))
            return True
        return False

    def next_job(self) -> tuple[str, int] | None:
        """The job (and its weight) `take` gives the result of next."""
        return self._window[0][:2] if self._window else None

    def take(self) -> object | None:
        """The result of the oldest job sent and not taken (None: it failed or its worker
        died)."""
        _, weight, worker = self._window.popleft()
        worker.sent -= weight
        worker.out -= 1
        while worker.alive and not worker.done:
            self._pump()
        if worker.done:
            try:
                return pickle.loads(worker.done.popleft())
            except Exception:  # a result that does not load is the caller's to redo
                return None
        return None

    def _pump(self) -> None:
        """Read what every worker has sent so far (so none waits on a full pipe), blocking
        until at least one has sent something or died."""
        live = {w.results: w for w in self.live}
        if not live:
            return
        poll = select.poll()
        for fd in live:
            poll.register(fd, select.POLLIN)
        for fd, _ in poll.poll():
            worker = live[fd]
            try:
                chunk = os.read(fd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                self._lost(worker)
                continue
            worker.buffer += chunk
            while len(worker.buffer) >= _SIZE.size:
                (n,) = _SIZE.unpack_from(worker.buffer)
                if len(worker.buffer) < _SIZE.size + n:
                    break
                worker.done.append(bytes(worker.buffer[_SIZE.size : _SIZE.size + n]))
                del worker.buffer[: _SIZE.size + n]

    def _lost(self, worker: _Worker) -> None:
        """A worker died: what it was sent and did not finish, the caller does itself."""
        worker.alive = False
        _end(worker)

    def close(self) -> None:
        for worker in self._workers:
            _end(worker)
        self._window.clear()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Readers:
    """Worker processes reading `jobs` ((path, bytes), in the order the writer takes them)
    ahead of the writer. `take(path)` gives a worker's `Prepared` for the path, or None when
    there is none (not a job, a worker failed, or no workers); a context manager."""

    def __init__(
        self,
        jobs: list[tuple[str, int]],
        workers: int,
        extract: Extractor,
        warm: Callable[[], object] | None = None,
    ) -> None:
        self._jobs = deque(enumerate(jobs))  # not sent yet, each with its index in `_paths`
        self._ahead = 0  # bytes of the files sent and not taken
        self._pool: Pool | None = None
        count = min(workers, len(jobs))
        if count < 2 or sum(n for _, n in jobs) < MIN_BYTES or not can_fork():
            self._jobs.clear()
            return
        global _extract, _paths
        _extract, _paths = extract, [path for path, _ in jobs]
        if warm is not None:
            warm()  # loaded once here, shared by every worker forked from here
        self._pool = Pool(_prepare, count)
        self._fill()

    @property
    def workers(self) -> int:
        """Processes reading ahead (0: the writer reads every file itself)."""
        return self._pool.workers if self._pool is not None else 0

    def _fill(self) -> None:
        """Send jobs until `WINDOW_BYTES` of files (or `AHEAD` per worker) are read ahead; a
        file bigger than the window goes alone. Each goes to the worker with least to do."""
        pool = self._pool
        while pool is not None and self._jobs and pool.waiting < AHEAD * len(pool.live):
            job, (path, size) = self._jobs[0]
            if pool.waiting and self._ahead + size > WINDOW_BYTES:
                return
            self._jobs.popleft()
            if not pool.send(path, job, size):
                return
            self._ahead += size

    def take(self, path: Path | str) -> Prepared | None:
        pool = self._pool
        following = pool.next_job() if pool is not None else None
        if pool is None or following is None or following[0] != str(path):
            return None
        self._ahead -= following[1]
        prepared = pool.take()
        self._fill()
        return prepared  # type: ignore[return-value]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        self._jobs.clear()
        global _extract, _paths
        _extract, _paths = None, []

    def __enter__(self) -> Readers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _end(worker: _Worker) -> None:
    """Kill and reap a worker and close its pipes (it holds nothing that needs a goodbye)."""
    if worker.pid:
        with contextlib.suppress(OSError):
            os.kill(worker.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(worker.pid, 0)
        worker.pid = 0
    for fd in (worker.jobs, worker.results):
        with contextlib.suppress(OSError):
            os.close(fd)
    worker.jobs = worker.results = -1


def _widen(fd: int) -> None:
    """A results pipe as wide as Linux lets this user make one (1 MiB by default, not 64 KiB):
    a worker then hands over a file's rows and starts its next file while the writer is still
    storing the last one, instead of waiting for the writer to read."""
    with contextlib.suppress(OSError, AttributeError, ValueError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def _fork(work: Callable[[Any], object]) -> _Worker:
    jobs_r, jobs_w = os.pipe()
    results_r, results_w = os.pipe()
    _widen(results_w)
    parent = os.getpid()
    pid = os.fork()
    if pid:
        os.close(jobs_r)
        os.close(results_w)
        return _Worker(pid, jobs_w, results_r)
    code = 0
    try:
        _child(parent, jobs_r, results_w, work)
    except BaseException:
        code = 1
    finally:
        os._exit(code)


def _child(parent: int, jobs: int, results: int, work: Callable[[Any], object]) -> None:
    """A worker's life: read a job, send back its result (None if it failed), until the
    jobs pipe closes. It never returns into its parent's code."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above
        return
    keep = sorted({0, 1, 2, jobs, results})
    for low, high in zip(keep, [*keep[1:], None], strict=True):
        os.closerange(low + 1, high if high is not None else os.sysconf("SC_OPEN_MAX"))
    while True:
        head = _read_exactly(jobs, _SIZE.size)
        if head is None:
            return
        job = _read_exactly(jobs, _SIZE.unpack(head)[0])
        if job is None:
            return
        try:
            result = work(pickle.loads(job))
        except Exception:  # a bug here must not stop the batch: the caller does the job
            result = None
        try:
            data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            data = pickle.dumps(None)
        _write_all(results, _SIZE.pack(len(data)) + data)


def _read_exactly(fd: int, n: int) -> bytes | None:
    out = bytearray()
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            return None
        out += chunk
    return bytes(out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
