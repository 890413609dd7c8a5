"""The daemon's wire: one JSON object per line over a Unix socket in the home folder.

Request  {"op": "relevant", "args": {...}, "caller": "hook"}
Reply    {"ok": true, "result": ...} or {"ok": false, "error": "one line", "kind": "..."}
Events   {"event": {...}} lines before the reply, for a request that streams (`ask` with
         `"stream": true`): `call(..., on_event=f)` hands each to f.

Standard library only, and not even pathlib: the prompt hook imports this on its fast path,
where every millisecond of start-up counts.

What must stay true:
- Nothing is sent to a socket that may not be this user's daemon: the home must be this
  user's and closed to others (no group or other bits), the socket a socket owned by this
  user, and (where the system says) the process serving it this user's. Otherwise `call`
  raises `Untrusted` before a prompt leaves the process.
- A reply is read whole however long it is (4,700 facts is past 8 MiB), up to `MAX_REPLY`;
  a request is at most `MAX_LINE`. A reply that is not JSON is `DaemonUnavailable`, never a
  `ValueError`.
"""

from __future__ import annotations

import os
import stat
import sys

try:  # the C module under `socket`: the same calls, without loading enum and selectors
    import _socket as socket
except ImportError:  # pragma: no cover - every CPython has it
    import socket  # type: ignore[no-redef]

from vyre.errors import DaemonError, DaemonUnavailable, Untrusted
from vyre.hooks import fastjson as json

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook fast path never imports typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

SOCKET_NAME = "vyre.sock"
LOCK_NAME = "daemon.lock"
LOG_NAME = "daemon.log"
MAX_LINE = 8 << 20  # the longest request the daemon reads
MAX_REPLY = 1 << 30  # the longest reply a caller reads


def home_path() -> str:
    """VYRE_HOME without creating it (hooks must not create homes)."""
    return os.path.expanduser(os.environ.get("VYRE_HOME") or "~/.vyre")


def socket_path(home: str | os.PathLike[str] | None = None) -> str:
    return os.path.join(os.fspath(home or home_path()), SOCKET_NAME)


def call(
    op: str,
    args: dict | None = None,
    *,
    caller: str,
    home: str | os.PathLike[str] | None = None,
    timeout: float = 5.0,
    on_event: Callable[[dict], object] | None = None,
) -> Any:
    """Send one request and return its result. Raises DaemonUnavailable (Untrusted when the
    socket may not be this user's daemon) or DaemonError."""
    home = os.fspath(home or home_path())
    path = socket_path(home)
    check_socket(home, path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError, OSError) as exc:
            raise DaemonUnavailable(str(exc)) from exc
        _check_peer(sock, path)
        payload = json.dumps({"op": op, "args": args or {}, "caller": caller})
        try:
            try:  # noqa: SIM105 (contextlib is not loaded on the hook's fast path)
                sock.sendall(payload.encode() + b"\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # it answered (a refusal) and hung up before reading: read the answer
            buffer = bytearray()
            while True:
                reply = _read_line(sock, buffer)
                if not reply:
                    raise DaemonUnavailable("the daemon closed the connection")
                message = _message(reply)
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


def check_socket(home: str, path: str) -> None:
    """Refuse a home others can enter or a socket that is not this user's (planted there)."""
    uid = os.getuid()
    try:
        home_stat = os.stat(home)
        sock_stat = os.lstat(path)
    except OSError:
        return  # nothing there: connecting says the daemon is not running
    if home_stat.st_uid != uid or home_stat.st_mode & 0o077:
        raise Untrusted(
            f"refused: {home} is open to other users (mode {stat.S_IMODE(home_stat.st_mode):o}, "
            f"owner uid {home_stat.st_uid}); `chmod 700 {home}` makes it yours alone"
        )
    if not stat.S_ISSOCK(sock_stat.st_mode) or sock_stat.st_uid != uid:
        raise Untrusted(f"refused: {path} is not a socket of this user's; remove it")


def _check_peer(sock: socket.socket, path: str) -> None:
    """The process serving the socket runs as this user (Linux says, through SO_PEERCRED)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return
    creds = sock.getsockopt(socket.SOL_SOCKET, option, 12)  # pid, uid, gid as C ints
    if int.from_bytes(creds[4:8], sys.byteorder) != os.getuid():
        raise Untrusted(f"refused: the process serving {path} is not this user's")


def _message(reply: bytes) -> dict:
    try:
        message = json.loads(reply)
    except ValueError:
        raise DaemonUnavailable("the daemon's reply could not be read (cut short?)") from None
    if not isinstance(message, dict):
        raise DaemonUnavailable("the daemon's reply is not an object")
    return message


def _read_line(sock: socket.socket, buffer: bytearray) -> bytes:
    """The next line, taken out of `buffer` (which keeps what came after it); what was left
    when the daemon hung up mid-line; b"" when nothing was. A line may be far longer than one
    receive: it is searched only in what each receive adds."""
    start = 0
    while True:
        at = buffer.find(b"\n", start)
        if at >= 0:
            line = bytes(buffer[:at])
            del buffer[: at + 1]
            return line
        if len(buffer) > MAX_REPLY:
            raise DaemonUnavailable(f"the daemon's reply is larger than {MAX_REPLY >> 20} MiB")
        start = len(buffer)
        chunk = sock.recv(1 << 20 if buffer else 65536)
        if not chunk:
            line = bytes(buffer)
            buffer.clear()
            return line
        buffer += chunk
