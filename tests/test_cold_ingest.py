"""A one-off `vyre ingest` (no daemon running): it writes the rooms the new lines changed and
leaves the main graph to the next read of it, as the daemon leaves it to a pause in the
writing. Every read after it answers as after a whole derive; a room's read never waits for
the main graph."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import wait_for
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.daemon import process
from vyre.daemon.protocol import call
from vyre.daemon.server import Daemon
from vyre.ledger import graph_rooms
from vyre.rooms.names import MAIN
from vyre.rooms.pipeline import main_due
from vyre.transcripts import transcript_count, transcript_files


@pytest.fixture
def run(at_terminal):
    def invoke(*args: str) -> str:
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    return invoke


def _said(root: Path, cwd: str, session: str, text: str) -> None:
    t = Transcript(root, cwd=cwd, session=session, start="2026-09-01T10:00:00Z")
    t.user(text)
    t.assistant("Noted.")
    t.write()


def _projects(memory: Memory) -> None:
    memory.project_add("keel", "Keel & Ash Architects", ["/w/keel"], caller="local")
    memory.project_add("harbor", "Harbor Labs", ["/w/harbor"], caller="local")
    memory.derive()  # every room and the main graph as they are: empty


def _main_rows(memory: Memory) -> list[tuple]:
    held = memory.store.read(MAIN)
    assert held is not None
    return sorted((f.subject, f.rel, f.object, f.status, f.sessions) for f in held.facts)


def test_a_one_off_ingest_leaves_the_main_graph_to_its_next_read(run, tmp_path):
    root = tmp_path / "projects"
    with Memory() as memory:
        _projects(memory)
        before = graph_rooms.recorded(memory.ledger)
    _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent plans.")
    out = run("ingest", str(root))
    assert "derived 1 room, " in out
    with Memory() as memory:
        assert main_due(memory.ledger)
        record = graph_rooms.recorded(memory.ledger)
        assert record["keel"] != before["keel"]  # the room is written, not the main graph
        assert record[MAIN] == before[MAIN]
        # a room's read does not derive the main graph
        assert any(f.subject == "Priya Anand" for f in memory.facts("keel"))
        assert main_due(memory.ledger)
        # the main graph's first read derives it
        assert [e.name for e in memory.about("Priya Anand")] == ["Priya Anand"]
        assert not main_due(memory.ledger)
        after_read = _main_rows(memory)

    # the same transcripts ingested with the main graph derived at once: the same main graph
    other = tmp_path / "other"
    with Memory(other) as memory:
        _projects(memory)
        memory.ingest(root)
        assert not main_due(memory.ledger)
        assert _main_rows(memory) == after_read


def _keel_read_once(run, root: Path) -> None:
    """The projects, then one keel session read by a one-off `vyre ingest`."""
    with Memory() as memory:
        _projects(memory)
    _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent plans.")
    run("ingest", str(root))


def test_reads_after_one_off_ingests_see_every_room(run, tmp_path):
    root = tmp_path / "projects"
    _keel_read_once(run, root)
    assert "Priya Anand" in run("memory", "about", "Priya Anand")
    _said(root, "/w/harbor", "h1", "Dana Reyes, the CTO at Harbor Labs, approved the budget.")
    out = run("ingest", str(root))
    assert "derived 1 room, " in out
    with Memory() as memory:
        assert main_due(memory.ledger)
    # a read through the CLI, with a memory of its own, derives the main graph first
    assert "Harbor Labs" in run("memory", "about", "Dana Reyes")
    with Memory() as memory:
        assert not main_due(memory.ledger)
        names = {f.subject for f in memory.facts()}
    assert {"Priya Anand", "Dana Reyes"} <= names


def test_derive_brings_a_main_graph_left_behind_up_to_date(run, tmp_path):
    _keel_read_once(run, tmp_path / "projects")
    with Memory() as memory:
        assert main_due(memory.ledger)
    run("derive")
    with Memory() as memory:
        assert not main_due(memory.ledger)


def test_an_up_to_date_main_graph_is_not_derived_again_by_a_read(tmp_path, monkeypatch):
    root = tmp_path / "projects"
    with Memory() as memory:
        _projects(memory)
    _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent plans.")
    with Memory() as memory:
        memory.ingest(root)
    with Memory() as memory:
        derives = memory.derives
        memory.about("Priya Anand")
        memory.facts()
        assert memory.derives == derives


def test_the_main_graph_left_behind_in_one_process_reads_the_rooms_new_inputs(tmp_path):
    """A one-off ingest writes its rooms' inputs for the main graph without reading the other
    rooms'; the main graph derived later in the same process reads them all, the new ones
    included."""
    root = tmp_path / "projects"
    with Memory() as memory:
        _projects(memory)
        _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent it.")
        memory.ingest(root, main=False)
        _said(root, "/w/harbor", "h1", "Dana Reyes, the CTO at Harbor Labs, approved the budget.")
        memory.ingest(root, main=False)
        assert main_due(memory.ledger)
        assert {"Priya Anand", "Dana Reyes"} <= {f.subject for f in memory.facts()}
        left_behind = _main_rows(memory)
    with Memory(tmp_path / "other") as memory:
        _projects(memory)
        memory.ingest(root)
        assert _main_rows(memory) == left_behind


def test_at_a_terminal_the_bar_counts_every_transcript_and_the_ingest_reads_them(tmp_path):
    """`vyre ingest` at a terminal (its bar on a pseudo-terminal) draws the bar over every
    transcript, counted from names as the ingest lists them, and reads them all."""
    root = tmp_path / "projects"
    _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent it.")
    _said(root, "/w/harbor", "h1", "Dana Reyes, the CTO at Harbor Labs, approved the budget.")
    sub = root / "-w-keel" / "k1" / "subagents" / "agent-a1.jsonl"
    sub.parent.mkdir(parents=True)
    sub.write_bytes((root / "-w-keel" / "k1.jsonl").read_bytes())
    linked = tmp_path / "linked"
    linked.symlink_to(root)
    assert transcript_count(linked) == len(transcript_files(root)) == 3
    terminal, bar_end = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "vyre.cli.main", "ingest", str(linked)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=bar_end,
            env=os.environ,
            text=True,
            timeout=300,
            check=True,
        )
    finally:
        os.close(bar_end)
    drawn = b""
    while select.select([terminal], [], [], 0.5)[0]:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the terminal's other end is closed: all is read
            break
        if not chunk:
            break
        drawn += chunk
    os.close(terminal)
    assert "ingested 3 files (3 with new lines)" in done.stdout
    assert b"reading" in drawn and b"100%" in drawn


def test_the_daemon_derives_a_main_graph_a_one_off_ingest_left_behind(vyre_home, tmp_path):
    """A daemon started after a one-off ingest finds the main graph behind its rooms and
    derives it (a pause after its start's ingest), as after its own new lines."""
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    with Memory() as memory:
        _projects(memory)
        _said(root, "/w/keel", "k1", "Priya Anand, the project architect at Keel & Ash, sent it.")
        memory.ingest(root, main=False)
        assert main_due(memory.ledger)
    daemon = Daemon(vyre_home, root, poll=0.05)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: process.status(vyre_home))
        with Memory() as memory:
            wait_for(lambda: not main_due(memory.ledger), timeout=60)
        facts = call("facts", {"room": MAIN}, caller="cli", home=vyre_home, timeout=10)
        assert "Priya Anand" in {f["subject"] for f in facts if f["rel"] == "works_at"}
    finally:
        daemon.stop.set()
        thread.join(30)
