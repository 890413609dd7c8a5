"""`vyre recall`: the turns of your sessions that answer a question, ranked, with no model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from vyre.cli.common import domain_errors, now, open_memory, owner_caller, print_json

if TYPE_CHECKING:
    from vyre.models import Passage


@click.command()
@click.argument("query")
@click.option("--cwd", default=None, help="Search the room of this folder (default: here).")
@click.option("--project", "-p", default=None, help="Search this project's room.")
@click.option(
    "--all", "everywhere", is_flag=True, help="Search every room (you, at your own terminal)."
)
@click.option("--limit", "-n", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@domain_errors
def recall(
    query: str, cwd: str | None, project: str | None, everywhere: bool, limit: int, as_json: bool
) -> None:
    """Turns that answer QUERY, best first, from one room: the folder's (its project's
    folders and picked sessions; `unfiled` outside every project), a project's, or with
    --all every room."""
    if sum(bool(x) for x in (cwd, project, everywhere)) > 1:
        raise click.UsageError("give at most one of --cwd, --project and --all")
    caller = owner_caller() if everywhere else "cli"
    with open_memory() as mem:
        found = mem.recall(
            query,
            cwd=None if project or everywhere else os.path.abspath(cwd or os.getcwd()),
            project=project,
            everywhere=everywhere,
            limit=limit,
            caller=caller,
            now=now(),
        )
    if as_json:
        print_json([passage_json(p) for p in found])
        return
    if not found:
        click.echo("Nothing found.")
        return
    for n, p in enumerate(found, 1):
        when = p.ts.strftime("%Y-%m-%d %H:%M") if p.ts else "-"
        who = "you" if p.by == "person" else "Claude"
        click.echo(f"{n:>2}. {p.score:.2f}  {when}  {who}  session {p.session} #{p.seq}")
        click.echo(f"    {' '.join(p.quote.split())}")


def passage_json(p: Passage) -> dict:
    return {
        "session": p.session,
        "seq": p.seq,
        "role": p.role,
        "by": p.by,
        "quote": p.quote,
        "ts": p.ts.isoformat() if p.ts else None,
        "score": p.score,
    }
