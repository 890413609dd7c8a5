"""The Deck's door, in process: Host, token exchange, cookie, Origin, headers."""

from __future__ import annotations

import os
import stat

import pytest
from starlette.testclient import TestClient

from vyre.deck.app import create_app
from vyre.deck.security import COOKIE, TOKEN_NAME, Gate

PORT = 47111
BASE = f"http://localhost:{PORT}"


@pytest.fixture
def gate(vyre_home):
    vyre_home.mkdir(mode=0o700, exist_ok=True)
    return Gate(vyre_home, PORT)


@pytest.fixture
def client(gate):
    return TestClient(create_app(gate), base_url=BASE, follow_redirects=False)


def sign_in(client: TestClient, gate: Gate) -> None:
    token = gate.token()
    page = client.get(f"/login?token={token}")
    assert page.status_code == 200
    done = client.post("/login", data={"token": token}, headers={"origin": BASE})
    assert done.status_code == 303, done.text
    assert done.headers["location"] == "/memory"


def test_the_token_is_the_users_alone(gate, vyre_home):
    mode = stat.S_IMODE(os.stat(vyre_home / TOKEN_NAME).st_mode)
    assert mode == 0o600
    assert len(gate.token()) >= 40


def test_without_a_session_everything_is_401_and_nothing_else(client):
    for path in ("/", "/memory", "/static/deck.css", "/nowhere"):
        r = client.get(path)
        assert r.status_code == 401, path
        assert r.content == b""
    assert client.post("/api/anything", headers={"origin": BASE}).status_code == 401


def test_a_wrong_token_opens_nothing(client, gate):
    assert client.get("/login?token=guess").status_code == 401
    r = client.post("/login", data={"token": "guess"}, headers={"origin": BASE})
    assert r.status_code == 401
    assert COOKIE not in r.cookies


def test_the_token_signs_in_once(client, gate):
    token = gate.token()
    sign_in(client, gate)
    cookie = client.cookies.get(COOKIE)
    assert cookie and cookie != token
    assert gate.token() != token  # replaced as it was used
    other = TestClient(client.app, base_url=BASE, follow_redirects=False)
    again = other.post("/login", data={"token": token}, headers={"origin": BASE})
    assert again.status_code == 401


def test_the_cookie_is_httponly_and_strict(client, gate):
    token = gate.token()
    r = client.post("/login", data={"token": token}, headers={"origin": BASE})
    header = r.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=strict" in header and "path=/" in header


@pytest.mark.parametrize(
    "host", ["evil.example", f"evil.example:{PORT}", f"127.0.0.1:{PORT + 1}", "localhost"]
)
def test_a_wrong_host_is_refused_even_signed_in(client, gate, host):
    sign_in(client, gate)
    r = client.get("/", headers={"host": host})
    assert r.status_code == 421


def test_both_loopback_names_are_accepted(gate):
    for base in (f"http://127.0.0.1:{PORT}", BASE):
        c = TestClient(create_app(gate), base_url=base, follow_redirects=False)
        assert c.get(f"/login?token={gate.token()}").status_code == 200


@pytest.mark.parametrize("origin", [None, "http://evil.example", f"http://localhost:{PORT + 1}"])
def test_a_state_change_from_another_origin_is_refused(client, gate, origin):
    token = gate.token()
    headers = {"origin": origin} if origin else {}
    r = client.post("/login", data={"token": token}, headers=headers)
    assert r.status_code == 403
    assert gate.token() == token  # nothing was exchanged


def test_every_response_carries_the_security_headers(client, gate):
    for r in (client.get("/"), client.get(f"/login?token={gate.token()}")):
        csp = r.headers["content-security-policy"]
        assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"


def test_a_planted_token_link_is_not_read(vyre_home, tmp_path):
    vyre_home.mkdir(mode=0o700, exist_ok=True)
    secret = tmp_path / "elsewhere"
    secret.write_text("x" * 43)
    os.chmod(secret, 0o600)
    (vyre_home / TOKEN_NAME).symlink_to(secret)
    gate = Gate(vyre_home, PORT)
    assert gate.token() != "x" * 43
    assert secret.read_text() == "x" * 43
    assert not (vyre_home / TOKEN_NAME).is_symlink()
