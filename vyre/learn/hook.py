"""The learning loop inside Claude Code's hooks: judge before a tool, record after it, hold
the end of a turn that still owes a command.

What must stay true:
- PreToolUse decides in this process from files (snapshot, else the ledger read-only), so the
  answer is the same with the daemon up or down; it fails closed: an error or a timeout while
  judging denies, with a reason that says so.
- Recording goes to the daemon when it runs and straight into the ledger when it does not;
  a failure to record never changes an answer.
- Stop sends the assistant back (`{"decision": "block"}`) at most twice per turn for an owed
  `after` check; the third time the turn ends, the lesson is broken and escalates, and the
  next prompt in the thread opens with it.
- Standard library only: `vyre.hooks.run` imports this on its fast path.
"""

from __future__ import annotations

import os

from vyre.learn import checks, judge
from vyre.learn.checks import Call

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the hook's fast path imports little
if TYPE_CHECKING:
    import sqlite3
    from typing import Any, NoReturn

TESTS = {"class": "test"}
JUDGE_TIMEOUT_S = 2.0  # well inside Claude Code's hook timeout: past it, deny
_BUSY_MS = 200


class _Timeout(Exception):
    pass


def home() -> str:
    from vyre.daemon.protocol import home_path

    return home_path()


def pre_tool(payload: dict, session: str | None) -> tuple[dict | None, dict]:
    """(the answer for Claude Code, the row to record)."""
    tool = _text(payload.get("tool_name")) or ""
    data = _tool_input(payload)
    cwd = _text(payload.get("cwd")) or os.getcwd()
    mode = _text(payload.get("permission_mode")) or ""
    env = dict(os.environ)
    row: dict[str, object] = {
        "event": "PreToolUse",
        "session": session,
        "tool": tool,
        "call": _text(payload.get("tool_use_id")),
    }
    try:
        with _deadline(JUDGE_TIMEOUT_S):
            lessons = judge.load(home())
            call = Call(tool, data, cwd, env)
            verdict = judge.decide(
                call, lessons, mode=mode, history=lambda lesson: _ran_since_change(session, lesson)
            )
            path = _file_path(call)
            if path:
                row["path"], row["before_hash"] = path, file_hash(path)
    except Exception as exc:  # fail closed: a call Vyre cannot judge is held
        reason = (
            "Vyre could not check this call against your lessons "
            f"({type(exc).__name__}), so it is held. `vyre doctor` says why."
        )
        row["decision"] = "error"
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }, row
    row["decision"] = "guard" if verdict.guard else verdict.decision
    row["lesson"] = verdict.lessons[0] if verdict.lessons else None
    return verdict.answer(), row


def post_tool(payload: dict, session: str | None, ok: int) -> dict:
    """The row for a finished call: which owed commands it ran, which watched files it changed."""
    tool = _text(payload.get("tool_name")) or ""
    data = _tool_input(payload)
    cwd = _text(payload.get("cwd")) or os.getcwd()
    row: dict[str, object] = {
        "event": "PostToolUse" if ok else "PostToolUseFailure",
        "session": session,
        "tool": tool,
        "call": _text(payload.get("tool_use_id")),
        "ok": ok,
    }
    try:
        lessons = [x for x in judge.load(home()) if x.check.get("kind") == "after"]
        call = Call(tool, data, cwd, dict(os.environ))
        ran = [
            x.id for x in lessons if x.in_scope(cwd, call.env) and checks.runs(x.check["run"], call)
        ]
        changed = [
            x.id
            for x in lessons
            if x.in_scope(cwd, call.env)
            and not x.check.get("before")
            and checks.changes(x.check, call, x.folders)
        ]
        if call.touches:
            changed.append("*")
        row["ran"] = _ids(ran)
        row["changed"] = _ids(changed)
        if checks.runs(TESTS, call):
            row["test"] = 1
        path = _file_path(call)
        if path and ok:
            row["path"], row["after_hash"] = path, file_hash(path)
    except Exception:  # recording is best effort; nothing is decided here
        pass
    return row


def stop(payload: dict, session: str | None) -> tuple[dict | None, list[dict]]:
    """(the answer, rows to record). Sends Claude back for an owed `after` command."""
    if not session:
        return None, []
    cwd = _text(payload.get("cwd")) or os.getcwd()
    env = dict(os.environ)
    lessons = [
        x
        for x in judge.load(home())
        if x.check.get("kind") == "after" and not x.check.get("before") and x.in_scope(cwd, env)
    ]
    if not lessons:
        return None, []
    _drain_here()
    turn = _turn_rows(session)
    owed, rows = [], []
    for lesson in lessons:
        if lesson.level == "remind" or not _owes(turn, lesson.id):
            continue
        sent = sum(1 for r in turn if r["decision"] == "sendback" and r["lesson"] == lesson.id)
        if sent >= SENDBACKS:
            rows.append(
                {"event": "Stop", "session": session, "decision": "broken", "lesson": lesson.id}
            )
            continue
        owed.append(lesson)
        rows.append(
            {"event": "Stop", "session": session, "decision": "sendback", "lesson": lesson.id}
        )
    if not owed:
        return None, rows
    parts = []
    for lesson in owed:
        run = checks.describe_command(lesson.check["run"])
        parts.append(
            f"Lesson {lesson.id}: \u201c{lesson.sentence.strip()}\u201d This turn changed "
            f"files it watches and has not run {run} since. Run it now, then finish."
        )
    return {"decision": "block", "reason": " ".join(parts)}, rows


SENDBACKS = 2


def _owes(turn: list[dict], lid: int) -> bool:
    mark = f",{lid},"
    last_change = max((r["id"] for r in turn if mark in r["changed"]), default=None)
    if last_change is None:
        return False
    return not any(r["id"] > last_change and mark in r["ran"] and r["ok"] == 1 for r in turn)


def _ran_since_change(session: str | None, lesson: judge.Lesson) -> bool:
    """For `run X before Y`: has X run (and passed) since the session last changed a file?"""
    if not session:
        return False
    rows = _session_rows(session, "")
    top = max((r["id"] for r in rows), default=0)
    for n, r in enumerate(spooled(session), 1):
        rows.append(
            {
                "id": top + n,
                "event": r.get("event"),
                "ran": r.get("ran") or "",
                "changed": r.get("changed") or "",
                "decision": r.get("decision"),
                "lesson": r.get("lesson"),
                "ok": r.get("ok"),
            }
        )
    mark = f",{lesson.id},"
    last_change = max((r["id"] for r in rows if ",*," in r["changed"]), default=0)
    return any(r["id"] > last_change and mark in r["ran"] and r["ok"] == 1 for r in rows)


def _drain_here() -> None:
    import _sqlite3 as sqlite3

    path = os.path.join(home(), judge.LEDGER)
    if not os.path.exists(os.path.join(home(), SPOOL)) or not os.path.exists(path):
        return
    try:
        db = sqlite3.connect(path, timeout=1.0)
        try:
            with db:
                drain(db)
        finally:
            db.close()
    except sqlite3.Error:
        pass


def _turn_rows(session: str) -> list[dict]:
    return _session_rows(
        session,
        "AND id > coalesce((SELECT max(id) FROM learn_commands "
        "WHERE session = ? AND event = 'prompt'), 0)",
    )


def _session_rows(session: str, extra: str) -> list[dict]:
    path = os.path.join(home(), judge.LEDGER)
    if not os.path.exists(path):
        return []
    import _sqlite3 as sqlite3  # the C module: `sqlite3` would load datetime on the hook path

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    try:
        args = (session, session) if extra else (session,)
        rows = db.execute(
            "SELECT id, event, ran, changed, decision, lesson, ok FROM learn_commands "
            f"WHERE session = ? {extra} ORDER BY id",
            args,
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        db.close()
    keys = ("id", "event", "ran", "changed", "decision", "lesson", "ok")
    return [dict(zip(keys, r, strict=True)) for r in rows]


def record(rows: list[dict], *, tool_event: dict | None = None, direct: bool = False) -> None:
    """Store rows: through the daemon when it runs, else onto the spool (one appended line;
    opening SQLite would cost the tool hook more than the rest of its work). `direct`: into
    the ledger now (Stop: a broken lesson escalates before the next prompt)."""
    if not rows and tool_event is None:
        return
    from vyre.daemon.protocol import DaemonError, DaemonUnavailable, call

    stamped = [{**r, "ts": now_text()} for r in rows]
    try:
        call("learn_record", {"rows": stamped, "tool": tool_event}, caller="hook", timeout=0.3)
    except DaemonUnavailable:
        spool("learn", stamped, tool_event)
        if direct:
            _drain_here()
    except DaemonError:
        pass


SPOOL = "hook-spool.jsonl"


def spool(kind: str, rows: list[dict], tool_event: dict | None = None) -> None:
    """Append rows for the ledger to `$VYRE_HOME/hook-spool.jsonl` (0600, one line a row, a
    single O_APPEND write each: hooks running at once never interleave). `drain` moves them
    into the ledger, in order, before anything reads them."""
    from vyre.hooks import fastjson

    base = home()
    if not os.path.exists(os.path.join(base, judge.LEDGER)):
        return  # no home yet: nothing to learn into
    items = [{"k": kind, "r": r} for r in rows]
    if tool_event is not None:
        items.append({"k": "tool", "r": tool_event})
    data = "".join(fastjson.dumps(item) + "\n" for item in items).encode()
    try:
        fd = os.open(os.path.join(base, SPOOL), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
    except OSError:
        pass


def spooled(session: str) -> list[dict]:
    """Learn rows of one session still on the spool (read, not drained)."""
    from vyre.hooks import fastjson

    try:
        with open(os.path.join(home(), SPOOL), "rb") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        try:
            item = fastjson.loads(line)
        except ValueError:
            continue
        if item.get("k") == "learn" and item["r"].get("session") == session:
            out.append(item["r"])
    return out


def drain(db: sqlite3.Connection, base: str | None = None) -> int:
    """Move spooled rows into the ledger through `db`, in the order they were written."""
    from vyre.hooks import fastjson

    base = base or home()
    path = os.path.join(base, SPOOL)
    if not os.path.exists(path):
        return 0
    taking = f"{path}.{os.getpid()}"
    try:
        os.rename(path, taking)  # later hooks start a new spool while this one drains
    except OSError:
        return 0
    learn_rows: list[dict] = []
    tool_rows: list[dict] = []
    with open(taking, "rb") as f:
        for line in f.read().splitlines():
            try:
                item = fastjson.loads(line)
            except ValueError:
                continue  # a torn last line: skipped, never the rest
            (learn_rows if item.get("k") == "learn" else tool_rows).append(item.get("r") or {})
    write_rows("", learn_rows, db=db)
    for row in tool_rows:
        cols = [c for c in row if c.isidentifier()]
        db.execute(
            f"INSERT INTO tool_events ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
            "ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING",  # the daemon took it late
            [row[c] for c in cols],
        )
    os.unlink(taking)
    return len(learn_rows) + len(tool_rows)


COLUMNS = (
    "ts",
    "session",
    "event",
    "tool",
    "call",
    "key",
    "ran",
    "changed",
    "decision",
    "lesson",
    "ok",
    "path",
    "before_hash",
    "after_hash",
    "shape",
    "test",
    "event_key",
)


def write_rows(path: str, rows: list[dict], db: sqlite3.Connection | None = None) -> None:
    """Insert learn_commands rows (with the turn they belong to) and count broken lessons."""
    import _sqlite3 as sqlite3  # the C module: `sqlite3` would load datetime on the hook path

    own = db is None
    if db is None:
        if not os.path.exists(path):
            return
        try:
            db = sqlite3.connect(path, timeout=_BUSY_MS / 1000)
            db.execute("PRAGMA synchronous = NORMAL")  # WAL: no fsync per hook's commit
        except sqlite3.Error:
            return
    try:
        with db:
            for r in rows:
                if not r.get("session"):
                    continue
                turn = db.execute(
                    "SELECT count(*) FROM learn_commands WHERE session = ? AND event = 'prompt'",
                    (r["session"],),
                ).fetchone()[0]
                values = [r.get(c) for c in COLUMNS]
                values[COLUMNS.index("ran")] = r.get("ran") or ""
                values[COLUMNS.index("changed")] = r.get("changed") or ""
                cur = db.execute(
                    f"INSERT INTO learn_commands ({', '.join(COLUMNS)}, turn) "
                    f"VALUES ({', '.join('?' * len(COLUMNS))}, ?) "
                    "ON CONFLICT (event_key) WHERE event_key IS NOT NULL DO NOTHING",
                    (*values, turn),
                )
                if cur.rowcount != 1:
                    continue  # this event is stored already (sent twice): counted once
                if r.get("decision") in ("deny", "ask", "sendback", "broken", "remind") and r.get(
                    "lesson"
                ):
                    what = {
                        "deny": "caught",
                        "ask": "applied",
                        "sendback": "applied",
                        "broken": "broken",
                        "remind": "applied",
                    }[r["decision"]]
                    db.execute(
                        f"INSERT INTO learn_lesson_days (day, lesson, {what}) VALUES (?, ?, 1) "
                        f"ON CONFLICT (day, lesson) DO UPDATE SET {what} = {what} + 1",
                        (r["ts"][:10], r["lesson"]),
                    )
                if r.get("decision") == "broken" and r.get("lesson"):
                    _escalate(db, int(r["lesson"]))
    except sqlite3.Error:
        pass
    finally:
        if own:
            db.close()


def _escalate(db: sqlite3.Connection, lid: int) -> None:
    """A broken lesson goes up one level, to its cap, unless pinned; the snapshot follows."""
    row = db.execute("SELECT level, max_level, pinned FROM lessons WHERE id = ?", (lid,)).fetchone()
    if not row or row[2]:
        return
    order = judge.LEVELS
    nxt = min(order.index(row[0]) + 1, order.index(row[1]))
    if nxt > order.index(row[0]):
        db.execute("UPDATE lessons SET level = ? WHERE id = ?", (order[nxt], lid))
        judge.write_snapshot(home(), db)


def file_hash(path: str) -> str | None:
    import _blake2

    try:
        with open(path, "rb") as f:
            return _blake2.blake2b(f.read(8 << 20), digest_size=12).hexdigest()
    except OSError:
        return None


def now_text() -> str:
    import time

    t = time.time()
    fixed = os.environ.get("VYRE_NOW")
    if fixed:
        return fixed.replace("Z", "").replace("+00:00", "")[:26]
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
    return f"{stamp}.{int((t % 1) * 1e6):06d}"


def _file_path(call: Call) -> str | None:
    from vyre.learn.paths import file_tool_path, join

    path = file_tool_path(call.tool, call.data)
    return join(call.cwd, path) if path else None


def _ids(ids: list[int]) -> str:
    return "," + ",".join(str(i) for i in ids) + "," if ids else ""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _tool_input(payload: dict) -> dict:
    data = payload.get("tool_input")
    return data if isinstance(data, dict) else {}


class _deadline:
    """Raise _Timeout after `seconds` (SIGALRM via the C module: no `signal`/`enum` import)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._signal: Any = None
        self._old: Any = None

    def __enter__(self) -> _deadline:
        try:
            import _signal  # type: ignore[import-not-found, unused-ignore]

            def fire(*_: object) -> NoReturn:
                raise _Timeout()

            self._old = _signal.signal(_signal.SIGALRM, fire)
            _signal.setitimer(_signal.ITIMER_REAL, self.seconds)
            self._signal = _signal
        except (ImportError, ValueError, AttributeError):  # not the main thread, or no alarm
            self._signal = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._signal is not None:
            self._signal.setitimer(self._signal.ITIMER_REAL, 0)
            self._signal.signal(self._signal.SIGALRM, self._old)
