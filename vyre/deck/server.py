"""Serving the Deck: uvicorn on a loopback port, in a thread of the process that owns memory.

The daemon starts it on the first `vyre deck` (not at boot: a daemon nobody looks at costs no
web server), on `deck.port` from settings when set, else a free port. Tests start one over a
local `Memory` the same way.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from urllib.parse import quote

import uvicorn

from vyre.deck.app import TEMPLATES, create_app
from vyre.deck.passkey import Passkeys
from vyre.deck.security import Gate
from vyre.deck.views import Backend, routes

HOST = "127.0.0.1"
START_WAIT_S = 10.0


class DeckServer:
    def __init__(self, home: Path, backend: Backend, *, port: int = 0):
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((HOST, port))  # loopback only: nothing on the network can reach it
        self.port = self._sock.getsockname()[1]
        self.gate = Gate(home, self.port)
        self.passkeys = Passkeys(backend.memory.ledger, self.port)
        app = create_app(self.gate, routes(backend, self.passkeys, TEMPLATES))
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._sock]},
            name="vyre-deck",
            daemon=True,
        )

    def start(self) -> DeckServer:
        self._thread.start()
        deadline = time.monotonic() + START_WAIT_S
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the Deck's web server did not start")
            time.sleep(0.01)
        return self

    @property
    def base(self) -> str:
        # localhost, not 127.0.0.1: passkeys need a name (WebAuthn takes no IP address)
        return f"http://localhost:{self.port}"

    def sign_in_url(self, then: str | None = None) -> str:
        url = f"{self.base}/login?token={self.gate.token()}"
        return url + f"&next={quote(then, safe='')}" if then else url

    def passkey_url(self) -> str:
        """Sign in, then the passkey page with a one-time registration code."""
        return self.sign_in_url(f"/passkey?code={self.passkeys.registration_code()}")

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()
