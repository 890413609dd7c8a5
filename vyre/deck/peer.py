"""Which process is at the other end of a loopback connection to the Deck.

A program running as the user can read the Deck's token like any of the user's files, so a
signed-in session alone does not say a person is there. The daemon already refuses owner
actions from a socket peer inside Claude Code (`vyre.presence`); the Deck does the same for
its HTTP peers: the connection's local port is looked up in /proc/net/tcp, the socket's inode
in the user's processes' open files, and that process and its ancestors are checked for
Claude Code's marker. A browser the user opened is not inside Claude Code; `curl` from the
model's shell, or a browser it started, is.

Linux only (/proc). Elsewhere the lookup finds nothing and the check passes: the passkey
still guards what loosens a lesson.
"""

from __future__ import annotations

import os

from vyre import presence

TCP_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


def _inode(client_port: int, server_port: int) -> str | None:
    """The inode of the client's end of a loopback connection to the Deck."""
    want_local, want_remote = f"{client_port:04X}", f"{server_port:04X}"
    for table in TCP_TABLES:
        try:
            with open(table) as f:
                next(f, None)
                for line in f:
                    fields = line.split()
                    local, remote, inode = fields[1], fields[2], fields[9]
                    if local.endswith(":" + want_local) and remote.endswith(":" + want_remote):
                        return inode
        except OSError:
            continue
    return None


def peer_pid(client_port: int, server_port: int) -> int | None:
    """The pid of this user's process that holds the client end, if it can be found."""
    inode = _inode(client_port, server_port)
    if inode is None:
        return None
    target = f"socket:[{inode}]"
    uid = os.getuid()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        folder = f"/proc/{pid}/fd"
        try:
            if os.stat(folder).st_uid != uid:
                continue
            for fd in os.listdir(folder):
                if os.readlink(f"{folder}/{fd}") == target:
                    return pid
        except OSError:
            continue
    return None


def inside_claude_code(client_port: int, server_port: int) -> bool:
    """True when the process that made this connection runs inside Claude Code."""
    pid = peer_pid(client_port, server_port)
    return pid is not None and presence.peer_inside_claude_code(pid)
