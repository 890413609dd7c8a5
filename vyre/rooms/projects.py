"""Projects: a name, folders, an optional org, and sessions picked in from elsewhere."""

from __future__ import annotations

import os
import re
import shlex
import unicodedata
from collections import Counter
from collections.abc import Sequence

from vyre.errors import ProjectError
from vyre.ledger import Ledger
from vyre.models import ProjectChange
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
    return ProjectChange(
        slug=slug,
        created=existing is None,
        name=renamed,
        org=new_org,
        added=tuple(added),
        removed=tuple(removed),
        notes=tuple(notes),
    )


def _folder(folder: str) -> str:
    """A folder as projects hold it: absolute, with `~` expanded and no trailing slash."""
    path = os.path.normpath(os.path.expanduser(folder))
    return path if os.path.isabs(path) else os.path.abspath(path)


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
