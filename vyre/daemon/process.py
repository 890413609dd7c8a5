"""Starting, stopping and asking after the daemon of one home."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from vyre import config
from vyre.daemon.protocol import (
    LOCK_NAME,
    LOG_NAME,
    DaemonError,
    DaemonUnavailable,
    call,
)
from vyre.daemon.server import Daemon
from vyre.errors import AlreadyRunning, DaemonControlError

START_WAIT_S = 30.0  # a first start ingests everything before it answers


def status(home: Path | None = None) -> dict | None:
    """The running daemon's status, or None."""
    try:
        return call("status", caller="local", home=home, timeout=2.0)
    except (DaemonUnavailable, DaemonError):
        return None


def start(home: Path | None = None) -> dict:
    """Start a daemon in the background and wait until it answers."""
    home = home or config.home()
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    running = status(home)
    if running:
        raise DaemonControlError(f"a daemon already runs for {home} (pid {running['pid']})")
    log = open(home / LOG_NAME, "ab")  # noqa: SIM115 (handed to the child)
    os.chmod(home / LOG_NAME, 0o600)
    proc = subprocess.Popen(
        [sys.executable, "-m", "vyre.daemon", "run"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,
        env={**os.environ, "VYRE_HOME": str(home)},
    )
    log.close()
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = (home / LOG_NAME).read_text(errors="replace").strip().splitlines()[-1:]
            raise DaemonControlError(f"the daemon did not start: {' '.join(tail) or 'no log'}")
        answer = status(home)
        if answer:
            return answer
        time.sleep(0.05)
    raise DaemonControlError(f"the daemon did not answer within {START_WAIT_S:.0f} s")


def stop(home: Path | None = None, timeout: float = 15.0) -> bool:
    """Stop the daemon; True when one was running."""
    home = home or config.home()
    pid = _pid(home)
    try:
        call("shutdown", caller="local", home=home, timeout=2.0)
    except (DaemonUnavailable, DaemonError):
        if pid is None or not _alive(pid):
            return False
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pid is None or not _alive(pid):
            return True
        time.sleep(0.05)
    raise DaemonControlError(f"the daemon (pid {pid}) did not stop within {timeout:.0f} s")


def _pid(home: Path) -> int | None:
    try:
        text = (home / LOCK_NAME).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of ours has exited
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def main(argv: list[str]) -> int:
    """`python -m vyre.daemon run`: the foreground daemon (what `start` launches)."""
    if argv[:1] != ["run"]:
        print("usage: python -m vyre.daemon run", file=sys.stderr)
        return 2
    try:
        Daemon().run()
    except AlreadyRunning as exc:
        print(f"vyre daemon: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # one line, never a traceback, for the log and the terminal
        print(
            f"vyre daemon: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
            file=sys.stderr,
        )
        return 1
    return 0
