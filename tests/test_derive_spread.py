"""Many rooms derived at once by forked workers (vyre/rooms/spread.py) give the graph one process
derives: every room's rows, the ledger's record of each (digest and counts), the names each
room keeps and what the main graph reads of it. On the bundled world and on juniper (another
author's), with a worker that dies, one whose derive fails, `vyre derive --all`, and a kill of
the writer while its workers hold rooms."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import JUNIPER, ROOT, WORLD, alive, copy_home, require_shared, wait_for
from vyre.api import Memory
from vyre.errors import GraphError
from vyre.ledger import graph_rooms

SPREAD = importlib.import_module("vyre.rooms.spread")


@pytest.fixture(autouse=True)
def small_derives_spread(monkeypatch):
    monkeypatch.setattr(SPREAD, "SPREAD_SESSIONS", 0)


@pytest.fixture
def spread(monkeypatch) -> list[str]:
    """The rooms a worker derived (in the order the writer took them)."""
    taken: list[str] = []
    real = SPREAD.RoomWorkers.rooms

    def noting(self):
        for room, done in real(self):
            if done is not None:
                taken.append(room)
            yield room, done

    monkeypatch.setattr(SPREAD.RoomWorkers, "rooms", noting)
    return taken


def build(built_homes, world: Path, home: Path, monkeypatch, workers: int) -> Memory:
    """The world built for real (not the session's copy) with `ingest.workers` set."""
    home.mkdir(parents=True)
    (home / "settings.json").write_text(json.dumps({"ingest.workers": workers}))
    monkeypatch.setenv("VYRE_HOME", str(home))
    return built_homes._build(world, home)


def graph(memory: Memory) -> tuple:
    store = memory.store
    records = {
        room: (r.digest, r.facts, r.evidence)
        for room, r in graph_rooms.recorded(memory.ledger).items()
    }
    inputs = {p.name: p.read_text() for p in sorted(store.folder.glob("input.*.json"))}
    leftovers = sorted(p.name for p in store.folder.glob("*.tmp-*"))
    return store.dump(), records, graph_rooms.names(memory.ledger), inputs, leftovers


@pytest.mark.parametrize("world", [WORLD, JUNIPER], ids=["bundled", "juniper"])
def test_rooms_derived_by_workers_equal_one_process(
    world, built_homes, tmp_path, monkeypatch, spread
):
    require_shared(world)
    with build(built_homes, world, tmp_path / "one", monkeypatch, workers=1) as memory:
        one = graph(memory)
    assert not spread
    with build(built_homes, world, tmp_path / "two", monkeypatch, workers=2) as memory:
        two = graph(memory)
        rooms = len(one[1]) - 1  # the main graph is written by the writer
        assert len(spread) >= rooms >= 3, "the workers derived no room"
        assert two == one
        assert not one[4]
        spread.clear()
        memory.derive(force=True)  # `vyre derive --all`: every room again, spread
        assert len(spread) == rooms
        assert graph(memory) == one


def test_a_worker_that_dies_or_fails_costs_only_speed(built_homes, tmp_path, monkeypatch, spread):
    with build(built_homes, WORLD, tmp_path / "one", monkeypatch, workers=1) as memory:
        one = graph(memory)
        rooms = sorted(r for r in one[1] if r != "*")
    real = SPREAD.RoomWorkers._work

    def unlucky(self, job):  # runs in a worker only: the writer derives those rooms itself
        if job[0] == rooms[1]:
            os._exit(3)  # killed mid-room
        if job[0] == rooms[-1]:
            raise GraphError("the engine failed on this room")
        return real(self, job)

    monkeypatch.setattr(SPREAD.RoomWorkers, "_work", unlucky)
    with build(built_homes, WORLD, tmp_path / "two", monkeypatch, workers=2) as memory:
        assert graph(memory) == one
    assert rooms[1] not in spread and rooms[-1] not in spread
    assert rooms[0] in spread, "the workers derived no room"


def test_a_room_that_cannot_be_handed_over_is_derived_by_the_writer(
    built_homes, tmp_path, monkeypatch, spread
):
    with build(built_homes, WORLD, tmp_path / "one", monkeypatch, workers=1) as memory:
        one = graph(memory)
        rooms = sorted(r for r in one[1] if r != "*")
    real = SPREAD.RoomWorkers._job

    def full(self, room):  # the disk full as the room's mentions are written for its worker
        if room == rooms[1]:
            self.job_path(room).write_bytes(b"half")
            raise OSError(28, "No space left on device")
        return real(self, room)

    monkeypatch.setattr(SPREAD.RoomWorkers, "_job", full)
    with build(built_homes, WORLD, tmp_path / "two", monkeypatch, workers=2) as memory:
        assert graph(memory) == one  # the same rows, and no file left behind
    assert rooms[1] not in spread
    assert rooms[0] in spread and rooms[2] in spread


def test_a_process_with_other_threads_derives_every_room_itself(
    built_homes, tmp_path, monkeypatch, spread
):
    with build(built_homes, WORLD, tmp_path / "one", monkeypatch, workers=2) as memory:
        one = graph(memory)
        spread.clear()
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            memory.derive(force=True)
        finally:
            stop.set()
            other.join()
        assert not spread
        assert graph(memory) == one


KILLED_MID_DERIVE = """
import os, sys, time
from pathlib import Path
from vyre.api import Memory
from vyre.rooms import spread

spread.SPREAD_SESSIONS = 0
real = spread.RoomWorkers._work

def stuck(self, job):  # in a worker: its room's file is written, then it waits to be killed
    done = real(self, job)
    os.write(1, b"written\\n")  # one write: the two workers' lines never interleave
    time.sleep(600)
    return done

spread.RoomWorkers._work = stuck
with Memory(Path(sys.argv[1])) as memory:
    memory.derive(force=True)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_kill_mid_derive_leaves_no_worker_and_the_graph_whole(world_template, tmp_path):
    home = copy_home(world_template, tmp_path / "home")
    with Memory(home) as memory:
        before, folder = graph(memory), memory.store.folder
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_MID_DERIVE, str(home)],
        cwd=ROOT,
        env={**os.environ, "VYRE_HOME": str(home)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "written"
        assert proc.stdout.readline().strip() == "written"  # both workers hold a room
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        pids = [int(p) for p in children.read_text().split()]
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    assert len(pids) == 2
    wait_for(lambda: not any(alive(pid) for pid in pids), timeout=10)
    assert len(list(folder.glob("room.*.tmp-*"))) == 2, "the workers wrote no file"
    waiting = list(folder.glob("mentions.*.tmp-*"))  # rooms handed over, not read yet
    assert waiting, "no room was waiting for its worker"
    assert {p.stat().st_mode & 0o777 for p in waiting} == {0o600}  # the user's words
    with Memory(home) as memory:  # a writer removes what the killed derive left
        assert memory.derive().summary() == "memory is up to date"
        assert graph(memory) == before  # no file left behind (`leftovers`)
        assert memory.graph_health().ok
