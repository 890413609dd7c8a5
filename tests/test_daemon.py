"""The daemon: one per home, the user's alone, never loses or doubles a turn."""

from __future__ import annotations

import json
import os
import pty
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT, point_homes_at, wait_for
from tests.transcript import Transcript
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.daemon import process, server
from vyre.daemon.protocol import DaemonError, call
from vyre.daemon.server import AlreadyRunning, Daemon

sys.path.insert(0, str(ROOT / "bench"))
import corpus


@pytest.fixture
def root(vyre_home) -> Path:
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.assistant("Noted.")
    t.write()
    return root


@pytest.fixture
def running(root, vyre_home):
    process.start(vyre_home)
    yield vyre_home
    process.stop(vyre_home)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One daemon for the tests that only need one running (a start costs a second of CPU):
    its home, with Priya's session k1. Tests that write use session ids of their own."""
    base = tmp_path_factory.mktemp("shared-daemon")
    with pytest.MonkeyPatch.context() as mp:
        point_homes_at(mp, base)
        home = Path(os.environ["VYRE_HOME"])
        root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
        t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
        t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
        t.assistant("Noted.")
        t.write()
        process.start(home)
        try:
            yield base
        finally:
            process.stop(home)


@pytest.fixture
def running_shared(shared, monkeypatch):
    """The shared daemon's home, with this test's environment pointed at it."""
    point_homes_at(monkeypatch, shared)
    return Path(os.environ["VYRE_HOME"])


@pytest.fixture
def shared_root(running_shared):
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"


def test_start_status_stop_and_the_home_is_the_users_alone(running):
    info = process.status(running)
    assert info["sessions"] == 1 and info["pid"] != os.getpid()
    assert (running.stat().st_mode & 0o777) == 0o700
    assert ((running / "vyre.sock").stat().st_mode & 0o777) == 0o600
    assert process.stop(running) is True
    assert process.status(running) is None
    assert not (running / "vyre.sock").exists()
    process.start(running)  # the fixture stops it again


def test_a_second_daemon_for_the_same_home_refuses_in_one_line(running_shared):
    running = running_shared
    with pytest.raises(AlreadyRunning, match=r"a daemon already runs for .* \(pid \d+\)"):
        Daemon(running).run()
    result = CliRunner().invoke(cli, ["daemon", "start"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: a daemon already runs for")


def test_a_crashed_daemons_leftovers_are_cleaned(root, vyre_home):
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.daemon", "run"], cwd=ROOT, env=os.environ.copy()
    )
    wait_for(lambda: process.status(vyre_home))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert (vyre_home / "vyre.sock").exists()  # a stale socket, and a stale pid in the lock
    assert process.status(vyre_home) is None
    info = process.start(vyre_home)
    assert info["pid"] != proc.pid
    process.stop(vyre_home)


def test_another_user_is_refused_at_the_socket(root, vyre_home, monkeypatch):
    monkeypatch.setattr(server, "peer_uid", lambda conn: os.getuid() + 1)
    daemon = Daemon(vyre_home, root)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: (vyre_home / "vyre.sock").exists())
        with pytest.raises(DaemonError, match="refused: not this user's daemon"):
            call("ping", caller="cli", home=vyre_home)
    finally:
        daemon.stop.set()
        thread.join(10)


def test_peer_uid_reads_the_real_credentials():
    a, b = socket.socketpair(socket.AF_UNIX)
    try:
        assert server.peer_uid(a) == os.getuid()
    finally:
        a.close()
        b.close()


def test_the_cli_uses_the_daemon_when_it_runs(running_shared):
    running = running_shared
    # the daemon holds the graph: a CLI opening it itself would fail with "in use"
    result = CliRunner().invoke(cli, ["memory", "about", "Priya", "--project", "*"])
    assert result.exit_code == 0, result.output
    assert "Priya Anand works at Keel & Ash Architects" in result.output
    refused = CliRunner().invoke(
        cli,
        [
            "memory",
            "correct",
            "Priya Anand",
            "works_at",
            "Keel & Ash Architects",
            "--action",
            "wrong",
        ],
    )
    assert refused.exit_code == 1 and "refused" in refused.output
    with pytest.raises(DaemonError, match="only you can change memory"):
        call(
            "correct",
            {
                "target": ["Priya Anand", "works_at", "Keel & Ash Architects"],
                "action": "wrong",
                "caller": "cli",
            },
            caller="hook",
            home=running,
        )


def test_new_lines_are_read_by_the_watcher_without_an_ingest(running_shared, shared_root):
    running, root = running_shared, shared_root
    # how soon is bench/daemon.py's business (append to visible: p95 < 1 s)
    t = Transcript(root, cwd="/w/keel", session="k2", start="2026-09-20T10:00:00Z")
    t.user("Jonas Eberhardt, the studio director at Keel & Ash Architects, approved it.")
    t.write()
    text = wait_for(
        lambda: call(
            "enrich",
            {"prompt": "Ask Jonas Eberhardt", "cwd": "/w/keel"},
            caller="hook",
            home=running,
        )
    )
    assert "Jonas Eberhardt works at Keel & Ash Architects" in text


def test_reads_are_answered_while_the_writer_holds_the_store(root, vyre_home):
    """Reads never wait on the writer: with the writer's lock held (a long ingest or derive),
    the prompt hook still gets the room's facts and the CLI its answers. Before, the hook
    came back empty after 0.25 s and every other read waited for the lock."""
    daemon = Daemon(vyre_home, root)
    thread = threading.Thread(target=daemon.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: daemon.reads is not None and (vyre_home / "vyre.sock").exists())
        with daemon.lock:  # the writer is busy for as long as this block lasts
            text = call(
                "enrich",
                {"prompt": "Ask Priya Anand", "cwd": "/w/keel"},
                caller="hook",
                home=vyre_home,
            )
            facts = call("facts", {"room": "*"}, caller="cli", home=vyre_home)
            rooms = call("check_room", {"room": "unfiled"}, caller="cli", home=vyre_home)
        assert "Priya Anand works at Keel & Ash Architects" in text
        assert facts and rooms == "unfiled"
    finally:
        daemon.stop.set()
        thread.join(30)


def test_two_clis_and_the_daemon_at_once(running_shared, shared_root):
    running, root = running_shared, shared_root
    for i in range(3):
        Transcript(root, cwd="/w/keel", session=f"c{i}", start="2026-09-21T10:00:00Z").user(
            f"Lena Park number {i} from Summit Dental called."
        ).write()
    env = {**os.environ, "VYRE_NOW": "2026-10-01T12:00:00Z"}
    commands = [
        ["memory", "facts", "--json"],
        ["ingest"],
        ["memory"],
        ["why", "Priya Anand"],
        ["project", "add", "keel", "--folder", "/w/keel"],
    ]
    primary, secondary = pty.openpty()  # a terminal on stdin: `project add` is the owner's
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "vyre.cli.main", *c],
                cwd=ROOT,
                env=env,
                stdin=secondary,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for c in commands
        ]
        outputs = []
        for p in procs:
            out, err = p.communicate(timeout=60)
            assert p.returncode == 0, (p.args, err)
            assert "Traceback" not in err
            outputs.append(out)
    finally:
        os.close(primary)
        os.close(secondary)
    facts, ingested, overview, why, added = outputs
    assert any(f["subject"] == "Priya Anand" for f in json.loads(facts))
    assert ingested.startswith("ingested ") and "skipped 0 lines" in ingested
    assert overview.startswith("Memory (everything): ")
    assert "Priya Anand" in why and "session" in why
    # the room is derived either by this command or, first, by the daemon's watcher reading
    # the new sessions (which sees the new project): both say so, and the room holds them
    assert re.search(
        r"^created project keel: folder /w/keel; (derived \d+ rooms?, \d+ facts?|memory is up"
        r" to date)$",
        added,
        re.M,
    ), added
    assert "keel" in call("check_room", {"room": "keel"}, caller="cli", home=running)
    keel = call("facts", {"room": "keel"}, caller="cli", home=running)
    assert "Lena Park" in {f["subject"] for f in keel}


def test_sigkill_in_the_middle_of_an_ingest_loses_and_doubles_nothing(tmp_path, vyre_home):
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    corpus.generate(root, sessions=300, projects=5, seed=3)
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.daemon", "run"], cwd=ROOT, env=os.environ.copy()
    )
    wait_for(lambda: (vyre_home / "vyre.db").exists() and _turns(vyre_home) > 0, timeout=60)
    proc.send_signal(signal.SIGKILL)  # mid-ingest: some batches in, others not
    proc.wait()
    process.start(vyre_home)
    process.stop(vyre_home)
    clean = tmp_path / "clean"
    with Memory(clean) as memory:
        memory.ingest(root)
        want_turns = sorted(memory.ledger.db.execute("SELECT session, seq, by, text FROM turns"))
        want_graph = memory.store.dump()
    with Memory(vyre_home) as memory:
        got_turns = sorted(memory.ledger.db.execute("SELECT session, seq, by, text FROM turns"))
        assert got_turns == want_turns
        assert memory.store.dump() == want_graph


def _turns(home: Path) -> int:
    import sqlite3

    try:
        db = sqlite3.connect(home / "vyre.db", timeout=0.1)
        return db.execute("SELECT count(*) FROM turns").fetchone()[0]
    except sqlite3.Error:
        return 0
