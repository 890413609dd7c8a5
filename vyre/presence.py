"""Is a person here? Owner actions (correct, merge, split, accept, weaken) need one.

A process started by Claude Code (its Bash tool, a hook) carries `CLAUDECODE=1`, and so do
the processes it starts. A model can drop the variable (`env -u CLAUDECODE ...`), but not from
the processes above it: on Linux every ancestor's environment is read from /proc, so a
command run from Claude Code's shell is inside Claude Code however it was started.

The daemon serves other processes: it judges the process at the other end of its socket
(`peer_inside_claude_code`), never its own environment, which is whatever started it.
"""

from __future__ import annotations

import os

MARKERS = ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT")
MAX_ANCESTORS = 32
SERVES_OTHERS = False  # set by the daemon: judge peers, not this process


def inside_claude_code() -> bool:
    """This process runs inside Claude Code (its env, or any ancestor's)."""
    if SERVES_OTHERS:
        return False
    if any(os.environ.get(m) for m in MARKERS):
        return True
    return _ancestors_marked(os.getppid())


def peer_inside_claude_code(pid: int) -> bool:
    """The process `pid` (a socket peer) or one of its ancestors runs inside Claude Code."""
    return _marked(pid) or _ancestors_marked(_parent(pid))


def _ancestors_marked(pid: int | None) -> bool:
    for _ in range(MAX_ANCESTORS):
        if not pid or pid <= 1:
            return False
        if _marked(pid):
            return True
        pid = _parent(pid)
    return False


def _marked(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return False
    wanted = tuple(m.encode() + b"=" for m in MARKERS)
    return any(e.startswith(wanted) and not e.endswith(b"=") for e in env)


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else None
