"""Projects: a name, folders, an optional org, and sessions picked in from elsewhere."""

from __future__ import annotations

import os
import re
from collections import Counter

from vyre.errors import ProjectError
from vyre.ledger import Ledger
from vyre.rooms.membership import project_for_cwd
from vyre.rooms.names import RESERVED

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


def add(ledger: Ledger, slug: str, name: str, folders: list[str], org: str | None) -> list[str]:
    """Create or update a project. Returns notes (a folder that does not exist here)."""
    if not SLUG.match(slug) or slug in RESERVED:
        raise ProjectError(f"bad project slug {slug!r}: use lower-case letters, digits and dashes")
    if not folders:
        raise ProjectError("a project needs at least one --folder")
    clean = []
    notes = []
    for folder in folders:
        path = os.path.normpath(os.path.expanduser(folder))
        if not os.path.isabs(path):
            path = os.path.abspath(path)
        if not os.path.isdir(path):
            notes.append(
                f"note: {path} does not exist on this machine; sessions from it still count"
            )
        clean.append(path)
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO projects (slug, name, org) VALUES (?, ?, ?) ON CONFLICT (slug) "
            "DO UPDATE SET name = excluded.name, org = coalesce(excluded.org, projects.org)",
            (slug, name or slug, org),
        )
        db.executemany(
            "INSERT OR IGNORE INTO project_folders (slug, folder) VALUES (?, ?)",
            [(slug, f) for f in clean],
        )
    return notes


def _require(ledger: Ledger, slug: str) -> None:
    if not ledger.db.execute("SELECT 1 FROM projects WHERE slug = ?", (slug,)).fetchone():
        raise ProjectError(f"no project {slug!r} (see `vyre project list`)")


def pick(ledger: Ledger, slug: str, session: str) -> None:
    _require(ledger, slug)
    if not ledger.session(session):
        raise ProjectError(f"no session {session!r} in memory (run `vyre ingest` first?)")
    with ledger.transaction() as db:
        db.execute("INSERT OR IGNORE INTO picks (slug, session) VALUES (?, ?)", (slug, session))


def unpick(ledger: Ledger, slug: str, session: str) -> None:
    _require(ledger, slug)
    with ledger.transaction() as db:
        cur = db.execute("DELETE FROM picks WHERE slug = ? AND session = ?", (slug, session))
        if cur.rowcount == 0:
            raise ProjectError(f"session {session!r} is not picked into {slug!r}")


def remove(ledger: Ledger, slug: str) -> None:
    _require(ledger, slug)
    with ledger.transaction() as db:
        db.execute("DELETE FROM projects WHERE slug = ?", (slug,))


def slug_for(folder: str) -> str:
    """A project slug `add` accepts, made from a folder's name."""
    return folder.rstrip("/").rsplit("/", 1)[-1].lower() or "home"


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
