"""The PreToolUse decision: guards first, then every lesson in scope, from the offline
snapshot (or the ledger, read-only, when the snapshot is missing or unreadable).

What must stay true:
- The same answer with the daemon running or stopped: this runs in the hook process and
  reads only files, never the socket.
- Fails closed: a lesson source that exists but cannot be read raises, and the hook denies.
- Standard library only, no `json` (the snapshot is read with `vyre.hooks.fastjson`).
"""

from __future__ import annotations

import os

from vyre.learn import checks, guards
from vyre.learn.checks import Call
from vyre.learn.paths import READ_ONLY_TOOLS, SHELL_TOOLS

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: this runs in the hook, importing little
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterable

    # whether an `after` lesson's owed command ran since the last change (None: unknown)
    History = Callable[["Lesson"], bool | None] | None

SNAPSHOT = "lessons.json"
SNAPSHOT_HASH = "lessons_snapshot_hash"
LEDGER = "vyre.db"
LEVELS = ("remind", "ask", "block")
DECISION = {"block": "deny", "ask": "ask", "remind": "remind"}
UNATTENDED_MODES = ("bypassPermissions", "dontAsk")


class Lesson:
    """An active lesson as the hook needs it."""

    __slots__ = (
        "agent",
        "check",
        "enforced",
        "folders",
        "id",
        "level",
        "programs",
        "scope",
        "sentence",
    )

    def __init__(self, row: dict):
        self.id = int(row["id"])
        self.level = row["level"] if row.get("level") in LEVELS else "block"
        self.check = row["check"]
        self.scope = row.get("scope") or "all"
        self.folders = [f for f in row.get("folders") or [] if isinstance(f, str)]
        self.sentence = str(row.get("sentence") or "")
        self.enforced = str(row.get("enforced") or "")
        self.agent = row.get("agent")
        check = self.check
        if check.get("kind") == "after":
            self.programs = checks.pattern_programs(check.get("before"))
        elif check.get("kind") == "tool" and not check.get("tool"):
            self.programs = checks.pattern_programs(check.get("command"))
        else:
            self.programs = None

    def may_apply(self, call: Call) -> bool:
        """A cheap test before judging: skip lessons this call cannot break."""
        kind = self.check.get("kind")
        if kind == "tool":
            if self.check.get("tool"):
                return True
            return call.tool in SHELL_TOOLS and (
                self.programs is None or bool(self.programs & call.programs)
            )
        if kind == "after":
            return (
                bool(self.check.get("before"))
                and call.tool in SHELL_TOOLS
                and (self.programs is None or bool(self.programs & call.programs))
            )
        if kind == "phrase":
            return call.new_text() is not None
        if kind == "path":
            return call.tool not in READ_ONLY_TOOLS and bool(call.touches)
        return True

    def in_scope(self, cwd: str, env: dict[str, str]) -> bool:
        if self.scope == "all":
            return True
        if self.scope.startswith("agent:"):
            return env.get("VYRE_AGENT") == self.scope[6:]
        if self.scope.startswith("project:"):
            from vyre.learn.paths import under

            return any(under(cwd, f) for f in self.folders)
        return False


class Verdict:
    """What the hook answers, and what it records."""

    __slots__ = ("decision", "guard", "lessons", "reason")

    def __init__(
        self,
        decision: str | None = None,
        reason: str = "",
        lessons: Iterable[int] = (),
        guard: bool = False,
    ) -> None:
        self.decision: str | None = decision  # deny | ask | remind | None (allow)
        self.reason = reason
        self.lessons: list[int] = list(lessons)
        self.guard = guard

    def answer(self) -> dict | None:
        if self.decision is None:
            return None
        if self.decision == "remind":
            out = {"hookEventName": "PreToolUse", "additionalContext": self.reason}
        else:
            out = {
                "hookEventName": "PreToolUse",
                "permissionDecision": self.decision,
                "permissionDecisionReason": self.reason,
            }
        return {"hookSpecificOutput": out}


class LessonSet(list):
    """Active lessons with an index by what they can apply to, so one call is judged against
    the few lessons it could break, not all of them (200 lessons: a fraction of a ms)."""

    def candidates(self, call: Call) -> list[Lesson]:
        buckets = self.__dict__.get("_buckets") or self._index()
        found: dict[int, Lesson] = {}
        for lesson in buckets["tool"].get(call.tool, ()):
            found[id(lesson)] = lesson
        if call.tool in SHELL_TOOLS:
            for prog in call.programs:
                for lesson in buckets["program"].get(prog, ()):
                    found[id(lesson)] = lesson
            for lesson in buckets["any"]:
                found[id(lesson)] = lesson
        if buckets["phrase"] and call.new_text() is not None:
            for lesson in buckets["phrase"]:
                found[id(lesson)] = lesson
        if buckets["path"] and call.tool not in READ_ONLY_TOOLS and call.touches:
            for lesson in buckets["path"]:
                found[id(lesson)] = lesson
        order = buckets["order"]
        return sorted(found.values(), key=lambda x: order[id(x)])

    def _index(self) -> dict:
        buckets: dict = {"tool": {}, "program": {}, "any": [], "phrase": [], "path": []}
        buckets["order"] = {id(x): n for n, x in enumerate(self)}
        for lesson in self:
            kind = lesson.check.get("kind")
            if kind == "tool" and lesson.check.get("tool"):
                for name in checks.TOOL_ALIASES.get(lesson.check["tool"], (lesson.check["tool"],)):
                    buckets["tool"].setdefault(name, []).append(lesson)
            elif kind == "tool" or (kind == "after" and lesson.check.get("before")):
                if lesson.programs is None:
                    buckets["any"].append(lesson)
                for prog in lesson.programs or ():
                    buckets["program"].setdefault(prog, []).append(lesson)
            elif kind in ("phrase", "path"):
                buckets[kind].append(lesson)
        self.__dict__["_buckets"] = buckets
        return buckets


def load(home: str) -> LessonSet:
    """Active lessons: the snapshot, else the ledger read-only, else none (a fresh home)."""
    rows = _snapshot(os.path.join(home, SNAPSHOT))
    if rows is None:
        rows = ledger_rows(os.path.join(home, LEDGER))
    return LessonSet(Lesson(r) for r in rows)


def _snapshot(path: str) -> list[dict] | None:
    from vyre.hooks import fastjson

    try:
        with open(path, "rb") as f:
            data = fastjson.loads(f.read())
        rows = data["lessons"]
        if not isinstance(rows, list):
            return None
        return [r for r in rows if isinstance(r, dict) and isinstance(r.get("check"), dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def ledger_rows(path: str) -> list[dict]:
    """The active lessons straight from the ledger, opened read-only."""
    if not os.path.exists(path):
        return []
    import _sqlite3 as sqlite3  # the C module: `sqlite3` would load datetime on the hook path

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    try:
        return rows_from(db)
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []  # a ledger from before the learning loop: no lessons yet
        raise
    finally:
        db.close()


def rows_from(db: sqlite3.Connection) -> list[dict]:
    """Active lessons as the snapshot holds them, from an open ledger connection."""
    from vyre.hooks import fastjson

    rows = db.execute(
        "SELECT id, sentence, check_json, level, scope FROM lessons "
        "WHERE status IN ('active', 'dormant') ORDER BY id"
    ).fetchall()
    folders: dict[str, list[str]] = {}
    for slug, folder in db.execute("SELECT slug, folder FROM project_folders ORDER BY 1, 2"):
        folders.setdefault(slug, []).append(folder)
    out = []
    for lid, sentence, check_json, level, scope in rows:
        check = fastjson.loads(check_json)
        out.append(
            {
                "id": lid,
                "sentence": sentence,
                "check": check,
                "level": level,
                "scope": scope,
                "folders": folders.get(scope[8:], []) if scope.startswith("project:") else [],
                "enforced": checks.enforced(check, level),
            }
        )
    return out


def write_snapshot(home: str, db: sqlite3.Connection) -> str:
    """Write `lessons.json` atomically (0600) from the ledger and keep its hash in meta.
    The ledger connection `db` is the writer's own; the hash lands in its transaction."""
    import hashlib
    import json

    body = json.dumps({"v": 1, "lessons": rows_from(db)}, sort_keys=True, indent=1).encode()
    path = os.path.join(home, SNAPSHOT)
    tmp = os.path.join(home, f".{SNAPSHOT}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    digest = hashlib.sha256(body).hexdigest()
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (SNAPSHOT_HASH, digest),
    )
    return digest


def decide(
    call: Call, lessons: list[Lesson], *, mode: str = "", history: History = None
) -> Verdict:
    """Guards, then lessons. `history(lesson)` says whether an `after ... before` lesson's
    owed command has run since the last change in this session (None: unknown, owed)."""
    reason = guards.check(call)
    if reason:
        decision = "deny" if mode in UNATTENDED_MODES else "ask"
        text = (
            f"Vyre guards its own rules: {reason}. Only you can do this, in your own terminal "
            "outside Claude Code."
        )
        by_lessons = _by_lessons(call, lessons, mode, history)
        if by_lessons.decision == "deny" and decision != "deny":
            return by_lessons  # a lesson that blocks it outranks the guard's question
        return Verdict(decision, text, guard=True)
    return _by_lessons(call, lessons, mode, history)


def _by_lessons(call: Call, lessons: list[Lesson], mode: str, history: History) -> Verdict:
    fired: list[tuple[int, Lesson]] = []
    pool = lessons.candidates(call) if isinstance(lessons, LessonSet) else lessons
    for lesson in pool:
        if not lesson.may_apply(call) or not lesson.in_scope(call.cwd, call.env):
            continue
        try:
            hit = _violates(lesson, call, history)
        except Exception:
            if lesson.level == "remind":
                continue
            raise  # a block or ask lesson that cannot be judged holds the call
        if hit:
            fired.append((LEVELS.index(lesson.level), lesson))
    if not fired:
        return Verdict()
    top = max(rank for rank, _ in fired)
    chosen = [lesson for rank, lesson in fired if rank == top]
    decision = DECISION[LEVELS[top]]
    if decision == "ask" and mode in UNATTENDED_MODES:
        decision = "deny"  # nobody can be asked: hold it
    return Verdict(decision, _reason(chosen), [lesson.id for _, lesson in fired])


def _violates(lesson: Lesson, call: Call, history: History) -> bool:
    check = lesson.check
    if check.get("kind") == "after":
        before = check.get("before")
        if not before or not checks.runs(before, call):
            return False
        if checks.runs(check["run"], call):
            return False  # `npm test && git push`: the owed command runs first
        return not (history(lesson) if history else False)
    return checks.violates(check, call, lesson.folders)


def _reason(chosen: list[Lesson]) -> str:
    parts = []
    for lesson in chosen[:3]:
        sentence = lesson.sentence.strip()
        if sentence and sentence[-1] not in ".!?":
            sentence += "."
        parts.append(f"Lesson {lesson.id}: \u201c{sentence}\u201d {lesson.enforced}".strip())
    return " ".join(parts) + " (Your lesson, kept by Vyre; see `vyre learn show`.)"
