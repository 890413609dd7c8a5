"""Projects: a name, folders, an optional org, and sessions picked in from elsewhere.

Every change to a project decides which room a session's facts reach, so each one is the
owner's (the API checks the caller) and each one is kept in the ledger's history
(`project_changes`, m006) with the project as it was before and after: `undo` puts the
project back as it was, a removed one with its folders and picks. A change that changed
nothing is not kept.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from vyre.errors import ProjectError
from vyre.ledger import Ledger

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Project, ProjectChange, ProjectChangeKind, ProjectHistory
from vyre.rooms.membership import project_for_cwd
from vyre.rooms.names import RESERVED

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


def add(
    ledger: Ledger,
    slug: str,
    name: str | None,
    folders: Sequence[str],
    org: str | None,
    remove: Sequence[str] = (),
    *,
    caller: str,
    when: datetime,
) -> ProjectChange:
    """Create a project, or change an existing one: add `folders`, take out `remove`, and set
    the name or org when given (an existing project keeps what is not given). Refused, with
    nothing changed: a folder another project holds, a folder to take out that the project
    does not have, and a project left with no folder."""
    if not SLUG.match(slug) or slug in RESERVED:
        raise ProjectError(f"bad project slug {slug!r}: use lower-case letters, digits and dashes")
    projects = {p["slug"]: p for p in ledger.projects()}
    existing = projects.get(slug)
    if existing is None and remove:
        raise ProjectError(f"no project {slug!r} (see `vyre project list`)")
    if existing is None and not folders:
        raise ProjectError("a project needs at least one --folder")
    have = set(existing["folders"]) if existing else set()
    notes = []
    added: list[str] = []
    for path in map(_folder, folders):
        for other, p in projects.items():
            if other != slug and path in p["folders"]:
                raise ProjectError(
                    f"{path} is already in project {other!r} (take it out there first: "
                    f"vyre project add {other} --remove-folder {shlex.quote(path)})"
                )
        if not os.path.isdir(path):
            notes.append(
                f"note: {path} does not exist on this machine; sessions from it still count"
            )
        if path not in have and path not in added:
            added.append(path)
    removed: list[str] = []
    for path in map(_folder, remove):
        if path not in have:
            raise ProjectError(f"{path} is not a folder of project {slug!r}")
        if path not in removed:
            removed.append(path)
    if existing is not None and not (have | set(added)) - set(removed):
        raise ProjectError(
            f"project {slug!r} would have no folder left (to delete it: vyre project remove {slug})"
        )
    renamed = name if name and (existing is None or name != existing["name"]) else None
    new_org = org if org and (existing is None or org != existing["org"]) else None
    with ledger.transaction() as db:
        before = _state(db, slug)
        if existing is None:
            db.execute(
                "INSERT INTO projects (slug, name, org) VALUES (?, ?, ?)", (slug, name or slug, org)
            )
        else:
            if renamed:
                db.execute("UPDATE projects SET name = ? WHERE slug = ?", (renamed, slug))
            if new_org:
                db.execute("UPDATE projects SET org = ? WHERE slug = ?", (new_org, slug))
        db.executemany(
            "INSERT OR IGNORE INTO project_folders (slug, folder) VALUES (?, ?)",
            [(slug, f) for f in added],
        )
        db.executemany(
            "DELETE FROM project_folders WHERE slug = ? AND folder = ?",
            [(slug, f) for f in removed],
        )
        change = _record(db, slug, "add", before, caller, when)
    from vyre.models import ProjectChange

    return ProjectChange(
        slug=slug,
        created=existing is None,
        name=renamed,
        org=new_org,
        added=tuple(added),
        removed=tuple(removed),
        notes=tuple(notes),
        change=change,
    )


def _folder(folder: str) -> str:
    """A folder as projects hold it: absolute, with `~` expanded and no trailing slash."""
    path = os.path.normpath(os.path.expanduser(folder))
    return path if os.path.isabs(path) else os.path.abspath(path)


def _require(ledger: Ledger, slug: str) -> None:
    if not ledger.db.execute("SELECT 1 FROM projects WHERE slug = ?", (slug,)).fetchone():
        raise ProjectError(f"no project {slug!r} (see `vyre project list`)")


def pick(ledger: Ledger, slug: str, session: str, *, caller: str, when: datetime) -> int | None:
    """File `session` in `slug`'s room too; the history row (None: it was picked already)."""
    _require(ledger, slug)
    if not ledger.session(session):
        raise ProjectError(f"no session {session!r} in memory (run `vyre ingest` first?)")
    with ledger.transaction() as db:
        before = _state(db, slug)
        db.execute("INSERT OR IGNORE INTO picks (slug, session) VALUES (?, ?)", (slug, session))
        return _record(db, slug, "pick", before, caller, when)


def unpick(ledger: Ledger, slug: str, session: str, *, caller: str, when: datetime) -> int | None:
    _require(ledger, slug)
    with ledger.transaction() as db:
        before = _state(db, slug)
        cur = db.execute("DELETE FROM picks WHERE slug = ? AND session = ?", (slug, session))
        if cur.rowcount == 0:
            raise ProjectError(f"session {session!r} is not picked into {slug!r}")
        return _record(db, slug, "unpick", before, caller, when)


def remove(ledger: Ledger, slug: str, *, caller: str, when: datetime) -> int | None:
    _require(ledger, slug)
    with ledger.transaction() as db:
        before = _state(db, slug)
        db.execute("DELETE FROM projects WHERE slug = ?", (slug,))
        return _record(db, slug, "remove", before, caller, when)


# -- the history, and undo ------------------------------------------------------------------

# the columns of a history row, in the order `_history` reads them (before is 5, after is 6)
_CHANGE_COLUMNS = "id, slug, kind, caller, created, before, after, undone"


def history(ledger: Ledger, slug: str | None = None) -> list[ProjectHistory]:
    """Every change kept, oldest first (only `slug`'s when given)."""
    where, args = ("WHERE slug = ?", (slug,)) if slug else ("", ())
    rows = ledger.db.execute(
        f"SELECT {_CHANGE_COLUMNS} FROM project_changes {where} ORDER BY id",
        args,
    ).fetchall()
    return [_history(row) for row in rows]


def undo(ledger: Ledger, change: int | None, *, caller: str, when: datetime) -> ProjectHistory:
    """Put the project back as it was before `change` (default: the newest change not undone).
    Refused, with nothing changed: a change undone already, a project changed since (undo the
    newer change first), and a folder that another project holds now."""
    with ledger.transaction() as db:
        row = _pick_change(db, change)
        done = _history(row)
        if done.undone:
            raise ProjectError(f"project change {done.id} is undone already")
        newer = db.execute(
            "SELECT id FROM project_changes WHERE slug = ? AND id > ? AND undone IS NULL "
            "ORDER BY id DESC LIMIT 1",
            (done.slug, done.id),
        ).fetchone()
        if newer or _state(db, done.slug) != _snapshot(row[6]):
            later = f"undo change {newer[0]} first" if newer else "it changed since"
            raise ProjectError(
                f"project {done.slug!r} is not as change {done.id} left it ({later}; "
                "see `vyre project history`)"
            )
        back = _snapshot(row[5])
        for folder in back["folders"] if back else ():
            holder = db.execute(
                "SELECT slug FROM project_folders WHERE folder = ? AND slug != ?",
                (folder, done.slug),
            ).fetchone()
            if holder:
                raise ProjectError(
                    f"cannot undo change {done.id}: {folder} is in project {holder[0]!r} now "
                    f"(take it out there first: vyre project add {holder[0]} --remove-folder "
                    f"{shlex.quote(folder)})"
                )
        db.execute("DELETE FROM projects WHERE slug = ?", (done.slug,))  # folders, picks too
        if back:
            db.execute(
                "INSERT INTO projects (slug, name, org) VALUES (?, ?, ?)",
                (done.slug, back["name"], back["org"]),
            )
            db.executemany(
                "INSERT INTO project_folders (slug, folder) VALUES (?, ?)",
                [(done.slug, f) for f in back["folders"]],
            )
            db.executemany(
                "INSERT INTO picks (slug, session) VALUES (?, ?)",
                [(done.slug, s) for s in back["picks"]],
            )
        db.execute(
            "UPDATE project_changes SET undone = ? WHERE id = ?", (when.isoformat(), done.id)
        )
    return done.model_copy(update={"undone": when})


def _pick_change(db: sqlite3.Connection, change: int | None) -> tuple[Any, ...]:
    if change is None:
        row = db.execute(
            f"SELECT {_CHANGE_COLUMNS} FROM project_changes WHERE undone IS NULL "
            "ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if row is None:
            raise ProjectError("no project change to undo (see `vyre project history`)")
        return tuple(row)
    row = db.execute(
        f"SELECT {_CHANGE_COLUMNS} FROM project_changes WHERE id = ?", (change,)
    ).fetchone()
    if row is None:
        raise ProjectError(f"no project change {change} (see `vyre project history`)")
    return tuple(row)


def _state(db: sqlite3.Connection, slug: str) -> dict[str, Any] | None:
    """The project as the history keeps it: name, org, folders and picks (None: no project)."""
    row = db.execute("SELECT name, org FROM projects WHERE slug = ?", (slug,)).fetchone()
    if row is None:
        return None
    folders = db.execute(
        "SELECT folder FROM project_folders WHERE slug = ? ORDER BY folder", (slug,)
    ).fetchall()
    picks = db.execute("SELECT session FROM picks WHERE slug = ? ORDER BY session", (slug,))
    return {
        "name": row[0],
        "org": row[1],
        "folders": [f[0] for f in folders],
        "picks": [p[0] for p in picks.fetchall()],
    }


def _record(
    db: sqlite3.Connection,
    slug: str,
    kind: ProjectChangeKind,
    before: dict[str, Any] | None,
    caller: str,
    when: datetime,
) -> int | None:
    """Keep one change with the project before and after it; None when nothing changed."""
    after = _state(db, slug)
    if after == before:
        return None
    cur = db.execute(
        "INSERT INTO project_changes (slug, kind, caller, created, before, after) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (slug, kind, caller, when.isoformat(), _json(before), _json(after)),
    )
    return cur.lastrowid


def _json(state: dict[str, Any] | None) -> str | None:
    return None if state is None else json.dumps(state, sort_keys=True, ensure_ascii=False)


def _snapshot(text: str | None) -> dict[str, Any] | None:
    return None if text is None else dict(json.loads(text))


def _history(row: tuple[Any, ...]) -> ProjectHistory:
    from vyre.models import Project, ProjectHistory

    ident, slug, kind, caller, created, before, after, undone = row

    def project(text: str | None) -> Project | None:
        state = _snapshot(text)
        return None if state is None else Project(slug=slug, **state)

    return ProjectHistory(
        id=ident,
        slug=slug,
        kind=kind,
        caller=caller,
        created=datetime.fromisoformat(created),
        before=project(before),
        after=project(after),
        undone=datetime.fromisoformat(undone) if undone else None,
    )


def slug_for(folder: str) -> str:
    """A project slug `add` accepts, made from any folder's name: accents folded to ASCII,
    every run of other characters one dash ("claude_p" -> claude-p, "My Site.v2" ->
    my-site-v2), at most 63 characters, and never a reserved name."""
    base = folder.rstrip("/").rsplit("/", 1)[-1]
    if not base:
        return "home"
    ascii_name = unicodedata.normalize("NFKD", base).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name).strip("-")[:63].rstrip("-")
    if not slug:
        return "project"
    return f"{slug}-project" if slug in RESERVED else slug


def suggest(ledger: Ledger, limit: int = 10) -> list[tuple[str, int]]:
    """The most-used working folders that no project holds: (folder, sessions)."""
    projects = ledger.projects()
    counts: Counter = Counter()
    for s in ledger.sessions():
        if s["parent"] or not s["cwd"]:
            continue
        if project_for_cwd(s["cwd"], projects) is None:
            counts[s["cwd"]] += 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
