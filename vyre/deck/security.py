"""Who may talk to the Deck, and how: loopback, the right Host, a signed-in browser.

What must stay true:
- The Deck listens on 127.0.0.1 only. Every request's Host must be `127.0.0.1:PORT` or
  `localhost:PORT` (a page from another site that rebinds its DNS name to 127.0.0.1 still
  sends its own name: refused).
- A request without the session cookie gets 401 and nothing else. The one way in is the
  token in `$VYRE_HOME/deck.token` (0600, the user's alone), exchanged once for an HttpOnly
  `SameSite=Strict` cookie: the exchange itself is a POST, and the token is replaced as soon
  as it is used, so a URL left in the browser's history opens nothing.
- Every state change is a POST, PUT or DELETE whose Origin is the Deck's own; a GET never
  changes anything.
- Every response carries a strict Content-Security-Policy (scripts and styles from the Deck
  itself only), `X-Frame-Options: DENY`, `nosniff` and a referrer only to itself.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from pathlib import Path

TOKEN_NAME = "deck.token"
COOKIE = "vyre_deck"
SESSION_S = 12 * 3600  # a signed-in browser stays signed in for a working day
SAFE_METHODS = frozenset({"GET", "HEAD"})

CSP = (
    "default-src 'none'; script-src 'self'{extra}; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}


def write_private(path: Path, text: str) -> None:
    """Write a file only this user can read, never through a planted link: a new file is
    made beside it (O_EXCL, O_NOFOLLOW, 0600) and renamed over the old one."""
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_private(path: Path) -> str | None:
    """A file's text if it is a regular file of this user's, readable by nobody else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
        return os.read(fd, 4096).decode().strip() or None
    finally:
        os.close(fd)


class Gate:
    """The Deck's door: the token, the signed-in browsers, and the checks on each request."""

    def __init__(self, home: Path, port: int):
        self.home = Path(home)
        self.port = port
        self.origins = frozenset({f"http://127.0.0.1:{port}", f"http://localhost:{port}"})
        self.hosts = frozenset({f"127.0.0.1:{port}", f"localhost:{port}"})
        self._sessions: dict[str, float] = {}
        self._lock = threading.Lock()
        self.token()  # a token exists from the start, so `vyre deck` can always print a URL

    # -- the token ---------------------------------------------------------------------

    @property
    def token_path(self) -> Path:
        return self.home / TOKEN_NAME

    def token(self) -> str:
        """The token that signs a browser in now (made when there is none)."""
        with self._lock:
            current = read_private(self.token_path)
            if current is None:
                current = secrets.token_urlsafe(32)
                write_private(self.token_path, current)
            return current

    def exchange(self, offered: str) -> str | None:
        """A new session for a browser that shows the current token; the token is then
        replaced, so it opens the Deck exactly once."""
        with self._lock:
            current = read_private(self.token_path)
            if not current or not offered or not hmac.compare_digest(current, offered):
                return None
            write_private(self.token_path, secrets.token_urlsafe(32))
            session = secrets.token_urlsafe(32)
            self._sessions[session] = time.time() + SESSION_S
            return session

    def signed_in(self, cookie: str | None) -> bool:
        if not cookie:
            return False
        with self._lock:
            until = self._sessions.get(cookie)
            if until is None:
                return False
            if until < time.time():
                del self._sessions[cookie]
                return False
            return True

    # -- requests ----------------------------------------------------------------------

    def host_ok(self, host: str | None) -> bool:
        return host in self.hosts

    def origin_ok(self, method: str, origin: str | None) -> bool:
        """Safe methods need no Origin; a state change must come from the Deck's own page."""
        return method in SAFE_METHODS or origin in self.origins


def csp(extra_scripts: tuple[str, ...] = ()) -> str:
    extra = "".join(f" '{s}'" for s in extra_scripts)
    return CSP.format(extra=extra)
