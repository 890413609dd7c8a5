"""Starting, stopping and asking after the daemon of one home.

What must stay true:
- `stop` signals only the process that holds this home's `daemon.lock` (the daemon's lock
  dies with it): after a crash the pid written in the file may be anyone's, so the file's pid
  alone is never enough. On Linux the holder is read from /proc/locks; elsewhere the pid in
  the file must hold the lock and be running `vyre.daemon`.
- `daemon.lock` and `daemon.log` are opened by `private.open_private` (never through a
  symbolic link; a link planted there is refused and its target never touched).
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vyre import config
from vyre.daemon.private import open_private
from vyre.daemon.protocol import (
    LOCK_NAME,
    LOG_NAME,
    DaemonError,
    DaemonUnavailable,
    call,
)
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
    os.close(open_private(home / LOCK_NAME, os.O_RDWR))  # a planted link: refused here
    log = os.fdopen(open_private(home / LOG_NAME, os.O_WRONLY | os.O_APPEND), "ab")
    with _stops_held() as stops:
        proc = subprocess.Popen(
            [sys.executable, "-m", "vyre.daemon", "run"],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env={**os.environ, "VYRE_HOME": str(home)},
        )
    log.close()
    if stops:  # one came while it was spawned: the daemon goes first, then the stop goes on
        proc.terminate()
        proc.wait()
        for stop in stops:
            signal.raise_signal(stop)
        raise DaemonControlError("the daemon's start was stopped")
    try:
        return _answer(proc, home)
    except KeyboardInterrupt:  # Ctrl-C while it starts: no daemon is left behind
        proc.terminate()
        proc.wait()
        raise


@contextmanager
def _stops_held() -> Iterator[list[int]]:
    """Stops (Ctrl-C, `kill`, a closed terminal) that come while the daemon is spawned, kept
    to be raised once it is known: raised inside `Popen` they lose the child, which would come
    up and run on with nobody to stop it. Stops the caller ignores are not kept."""
    came: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield came  # signals reach the main thread only
        return
    before = {}
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        before[stop] = signal.getsignal(stop)
        if before[stop] is not signal.SIG_IGN:
            signal.signal(stop, lambda signum, _frame: came.append(signum))
    try:
        yield came
    finally:
        for stop, handler in before.items():
            signal.signal(stop, handler)


def _answer(proc: subprocess.Popen, home: Path) -> dict:
    """The started daemon's first status, once it answers."""
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            with os.fdopen(open_private(home / LOG_NAME, os.O_RDONLY), "rb") as f:
                tail = f.read().decode(errors="replace").strip().splitlines()[-1:]
            raise DaemonControlError(f"the daemon did not start: {' '.join(tail) or 'no log'}")
        answer = status(home)
        if answer:
            return answer
        time.sleep(0.05)
    raise DaemonControlError(f"the daemon did not answer within {START_WAIT_S:.0f} s")


def stop(home: Path | None = None, timeout: float = 15.0) -> bool:
    """Stop the daemon; True when one was running."""
    home = home or config.home()
    try:
        call("shutdown", caller="local", home=home, timeout=2.0)
    except (DaemonUnavailable, DaemonError):
        pid = holder(home)
        if pid is None:
            return False  # no process holds the lock: whatever the file says, none is ours
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        pid = holder(home)
        if pid is None:
            return True
        time.sleep(0.05)
    raise DaemonControlError(f"the daemon (pid {pid}) did not stop within {timeout:.0f} s")


def holder(home: Path) -> int | None:
    """The pid of the daemon holding this home's lock, or None when no process holds it."""
    path = home / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # held: by whom is asked below
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        listed = _lock_holders(os.fstat(fd).st_ino)
        if listed is not None:
            return listed[0] if listed else None
        text = os.read(fd, 32).decode(errors="replace").strip()
    finally:
        os.close(fd)
    pid = int(text) if text.isdigit() else None
    return pid if pid and _runs_the_daemon(pid) else None


def _lock_holders(inode: int) -> list[int] | None:
    """Pids holding a FLOCK on this inode, from /proc/locks (None where there is none)."""
    try:
        with open("/proc/locks") as f:
            rows = f.read().splitlines()
    except OSError:
        return None
    pids = []
    for row in rows:
        parts = row.split()
        if "->" in parts or len(parts) < 6 or parts[1] != "FLOCK":
            continue
        if parts[5].rsplit(":", 1)[-1] == str(inode) and parts[4].isdigit():
            pids.append(int(parts[4]))
    return pids


def _runs_the_daemon(pid: int) -> bool:
    try:
        out = subprocess.run(
            ["ps", "-p", str(pid), "-o", "command="], capture_output=True, text=True, timeout=5
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "vyre.daemon" in out or "vyre daemon" in out


def main(argv: list[str]) -> int:
    """`python -m vyre.daemon run`: the foreground daemon (what `start` launches)."""
    if argv[:1] != ["run"]:
        print("usage: python -m vyre.daemon run", file=sys.stderr)
        return 2
    try:
        from vyre.daemon.server import Daemon

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
