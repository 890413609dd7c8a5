"""The graph is derived: a room whose file is not what was written is rebuilt from the ledger.

Issue 7, items 2 and 9: a SIGKILL during the engine's checkpoint emptied the main graph while
`derive` said "memory is up to date" (or left a file the engine crashes on when opening it);
a truncated graph file failed without being rebuilt.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from vyre.api import Memory
from vyre.graph.engine import Engine
from vyre.ledger import Ledger, graph_rooms
from vyre.memory.read import view_of


@pytest.fixture(scope="module")
def built(world_template, tmp_path_factory) -> tuple[Path, list[tuple]]:
    """The bundled world's home (five projects, unfiled and the main graph) and its graph."""
    home = shutil.copytree(world_template, tmp_path_factory.mktemp("world") / "home")
    with Memory(home) as memory:
        return home, memory.store.dump()


def copy_home(built, tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(built[0], home)
    return home


def vyre_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "vyre"]


def room_file(memory: Memory, room: str) -> Path:
    return memory.store.path(room)


def restamp(home: Path, room: str, path: Path) -> None:
    """Record the file's stamp as it is now, as if the derive had written this file."""
    ledger = Ledger(home / "vyre.db")
    st = path.stat()
    record = graph_rooms.recorded(ledger)[room]
    graph_rooms.record(ledger, room, record._replace(stamp=f"{st.st_size}:{st.st_mtime_ns}"))
    ledger.close()


@pytest.mark.parametrize(("checkpoint", "delay"), [(1, 0.0), (2, 0.01), (4, 0.02), (7, 0.005)])
def test_a_kill_during_the_checkpoint_leaves_the_graph_whole(built, tmp_path, checkpoint, delay):
    """Timed kills inside the engine's checkpoint: before, they left a graph with rows lost
    under a digest that said "up to date", or one the engine crashed on when opening it."""
    home = copy_home(built, tmp_path)
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.graph_kill", str(home)],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in child.stdout:
        if line.strip() == f"checkpoint {checkpoint}":
            break
    else:
        pytest.fail("the derive ended before the checkpoint the kill waits for")
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    opened = subprocess.run(  # in a process of its own: the engine may crash opening it
        [sys.executable, "-c", "from vyre.api import Memory; Memory().store.dump()"],
        cwd=ROOT,
        env={**os.environ, "VYRE_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert opened.returncode == 0, opened.stderr[-2000:]
    with Memory(home) as memory:
        assert memory.store.dump() == built[1]
        assert memory.derive().summary() == "memory is up to date"
        assert memory.graph_health().ok


def test_a_room_file_changed_behind_our_back_is_derived_again_before_a_read(
    built, tmp_path, caplog
):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        path = room_file(memory, "*")
        name = memory.store.name
    engine = Engine(path, name)  # what a kill left: the main graph's rows gone
    engine.execute("MATCH ()-[f:FACT]->() DELETE f")
    engine.close()
    caplog.set_level(logging.WARNING, logger="vyre")
    with Memory(home) as memory:
        facts = memory.facts("*")  # the read opens the graph, finds the room, derives it
        assert facts and memory.store.dump() == built[1]
    assert vyre_lines(caplog) == [
        f"vyre: the memory graph in {path.parent} does not match the ledger in 1 room(s) "
        "(*); rebuilt from the ledger"
    ]


def test_rows_lost_under_an_unchanged_stamp_are_found_when_the_room_is_read(
    built, tmp_path, caplog
):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        path = room_file(memory, "harlow")
        name = memory.store.name
        record = graph_rooms.recorded(memory.ledger)["harlow"]
    engine = Engine(path, name)
    engine.execute("MATCH ()-[e:EVIDENCE]->() DELETE e")
    engine.close()
    restamp(home, "harlow", path)  # only a look inside can tell
    caplog.set_level(logging.WARNING, logger="vyre")
    with Memory(home) as memory:
        assert memory.graph_health().damaged == {
            "harlow": f"the memory graph file of room 'harlow' holds {record.facts} facts and "
            f"0 evidence rows where {record.facts} and {record.evidence} were written"
        }
        assert memory.facts("harlow", closed=True)
        assert memory.store.dump() == built[1]
        assert memory.graph_health().ok
    assert len(vyre_lines(caplog)) == 1


@pytest.mark.parametrize("damage", ["truncated", "header noise", "empty"])
def test_a_damaged_graph_file_is_rebuilt_from_the_ledger_in_one_line(
    built, tmp_path, caplog, damage
):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        path = room_file(memory, "keel-ash")
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "header noise":
        path.write_bytes(b"\x5a" * 64 + data[64:])
    else:
        path.write_bytes(b"")
    caplog.set_level(logging.WARNING, logger="vyre")
    with Memory(home) as memory:
        assert memory.about("Priya Anand", "keel-ash")
        assert memory.store.dump() == built[1]
    lines = vyre_lines(caplog)
    assert len(lines) == 1 and lines[0].endswith("; rebuilt from the ledger"), lines


def test_graph_health_looks_inside_every_file_and_repairs_only_when_asked(built, tmp_path):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        path = room_file(memory, "bramble")
    path.write_bytes(path.read_bytes()[:4096])
    with Memory(home) as memory:
        found = memory.graph_health()
        assert not found.ok and not found.repaired
        assert memory.graph_health().rooms == found.rooms  # looking repaired nothing
        fixed = memory.graph_health(repair=True)
        assert fixed.repaired and "to be rebuilt" not in fixed.summary()
        assert memory.graph_health().ok
        assert memory.store.dump() == built[1]


def test_a_room_file_of_another_schema_is_rebuilt(built, tmp_path, caplog):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        path = room_file(memory, "unfiled")
        name = memory.store.name
    engine = Engine(path, name)
    engine.execute("MATCH (m:Entity {id: '#schema'}) SET m.kind = '1'")
    engine.close()
    restamp(home, "unfiled", path)
    caplog.set_level(logging.WARNING, logger="vyre")
    with Memory(home) as memory:
        assert memory.facts("unfiled") is not None
        assert memory.store.dump() == built[1]
    assert any("written by another version of Vyre" in line for line in vyre_lines(caplog))


def test_the_ledger_records_each_room_as_its_file_holds_it(built, tmp_path):
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        record = graph_rooms.recorded(memory.ledger)
        assert {room: tuple(r)[:3] for room, r in record.items()} == {
            room: tuple(state) for room, state in memory.store.states().items()
        }
        assert set(record) == {"*", "unfiled", *(p.slug for p in memory.projects())}
        assert all(r.stamp == memory.store.stamp(room) for room, r in record.items())


def test_the_single_file_graph_of_earlier_versions_is_replaced(tmp_path, caplog):
    home = tmp_path / "home"
    (home / "graph").mkdir(parents=True)
    (home / "graph" / "memory.ladybug").write_bytes(b"old graph")
    (home / "graph" / "memory.ladybug.wal").write_bytes(b"old wal")
    caplog.set_level(logging.WARNING, logger="vyre")
    with Memory(home) as memory:
        _ = memory.store
    assert sorted(p.name for p in (home / "graph").iterdir()) == ["ladybug"]
    assert vyre_lines(caplog) == [
        f"vyre: the memory graph now keeps one file per room (was {home}/graph/memory.ladybug)"
    ]


def test_rows_served_from_a_derive_equal_the_rows_read_back_from_its_file(built, tmp_path):
    """The daemon serves each room from the rows its derive wrote, without reading them back:
    they must be the very rows a reader that opens the file gets."""
    home = copy_home(built, tmp_path)
    with Memory(home) as memory:
        rooms = memory.reader.rooms()
        memory.derive(force=True)  # publishes every room to the reader as it is written
        published = {room: memory.reader.room(room) for room in rooms}
    with Memory(home) as memory:
        for room in rooms:
            read = view_of(memory.store.read(room))
            assert read.rows == published[room].rows, room
            assert read.evidence == published[room].evidence, room
            assert read.digest == published[room].digest, room
