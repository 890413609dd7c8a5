"""The Deck: a local web page to see, ask and correct memory and lessons.

A small Starlette app. Pages are rendered on the server (Jinja2, autoescaped) with a little
JavaScript of our own (`static/deck.js`, no build step, nothing from a CDN). Every route is
behind `Guard` (loopback Host, session cookie, Origin on state changes). The page is an owner
caller (`deck`): its corrections go through the same library API as the CLI's, and the
Lessons tab's presence actions need a passkey on top (passkey.py).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from vyre.deck.guard import Guard
from vyre.deck.security import COOKIE, SESSION_S, Gate, csp

HERE = Path(__file__).parent
TEMPLATES = Jinja2Templates(
    env=jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
)

# The sign-in page's one inline script, allowed by its hash (no 'unsafe-inline' anywhere).
SIGN_IN_SCRIPT = "document.getElementById('signin').submit();"
SIGN_IN_HASH = (
    "sha256-" + base64.b64encode(hashlib.sha256(SIGN_IN_SCRIPT.encode()).digest()).decode()
)


def create_app(gate: Gate, routes: list | None = None) -> Guard:
    """The Deck's ASGI app behind its guard. `routes` are the views (views.py)."""

    async def login_page(request: Request) -> Response:
        offered = request.query_params.get("token", "")
        if offered != gate.token():
            return Response(b"", status_code=401)
        return TEMPLATES.TemplateResponse(
            request,
            "login.html",
            {
                "token": offered,
                "next": _local(request.query_params.get("next")),
                "script": SIGN_IN_SCRIPT,
            },
            headers={"content-security-policy": csp((SIGN_IN_HASH,))},
        )

    async def login(request: Request) -> Response:
        form = await request.form()
        session = gate.exchange(str(form.get("token", "")))
        if session is None:
            return Response(b"", status_code=401)
        response = RedirectResponse(_local(str(form.get("next") or "")), status_code=303)
        response.set_cookie(
            COOKIE, session, max_age=SESSION_S, httponly=True, samesite="strict", path="/"
        )
        return response

    async def home(request: Request) -> Response:
        return RedirectResponse("/memory", status_code=303)

    app = Starlette(
        routes=[
            Route("/login", login_page, methods=["GET"]),
            Route("/login", login, methods=["POST"]),
            Route("/", home, methods=["GET"]),
            Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
            *(routes or []),
        ]
    )
    return Guard(app, gate)


def _local(path: str | None) -> str:
    """Where to go after signing in: a path on the Deck itself, never another site."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/memory"
    return path
