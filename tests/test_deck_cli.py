"""`vyre deck` from the command line: it starts the daemon, prints the URL first, and the
daemon serves the page on loopback until the command is stopped."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
from click.testing import CliRunner

from tests.conftest import wait_for
from tests.transcript import Transcript
from vyre.cli.main import cli
from vyre.daemon import process


def _ignoring_sigint() -> None:  # as a shell starts a job with `&`
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("stop", "start"),
    [(signal.SIGINT, None), (signal.SIGINT, _ignoring_sigint), (signal.SIGTERM, None)],
    ids=["ctrl-c", "ctrl-c-inherited-ignored", "term"],
)
def test_deck_no_open_prints_the_url_first_and_keeps_serving(vyre_home, stop, start):
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.write()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.cli.main", "deck", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=start,
    )
    try:
        url = urlparse(proc.stdout.readline().strip())
        assert url.scheme == "http" and url.hostname == "localhost" and url.path == "/login"
        assert process.status(vyre_home) is not None  # it started the daemon
        assert _get(url.port, f"{url.path}?{url.query}", url.netloc) == 200
        assert _get(url.port, "/memory", url.netloc) == 401  # no cookie yet
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # a failure, but no deck or daemon is left running
            proc.kill()
            proc.wait()
            process.stop(vyre_home)
            raise
    assert process.status(vyre_home) is None  # it stops the daemon it started


def test_a_stop_while_the_daemon_starts_leaves_no_daemon_behind(vyre_home):
    """Ctrl-C before the URL is printed, while the daemon it started is still coming up:
    after the command has exited, no daemon process of this home lives on."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.cli.main", "deck", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not _daemons_of(vyre_home):  # spawned (it answers only a moment later)
            assert proc.poll() is None, proc.stderr.read()
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        # the daemon it stopped may be a moment from its exit (the lock is let go first);
        # one left running stays (it was, and came up a moment later)
        wait_for(lambda: not _daemons_of(vyre_home), timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in _daemons_of(vyre_home):
            os.kill(pid, signal.SIGKILL)


def test_a_stop_that_comes_inside_popen_still_stops_the_daemon(vyre_home, monkeypatch):
    """Ctrl-C in the narrowest window: the daemon's process runs, and `Popen` has not yet
    returned it. The start is stopped, and no daemon of this home lives on."""
    real = subprocess.Popen

    def spawned_then_ctrl_c(*args, **kwargs):
        child = real(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)  # raised here, `start` never learns of the child
        return child

    monkeypatch.setattr(subprocess, "Popen", spawned_then_ctrl_c)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as at a terminal
    try:
        with pytest.raises(KeyboardInterrupt):
            process.start(vyre_home)
        wait_for(lambda: not _daemons_of(vyre_home), timeout=10)
    finally:
        signal.signal(signal.SIGINT, before)
        for pid in _daemons_of(vyre_home):
            os.kill(pid, signal.SIGKILL)


def _daemons_of(home: Path) -> list[int]:
    """Live `vyre.daemon` processes whose VYRE_HOME is this home."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            env = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, ValueError, IndexError):
            continue
        if b"vyre.daemon" in argv and f"VYRE_HOME={home}".encode() in env and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_passkey_code_is_for_the_owner_at_a_terminal_only(vyre_home, monkeypatch):
    monkeypatch.setenv("CLAUDECODE", "1")
    result = CliRunner().invoke(cli, ["deck", "passkey", "--no-open"])
    assert result.exit_code == 1
    assert "refused" in result.output and "Claude Code" in result.output
    assert process.status(vyre_home) is None  # refused before anything started


def _get(port: int, path: str, host: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path, headers={"Host": host})
        return conn.getresponse().status
    finally:
        conn.close()
