"""What the Deck's tests share: the demo world's home, a signed-in client, a live server."""

from __future__ import annotations

import shutil
from pathlib import Path

from starlette.testclient import TestClient

from vyre.api import Memory
from vyre.deck.app import TEMPLATES, create_app
from vyre.deck.passkey import Passkeys
from vyre.deck.security import Gate
from vyre.deck.views import Backend, routes

PORT = 47222
BASE = f"http://localhost:{PORT}"


def copy_home(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, dirs_exist_ok=True)
    return target


def signed_in_client(home: Path) -> tuple[TestClient, Memory]:
    memory = Memory(home)
    gate = Gate(home, PORT)
    app = create_app(gate, routes(Backend(memory), Passkeys(memory.ledger, PORT), TEMPLATES))
    client = TestClient(app, base_url=BASE, follow_redirects=False)
    token = gate.token()
    client.post("/login", data={"token": token}, headers={"origin": BASE})
    client.headers["origin"] = BASE
    return client, memory
