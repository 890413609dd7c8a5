"""`vyre deck` from the command line: it starts the daemon, prints the URL first, and the
daemon serves the page on loopback until the command is stopped."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from click.testing import CliRunner

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
