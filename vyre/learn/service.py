"""The learning loop behind one service object: `Learn(ledger, home)`.

Every surface (CLI, hooks, MCP, the Deck later) calls this; it owns the lessons, their offline
snapshot, proposals and replies, signals, escalation and measurement.

What must stay true (ADR 0007 §§6-11):
- Stricter is free, looser needs a person: `add`, `accept`, `relax`, `retire`, `decline` and
  narrowing `scope` are owner-only (`vyre.callers.require_owner`, which also refuses
  any process inside Claude Code); `edit` tightens for anyone and refuses a weakening, naming
  `vyre learn relax`. Accept by reply comes only from the user's own next prompt.
- Every change to active lessons rewrites `$VYRE_HOME/lessons.json` atomically and records its
  hash in the ledger's meta; a snapshot that differs from it is a `tampered` signal and is
  rewritten (`check_snapshot`).
- Anything inferred from behaviour starts at remind or ask, never block. Nothing weakens on its
  own: dormancy keeps the check running, demotion is only proposed.
- Verdicts are computed when read, from per-day counts; `now` comes from the caller.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError

from vyre import config
from vyre.callers import require_owner
from vyre.errors import LearnError, WeakeningRefused
from vyre.learn import checks, judge
from vyre.learn.distill import Distilled, distill, explicit_scope, looks_like_rule, sentences
from vyre.learn.models import LEVELS, Effect, Job, Lesson, Signal
from vyre.ledger import Ledger
from vyre.ledger.store import ts_text, ts_value
from vyre.vocabulary import EffectVerdict

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vyre.learn.model import Distiller

SNAPSHOT_HASH = judge.SNAPSHOT_HASH
JOBS_CAP = 200
DORMANT_DAYS, DORMANT_TURNS = 60, 200
DEMOTE_AFTER = 5  # an ask lesson allowed this many times out of as many proposes a demotion
MEASURED_TURNS = 50
DECLINED_TIMES, DECLINED_DAYS = 3, 14  # one shape turned down this often proposes a check
FILE_TOOLS = frozenset({"Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"})
KEEP_DAYS = 7  # learn_commands
_WORDS = ("status", "level", "max_level", "scope", "source")  # said in an error

_COLUMNS = (
    "id",
    "sentence",
    "check_json",
    "key",
    "level",
    "max_level",
    "pinned",
    "scope",
    "status",
    "source",
    "session",
    "created",
    "accepted",
    "retired",
    "first_signal",
    "demotion",
    "note",
)
_YES = re.compile(
    r"^\s*(?:yes|yep|yeah|yup|ya|sure|ok(?:ay)?|y|please do|do it|go ahead|sounds good|"
    r"absolutely|definitely|of course|correct|right|agreed|accept(?:ed)?|keep(?: it| that| this)?|"
    r"yes please|yes,? keep(?: it| that| this)?(?: lesson)?(?: #?\d+)?|keep lesson #?\d+)"
    r"\s*(?:,?\s*(?:please|thanks|thank you|keep it|keep that|do it))?\s*[.!]*\s*$",
    re.I,
)
_NO = re.compile(
    r"^\s*(?:no|nope|nah|n|no thanks|no thank you|don'?t|do not|drop it|drop that|skip it|"
    r"skip|forget it|discard(?: it)?|decline(?:d)?|not now|never mind|nevermind|"
    r"no,? drop (?:it|that|lesson #?\d+)|don'?t keep (?:it|that))\s*[.!]*\s*$",
    re.I,
)


def check_key(check: dict) -> str:
    """A fingerprint of what a check is about, so repeats of the same lesson are counted."""
    body = json.dumps(check, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(body.encode(), digest_size=8).hexdigest()


def text_key(text: str) -> str:
    norm = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
    return hashlib.blake2b(norm.encode(), digest_size=8).hexdigest()


def reply(prompt: str) -> str | None:
    """`accept`, `decline` or None: is the prompt's first sentence a plain yes or no?"""
    first = sentences(prompt)[:1]
    if not first:
        return None
    head = first[0]
    if _YES.match(head):
        return "accept"
    if _NO.match(head):
        return "decline"
    return None


class Learn:
    def __init__(self, ledger: Ledger, home: Path | None = None):
        self.ledger = ledger
        self.home = Path(home) if home else ledger.path.parent
        self._seen: tuple | None = None  # the snapshot's stat when Vyre last wrote or checked it

    @property
    def db(self) -> sqlite3.Connection:
        return self.ledger.db

    # -- reading ---------------------------------------------------------------------------

    def lessons(self, status: str | None = None) -> list[Lesson]:
        where, args = ("WHERE status = ?", (status,)) if status else ("", ())
        rows = self.db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM lessons {where} ORDER BY id", args
        ).fetchall()
        return [self._lesson(r) for r in rows]

    def broken_since(self, since: datetime) -> list[tuple[Lesson, int]]:
        """Lessons broken since then, with how many times (the Deck's Now, the brief)."""
        rows = self.db.execute(
            "SELECT lesson, sum(broken) FROM learn_lesson_days WHERE day >= ? AND broken > 0 "
            "GROUP BY lesson ORDER BY 2 DESC, 1",
            (since.date().isoformat(),),
        ).fetchall()
        return [(self.get(lid), int(n)) for lid, n in rows]

    def broken_lines(self, cwd: str | None, *, now: datetime | None = None) -> list[str]:
        """For the next brief in a project (ADR §11, after the cap): each lesson in its scope
        broken this week, and how often."""
        when = now or config.now()
        project = self._project(cwd)
        out = []
        for lesson, n in self.broken_since(when - timedelta(days=7)):
            in_scope = lesson.scope == "all" or lesson.scope == f"project:{project}"
            if not in_scope or lesson.status not in ("active", "dormant"):
                continue
            times = "once" if n == 1 else f"{n} times"
            out.append(
                f"Vyre: lesson {lesson.id} (\u201c{lesson.sentence}\u201d) was broken {times} "
                f"this week. {lesson.enforced}"
            )
        return out

    def get(self, lid: int) -> Lesson:
        row = self.db.execute(
            f"SELECT {', '.join(_COLUMNS)} FROM lessons WHERE id = ?", (int(lid),)
        ).fetchone()
        if not row:
            raise LearnError(f"no lesson {lid} (see `vyre learn show`)")
        return self._lesson(row)

    def _lesson(self, row: Sequence[Any]) -> Lesson:
        """A lesson's row as a `Lesson`; a row this version cannot read (a status a newer
        Vyre wrote, a check edited by hand) is a `LearnError` in one line that names it."""
        d = dict(zip(_COLUMNS, row, strict=True))
        try:
            check = json.loads(d.pop("check_json"))
            for k in ("created", "accepted", "retired", "first_signal"):
                d[k] = ts_value(d[k])
            d["pinned"] = bool(d["pinned"])
            lesson = Lesson(**d, check=check)
            lesson.enforced = checks.enforced(check, lesson.level)
        except ValidationError as exc:
            field = str(exc.errors()[0]["loc"][0])
            said = f" {d[field]!r}" if field in _WORDS else ""  # a sentence stays unquoted
            raise LearnError(
                f"lesson {d['id']} in the ledger has a {field}{said} this version of Vyre "
                "does not read (written by a newer Vyre, or by hand?)"
            ) from None
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise LearnError(
                f"lesson {d['id']} in the ledger cannot be read ({type(exc).__name__}): "
                "its check or its times were written by a newer Vyre, or by hand?"
            ) from None
        return lesson

    def distill(self, text: str) -> Distilled:
        """What `text` would become, with no side effects."""
        return distill(text)

    # -- making lessons --------------------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        level: str = "block",
        scope: str | None = None,
        caller: str,
        cwd: str | None = None,
        now: datetime | None = None,
    ) -> Lesson:
        """An accepted lesson from the owner's own sentence; LearnError when no shape fits."""
        require_owner(caller)
        found = distill(text)
        if not found.ok:
            raise LearnError(f"no check shape fits: {found.reason}")
        scope = self._scope(scope or self._named_scope(found) or found.scope or "all", cwd)
        lesson = self._insert(found, level, scope, "active", "cli", None, now)
        self.write_snapshot()
        return lesson

    def propose(
        self,
        text: str,
        *,
        session: str | None = None,
        cwd: str | None = None,
        source: str = "prompt",
        level: str | None = None,
        now: datetime | None = None,
    ) -> Lesson | Job | None:
        """A proposed lesson (the user decides), a job when no shape fits, None when the text
        is not a rule or the same lesson exists already."""
        found = distill(text)
        when = now or config.now()
        if found.check is None:
            if not found.rule:
                return None
            return self._queue(found.sentence, session, self._project(cwd), when)
        key = check_key(found.check)
        same = self.db.execute(
            "SELECT id, status FROM lessons WHERE key = ? AND status != 'declined' "
            "ORDER BY id DESC LIMIT 1",
            (key,),
        ).fetchone()
        if same:
            if same[1] in ("active", "dormant"):
                self.signal("repeated", key, session=session, lesson=same[0], now=when, cwd=cwd)
            return None
        if source in ("inferred", "mcp", "model"):
            level = level if level in ("remind", "ask") else "ask"
        named = self._named_scope(found)
        scope = self._scope(named or found.scope or "all", cwd)
        note = None
        if not named and not explicit_scope(found.sentence):  # the user's scope is kept
            scope, note = self._widened(scope, key)
        self.signal("prompt", key, session=session, now=when, cwd=cwd)
        return self._insert(found, level or "block", scope, "proposed", source, session, when, note)

    def _insert(
        self,
        found: Distilled,
        level: str,
        scope: str,
        status: str,
        source: str,
        session: str | None,
        now: datetime | None,
        note: str | None = None,
    ) -> Lesson:
        if level not in LEVELS:
            raise LearnError(f"--level must be one of {', '.join(LEVELS)}")
        if found.check is None:
            raise LearnError(f"no check shape fits: {found.reason}")
        when = now or config.now()
        key = check_key(found.check)
        first = self.db.execute(
            "SELECT min(ts) FROM learn_signals WHERE key = ?", (key,)
        ).fetchone()[0]
        told = self._prompt_count(session) if session else None
        with self.ledger.transaction() as db:
            cur = db.execute(
                "INSERT INTO lessons (sentence, check_json, key, level, scope, status, source, "
                "session, told_seq, created, accepted, first_signal, note) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    found.sentence,
                    json.dumps(found.check, sort_keys=True),
                    key,
                    level,
                    scope,
                    status,
                    source,
                    session,
                    told,
                    ts_text(when),
                    ts_text(when) if status == "active" else None,
                    first or ts_text(when),
                    note,
                ),
            )
        return self.get(cast(int, cur.lastrowid))  # an INSERT's row id

    def _queue(
        self, text: str, session: str | None, project: str | None, when: datetime
    ) -> Job | None:
        key = text_key(text)
        count = self.db.execute(
            "SELECT count(*) FROM learn_jobs WHERE status = 'waiting'"
        ).fetchone()[0]
        with self.ledger.transaction() as db:
            existing = db.execute("SELECT id FROM learn_jobs WHERE key = ?", (key,)).fetchone()
            if existing:
                return None
            if count >= JOBS_CAP:  # the oldest waiting job makes room
                db.execute(
                    "DELETE FROM learn_jobs WHERE id = (SELECT min(id) FROM learn_jobs "
                    "WHERE status = 'waiting')"
                )
            cur = db.execute(
                "INSERT INTO learn_jobs (ts, key, text, session, project) VALUES (?, ?, ?, ?, ?)",
                (ts_text(when), key, text, session, project),
            )
        return self.jobs()[-1] if cur.lastrowid else None

    def jobs(self, status: str = "waiting") -> list[Job]:
        rows = self.db.execute(
            "SELECT id, ts, key, text, session, project, status FROM learn_jobs "
            "WHERE status = ? ORDER BY id",
            (status,),
        ).fetchall()
        return [
            Job(
                id=r[0],
                ts=ts_value(r[1]),
                key=r[2],
                text=r[3],
                session=r[4],
                project=r[5],
                status=r[6],
            )
            for r in rows
        ]

    def run_jobs(
        self, distiller: Distiller, *, limit: int = 6, now: datetime | None = None
    ) -> list[Lesson]:
        """Hand waiting jobs to a distiller (`vyre.learn.model`): every answer is validated and
        becomes a proposal at ask, never an active lesson."""
        made = []
        for job in self.jobs()[:limit]:
            check = distiller.distill(job.text)
            status = "dropped"
            if isinstance(check, dict) and checks.validate(check) is None:
                found = Distilled(job.text, check, None, rule=True, shape="model")
                if not self.db.execute(
                    "SELECT 1 FROM lessons WHERE key = ?", (check_key(check),)
                ).fetchone():
                    scope = "all" if not job.project else f"project:{job.project}"
                    made.append(
                        self._insert(found, "ask", scope, "proposed", "model", job.session, now)
                    )
                    status = "proposed"
            with self.ledger.transaction() as db:
                db.execute("UPDATE learn_jobs SET status = ? WHERE id = ?", (status, job.id))
        return made

    # -- deciding --------------------------------------------------------------------------

    def accept(self, lid: int, *, caller: str, now: datetime | None = None) -> Lesson:
        require_owner(caller)
        return self._accept(lid, now)

    def _accept(self, lid: int, now: datetime | None) -> Lesson:
        lesson = self.get(lid)
        if lesson.status != "proposed":
            raise LearnError(f"lesson {lid} is {lesson.status}, not proposed")
        with self.ledger.transaction() as db:
            db.execute(
                "UPDATE lessons SET status = 'active', accepted = ? WHERE id = ?",
                (ts_text(now or config.now()), lid),
            )
        self.write_snapshot()
        return self.get(lid)

    def decline(self, lid: int, *, caller: str) -> Lesson:
        require_owner(caller)
        return self._set_status(lid, "declined", from_status="proposed")

    def _set_status(
        self,
        lid: int,
        status: str,
        *,
        from_status: str | None = None,
        when: datetime | None = None,
    ) -> Lesson:
        lesson = self.get(lid)
        if from_status and lesson.status != from_status:
            raise LearnError(f"lesson {lid} is {lesson.status}, not {from_status}")
        with self.ledger.transaction() as db:
            db.execute(
                "UPDATE lessons SET status = ?, retired = coalesce(?, retired) WHERE id = ?",
                (status, ts_text(when) if when else None, lid),
            )
        self.write_snapshot()
        return self.get(lid)

    def retire(self, lid: int, *, caller: str, now: datetime | None = None) -> Lesson:
        require_owner(caller)
        return self._set_status(lid, "retired", when=now or config.now())

    def edit(
        self,
        lid: int,
        *,
        caller: str,
        level: str | None = None,
        max_level: str | None = None,
        scope: str | None = None,
        pinned: bool | None = None,
        check: dict | None = None,
        cwd: str | None = None,
    ) -> Lesson:
        """Tighten a lesson (anyone); a weakening is refused and names `vyre learn relax`."""
        lesson = self.get(lid)
        change = self._change(lesson, level, max_level, scope, pinned, check, cwd)
        weaker = weakenings(lesson, change)
        if weaker:
            raise WeakeningRefused(
                f"refused: that loosens lesson {lid} ({', '.join(weaker)}); only you can, with "
                f"`vyre learn relax {lid}` at your own terminal"
            )
        return self._apply(lid, change)

    def relax(
        self,
        lid: int,
        *,
        caller: str,
        level: str | None = None,
        max_level: str | None = None,
        scope: str | None = None,
        pinned: bool | None = None,
        check: dict | None = None,
        cwd: str | None = None,
    ) -> Lesson:
        """Loosen a lesson: presence only."""
        require_owner(caller)
        lesson = self.get(lid)
        return self._apply(lid, self._change(lesson, level, max_level, scope, pinned, check, cwd))

    def set_scope(self, lid: int, scope: str, *, caller: str, cwd: str | None = None) -> Lesson:
        """Widen freely; narrowing is a weakening (owner only)."""
        lesson = self.get(lid)
        change = self._change(lesson, None, None, scope, None, None, cwd)
        if weakenings(lesson, change):
            require_owner(caller)
        return self._apply(lid, change)

    def _change(
        self,
        lesson: Lesson,
        level: str | None,
        max_level: str | None,
        scope: str | None,
        pinned: bool | None,
        check: dict | None,
        cwd: str | None,
    ) -> dict:
        change: dict = {}
        if level is not None:
            if level not in LEVELS:
                raise LearnError(f"--level must be one of {', '.join(LEVELS)}")
            change["level"] = level
        if max_level is not None:
            if max_level not in LEVELS:
                raise LearnError(f"--max-level must be one of {', '.join(LEVELS)}")
            change["max_level"] = max_level
        if scope is not None:
            change["scope"] = self._scope(scope, cwd)
        if pinned is not None:
            change["pinned"] = int(bool(pinned))
        if check is not None:
            problem = checks.validate(check)
            if problem:
                raise LearnError(f"that check cannot be used: {problem}")
            change["check_json"] = json.dumps(check, sort_keys=True)
        return change

    def _apply(self, lid: int, change: dict) -> Lesson:
        if change:
            sets = ", ".join(f"{k} = ?" for k in change)
            with self.ledger.transaction() as db:
                db.execute(f"UPDATE lessons SET {sets} WHERE id = ?", (*change.values(), lid))
            self.write_snapshot()
        return self.get(lid)

    def _scope(self, scope: str, cwd: str | None) -> str:
        if scope == "project":
            project = self._project(cwd)
            return f"project:{project}" if project else "all"
        if scope == "all" or scope.startswith("agent:"):
            return scope
        if scope.startswith("project:"):
            slug = scope.split(":", 1)[1]
            if not any(p["slug"] == slug for p in self.ledger.projects()):
                raise LearnError(f"no project {slug!r} (see `vyre project list`)")
            return scope
        raise LearnError("--scope must be all, project:SLUG or agent:ID")

    def _named_scope(self, found: Distilled) -> str | None:
        """`project:SLUG` when the sentence itself names a project ("never push to main on
        shop", "in the billing repo"); its own scope words ("everywhere") win."""
        if explicit_scope(found.sentence):
            return None
        for project in self.ledger.projects():
            names = {project["slug"], project.get("name") or project["slug"]}
            names |= {os.path.basename(f.rstrip("/")) for f in project.get("folders") or ()}
            for name in names:
                said = re.search(
                    rf"\b(?:on|in|for|inside|within)\s+(?:the\s+)?{re.escape(name)}"
                    rf"(?:\s+(?:repo|repository|project|app|codebase))?"
                    r"\s*(?:$|[,.;:!?)\u2014\u2013]|\s-\s)",  # the name ends the phrase
                    found.sentence,
                    re.I,
                )
                if said:
                    return f"project:{project['slug']}"
        return None

    def _project(self, cwd: str | None) -> str | None:
        if not cwd:
            return None
        from vyre.rooms.membership import room_for_cwd

        room = room_for_cwd(cwd, self.ledger.projects())
        return None if room == "unfiled" else room

    # -- accept by reply -------------------------------------------------------------------

    def on_prompt(
        self, session: str, cwd: str | None, prompt: str, *, now: datetime | None = None
    ) -> str:
        """The UserPromptSubmit side of the loop: count the turn, read a yes/no to the
        proposal told in this thread, open with a lesson broken last turn, and propose what
        the prompt says. Returns what Claude should be told (may be empty)."""
        when = now or config.now()
        told = []
        self.drain()
        self.verify_snapshot(now=when)
        self._count_turn(session, cwd, when)
        inferred = self.observe(session, cwd, when)
        pending = self._told(session)
        answer = reply(prompt) if pending else None
        if pending and answer == "accept":
            lesson = self._accept(pending.id, when)
            told.append(f"Vyre: lesson {lesson.id} is on. {lesson.enforced}")
        elif pending and answer == "decline":
            self._set_status(pending.id, "declined", from_status="proposed")
            told.append(f"Vyre: lesson {pending.id} dropped, as you said.")
        elif pending:
            with self.ledger.transaction() as db:  # the reply window closes after one prompt
                db.execute("UPDATE lessons SET session = NULL WHERE id = ?", (pending.id,))
        for lid in self._broken_last_turn(session):
            lesson = self.get(lid)
            told.append(
                f"Vyre: last turn ended with lesson {lid} broken (\u201c{lesson.sentence}\u201d). "
                f"{lesson.enforced}"
            )
        if not answer:
            for sentence in sentences(prompt):
                if not looks_like_rule(sentence):
                    continue
                made = self.propose(sentence, session=session, cwd=cwd, now=when)
                if isinstance(made, Lesson):
                    told.append(_proposal_text("heard a rule and proposes", made))
                    break
        if inferred and not any("proposes lesson" in t for t in told):
            lesson = inferred[0]  # one proposal a prompt, told in this thread for its reply
            with self.ledger.transaction() as db:
                db.execute(
                    "UPDATE lessons SET session = ?, told_seq = ? WHERE id = ?",
                    (session, self._prompt_count(session), lesson.id),
                )
            told.append(_proposal_text("noticed what you do and proposes", lesson))
        return "\n".join(told)

    def _told(self, session: str) -> Lesson | None:
        row = self.db.execute(
            "SELECT id FROM lessons WHERE status = 'proposed' AND session = ? "
            "ORDER BY id DESC LIMIT 1",
            (session,),
        ).fetchone()
        return self.get(row[0]) if row else None

    def _prompt_count(self, session: str) -> int:
        return self.db.execute(
            "SELECT count(*) FROM learn_commands WHERE session = ? AND event = 'prompt'",
            (session,),
        ).fetchone()[0]

    def _count_turn(self, session: str, cwd: str | None, when: datetime) -> None:
        project = self._project(cwd) or ""
        with self.ledger.transaction() as db:
            db.execute(
                "INSERT INTO learn_days (day, project, turns) VALUES (?, ?, 1) "
                "ON CONFLICT (day, project) DO UPDATE SET turns = turns + 1",
                (when.date().isoformat(), project),
            )
            db.execute(
                "INSERT INTO learn_commands (ts, session, turn, event) VALUES (?, ?, ?, 'prompt')",
                (ts_text(when), session, self._prompt_count(session) + 1),
            )

    def _broken_last_turn(self, session: str) -> list[int]:
        rows = self.db.execute(
            "SELECT DISTINCT lesson FROM learn_commands WHERE session = ? AND decision = 'broken' "
            "AND turn = (SELECT max(turn) - 1 FROM learn_commands WHERE session = ? "
            "AND event = 'prompt') AND lesson IS NOT NULL",
            (session, session),
        ).fetchall()
        return [r[0] for r in rows]

    # -- signals ---------------------------------------------------------------------------

    def drain(self) -> int:
        """Rows the hooks spooled while no daemon ran, into the ledger, in order."""
        from vyre.learn.hook import drain

        return drain(self.db, str(self.home))  # its own commits: rows land as they are read

    def signal(
        self,
        kind: str,
        key: str,
        *,
        session: str | None = None,
        lesson: int | None = None,
        meta: dict | None = None,
        cwd: str | None = None,
        now: datetime | None = None,
    ) -> None:
        when = now or config.now()
        project = self._project(cwd)
        with self.ledger.transaction() as db:
            db.execute(
                "INSERT INTO learn_signals (ts, kind, session, project, agent, key, lesson, meta) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    ts_text(when),
                    kind,
                    session,
                    project,
                    os.environ.get("VYRE_AGENT"),
                    key,
                    lesson,
                    json.dumps(meta or {}, sort_keys=True),
                ),
            )
            if kind == "repeated" and lesson is not None:
                _bump(db, when, lesson, "repeats")

    def signals(self, *, limit: int = 200) -> list[Signal]:
        rows = self.db.execute(
            "SELECT id, ts, kind, session, seq, project, agent, key, lesson, meta "
            "FROM learn_signals ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [
            Signal(
                id=r[0],
                ts=ts_value(r[1]),
                kind=r[2],
                session=r[3],
                seq=r[4],
                project=r[5],
                agent=r[6],
                key=r[7],
                lesson=r[8],
                meta=json.loads(r[9] or "{}"),
            )
            for r in rows
        ]

    def curation(self) -> list[dict]:
        """Memory corrections per extraction rule: a rule corrected again and again is a
        curation bug to fix, not a lesson for Claude."""
        rows = self.db.execute(
            "SELECT json_extract(data, '$.prior_rule') AS rule, count(*) FROM events "
            "WHERE kind = 'corrected' GROUP BY rule ORDER BY 2 DESC"
        ).fetchall()
        return [{"rule": r or "(none)", "corrections": n} for r, n in rows]

    def observe(self, session: str, cwd: str | None, when: datetime) -> list[Lesson]:
        """Turn the session's recorded tool calls into signals: `declined` (a call Claude Code
        never ran), `denied`/`allowed` (Vyre's own asks), `failed`/`fixed`, `test-fix` and
        `untested` runs, `reverted`/`rewritten` files. Then behaviour-inferred proposals
        (ADR §7), always at remind or ask: the ones made now are returned."""
        rows = self.db.execute(
            "SELECT id, event, tool, call, key, ok, decision, path, before_hash, after_hash, "
            "lesson, shape, test, changed, turn FROM learn_commands WHERE session = ? AND id > "
            "coalesce((SELECT max(id) FROM learn_commands WHERE session = ? AND "
            "event = 'observed'), 0) ORDER BY id",
            (session, session),
        ).fetchall()
        if not rows:
            return []
        pre = {r[3]: r for r in rows if r[1] == "PreToolUse" and r[3]}
        done = {r[3] for r in rows if r[1] in ("PostToolUse", "PostToolUseFailure") and r[3]}
        for call, r in pre.items():
            ran = call in done
            meta = _shape_meta(r[2], r[11])
            if r[6] == "ask":  # Vyre asked: the person allowed it, or said no
                kind = "allowed" if ran else "denied"
                self.signal(
                    kind, r[4] or "?", session=session, lesson=r[10], cwd=cwd, now=when, meta=meta
                )
            elif r[6] in (None, "remind") and not ran:  # said no in Claude Code's own prompt
                self.signal("declined", r[4] or "?", session=session, cwd=cwd, now=when, meta=meta)
        failing: set[str] = set()
        for r in rows:
            if r[1] == "PostToolUseFailure":
                failing.add(r[4] or "?")
                self.signal("failed", r[4] or "?", session=session, cwd=cwd, now=when)
            elif r[1] == "PostToolUse" and (r[4] or "?") in failing:
                failing.discard(r[4] or "?")  # the same kind of command passes now
                self.signal("fixed", r[4] or "?", session=session, cwd=cwd, now=when)
        for kind, key in _test_runs(rows):
            self.signal(kind, key, session=session, cwd=cwd, now=when)
        before = {r[3]: r[8] for r in rows if r[1] == "PreToolUse" and r[3] and r[8]}
        writes = [r for r in rows if r[1] == "PostToolUse" and r[7] and r[9]][-20:]
        for r in writes:  # at most 20 recent writes are stat'ed: hashes only
            current = file_hash(r[7])
            if current is not None and current != r[9]:
                kind = "reverted" if current == before.get(r[3]) else "rewritten"
                self.signal(kind, text_key(r[7]), session=session, cwd=cwd, now=when)
        with self.ledger.transaction() as db:
            db.execute(
                "INSERT INTO learn_commands (ts, session, event) VALUES (?, ?, 'observed')",
                (ts_text(when), session),
            )
        return self._infer(cwd, when)

    def _infer(self, cwd: str | None, when: datetime) -> list[Lesson]:
        """ADR §7, behaviour becomes a proposal without anyone saying it: one path reverted in
        2 sessions proposes a `path` check at ask; one command shape declined or denied 3
        times in 14 days with no allow proposes a `tool` check at ask; a turn that fixed
        failing tests and stopped without running them again proposes an `after` check at
        remind. Nothing inferred starts at block; a check the user already has, or declined,
        is never proposed again."""
        made: list[Lesson] = []
        since = ts_text(when - timedelta(days=30))
        for key, sessions in self.db.execute(
            "SELECT key, count(DISTINCT session) FROM learn_signals WHERE kind = 'reverted' "
            "AND ts >= ? GROUP BY key",
            (since,),
        ).fetchall():
            if sessions < 2:
                continue
            path = next(
                (
                    p
                    for (p,) in self.db.execute(
                        "SELECT DISTINCT path FROM learn_commands WHERE path IS NOT NULL"
                    )
                    if text_key(p) == key
                ),
                None,
            )
            if path:
                sentence = f"Leave {os.path.basename(path)} alone (you put it back twice)."
                left: dict = {"kind": "path", "paths": [path]}
                made += self._inferred(sentence, left, "ask", key, cwd, when)
        window = ts_text(when - timedelta(days=DECLINED_DAYS))
        for key, turned_down, allowed in self.db.execute(
            "SELECT key, sum(kind IN ('declined', 'denied')), sum(kind = 'allowed') "
            "FROM learn_signals WHERE kind IN ('declined', 'denied', 'allowed') AND ts >= ? "
            "GROUP BY key",
            (window,),
        ).fetchall():
            if turned_down < DECLINED_TIMES or allowed or self._ran_shape(key, window):
                continue
            meta = self.db.execute(
                "SELECT meta FROM learn_signals WHERE key = ? AND kind IN ('declined', 'denied') "
                "ORDER BY id DESC LIMIT 1",
                (key,),
            ).fetchone()
            shaped = _shape_check(json.loads(meta[0] or "{}")) if meta else None
            if shaped:
                what = (
                    checks.describe_command(shaped["command"])
                    if "command" in shaped
                    else (f"the {shaped['tool']} tool")
                )
                sentence = (
                    f"Don't use {what} (you turned it down {turned_down} times in "
                    f"{DECLINED_DAYS} days)."
                )
                made += self._inferred(sentence, shaped, "ask", key, cwd, when)
        for (key,) in self.db.execute(
            "SELECT DISTINCT key FROM learn_signals WHERE kind = 'untested' AND ts >= ?",
            (since,),
        ).fetchall():
            sentence = "Run the tests again after changing code to fix them."
            retest = {"kind": "after", "run": {"class": "test"}}
            made += self._inferred(sentence, retest, "remind", key, cwd, when)
        return made

    def _ran_shape(self, key: str, since: str | None) -> bool:
        """Did a call of this shape run in that window (the person let it through)?"""
        return bool(
            self.db.execute(
                "SELECT 1 FROM learn_commands WHERE key = ? AND ts >= ? AND event = 'PostToolUse' "
                "LIMIT 1",
                (key, since),
            ).fetchone()
        )

    def _inferred(
        self,
        sentence: str,
        check: dict,
        level: str,
        signal_key: str,
        cwd: str | None,
        when: datetime,
    ) -> list[Lesson]:
        if (
            checks.validate(check) is not None
            or self.db.execute(
                "SELECT 1 FROM lessons WHERE key = ?", (check_key(check),)
            ).fetchone()
        ):
            return []
        found = Distilled(sentence, check, None, rule=True, shape="inferred")
        project = self._project(cwd)
        scope, note = self._widened(
            f"project:{project}" if project else "all", signal_key, check_key(check)
        )
        lesson = self._insert(found, level, scope, "proposed", "inferred", None, when, note)
        return [lesson]

    def _widened(self, scope: str, *keys: str) -> tuple[str, str | None]:
        """ADR §8: a proposal whose key also appeared in another project widens to `all`, and
        says so."""
        if not scope.startswith("project:"):
            return scope, None
        marks = ", ".join("?" * len(keys))
        others = self.db.execute(
            f"SELECT count(DISTINCT project) FROM learn_signals WHERE key IN ({marks}) "
            "AND project IS NOT NULL AND project != ?",
            (*keys, scope[8:]),
        ).fetchone()[0]
        if not others:
            return scope, None
        return "all", f"seen in {others + 1} projects, so it applies everywhere"

    # -- escalation and measurement -------------------------------------------------------

    def broken(self, lid: int, *, now: datetime | None = None) -> Lesson:
        """A lesson was broken (waited out at Stop, or done anyway at remind): count it and
        escalate one level, up to `max_level`, unless pinned."""
        when = now or config.now()
        lesson = self.get(lid)
        with self.ledger.transaction() as db:
            _bump(db, when, lid, "broken")
        if not lesson.pinned and lesson.status in ("active", "dormant"):
            cap = LEVELS.index(lesson.max_level)
            nxt = min(LEVELS.index(lesson.level) + 1, cap)
            if nxt > LEVELS.index(lesson.level):
                self._apply(lid, {"level": LEVELS[nxt]})
        return self.get(lid)

    def count(self, lid: int, what: str, *, now: datetime | None = None) -> None:
        with self.ledger.transaction() as db:
            _bump(db, now or config.now(), lid, what)

    def effect(self, lesson: Lesson, *, now: datetime | None = None) -> Effect:
        when = now or config.now()
        project = lesson.scope[8:] if lesson.scope.startswith("project:") else None

        def turns(start: datetime | None, end: datetime | None) -> int:
            q = "SELECT coalesce(sum(turns), 0) FROM learn_days WHERE 1"
            args: list = []
            if project is not None:
                q += " AND project = ?"
                args.append(project)
            if start:
                q += " AND day >= ?"
                args.append(start.date().isoformat())
            if end:
                q += " AND day <= ?"
                args.append(end.date().isoformat())
            return int(self.db.execute(q, args).fetchone()[0])

        counts = self.db.execute(
            "SELECT coalesce(sum(applied), 0), coalesce(sum(caught), 0), coalesce(sum(broken), 0),"
            " coalesce(sum(repeats), 0) FROM learn_lesson_days WHERE lesson = ?",
            (lesson.id,),
        ).fetchone()
        applied, caught, broken, repeats = (int(x) for x in counts)
        accepted = lesson.accepted
        if accepted is None:
            return Effect(lesson=lesson.id, verdict="measuring")
        repeats_before = self.db.execute(
            "SELECT count(*) FROM learn_signals WHERE key = ? AND ts < ? AND kind IN "
            "('prompt', 'repeated', 'declined', 'reverted', 'failed')",
            (lesson.key, ts_text(accepted)),
        ).fetchone()[0]
        t_before = turns(lesson.first_signal or accepted, accepted)
        t_after = max(turns(accepted, when), 0)
        before = 100.0 * repeats_before / t_before if t_before else None
        after = 100.0 * (broken + repeats) / t_after if t_after else None
        verdict: EffectVerdict = "measuring"
        if t_after >= MEASURED_TURNS and after is not None:
            base = before if before is not None else 0.0
            if after <= base / 2:
                verdict = "working"
            elif after >= base:
                verdict = "not working"
        return Effect(
            lesson=lesson.id,
            verdict=verdict,
            before=before,
            after=after,
            turns_before=t_before,
            turns_after=t_after,
            applied=applied,
            caught=caught,
            broken=broken,
            repeats=repeats,
        )

    def stats(self, *, now: datetime | None = None) -> list[tuple[Lesson, Effect]]:
        when = now or config.now()
        self.drain()
        self.verify_snapshot(now=when)
        self.review(now=when)
        return [
            (lesson, self.effect(lesson, now=when))
            for lesson in self.lessons()
            if lesson.status in ("active", "dormant")
        ]

    def review(self, *, now: datetime | None = None) -> None:
        """Dormancy and demotion proposals, computed when read; nothing weakens on its own."""
        when = now or config.now()
        since = (when - timedelta(days=DORMANT_DAYS)).date().isoformat()
        for lesson in self.lessons("active"):
            if lesson.pinned or not lesson.accepted:
                continue
            quiet = self.db.execute(
                "SELECT coalesce(sum(applied + caught + broken + repeats), 0) FROM "
                "learn_lesson_days WHERE lesson = ? AND day >= ?",
                (lesson.id, since),
            ).fetchone()[0]
            eff = self.effect(lesson, now=when)
            old = lesson.accepted <= when - timedelta(days=DORMANT_DAYS)
            if not quiet and old and eff.turns_after >= DORMANT_TURNS:
                with self.ledger.transaction() as db:  # the check keeps running
                    db.execute("UPDATE lessons SET status = 'dormant' WHERE id = ?", (lesson.id,))
            asked = self.db.execute(
                "SELECT count(*), coalesce(sum(kind = 'allowed'), 0) FROM learn_signals "
                "WHERE lesson = ? AND kind IN ('allowed', 'denied')",
                (lesson.id,),
            ).fetchone()
            allowed_every_time = asked[0] >= DEMOTE_AFTER and asked[0] == asked[1]
            if lesson.level == "ask" and allowed_every_time and lesson.demotion is None:
                with self.ledger.transaction() as db:
                    db.execute("UPDATE lessons SET demotion = 'remind' WHERE id = ?", (lesson.id,))

    # -- the offline snapshot ----------------------------------------------------------------

    def write_snapshot(self) -> str:
        """Rewrite `lessons.json` from the ledger (atomic, 0600) and keep its hash."""
        with self.ledger.transaction() as db:
            digest = judge.write_snapshot(str(self.home), db)
        self._seen = _stamp(self.home / judge.SNAPSHOT)
        return digest

    def folders_changed(self) -> None:
        """Project lessons carry their project's folders: a change of folders rewrites it."""
        if self.db.execute("SELECT 1 FROM lessons WHERE scope LIKE 'project:%' LIMIT 1").fetchone():
            self.write_snapshot()

    def check_snapshot(self, *, now: datetime | None = None) -> bool:
        """True when the snapshot is what Vyre wrote; otherwise signal `tampered`, rewrite."""
        path = self.home / judge.SNAPSHOT
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            digest = None
        if digest is not None and digest == self.ledger.meta(SNAPSHOT_HASH):
            self._seen = _stamp(path)
            return True
        if digest is not None:
            self.signal("tampered", "snapshot", now=now, meta={"file": "lessons.json"})
        self.write_snapshot()
        return digest is None and self.ledger.meta(SNAPSHOT_HASH) is not None

    def snapshot_unmoved(self) -> bool:
        """Is the snapshot's stat (inode, size, mtime and ctime, which no user can set back)
        the one Vyre saw when it last wrote or checked it? One stat, no read."""
        return self._seen is not None and _stamp(self.home / judge.SNAPSHOT) == self._seen

    def verify_snapshot(self, *, now: datetime | None = None) -> bool:
        """`check_snapshot`, hashing only when the file moved since Vyre last looked: cheap
        enough for every request the daemon answers and every read of the lessons."""
        return True if self.snapshot_unmoved() else self.check_snapshot(now=now)

    def prune(self, *, now: datetime | None = None) -> None:
        cutoff = ts_text((now or config.now()) - timedelta(days=KEEP_DAYS))
        with self.ledger.transaction() as db:
            db.execute("DELETE FROM learn_commands WHERE ts < ?", (cutoff,))


def _stamp(path: Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _proposal_text(how: str, lesson: Lesson) -> str:
    note = f" ({lesson.note})" if lesson.note else ""
    return (
        f"Vyre {how} lesson {lesson.id}: \u201c{lesson.sentence}\u201d{note} ({lesson.enforced}) "
        "Tell the user, and that a plain \u201cyes\u201d in their next message keeps it and "
        "\u201cno\u201d drops it. Do not accept it yourself."
    )


def _shape_meta(tool: str | None, shape: str | None) -> dict:
    """A call's kind for a signal's meta: the tool, and for a shell command its program and
    subcommand ("git push"; never arguments, paths or output)."""
    meta: dict = {"tool": tool}
    if tool == "Bash" and shape:
        meta["shape"] = shape
    return meta


def _shape_check(meta: dict) -> dict | None:
    """The `tool` check a turned-down kind of call becomes (None for file tools: a kind of
    file is not a thing to forbid)."""
    tool = meta.get("tool")
    if tool == "Bash":
        words = str(meta.get("shape") or "").split()
        if not words:
            return None
        command: dict = {"program": words[0]}
        if len(words) > 1:
            command["sub"] = words[1:2]
        return {"kind": "tool", "command": command}
    if not tool or tool in FILE_TOOLS:
        return None
    return {"kind": "tool", "tool": tool}


def _test_runs(rows: list) -> list[tuple[str, str]]:
    """Per turn: tests failed, files changed, tests passed is a `test-fix` run; tests failed,
    files changed and the turn ended without running them again is `untested`."""
    turns: dict[int, list] = {}
    for r in rows:
        turns.setdefault(r[14], []).append(r)
    out = []
    for turn in turns.values():
        failed, key, changed = False, "", False
        for r in turn:
            event, is_test = r[1], bool(r[12])
            if is_test and event == "PostToolUseFailure":
                failed, key, changed = True, r[4] or "tests", False
            elif is_test and event == "PostToolUse":
                if failed and changed:
                    out.append(("test-fix", key))
                failed = False
            elif failed and event == "PostToolUse" and ",*," in (r[13] or ""):
                changed = True
        if failed and changed:
            out.append(("untested", key))
    return out


def _bump(db: sqlite3.Connection, when: datetime, lid: int, what: str) -> None:
    assert what in ("applied", "caught", "broken", "repeats")
    db.execute(
        f"INSERT INTO learn_lesson_days (day, lesson, {what}) VALUES (?, ?, 1) "
        f"ON CONFLICT (day, lesson) DO UPDATE SET {what} = {what} + 1",
        (when.date().isoformat(), lid),
    )


def weakenings(lesson: Lesson, change: dict) -> list[str]:
    """What in `change` loosens `lesson` (ADR §11): a lower level or cap, a narrower scope, a
    check removed or loosened, pinning off is not loosening."""
    out = []
    if "level" in change and LEVELS.index(change["level"]) < LEVELS.index(lesson.level):
        out.append("a lower level")
    if "max_level" in change and LEVELS.index(change["max_level"]) < LEVELS.index(lesson.max_level):
        out.append("a lower cap")
    if "scope" in change and change["scope"] != lesson.scope and lesson.scope == "all":
        out.append("a narrower scope")
    if "scope" in change and lesson.scope != "all" and change["scope"] not in ("all", lesson.scope):
        out.append("another scope")
    new_check = json.loads(change["check_json"]) if "check_json" in change else lesson.check
    if new_check != lesson.check and not _tighter(lesson.check, new_check):
        out.append("a looser check")
    return out


def _tighter(old: dict, new: dict) -> bool:
    """A new check is at least as strict when it only drops narrowing (`paths` on a tool or
    phrase check, flags or args on a command) or adds paths to a path check."""
    if old.get("kind") != new.get("kind"):
        return False
    if old["kind"] == "path":
        return set(old.get("paths", [])) <= set(new.get("paths", []))
    if old.get("paths") and not new.get("paths"):
        stripped = {k: v for k, v in old.items() if k != "paths"}
        return stripped == {k: v for k, v in new.items() if k != "paths"}
    if old["kind"] == "tool" and old.get("command") and new.get("command"):
        o, n = old["command"], new["command"]
        return o.get("program") == n.get("program") and all(
            set(n.get(k, [])) <= set(o.get(k, [])) for k in ("sub", "flags", "args")
        )
    return False


def file_hash(path: str) -> str | None:
    from vyre.learn.hook import file_hash as same_as_the_hook

    return same_as_the_hook(path)
