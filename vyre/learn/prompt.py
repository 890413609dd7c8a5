"""The prompt hook's learning work when no daemon runs: in this process, and only when the
prompt could matter (a rule's cue words, or a proposal waiting for this thread's reply).
A prompt after a failed call or a call Claude Code never ran takes the full path too: the
loop reads behaviour from those (ADR §7). Everything else costs one small ledger write (the
turn count); files written are stat'ed for reverts at the next full pass."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the prompt hook imports little
if TYPE_CHECKING:
    import sqlite3

CUES = frozenset(
    """never don't dont do not stop avoid always must instead only prefer use yes yep yeah
    sure ok okay no nope nah keep drop before after whenever mustn't shouldn't quit ban
    """.split()
)


def here(prompt: str, cwd: str, session: str) -> str:
    from vyre.learn import judge
    from vyre.learn.hook import home

    path = os.path.join(home(), judge.LEDGER)
    if not os.path.exists(path):
        return ""
    from vyre.learn.hook import _drain_here

    _drain_here()  # what the tool hooks spooled comes first, in order
    words = {w.strip(".,!?;:\"'`()").lower() for w in prompt.split()[:60]}
    if not words & CUES and not _waiting(path, session):
        _count(path, session, cwd)
        return ""
    from pathlib import Path

    from vyre.learn.service import Learn
    from vyre.ledger import Ledger

    ledger = Ledger(Path(path))
    try:
        return Learn(ledger, ledger.path.parent).on_prompt(session, cwd, prompt)
    finally:
        ledger.close()


def _waiting(path: str, session: str) -> bool:
    import _sqlite3 as sqlite3  # the C module: `sqlite3` would load datetime on the hook path

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
    try:
        proposal = db.execute(
            "SELECT 1 FROM lessons WHERE status = 'proposed' AND session = ? LIMIT 1", (session,)
        ).fetchone()
        broken = db.execute(
            "SELECT 1 FROM learn_commands WHERE session = ? AND decision = 'broken' AND turn = "
            "(SELECT count(*) FROM learn_commands WHERE session = ? AND event = 'prompt') LIMIT 1",
            (session, session),
        ).fetchone()
        # what the loop learns from behaviour: a failed call, or one Claude Code never ran
        unread = db.execute(
            "SELECT 1 FROM learn_commands c WHERE session = ? AND id > coalesce((SELECT "
            "max(id) FROM learn_commands WHERE session = ? AND event = 'observed'), 0) AND "
            "(event = 'PostToolUseFailure' OR (event = 'PreToolUse' AND call IS NOT NULL AND "
            "NOT EXISTS (SELECT 1 FROM learn_commands p WHERE p.session = c.session AND "
            "p.call = c.call AND p.event != 'PreToolUse'))) LIMIT 1",
            (session, session),
        ).fetchone()
        return bool(proposal or broken or unread or _tampered(db))
    except sqlite3.OperationalError:
        return False
    finally:
        db.close()


def _tampered(db: sqlite3.Connection) -> bool:
    """Does the snapshot differ from the hash Vyre wrote? (Then the full path signals it and
    rewrites it.) The hash of a few kilobytes, with the C module."""
    from vyre.learn import judge
    from vyre.learn.hook import home

    row = db.execute("SELECT value FROM meta WHERE key = ?", (judge.SNAPSHOT_HASH,)).fetchone()
    try:
        with open(os.path.join(home(), judge.SNAPSHOT), "rb") as f:
            body = f.read()
    except OSError:
        return row is not None  # Vyre wrote one and it is gone
    try:
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12+
    except ImportError:
        from _sha256 import sha256  # type: ignore[import-not-found, no-redef, unused-ignore]
    return row is None or sha256(body).hexdigest() != row[0]


def _count(path: str, session: str, cwd: str) -> None:
    """Count the turn (learn_days) and mark it in the session's rows, as on_prompt does."""
    import _sqlite3 as sqlite3  # the C module: `sqlite3` would load datetime on the hook path

    from vyre.learn.hook import now_text

    ts = now_text()
    try:
        db = sqlite3.connect(path, timeout=0.2)
        try:
            with db:
                slug = _project(db, cwd)
                db.execute(
                    "INSERT INTO learn_days (day, project, turns) VALUES (?, ?, 1) "
                    "ON CONFLICT (day, project) DO UPDATE SET turns = turns + 1",
                    (ts[:10], slug),
                )
                turn = db.execute(
                    "SELECT count(*) FROM learn_commands WHERE session = ? AND event = 'prompt'",
                    (session,),
                ).fetchone()[0]
                db.execute(
                    "INSERT INTO learn_commands (ts, session, turn, event) "
                    "VALUES (?, ?, ?, 'prompt')",
                    (ts, session, turn + 1),
                )
        finally:
            db.close()
    except sqlite3.Error:
        pass


def _project(db: sqlite3.Connection, cwd: str) -> str:
    from vyre.learn.paths import under

    best = ""
    depth = -1
    for slug, folder in db.execute("SELECT slug, folder FROM project_folders"):
        if under(cwd, folder) and len(folder) > depth:
            best, depth = slug, len(folder)
    return best
