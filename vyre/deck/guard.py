"""The Deck's door as ASGI middleware: every request passes it before any route runs.

Order of the checks (security.py says why each exists): the Host; then, for anything but the
sign-in page, the session cookie (401 and an empty body without it); then, for a state
change, the Origin, and that the process making it is not inside Claude Code (peer.py).
Every response, refusals included, carries the security headers.
"""

from __future__ import annotations

from http.cookies import SimpleCookie

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vyre.deck import peer
from vyre.deck.security import COOKIE, HEADERS, SAFE_METHODS, Gate, csp

OPEN_PATHS = frozenset({"/login"})  # the only pages a browser with no session may ask for


class Guard:
    def __init__(self, app: ASGIApp, gate: Gate):
        self.app, self.gate = app, gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        if not self.gate.host_ok(headers.get("host")):
            return await _refuse(send, 421, b"wrong host")
        if scope["path"] not in OPEN_PATHS and not self.gate.signed_in(_cookie(headers)):
            return await _refuse(send, 401, b"")
        if not self.gate.origin_ok(method, headers.get("origin")):
            return await _refuse(send, 403, b"wrong origin")
        if method not in SAFE_METHODS and _from_claude_code(scope):
            return await _refuse(send, 403, b"refused: a program inside Claude Code")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [
                    (k.encode(), v.encode()) for k, v in HEADERS.items() if k.encode() not in have
                ]
                if b"content-security-policy" not in have:
                    extra.append((b"content-security-policy", csp().encode()))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)


def _from_claude_code(scope: Scope) -> bool:
    """A state change (signing in included) made by a process inside Claude Code: a model
    with the user's files can read the token, but it is not the user (peer.py)."""
    client, server = scope.get("client"), scope.get("server")
    if not client or not server:
        return False
    return peer.inside_claude_code(int(client[1]), int(server[1]))


def _cookie(headers: dict[str, str]) -> str | None:
    raw = headers.get("cookie")
    if not raw:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:  # a malformed cookie header is no cookie
        return None
    morsel = jar.get(COOKIE)
    return morsel.value if morsel else None


async def _refuse(send: Send, status: int, body: bytes) -> None:
    headers = [(k.encode(), v.encode()) for k, v in HEADERS.items()]
    headers += [
        (b"content-security-policy", csp().encode()),
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
