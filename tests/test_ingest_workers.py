"""A big batch read by worker processes (vyre/transcripts/workers.py) leaves the ledger exactly
as one process leaves it: the same statements in the same order, so the same rows with the same
ids, the same search index and the same report. Measured on the real transcripts nobody here
wrote, mutated in every class the reliability suite knows, beside the bundled world."""

from __future__ import annotations

import fcntl
import importlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT, alive, require_shared, wait_for
from tests.mutations import CLASSES, mutated_copies
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.errors import ConfigError
from vyre.extract import extract_draft, warm
from vyre.ledger import Ledger
from vyre.transcripts import ingest, worker_count
from vyre.transcripts import workers as WORKERS

INGEST = importlib.import_module("vyre.transcripts.ingest")


@pytest.fixture(autouse=True)
def small_batches_use_workers(monkeypatch):
    monkeypatch.setattr(WORKERS, "MIN_BYTES", 0)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The real transcripts and the bundled world, mutated, with a file reached twice (a hard
    link), an empty file and an unfinished last line; every file's time settled."""
    require_shared(CORPUS)
    tmp = tmp_path_factory.mktemp("workers")
    root, _, where = mutated_copies(tmp, sorted(CLASSES), "workers")
    assert sum(map(len, where.values())) >= 40
    files = sorted(root.rglob("*.jsonl"))
    os.link(files[3], files[3].with_name("linked-" + files[3].name))
    (files[0].parent / "empty.jsonl").write_bytes(b"")
    with open(files[1], "ab") as f:
        f.write(b'{"type":"user","message":{"content":"half a li')
    old = time.time() - 3600
    for path in root.rglob("*.jsonl"):
        os.utime(path, (old, old))
    return root


def ledger_dump(ledger: Ledger) -> list[str]:
    """Every row of every table, search index segments included, in rowid order (the
    migrations' dates aside), and the mentions' rowids, which a dump leaves out."""
    db = ledger.db
    rows = [line for line in db.iterdump() if not line.startswith('INSERT INTO "migrations"')]
    rows += [repr(row) for row in db.execute("SELECT rowid, * FROM mentions ORDER BY rowid")]
    return rows


def read(home: Path, root: Path, workers: int, **kw):
    home.mkdir(parents=True)
    ledger = Ledger(home / "vyre.db")
    report = ingest(ledger, root, extract_draft, workers=workers, warm=warm, **kw)
    return ledger, report


def used(monkeypatch) -> list[bool]:
    """Whether each file the writer stored came from a worker (in the writer's order)."""
    seen: list[bool] = []
    real = INGEST._read_new

    def noting(db, f, path, state, head, data, *args):
        seen.append(isinstance(data, INGEST.Prepared))
        return real(db, f, path, state, head, data, *args)

    monkeypatch.setattr(INGEST, "_read_new", noting)
    return seen


def test_workers_write_the_ledger_one_process_writes(corpus, tmp_path, monkeypatch):
    one, one_report = read(tmp_path / "one", corpus, workers=1)
    from_workers = used(monkeypatch)
    two, two_report = read(tmp_path / "two", corpus, workers=2)
    assert one_report.workers == 0 and two_report.workers == 2
    assert sum(from_workers) >= 30, "the workers' rows were not what was stored"
    assert ledger_dump(two) == ledger_dump(one)
    two_report.workers = one_report.workers
    assert two_report == one_report
    assert sum(one_report.skipped.values()) and one_report.pending == 1 and one_report.aliases
    # the next ingest, with appended lines, reads on from where each left off, alike
    for n, path in enumerate(sorted(corpus.rglob("*.jsonl"))[:5]):
        lines = Transcript(corpus, cwd="/w", session=path.stem, start="2026-09-02T10:00:00Z").user(
            f"Line {n} appended."
        )
        with open(path, "ab") as f:
            f.write(b"\n" + lines.lines()[-1] + b"\n")
        old = time.time() - 3600  # settled again: both ledgers see the same times
        os.utime(path, (old, old))
    again_one = ingest(one, corpus, extract_draft, workers=1)
    again_two = ingest(two, corpus, extract_draft, workers=2, warm=warm)
    assert ledger_dump(two) == ledger_dump(one)
    assert again_one.turns == again_two.turns > 0


def test_a_file_that_changed_after_a_worker_read_it_is_read_by_the_writer(tmp_path, monkeypatch):
    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.assistant("Noted.")
    path = t.write()
    stale = INGEST.prepare(str(path), extract_draft)  # what a worker read a moment ago
    t.user("Tomas Berg, the site engineer at Halden Structures, checked the beams.")
    t.write()
    old = time.time() - 3600  # settled: both ledgers see the same time, however slow the run
    os.utime(path, (old, old))

    class Stale:
        workers = 2

        def __init__(self, *args: object) -> None:
            pass

        def take(self, p: object) -> object:
            return stale

        def __enter__(self) -> Stale:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    monkeypatch.setattr(INGEST, "Readers", Stale)
    from_workers = used(monkeypatch)
    ledger, report = read(tmp_path / "home", root, workers=2)
    monkeypatch.undo()
    clean, _ = read(tmp_path / "clean", root, workers=1)
    assert from_workers == [False]
    assert report.turns == 3
    assert ledger_dump(ledger) == ledger_dump(clean)


VICTIM: list[str] = []  # the file whose worker dies (set before the workers are forked)
PREPARE = WORKERS._prepare


def dying(job: int):
    """A worker's job (a file's index in the list the workers were forked with) that kills
    its process on the victim (named at module level, as the workers' own function is)."""
    if WORKERS._paths[job] in VICTIM:
        os._exit(3)  # killed mid-file: the pool breaks, every file left is the writer's
    return PREPARE(job)


def test_a_worker_that_dies_costs_only_speed(corpus, tmp_path, monkeypatch):
    VICTIM[:] = [str(sorted(corpus.rglob("*.jsonl"))[5])]
    monkeypatch.setattr(WORKERS, "_prepare", dying)
    from_workers = used(monkeypatch)
    two, report = read(tmp_path / "two", corpus, workers=2)
    monkeypatch.undo()
    VICTIM.clear()
    one, _ = read(tmp_path / "one", corpus, workers=1)
    assert report.workers == 2
    assert 0 < sum(from_workers) < len(from_workers)  # the files after the death: the writer's
    assert ledger_dump(two) == ledger_dump(one)


def big_result(marker: str) -> bytes:
    """A job that notes it ran (a file), then hands back 300 KB: more than a default pipe."""
    Path(marker).write_text("done")
    return os.urandom(300_000)


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_a_worker_goes_on_to_its_next_job_before_the_writer_reads(tmp_path):
    """A worker's results pipe is widened (1 MiB where Linux lets this user): a worker hands
    over a file's rows and reads its next file while the writer is busy storing, rather than
    waiting for the writer to read. Three 300 KB results from one worker, nobody reading."""
    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    if limit < WORKERS._PIPE_BYTES:
        pytest.skip("this machine caps pipes below 1 MiB")
    markers = [str(tmp_path / f"job{n}") for n in range(5)]  # 3 to one worker, 2 to the other
    with WORKERS.Pool(big_result, 2) as pool:
        assert pool.workers == 2
        for worker in pool.live:
            assert fcntl.fcntl(worker.results, fcntl.F_GETPIPE_SZ) == WORKERS._PIPE_BYTES
        for marker in markers:
            assert pool.send(marker, marker)
        wait_for(lambda: all(Path(m).exists() for m in markers), timeout=20)


def test_a_process_with_other_threads_is_never_forked(corpus, tmp_path):
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        _, report = read(tmp_path / "home", corpus, workers=2)
    finally:
        stop.set()
        other.join()
    assert report.workers == 0
    assert report.turns > 0


def test_the_setting_caps_the_workers(tmp_path, vyre_home):
    assert worker_count(1) == 1
    assert 1 <= worker_count(None) <= (os.cpu_count() or 1)
    assert worker_count(10_000) == worker_count(None)
    for bad in (0, -2, "two", 1.5, True):
        with pytest.raises(ConfigError, match=r"ingest\.workers"):
            worker_count(bad)
    root = tmp_path / "projects"
    for n in range(3):
        t = Transcript(root, cwd="/w/keel", session=f"s{n}", start="2026-09-01T10:00:00Z")
        t.user(f"Turn {n}.").write()
    with Memory(tmp_path / "default") as memory:
        n = min(worker_count(), 3)  # never more workers than files
        assert memory.ingest(root).report.workers == (n if n >= 2 else 0)
    vyre_home.mkdir(parents=True, exist_ok=True)
    (vyre_home / "settings.json").write_text(json.dumps({"ingest.workers": 1}))
    with Memory() as memory:
        assert memory.ingest(root).report.workers == 0


KILLED_MID_BATCH = """
import fcntl, os, sys, time
from pathlib import Path
from vyre.extract import extract_draft, warm
from vyre.ledger import Ledger
from vyre.transcripts import ingest, workers

lock = open(sys.argv[3], "w")
fcntl.flock(lock, fcntl.LOCK_EX)  # held as the daemon holds its lock
workers.MIN_BYTES = 0
real = workers._prepare

def slow(path):
    time.sleep(0.1)  # long enough to be killed in the middle
    return real(path)

workers._prepare = slow
ledger = Ledger(Path(sys.argv[2]) / "vyre.db")
ingest(ledger, Path(sys.argv[1]), extract_draft, workers=2, warm=warm)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_writer_leaves_no_worker_and_no_lock_held(corpus, tmp_path):
    home, lock = tmp_path / "home", tmp_path / "daemon.lock"
    home.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_BATCH, str(corpus), str(home), str(lock)], cwd=ROOT
    )
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        wait_for(lambda: len(children.read_text().split()) == 2, timeout=60)
        pids = [int(p) for p in children.read_text().split()]
        time.sleep(0.5)  # the workers are reading their first files
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with open(lock, "w") as f:  # the workers never held the parent's descriptors
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    wait_for(lambda: not any(alive(pid) for pid in pids), timeout=10)
