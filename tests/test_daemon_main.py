"""The main graph derived and written beside the daemon's writer (`vyre.daemon.main_graph`).

While the main graph is derived, reads are answered from the previous one at once, the writer's
lock is free, and new lines go on being read into their rooms; a kill at any point of the
main graph's derive or write leaves a home the next start brings to a clean run's state.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import ROOT, wait_for
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.daemon import process
from vyre.daemon.protocol import call
from vyre.daemon.server import Daemon

CWD = "/w/keel"


@pytest.fixture
def root(vyre_home) -> Path:
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(root, cwd=CWD, session="k1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.write()
    return root


def _said(root: Path, session: str, line: str) -> None:
    Transcript(root, cwd=CWD, session=session, start="2026-09-02T10:00:00Z").user(line).write()


def _works_at(home: Path, room: str, timeout: float = 2.0) -> set[str]:
    facts = call("facts", {"room": room}, caller="cli", home=home, timeout=timeout)
    return {f["subject"] for f in facts if f["rel"] == "works_at"}


def _enriched(home: Path, name: str) -> str:
    args = {"prompt": f"Ask {name} about it", "cwd": CWD}
    return call("enrich", args, caller="hook", home=home, timeout=2.0) or ""


def test_reads_and_new_lines_go_on_while_the_main_graph_is_derived(root, vyre_home, held_main):
    armed, gate, entered = held_main
    daemon = Daemon(vyre_home, root, poll=0.05)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: process.status(vyre_home))
        assert _works_at(vyre_home, "*") == {"Priya Anand"}
        armed["on"] = True
        _said(root, "k2", "Tomas Berg, the site engineer at Halden Structures, checked it.")
        assert entered.wait(30), "the main graph was never derived after the new line"
        # the main graph is being derived: its reads answer at once, from the one before
        assert _works_at(vyre_home, "*") == {"Priya Anand"}
        assert "Tomas Berg works at Halden Structures" in _enriched(vyre_home, "Tomas Berg")
        assert daemon.lock.acquire(timeout=1.0), "the main graph's derive held the writer's lock"
        daemon.lock.release()
        # and the watcher goes on: a line written now is read and served from its room
        _said(root, "k3", "Lena Park, the office manager at Summit Dental, called back.")
        text = wait_for(lambda: "Lena Park" in (t := _enriched(vyre_home, "Lena Park")) and t)
        assert "Lena Park works at Summit Dental" in text
        status = process.status(vyre_home)
        assert status and status["sessions"] == 3
        # a question changes nothing derived: it is answered now, not after the main graph
        asked = {"question": "Where does Lena Park work?", "cwd": CWD}
        reply = call("ask", asked, caller="cli", home=vyre_home, timeout=10.0)
        assert "Summit Dental" in reply["answer"]
        assert _works_at(vyre_home, "*") == {"Priya Anand"}  # still the previous main graph
        gate.set()
        everyone = {"Priya Anand", "Tomas Berg", "Lena Park"}
        wait_for(lambda: _works_at(vyre_home, "*") == everyone)
    finally:
        gate.set()
        daemon.stop.set()
        thread.join(30)
    with Memory(vyre_home) as memory:  # what the daemon recorded is what a fresh look finds
        clean = _clean_dump(root, vyre_home.parent / "clean")
        assert memory.graph_health().ok
        assert memory.store.dump() == clean


def test_a_change_through_the_daemon_is_in_the_main_graph_when_it_answers(root, vyre_home):
    process.start(vyre_home)
    try:
        assert _works_at(vyre_home, "*") == {"Priya Anand"}
        _said(root, "k2", "Tomas Berg, the site engineer at Halden Structures, checked it.")
        call("ingest", {}, caller="cli", home=vyre_home, timeout=30)
        assert _works_at(vyre_home, "*") == {"Priya Anand", "Tomas Berg"}
    finally:
        process.stop(vyre_home)


@pytest.mark.parametrize("point", ["derived", "writing", "renamed"])
def test_a_kill_while_the_main_graph_is_written_beside_the_writer_is_repaired(
    point, root, vyre_home, tmp_path
):
    """Killed after the main rows were derived (nothing written), while its new file is
    written (before its checkpoint), or once the file is in place but not yet recorded in the
    ledger: the next start comes to what one clean ingest of the same transcripts makes."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.daemon_main_kill", str(vyre_home), str(root), point],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "armed"
        _said(root, "k2", "Tomas Berg, the site engineer at Halden Structures, checked it.")
        assert proc.stdout.readline().strip() == point
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(30)
    for stale in vyre_home.glob("vyre.sock"):
        stale.unlink()  # what a killed daemon leaves; the next start removes it too
    process.start(vyre_home)
    try:
        assert _works_at(vyre_home, "*") == {"Priya Anand", "Tomas Berg"}
    finally:
        process.stop(vyre_home)
    with Memory(vyre_home) as memory:
        assert memory.graph_health().ok
        assert memory.store.dump() == _clean_dump(root, tmp_path / "clean")


def _clean_dump(root: Path, home: Path) -> list[tuple]:
    with Memory(home) as memory:
        memory.ingest(root)
        return memory.store.dump()


def test_hooks_writes_status_and_served_reads_go_on_while_the_writer_holds_its_lock(
    root, vyre_home
):
    """A long ingest or derive holds the writer's lock: the prompt hook's learning part, a tool
    event, `vyre daemon status` and a served CLI read are answered meanwhile, not after it."""
    daemon = Daemon(vyre_home, root, poll=0.05)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: process.status(vyre_home))
        row = {"event": "PostToolUse", "session": "k1", "tool": "Bash", "shape": None}
        row |= {"ok": 1, "ts": "2026-09-01T10:05:00Z", "key": "PostToolUse:k1:toolu_1"}
        asked = {"prompt": "Ask Priya Anand about it", "cwd": CWD, "session": "k1"}
        with daemon.lock:  # the writer is busy for as long as this block lasts
            assert call("record", row, caller="hook", home=vyre_home, timeout=2.0) is True
            assert call("learn_prompt", asked, caller="hook", home=vyre_home, timeout=2.0) == ""
            status = call("status", caller="local", home=vyre_home, timeout=2.0)
            served = call(
                "cli",
                {"argv": ["memory", "facts", "--json"], "cwd": CWD},
                caller="cli",
                home=vyre_home,
                timeout=5.0,
            )
        assert status["sessions"] == 1
        assert served["code"] == 0 and "Priya Anand" in served["out"]
    finally:
        daemon.stop.set()
        thread.join(30)
    with Memory(vyre_home) as memory:
        db = memory.ledger.db
        assert db.execute("SELECT count(*) FROM tool_events").fetchone()[0] == 1
        prompts = "SELECT count(*) FROM learn_commands WHERE event = 'prompt' AND session = 'k1'"
        assert db.execute(prompts).fetchone()[0] == 1
