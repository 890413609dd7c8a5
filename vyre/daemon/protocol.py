"""The daemon's wire: one JSON object per line over a Unix socket in the home folder.

Request  {"op": "relevant", "args": {...}, "caller": "hook"}
Reply    {"ok": true, "result": ...} or {"ok": false, "error": "one line", "kind": "..."}
Events   {"event": {...}} lines before the reply, for a request that streams (`ask` with
         `"stream": true`): `call(..., on_event=f)` hands each to f.

Standard library only, and not even pathlib: the prompt hook imports this on its fast path,
where every millisecond of start-up counts.
"""

from __future__ import annotations

import os

try:  # the C module under `socket`: the same calls, without loading enum and selectors
    import _socket as socket
except ImportError:  # pragma: no cover - every CPython has it
    import socket

from vyre.errors import DaemonError, DaemonUnavailable
from vyre.hooks import fastjson as json

SOCKET_NAME = "vyre.sock"
LOCK_NAME = "daemon.lock"
LOG_NAME = "daemon.log"
MAX_LINE = 8 << 20


def home_path() -> str:
    """VYRE_HOME without creating it (hooks must not create homes)."""
    return os.path.expanduser(os.environ.get("VYRE_HOME") or "~/.vyre")


def socket_path(home=None) -> str:
    return os.path.join(os.fspath(home or home_path()), SOCKET_NAME)


def call(
    op: str,
    args: dict | None = None,
    *,
    caller: str,
    home=None,
    timeout: float = 5.0,
    on_event=None,
):
    """Send one request and return its result. Raises DaemonUnavailable or DaemonError."""
    path = socket_path(home)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError, OSError) as exc:
            raise DaemonUnavailable(str(exc)) from exc
        payload = json.dumps({"op": op, "args": args or {}, "caller": caller})
        try:
            sock.sendall(payload.encode() + b"\n")
            buffer = b""
            while True:
                reply, buffer = _read_line(sock, buffer)
                if not reply:
                    raise DaemonUnavailable("the daemon closed the connection")
                message = json.loads(reply)
                if "event" in message and "ok" not in message:
                    if on_event is not None:
                        on_event(message["event"])
                    continue
                break
        except (TimeoutError, OSError) as exc:
            raise DaemonUnavailable(f"no answer from the daemon: {exc}") from exc
    finally:
        sock.close()
    if not message.get("ok"):
        raise DaemonError(message.get("error", "the daemon failed"), message.get("kind", ""))
    return message.get("result")


def _read_line(sock: socket.socket, buffer: bytes) -> tuple[bytes, bytes]:
    """The next line, and what came after it."""
    while b"\n" not in buffer and len(buffer) <= MAX_LINE:
        chunk = sock.recv(65536)
        if not chunk:
            return buffer, b""
        buffer += chunk
    line, _, rest = buffer.partition(b"\n")
    return line, rest
