"""`vyre project ...`: the rooms memory files sessions into."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

import click

from vyre.cli.common import domain_errors, now, open_memory, owner_caller, served
from vyre.wording import count, plural

if TYPE_CHECKING:
    from vyre.models import Project, ProjectChange, ProjectHistory


@click.group()
def project() -> None:
    """Projects: folders and picked sessions that make one room."""


@project.command("add")
@click.argument("slug")
@click.option("--name", default=None, help="A display name (default: the slug; kept if not given).")
@click.option("--folder", "folders", multiple=True, help="A working folder to add.")
@click.option(
    "--remove-folder", "remove", multiple=True, help="A folder to take out of the project."
)
@click.option("--org", default=None, help="The client org this project is for.")
@domain_errors
def add(
    slug: str,
    name: str | None,
    folders: tuple[str, ...],
    remove: tuple[str, ...],
    org: str | None,
) -> None:
    """Create a project, or change one: add or take out folders, set its name or org."""
    caller = owner_caller()
    with open_memory() as mem:
        change = mem.project_add(slug, name, list(folders), org, list(remove), caller=caller)
        derived = mem.derive() if change.changed else None
    for note in change.notes:
        click.echo(note)
    click.echo(_said(change) + (f"; {derived.summary()}" if derived else ""))
    _undo_hint(change)


def _undo_hint(change: ProjectChange) -> None:
    if change.change is not None:
        click.echo(f"undo with: vyre project undo {change.change}")


def _said(change: ProjectChange) -> str:
    """What `project add` did, in one line."""
    if change.created:
        named = f" ({change.name})" if change.name and change.name != change.slug else ""
        folders = f"{plural(len(change.added), 'folder')} {', '.join(change.added)}"
        org = f", for {change.org}" if change.org else ""
        return f"created project {change.slug}{named}: {folders}{org}"
    done = [f"added folder {f}" for f in change.added]
    done += [f"removed folder {f}" for f in change.removed]
    done += [f"named {change.name}"] if change.name else []
    done += [f"for {change.org}"] if change.org else []
    return f"project {change.slug}: {', '.join(done) or 'nothing to change'}"


@project.command("pick")
@click.argument("slug")
@click.argument("session")
@domain_errors
def pick(slug: str, session: str) -> None:
    """File SESSION in SLUG's room as well."""
    caller = owner_caller()
    with open_memory() as mem:
        change = mem.project_pick(slug, session, caller=caller)
        derived = mem.derive()
    click.echo(f"picked {session} into {slug}; {derived.summary()}")
    _undo_hint(change)


@project.command("unpick")
@click.argument("slug")
@click.argument("session")
@domain_errors
def unpick(slug: str, session: str) -> None:
    """Take a picked SESSION out of SLUG's room."""
    caller = owner_caller()
    with open_memory() as mem:
        change = mem.project_unpick(slug, session, caller=caller)
        derived = mem.derive()
    click.echo(f"unpicked {session} from {slug}; {derived.summary()}")
    _undo_hint(change)


@project.command("remove")
@click.argument("slug")
@domain_errors
def remove(slug: str) -> None:
    """Delete a project (its sessions go back to their own rooms; undo brings it back)."""
    caller = owner_caller()
    with open_memory() as mem:
        change = mem.project_remove(slug, caller=caller)
        derived = mem.derive()
    click.echo(f"removed {slug}; {derived.summary()}")
    _undo_hint(change)


@project.command("undo")
@click.argument("change", type=int, required=False, metavar="[CHANGE]")
@domain_errors
def undo(change: int | None) -> None:
    """Put a project back as it was before CHANGE (default: the newest project change),
    a removed project with its folders and picks."""
    caller = owner_caller()
    with open_memory() as mem:
        done = mem.project_undo(change, caller=caller)
        derived = mem.derive()
    click.echo(
        f"undid change {done.id} ({_change_said(done)}): {_as_now(done)}; {derived.summary()}"
    )


@served
@project.command("history")
@click.argument("slug", required=False)
@domain_errors
def history(slug: str | None) -> None:
    """Every project change, oldest first, with the ids `vyre project undo` takes."""
    from vyre.memory import ago

    at = now()
    with open_memory() as mem:
        rows = mem.project_history(slug)
    if not rows:
        click.echo("no project changes yet")
    for row in rows:
        state = f"undone {ago(row.undone, at)}" if row.undone else ago(row.created, at)
        click.echo(f"{row.id:>4}  {_change_said(row)}  [{state}]")


def _change_said(row: ProjectHistory) -> str:
    """One change in words: what it did to the project."""
    before, after = row.before, row.after
    if before is None:
        return f"created project {row.slug}"
    if after is None:
        return f"removed project {row.slug}"
    done = [f"added folder {f}" for f in after.folders if f not in before.folders]
    done += [f"removed folder {f}" for f in before.folders if f not in after.folders]
    done += [f"picked {s}" for s in after.picks if s not in before.picks]
    done += [f"unpicked {s}" for s in before.picks if s not in after.picks]
    done += [f"named {after.name}"] if after.name != before.name else []
    done += [f"for {after.org}"] if after.org != before.org else []
    return f"project {row.slug}: {', '.join(done)}"


def _as_now(row: ProjectHistory) -> str:
    """The project as the undo left it."""
    back: Project | None = row.before
    if back is None:
        return f"project {row.slug} is gone"
    parts = [count(len(back.folders), "folder")]
    if back.picks:
        parts.append(count(len(back.picks), "picked session"))
    return f"project {row.slug} is back as it was ({', '.join(parts)})"


@served
@project.command("list")
@domain_errors
def list_projects() -> None:
    """Projects with their folders, org and picks."""
    with open_memory() as mem:
        rows = mem.projects()
    if not rows:
        click.echo("no projects yet (try `vyre project suggest`)")
    for p in rows:
        org = f" for {p.org}" if p.org else ""
        click.echo(f"{p.slug}: {p.name}{org}")
        for folder in p.folders:
            click.echo(f"  folder {folder}")
        for session in p.picks:
            click.echo(f"  picked {session}")


@served
@project.command("suggest")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 100))
@domain_errors
def suggest(limit: int) -> None:
    """The working folders you use most that no project holds yet."""
    with open_memory() as mem:
        rows = mem.project_suggest(limit)
    if not rows:
        click.echo("every working folder is in a project")
    for row in rows:
        click.echo(f"{row.sessions:5d} {plural(row.sessions, 'session')}  {row.folder}")
    if rows:
        folder = shlex.quote(rows[0].folder)
        click.echo(f"\nfor example: vyre project add {rows[0].slug} --folder {folder}")
