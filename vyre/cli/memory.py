"""`vyre memory ...` and `vyre why`."""

from __future__ import annotations

from typing import cast

import click

from vyre.cli.ask import ask as ask_command
from vyre.cli.ask import fix, fixes, unfix
from vyre.cli.ask import remember as remember_command
from vyre.cli.common import (
    age_note,
    domain_errors,
    fact_json,
    fact_line,
    now,
    open_memory,
    phrase,
    print_json,
    served,
)
from vyre.cli.edit import COMMANDS as EDIT_COMMANDS
from vyre.memory import ago
from vyre.rooms.names import MAIN
from vyre.vocabulary import Relation
from vyre.wording import count


@served
@click.group(invoke_without_command=True)
@click.option("--project", "-p", "room", default=None, help="A project's room (default: all).")
@click.pass_context
@domain_errors
def memory(ctx: click.Context, room: str | None) -> None:
    """What memory holds: an overview, or one of the commands below."""
    if ctx.invoked_subcommand:
        return
    at = now()
    with open_memory() as mem:
        view = mem.overview(room or MAIN, now=at)
    title = "everything" if view.room == MAIN else view.room
    counts = ", ".join(count(n, kind) for kind, n in view.counts.items())
    click.echo(f"Memory ({title}): {counts or 'nothing yet'}; {count(view.facts, 'fact')}")
    if view.people:
        click.echo("\nPeople:")
        for f in view.people:
            n = view.mentions.get(f.subject, 0)
            click.echo(f"  {f.subject} ({count(n, 'session')}, {age_note(f, at)})")
    if view.orgs:
        click.echo("\nOrgs:")
        for f in view.orgs:
            click.echo(f"  {f.subject} ({count(view.mentions.get(f.subject, 0), 'session')})")
    if view.deadlines:
        click.echo("\nOpen deadlines:")
        for f in view.deadlines:
            click.echo(f"  {f.object}  {f.subject}  [{f.room}]")
    if view.conflicts:
        click.echo(
            f"\n{count(len(view.conflicts), 'fact')} disagree between projects: "
            "see `vyre memory conflicts`"
        )
    if view.stale:
        click.echo(
            f"\n{count(view.stale, 'fact')} not said for more than a half-life (marked stale)"
        )


@served
@memory.command()
@click.argument("name")
@click.option("--project", "-p", "room", default=None, help="A project's room (default: all).")
@domain_errors
def about(name: str, room: str | None) -> None:
    """Everything memory holds about NAME."""
    at = now()
    with open_memory() as mem:
        found = mem.about(name, room or MAIN, now=at)
    if not found:
        raise click.ClickException(f"memory knows nobody called {name!r} here")
    for entity in found:
        click.echo(f"{entity.name} ({entity.kind})")
        for f in entity.facts:
            if f.rel == "is":
                continue
            click.echo(f"  {fact_line(f, at)}")


@served
@memory.command()
@click.option(
    "--room",
    "--project",
    "-r",
    "-p",
    "room",
    default=MAIN,
    show_default=True,
    help="A project slug, `unfiled`, or `*` (the main graph).",
)
@click.option("--closed", is_flag=True, help="Include ended facts and passed deadlines.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@domain_errors
def facts(room: str, closed: bool, as_json: bool) -> None:
    """Every fact in one room, with its id, confidence and freshness."""
    at = now()
    with open_memory() as mem:
        rows = mem.facts(room, now=at, closed=closed)
    if as_json:
        print_json([fact_json(f) for f in rows])
        return
    for f in rows:
        click.echo(fact_line(f, at))


@served
@memory.command()
@click.argument("prompt")
@click.option("--cwd", required=True, help="The folder Claude Code runs in.")
@click.option("--session", default=None, help="The Claude Code session id, if known.")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 50))
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@domain_errors
def relevant(prompt: str, cwd: str, session: str | None, limit: int, as_json: bool) -> None:
    """What the prompt hook adds to PROMPT in CWD: facts from that folder's room only."""
    at = now()
    with open_memory() as mem:
        rows = mem.relevant(prompt, cwd, session=session, limit=limit, now=at)
    if as_json:
        print_json([fact_json(f) for f in rows])
        return
    for f in rows:
        where = f"session {f.sources[-1].session[:8]}" if f.sources else "your project settings"
        click.echo(f"- {phrase(f)} (memory, from {where}, {age_note(f, at)}; {f.id})")


@served
@click.command()
@click.argument("name")
@click.argument("rel", required=False)
@click.argument("obj", metavar="[OBJECT]", required=False)
@click.option("--project", "-p", "room", default=None, help="Only this room.")
@domain_errors
def why(name: str, rel: str | None, obj: str | None, room: str | None) -> None:
    """Where memory's facts about NAME came from: rules, sessions, turns and quotes."""
    at = now()
    with open_memory() as mem:
        rows = mem.why(name, cast("Relation | None", rel), obj, room, now=at)
    if not rows:
        raise click.ClickException(f"no facts about {name!r}" + (f" {rel}" if rel else ""))
    for f in rows:
        click.echo(f"{phrase(f)}  [{f.room}]  {f.id}")
        first = f.valid_from.date().isoformat() if f.valid_from else "-"
        click.echo(
            f"  confidence {f.confidence:.2f} · fresh {f.fresh:.2f} · {f.sessions} "
            f"session(s) · first said {first} · last said {ago(f.seen, at)}"
            + (f" · {f.status}" if f.status else "")
        )
        click.echo(f"  rules: {', '.join(f.rules) or f.source}")
        for s in f.sources:
            when = s.ts.strftime("%Y-%m-%d %H:%M") if s.ts else "-"
            click.echo(f"  - {when}  session {s.session} #{s.seq}  {s.rule}")
            click.echo(f'      "{s.quote}"')


for _command in (*EDIT_COMMANDS, ask_command, remember_command, fix, unfix, fixes):
    memory.add_command(_command)
