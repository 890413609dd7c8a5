"""`vyre memory correct|uncorrect|corrections|pin|mute|merge|split|conflicts|...`.

Writing commands run only for the owner: the CLI is the owner at a real terminal, outside
Claude Code (no CLAUDECODE in the environment, a TTY on stdin). Anything else is refused in
one line: a session or a script never changes what memory believes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from vyre import config
from vyre.cli.common import domain_errors, now, open_memory, owner_caller, print_json, served
from vyre.memory import ago
from vyre.vocabulary import ACTIONS, CorrectionAction, FactTarget
from vyre.wording import count

if TYPE_CHECKING:
    from vyre.models import Correction
from vyre.rooms.names import MAIN, UNFILED


def _target(args: tuple[str, ...]) -> FactTarget:
    if len(args) == 1:
        return args[0]
    if len(args) == 3:
        return (args[0], args[1], args[2])
    raise click.UsageError("name a fact by its id, or as SUBJECT REL OBJECT")


def _describe(c: Correction) -> str:
    what = {
        "correct": f"{c.action}: {c.subject_label} {c.rel} {c.object_label or ''}".rstrip(),
        "pin": f"pinned {c.subject_label} {c.rel} {c.object_label}",
        "mute": f"muted {c.subject_label}" + (f" {c.rel} {c.object_label}" if c.rel else ""),
        "merge": f"merged {c.object_label} into {c.subject_label}",
        "split": f"split {c.subject_label}" + (f" in {c.scope}" if c.scope != MAIN else ""),
    }[c.kind]
    if c.value:
        what += f" -> {c.value}"
    if c.at:
        what += f" (at {c.at.date().isoformat()})"
    return what


@click.command()
@click.argument("target", nargs=-1, required=True, metavar="FACT|SUBJECT REL OBJECT")
@click.option("--action", required=True, type=click.Choice(ACTIONS))
@click.option("--object", "value", default=None, help="replace: the right object.")
@click.option("--at", default=None, help="ended, replace: when it stopped being true (ISO).")
@click.option("--scope", type=click.Choice(["all", "project"]), default="all", show_default=True)
@click.option(
    "--project",
    "-p",
    default=None,
    help="With --scope project: which one (default: this folder's project).",
)
@click.option("--note", default=None, help="Why, in your words (kept, never sent anywhere).")
@domain_errors
def correct(
    target: tuple[str, ...],
    action: CorrectionAction,
    value: str | None,
    at: str | None,
    scope: str,
    project: str | None,
    note: str | None,
) -> None:
    """Correct a fact: wrong, ended, replace, confirm, or add a new one."""
    caller = owner_caller()
    when = config.parse_time(at) if at else None
    with open_memory() as mem:
        room = MAIN
        if scope == "project":
            room = project or mem.room_for(os.getcwd())
            if room == UNFILED and not project:
                raise click.ClickException("this folder is in no project: name one with --project")
        done = mem.correct(
            _target(target), action, caller=caller, value=value, at=when, scope=room, note=note
        )
        row, derived = done.correction, done.derived
    click.echo(f"correction {row.id}: {_describe(row)}; {derived.summary()}")
    click.echo(f"undo with: vyre memory uncorrect {row.id}")


@click.command()
@click.argument("cid", type=int, metavar="ID")
@domain_errors
def uncorrect(cid: int) -> None:
    """Undo a correction, pin, mute, merge or split by its id."""
    caller = owner_caller()
    with open_memory() as mem:
        done = mem.uncorrect(cid, caller=caller)
        row, derived = done.correction, done.derived
    click.echo(f"undid {row.id} ({_describe(row)}); {derived.summary()}")


@served
@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.option("--active", is_flag=True, help="Only those still in force.")
@domain_errors
def corrections(as_json: bool, active: bool) -> None:
    """Everything you told memory, newest last, with ids to undo."""
    at = now()
    with open_memory() as mem:
        rows = mem.corrections(undone=not active)
    if as_json:
        print_json([c.model_dump(mode="json") for c in rows])
        return
    if not rows:
        click.echo("no corrections yet")
    for c in rows:
        state = f"undone {ago(c.undone, at)}" if c.undone else f"{ago(c.created, at)}"
        scope = "everywhere" if c.scope == MAIN else c.scope
        click.echo(f"{c.id:>4}  {_describe(c)}  [{scope}; {state}]")


@click.command()
@click.argument("target", nargs=-1, required=True, metavar="FACT|SUBJECT REL OBJECT")
@domain_errors
def pin(target: tuple[str, ...]) -> None:
    """Pin a fact: enrichment never drops it when its subject comes up."""
    caller = owner_caller()
    with open_memory() as mem:
        row = mem.pin(_target(target), caller=caller)
    click.echo(f"pin {row.id}: {_describe(row)} (undo: vyre memory uncorrect {row.id})")


@click.command()
@click.argument("target", nargs=-1, required=True, metavar="NAME|FACT|SUBJECT REL OBJECT")
@domain_errors
def mute(target: tuple[str, ...]) -> None:
    """Mute a person, org or one fact: it never reaches a prompt. Muting a fact keeps the
    person."""
    caller = owner_caller()
    with open_memory() as mem:
        row = mem.mute(target[0] if len(target) == 1 else _target(target), caller=caller)
    click.echo(f"mute {row.id}: {_describe(row)} (undo: vyre memory uncorrect {row.id})")


@click.command()
@click.argument("keep")
@click.argument("other")
@domain_errors
def merge(keep: str, other: str) -> None:
    """KEEP and OTHER are one identity (undo with uncorrect)."""
    caller = owner_caller()
    with open_memory() as mem:
        done = mem.merge(keep, other, caller=caller)
        row, derived = done.correction, done.derived
    click.echo(f"merge {row.id}: {_describe(row)}; {derived.summary()}")


@click.command()
@click.argument("name")
@click.option(
    "--room",
    "-r",
    default=None,
    help="Only this room's NAME is someone else (default: every room's).",
)
@domain_errors
def split(name: str, room: str | None) -> None:
    """NAME is more than one identity: one per room (or just --room's, apart)."""
    caller = owner_caller()
    with open_memory() as mem:
        done = mem.split(name, room=room, caller=caller)
        row, derived = done.correction, done.derived
    click.echo(f"split {row.id}: {_describe(row)}; {derived.summary()}")


@served
@click.command()
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def conflicts(as_json: bool) -> None:
    """Where projects (or newer sessions and your corrections) disagree, and how to settle it."""
    at = now()
    with open_memory() as mem:
        rows = mem.conflicts(now=at)
    if as_json:
        print_json([c.model_dump(mode="json") for c in rows])
        return
    if not rows:
        click.echo("no conflicts")
    for c in rows:
        click.echo(c.question)
        for s in c.sides:
            click.echo(
                f"  {c.rel} {s.object}  ({', '.join(s.rooms) or '?'}; "
                f"last said {ago(s.seen, at)}; {s.fact})"
            )
        for cmd in c.commands:
            click.echo(f"  {cmd}")


@served
@click.command("suggest-merges")
@domain_errors
def suggest_merges() -> None:
    """Near-identical names that share an address or an org (suggestions only)."""
    with open_memory() as mem:
        rows = mem.suggest_merges()
    if not rows:
        click.echo("no merge candidates")
    for r in rows:
        click.echo(
            f"{r.keep} ~ {r.other} ({r.kind}, similarity {r.similarity}); "
            f"both linked to {', '.join(r.shared)}"
        )
        click.echo(f"  {r.command}")


@served
@click.command()
@domain_errors
def hubs() -> None:
    """Orgs named across many rooms or sessions, and whether the hub rule holds."""
    with open_memory() as mem:
        rows = mem.hubs()
    for r in rows:
        mark = "hub" if r.hub else "   "
        click.echo(
            f"{mark}  {r.org}: {count(r.rooms, 'room')}, {count(r.sessions, 'session')} "
            f"({r.share:.0%})" + (f"; {r.why}" if r.why else "")
        )


COMMANDS = [
    correct,
    uncorrect,
    corrections,
    pin,
    mute,
    merge,
    split,
    conflicts,
    suggest_merges,
    hubs,
]
