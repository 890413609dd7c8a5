"""Which rooms a session is in.

A room is a project (its folders plus the sessions picked into it), or `unfiled` for sessions
in no project. A session's `cwd` belongs to the project with the deepest folder containing it
(nested project folders do not make every session shared). Picks add rooms. A subagent's
transcript is in its parent session's rooms. Folder names are never decoded into paths: the
`cwd` comes from the records.
"""

from __future__ import annotations

from vyre.rooms.names import UNFILED


def _under(cwd: str, folder: str) -> int:
    """Depth of `folder` when it contains `cwd`, else -1 (plain string work: this runs for
    every session and project)."""
    folder = folder.rstrip("/") or "/"
    if cwd == folder or cwd.startswith(folder if folder == "/" else folder + "/"):
        return folder.count("/") if folder != "/" else 0
    return -1


def project_for_cwd(cwd: str | None, projects: list[dict]) -> str | None:
    """The project whose folder holds `cwd` most closely, or None."""
    if not cwd:
        return None
    best, depth = None, -1
    for p in projects:
        for folder in p["folders"]:
            d = _under(cwd, folder)
            if d > depth:
                best, depth = p["slug"], d
    return best


def room_for_cwd(cwd: str | None, projects: list[dict]) -> str:
    return project_for_cwd(cwd, projects) or UNFILED


_UNFILED = frozenset({UNFILED})


def picks_by_session(projects: list[dict]) -> dict[str, frozenset[str]]:
    """session id -> the projects it is picked into."""
    picked: dict[str, frozenset[str]] = {}
    for p in projects:
        for sid in p["picks"]:
            picked[sid] = picked.get(sid, frozenset()) | {p["slug"]}
    return picked


def own_rooms(
    sid: str,
    cwd: str | None,
    projects: list[dict],
    picked: dict[str, frozenset[str]],
    homes: dict[str | None, frozenset[str]],
) -> frozenset[str]:
    """A session's rooms before its parent's are taken into account: its folder's project and
    its picks, or `unfiled`. `homes` keeps each folder's project: a home has tens of thousands
    of sessions but few distinct folders, so each is matched against the projects once."""
    if cwd not in homes:
        home = project_for_cwd(cwd, projects)
        homes[cwd] = frozenset({home} if home else ())
    extra = picked.get(sid)
    rooms = homes[cwd] | extra if extra else homes[cwd]
    return rooms or _UNFILED


def session_rooms(sessions: list[dict], projects: list[dict]) -> dict[str, frozenset[str]]:
    picked = picks_by_session(projects)
    homes: dict[str | None, frozenset[str]] = {}
    own = {s["id"]: own_rooms(s["id"], s["cwd"], projects, picked, homes) for s in sessions}
    # subagents follow their parent (picks of the parent included)
    out = {}
    for s in sessions:
        parent = s.get("parent")
        out[s["id"]] = own.get(parent, own[s["id"]]) if parent else own[s["id"]]
    return out
