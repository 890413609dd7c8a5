"""`vyre project ...`: the rooms memory files sessions into."""

from __future__ import annotations

import click

from vyre.cli.common import domain_errors, open_memory, served


@click.group()
def project() -> None:
    """Projects: folders and picked sessions that make one room."""


@project.command("add")
@click.argument("slug")
@click.option("--name", default=None, help="A display name (default: the slug).")
@click.option("--folder", "folders", multiple=True, required=True, help="A working folder.")
@click.option("--org", default=None, help="The client org this project is for.")
@domain_errors
def add(slug: str, name: str | None, folders: tuple[str, ...], org: str | None) -> None:
    """Create (or extend) a project."""
    with open_memory() as mem:
        change = mem.project_add(slug, name or slug, list(folders), org)
        derived = mem.derive()
    for note in change.notes:
        click.echo(note)
    click.echo(f"project {slug}: {', '.join(folders)}; {derived.summary()}")


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
        click.echo(f"{row.sessions:5d} sessions  {row.folder}")
    if rows:
        click.echo(f"\nfor example: vyre project add {rows[0].slug} --folder {rows[0].folder}")
