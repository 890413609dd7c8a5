"""The Deck's pages and the few JSON calls its script makes, over the one library API.

Every read goes through `Backend` (the daemon's memory under its lock, or a local `Memory`
in tests); every write is the library's owner API with the caller `deck`. Pages are
server-rendered; JSON answers carry what the script draws and a `said` line for the user.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from vyre import config
from vyre.deck import pictures
from vyre.deck.passkey import Passkeys, parse_credential
from vyre.deck.security import COOKIE
from vyre.errors import VyreError
from vyre.learn.models import LEVELS
from vyre.memory import ago
from vyre.memory.text import age_note, phrase
from vyre.models import ACTIONS, EntityFacts, Fact, MergeCandidate
from vyre.rooms.names import MAIN

CALLER = "deck"
LESSON_TABS = ("proposed", "active", "dormant", "retired")
WHO = {"person": "you", "agent": "the assistant", "tool": "tool output", "program": "a program"}
PAGE_SIZE = 40  # entities per Memory page: a heavy user's room never loads at once
PICTURE_MOST = 200  # a room picture is drawn for rooms of up to this many entities
MERGES_SHOWN = 10  # suggested merges shown at once, the most alike first
TURN_WINDOW = 25  # turns either side of the one a link points at
SECTION = {
    "person": "People",
    "org": "Orgs",
    "repo": "Repos",
    "address": "Addresses",
    "domain": "Domains",
}

T = TypeVar("T")

if TYPE_CHECKING:
    from vyre.api import Memory
    from vyre.ask.reply import AskReply
    from vyre.models import Conflict


@dataclass
class Backend:
    """Memory for the Deck's requests, one at a time."""

    memory: Any
    lock: Any = field(default_factory=threading.RLock)

    def __call__(self, work: Callable[[Any], T]) -> T:
        with self.lock:
            return work(self.memory)


def routes(backend: Backend, passkeys: Passkeys, templates: Jinja2Templates) -> list[Route]:
    """The Deck's routes (the sign-in routes live in app.py)."""

    def render(request: Request, name: str, context: dict) -> Response:
        return templates.TemplateResponse(request, name, context)

    def scope_of(request: Request) -> str:
        return request.query_params.get("scope") or MAIN

    # -- Memory ---------------------------------------------------------------------------

    def memory_page(request: Request) -> Response:
        if request.query_params.get("tab") == "lessons":
            return lessons_page(request)
        scope = scope_of(request)
        page = _page_number(request)
        now = config.now()

        def read(m: Memory) -> Any:
            room = m.check_room(scope)
            got = m.entities(room, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE, now=now)
            # the picture reads the whole room: drawn only where it stays small
            whole = m.facts(room, now=now) if got.total <= PICTURE_MOST else []
            conflicts = m.conflicts(now=now) if room == MAIN else []
            merges = merges_of(m, m.version(room)) if room == MAIN and page == 1 else []
            shown = [f for e in got.entities for f in e.facts] + list(got.deadlines)
            names = m.session_names(sorted({s.session for f in shown for s in f.sources[-3:]}))
            return room, got, whole, conflicts, merges, names, m.projects(), m.version(room)

        try:
            room, got, whole, conflicts, merges, names, projects, version = backend(read)
        except VyreError as exc:
            return render(
                request, "problem.html", {"view": "memory", "scope": scope, "problem": exc.line()}
            )
        pages = max(1, -(-got.total // PAGE_SIZE))
        return render(
            request,
            "memory.html",
            {
                "view": "memory",
                "scope": room,
                "version": version,
                "projects": projects,
                "sections": _sections(list(got.entities)),
                "deadlines": got.deadlines if page == 1 else [],
                "conflicts": conflicts,
                "merges": merges,
                "page": page,
                "pages": pages,
                "total": got.total,
                "picture": pictures.room_svg(whole) if whole else None,
                "line": lambda f: _fact_view(f, names, now),
                "settle": _settle,
            },
        )

    # suggestions read the whole main graph: computed once per version of it
    suggested: dict[str, list[MergeCandidate]] = {}

    def merges_of(m: Memory, version: str) -> list[MergeCandidate]:
        if version not in suggested:
            suggested.clear()
            suggested[version] = m.suggest_merges()[:MERGES_SHOWN]
        return suggested[version]

    def version(request: Request) -> Response:
        scope = scope_of(request)
        return JSONResponse({"version": backend(lambda m: m.version(m.check_room(scope)))})

    # -- writes: the owner API, caller "deck" ----------------------------------------------

    async def fact_action(request: Request) -> Response:
        fact, what = request.path_params["fact"], request.path_params["what"]
        body = await _json(request)
        now = config.now()

        def write(m: Memory) -> Any:
            if what in ("pin", "mute"):
                row = getattr(m, what)(fact, caller=CALLER, now=now)
                return {"said": f"{'Pinned' if what == 'pin' else 'Muted'}.", "undo": row.id}
            if what == "correct":
                action = next((a for a in ACTIONS if a == body.get("action", "replace")), None)
                if action is None:
                    raise VyreError(f"--action must be one of {', '.join(ACTIONS)}")
                value = body.get("object")
                row = m.correct(fact, action, value=value, caller=CALLER, now=now).correction
                said = {
                    "replace": "Corrected.",
                    "wrong": "Marked wrong: it leaves every vote.",
                    "confirm": "Confirmed: it no longer decays.",
                    "ended": "Ended.",
                }.get(action, "Done.")
                shown = f"{row.subject_label} → {value}" if action == "replace" else None
                return {"said": said, "undo": row.id, "fact": shown}
            raise VyreError(f"unknown action {what!r}")

        return _answer(lambda: backend(write))

    async def undo(request: Request) -> Response:
        cid = request.path_params["correction"]
        now = config.now()

        def write(m: Memory) -> Any:
            for one in str(cid).split(","):
                m.uncorrect(int(one), caller=CALLER, now=now)
            return {"said": "Undone."}

        return _answer(lambda: backend(write))

    async def settle(request: Request) -> Response:
        """A conflict's answer: two people (split by room), they moved (end the older), or
        both true (confirm); or a suggested pair of names is one identity (merge)."""
        body = await _json(request)
        now = config.now()

        def write(m: Memory) -> Any:
            how = body.get("how")
            if how == "split":
                row = m.split(
                    str(body["name"]), room=str(body["room"]), caller=CALLER, now=now
                ).correction
                return {"said": f"Split: the {body['room']} one is someone else.", "undo": row.id}
            if how == "merge":
                keep, other = str(body["keep"]), str(body["other"])
                row = m.merge(keep, other, caller=CALLER, now=now).correction
                return {"said": f"Merged: {other} is {keep}.", "undo": row.id}
            if how == "ended":
                target = (str(body["name"]), str(body["rel"]), str(body["object"]))
                row = m.correct(target, "ended", caller=CALLER, now=now).correction
                return {"said": "Ended the older one.", "undo": row.id}
            if how == "confirm":
                rows = [
                    m.correct(str(f), "confirm", caller=CALLER, now=now).correction
                    for f in body["facts"]
                ]
                return {"said": "Confirmed.", "undo": ",".join(str(r.id) for r in rows)}
            raise VyreError(f"unknown answer {how!r}")

        return _answer(lambda: backend(write))

    # -- Turn view --------------------------------------------------------------------------

    def turn_page(request: Request) -> Response:
        session = request.path_params["session"]
        seq = _int(request.query_params.get("seq"), 0)
        try:
            thread = backend(lambda m: m.thread(session, seq, TURN_WINDOW))
        except VyreError as exc:
            return render(request, "problem.html", {"view": "turn", "problem": exc.line()})
        return render(
            request,
            "turn.html",
            {"view": "turn", "thread": thread, "seq": seq, "scope": scope_of(request)},
        )

    # -- Find -------------------------------------------------------------------------------

    def find_page(request: Request) -> Response:
        scope = scope_of(request)
        projects = backend(lambda m: m.projects())
        return render(
            request,
            "find.html",
            {
                "view": "find",
                "scope": scope,
                "q": request.query_params.get("q", ""),
                "projects": projects,
            },
        )

    def recall(request: Request) -> Response:
        scope = scope_of(request)
        q = request.query_params.get("q", "").strip()

        def read(m: Memory) -> Any:
            if not q:
                return [], {}
            if scope == MAIN:  # Everything: the owner's own view of every room
                hits = m.recall(q, everywhere=True, caller=CALLER, limit=20)
            else:
                hits = m.recall(q, project=scope, caller=CALLER, limit=20)
            return hits, m.session_names(sorted({h.session for h in hits}))

        try:
            hits, names = backend(read)
        except VyreError as exc:
            return JSONResponse({"error": exc.line(), "hits": []}, status_code=400)
        now = config.now()
        return JSONResponse(
            {
                "hits": [
                    {
                        "name": names.get(h.session, h.session[:8]),
                        "link": _turn_link(h.session, h.seq),
                        "when": ago(h.ts, now),
                        "by": WHO.get(h.by, h.by),
                        "quote": h.quote,
                    }
                    for h in hits
                ]
            }
        )

    async def ask(request: Request) -> Response:
        """Find's Answer card: `memory.ask` streamed as server-sent events: the thinking
        stages (never the question or the answer), then the reply the card draws."""
        body = await _json(request)
        question = str(body.get("question") or "").strip()
        scope = str(body.get("scope") or MAIN)
        ask_id = str(body.get("id") or "")[:64]
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def work() -> None:
            def events(event: dict) -> None:
                loop.call_soon_threadsafe(queue.put_nowait, (event["event"], event))

            try:
                card = backend(lambda m: _card(m, _asked(m, question, scope, ask_id, events)))
                loop.call_soon_threadsafe(queue.put_nowait, ("reply", card))
            except VyreError as exc:
                loop.call_soon_threadsafe(queue.put_nowait, ("reply", {"error": exc.line()}))
            loop.call_soon_threadsafe(queue.put_nowait, None)

        async def stream() -> AsyncIterator[str]:
            task = loop.run_in_executor(None, work)
            while (item := await queue.get()) is not None:
                name, data = item
                yield f"event: {name}\ndata: {json.dumps(data, default=str)}\n\n"
            await task

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def answer_fix(request: Request) -> Response:
        """ "Wrong?" on the card: replace, wrong or forget; the card redraws the new reply."""
        body = await _json(request)
        answer_id = request.path_params["answer"]
        question, scope = str(body.get("question") or ""), str(body.get("scope") or MAIN)
        now = config.now()

        def write(m: Memory) -> Any:
            done = m.correct_answer(
                answer_id,
                str(body.get("action") or ""),
                caller=CALLER,
                object=body.get("object"),
                now=now,
            )
            return {**_card(m, _asked(m, question, scope, None, None)), "fix": done["fix"]}

        return _answer(lambda: backend(write))

    async def answer_unfix(request: Request) -> Response:
        body = await _json(request)
        question, scope = str(body.get("question") or ""), str(body.get("scope") or MAIN)
        fix = _int(request.path_params["fix"], -1)
        now = config.now()

        def write(m: Memory) -> Any:
            m.uncorrect_answer(fix, caller=CALLER, now=now)
            return _card(m, _asked(m, question, scope, None, None))

        return _answer(lambda: backend(write))

    # -- Now --------------------------------------------------------------------------------

    def now_page(request: Request) -> Response:
        now = config.now()

        def read(m: Memory) -> Any:
            today = m.learned(now - timedelta(days=1), MAIN, now=now)
            names = m.session_names(sorted({s.session for f in today for s in f.sources}))
            broken = m.learn.broken_since(now - timedelta(days=7))
            return today, names, m.conflicts(now=now), m.projects(), broken

        today, names, conflicts, projects, broken = backend(read)
        return render(
            request,
            "now.html",
            {
                "view": "now",
                "scope": MAIN,
                "today": today,
                "conflicts": conflicts,
                "projects": projects,
                "broken": broken,
                "line": lambda f: _fact_view(f, names, now),
            },
        )

    # -- Lessons ----------------------------------------------------------------------------

    def lessons_page(request: Request) -> Response:
        now = config.now()

        def read(m: Memory) -> Any:
            learn = m.learn
            lessons = learn.lessons()
            # effects are computed when read; nothing here changes a lesson (no review())
            effects = {le.id: learn.effect(le, now=now) for le in lessons if le.accepted}
            return lessons, effects, m.projects()

        lessons, effects, projects = backend(read)
        groups = {status: [le for le in lessons if le.status == status] for status in LESSON_TABS}
        return render(
            request,
            "lessons.html",
            {
                "view": "lessons",
                "scope": scope_of(request),
                "projects": projects,
                "groups": groups,
                "effects": effects,
                "passkeys": passkeys.registered(),
                "relaxed": _relaxed,
            },
        )

    async def lesson_action(request: Request) -> Response:
        """Accept, retire or relax a lesson: only with a fresh passkey assertion for exactly
        this action on exactly this lesson (a click alone is never enough)."""
        lid, action = request.path_params["lesson"], request.path_params["action"]
        body = await _json(request)
        given = body.get("credential")
        credential: dict = given if isinstance(given, dict) else {}
        now = config.now()

        def work() -> dict:
            lesson_id = _int(lid, -1)
            passkeys.verify(_session(request), f"{action}:{lesson_id}", credential)

            def write(m: Memory) -> str:
                learn = m.learn
                if action == "accept":
                    done = learn.accept(lesson_id, caller=CALLER, now=now)
                    return f"Kept: lesson {done.id} is {done.level} now."
                if action == "retire":
                    learn.retire(lesson_id, caller=CALLER, now=now)
                    return f"Retired lesson {lesson_id}."
                if action == "relax":
                    lower = _relaxed(learn.get(lesson_id).level)
                    if lower is None:
                        raise VyreError(f"lesson {lesson_id} is at remind already")
                    learn.relax(lesson_id, caller=CALLER, level=lower)
                    return f"Relaxed lesson {lesson_id} to {lower}."
                raise VyreError(f"unknown action {action!r}")

            return {"said": backend(write)}

        return _answer(work)

    # -- passkeys ---------------------------------------------------------------------------

    def passkey_page(request: Request) -> Response:
        code = request.query_params.get("code", "")
        return render(
            request,
            "passkey.html",
            {"view": "passkey", "code": code, "registered": passkeys.registered()},
        )

    async def passkey_options(request: Request) -> Response:
        body = await _json(request)
        return _raw(
            lambda: passkeys.registration_options(_session(request), str(body.get("code", "")))
        )

    async def passkey_register(request: Request) -> Response:
        body = await _json(request)
        given = body.get("credential")
        credential: dict = given if isinstance(given, dict) else {}

        def work() -> dict:
            passkeys.register(
                _session(request),
                str(body.get("code", "")),
                credential,
                when=config.now().isoformat(),
            )
            return {
                "said": "Passkey registered: the Deck will ask for it before it loosens a lesson."
            }

        return _answer(work)

    async def presence_options(request: Request) -> Response:
        body = await _json(request)
        purpose = f"{body.get('action')}:{_int(str(body.get('lesson')), -1)}"
        return _raw(lambda: passkeys.challenge(_session(request), purpose))

    return [
        Route("/memory", memory_page, methods=["GET"]),
        Route("/api/version", version, methods=["GET"]),
        Route("/api/facts/{fact}/{what}", fact_action, methods=["POST"]),
        Route("/api/corrections/{correction}/undo", undo, methods=["POST"]),
        Route("/api/conflicts", settle, methods=["POST"]),
        Route("/turn/{session}", turn_page, methods=["GET"]),
        Route("/find", find_page, methods=["GET"]),
        Route("/api/recall", recall, methods=["GET"]),
        Route("/api/ask", ask, methods=["POST"]),
        Route("/api/answers/{answer}/correct", answer_fix, methods=["POST"]),
        Route("/api/fixes/{fix}/undo", answer_unfix, methods=["POST"]),
        Route("/now", now_page, methods=["GET"]),
        Route("/passkey", passkey_page, methods=["GET"]),
        Route("/api/passkey/options", passkey_options, methods=["POST"]),
        Route("/api/passkey/register", passkey_register, methods=["POST"]),
        Route("/api/presence/options", presence_options, methods=["POST"]),
        Route("/api/lessons/{lesson}/{action}", lesson_action, methods=["POST"]),
    ]


# -- shaping -----------------------------------------------------------------------------------


def _sections(entities: list[EntityFacts]) -> list[tuple[str, list[EntityFacts]]]:
    out: dict[str, list[EntityFacts]] = {}
    for e in entities:
        out.setdefault(SECTION.get(e.kind, e.kind.title()), []).append(e)
    return list(out.items())


def _relaxed(level: str) -> str | None:
    """One step looser: block → ask → remind; None at remind."""
    order = list(LEVELS)
    i = order.index(level) if level in order else 0
    return order[i - 1] if i > 0 else None


def _asked(
    m: Memory, question: str, scope: str, ask_id: str | None, events: Callable[[dict], None] | None
) -> AskReply:
    """memory.ask for the Deck's scope. One project asks its room; Everything (the owner's
    own view of all of it) asks every room and keeps the best-supported answer."""
    if scope != MAIN:
        return m.ask(question, project=scope, id=ask_id or None, events=events)
    rooms = [p.slug for p in m.projects()] + ["unfiled"]
    replies = [m.ask(question, project=r, id=ask_id or None, events=events) for r in rooms]
    answered = [r for r in replies if not r.abstained]
    if not answered:
        return replies[-1]
    return max(answered, key=lambda r: r.confidence)


def _card(m: Memory, reply: AskReply) -> dict:
    """What the Answer card draws: the reply, with each source's session name, age and link
    (a correction or something the person told memory has no turn to link to)."""
    now = config.now()
    names = m.session_names(sorted({s.session for s in reply.sources if s.session}))
    meta = reply.meta_line()
    return {
        "id": reply.id,
        "answer": reply.answer,
        "answer_id": reply.answer_id,
        "confidence": reply.confidence,
        "abstained": reply.abstained,
        "known": list(reply.known),
        "via": reply.via,
        "limited": reply.limited,
        "message": reply.message,
        "from": meta.split(" · ", 1)[1] if " · " in meta else meta,
        "sources": [
            {
                "name": names.get(s.session, s.name) if s.session else s.name,
                "when": ago(s.ts, now) if s.ts else "",
                "quote": s.quote,
                "link": _turn_link(s.session, s.seq) if s.session and s.seq is not None else None,
            }
            for s in reply.sources
        ],
    }


def _settle(conflict: Conflict) -> list[tuple[str, dict[str, object]]]:
    """The answers a conflict offers, as the CLI's `vyre memory conflicts` words them."""
    sides = conflict.sides
    if not conflict.question.startswith("Same"):  # your correction against newer sessions
        return [("Still true", {"how": "confirm", "facts": [sides[0].fact]})]
    newest = max(sides, key=lambda s: s.seen or datetime.min)
    oldest = min(sides, key=lambda s: s.seen or datetime.min)
    out: list[tuple[str, dict[str, object]]] = []
    if newest.rooms:
        out.append(
            (
                "No, two people",
                {"how": "split", "name": conflict.subject, "room": newest.rooms[0]},
            )
        )
    out.append(
        (
            "Yes, they moved",
            {
                "how": "ended",
                "name": conflict.subject,
                "rel": conflict.rel,
                "object": oldest.object,
            },
        )
    )
    out.append(("Yes, both are true", {"how": "confirm", "facts": [s.fact for s in sides]}))
    return out


def _fact_view(f: Fact, names: dict[str, str], now: datetime) -> dict:
    sources = [
        {
            "name": names.get(s.session, s.session[:8]),
            "when": ago(s.ts, now),
            "link": _turn_link(s.session, s.seq),
            "quote": s.quote,
        }
        for s in reversed(f.sources[-3:])
    ]
    return {
        "text": phrase(f),
        "said": age_note(f, now),
        "sources": sources,
        "confidence": f"{f.confidence:.2f}",
    }


def _turn_link(session: str, seq: int) -> str:
    return f"/turn/{quote(session)}?seq={seq}#t{seq}"


def _page_number(request: Request) -> int:
    return max(1, _int(request.query_params.get("page"), 1))


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _session(request: Request) -> str:
    return request.cookies.get(COOKIE, "")


async def _json(request: Request) -> dict:
    try:
        value = json.loads(await request.body() or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _answer(work: Callable[[], dict]) -> Response:
    try:
        return JSONResponse(work())
    except VyreError as exc:
        return JSONResponse({"error": exc.line()}, status_code=400)
    except (KeyError, TypeError, ValueError) as exc:
        return JSONResponse({"error": f"bad request: {exc}"}, status_code=400)


def _raw(work: Callable[[], str]) -> Response:
    try:
        return Response(work(), media_type="application/json")
    except VyreError as exc:
        return JSONResponse({"error": exc.line()}, status_code=400)


__all__ = ["Backend", "parse_credential", "routes"]
