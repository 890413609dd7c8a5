"""`vyre project ...`: the rooms memory files sessions into."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

import click

from vyre.cli.common import domain_errors, open_memory, served
from vyre.wording import plural

if TYPE_CHECKING:
    from vyre.models import ProjectChange


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
    with open_memory() as mem:
        change = mem.project_add(slug, name, list(folders), org, list(remove))
        derived = mem.derive() if change.changed else None
    for note in change.notes:
        click.echo(note)
    click.echo(_said(change) + (f"; {derived.summary()}" if derived else ""))


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
    with open_memory() as mem:
        mem.project_pick(slug, session)
        derived = mem.derive()
    click.echo(f"picked {session} into {slug}; {derived.summary()}")


@project.command("unpick")
@click.argument("slug")
@click.argument("session")
@domain_errors
def unpick(slug: str, session: str) -> None:
    """Take a picked SESSION out of SLUG's room."""
    with open_memory() as mem:
        mem.project_unpick(slug, session)
        derived = mem.derive()
    click.echo(f"unpicked {session} from {slug}; {derived.summary()}")


@project.command("remove")
@click.argument("slug")
@domain_errors
def remove(slug: str) -> None:
    """Delete a project (its sessions go back to their own rooms)."""
    with open_memory() as mem:
        mem.project_remove(slug)
        derived = mem.derive()
    click.echo(f"removed {slug}; {derived.summary()}")


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
