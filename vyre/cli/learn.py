"""`vyre learn [show|add|accept|decline|edit|relax|retire|scope|stats|signals|distill]`.

Anything that makes Vyre stricter is free; anything that loosens it (relax, retire, narrowing
scope) or decides for you (add, accept, decline) runs only at your own terminal outside Claude
Code, like memory corrections. Lessons live in the ledger, so these commands work the same
with the daemon running or not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click

from vyre import config
from vyre.cli.common import domain_errors, now, owner_caller, print_json
from vyre.vocabulary import LEVELS
from vyre.wording import count

if TYPE_CHECKING:
    from vyre.learn.models import Lesson
    from vyre.learn.service import Learn


F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def _learn() -> Iterator[Learn]:
    from vyre.learn.service import Learn
    from vyre.ledger import Ledger

    home = config.home()
    ledger = Ledger(home / "vyre.db")
    try:
        yield Learn(ledger, home)
    finally:
        ledger.close()


def _line(lesson: Lesson) -> str:
    bits = [lesson.level, lesson.scope, lesson.status]
    if lesson.pinned:
        bits.append("pinned")
    if lesson.demotion:
        bits.append(f"demotion to {lesson.demotion} proposed")
    head = f"{lesson.id:>3}  \u201c{lesson.sentence}\u201d  [{' · '.join(bits)}]"
    return f"{head}\n     {lesson.enforced}"


def _json(lesson: Lesson) -> dict:
    return lesson.model_dump(mode="json")


@click.group("learn", invoke_without_command=True)
@click.pass_context
def learn(ctx: click.Context) -> None:
    """Lessons: what you taught Claude Code, how it is enforced, and whether it works."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show)


@learn.command()
@click.option(
    "--status", type=click.Choice(["proposed", "active", "dormant", "retired", "declined"])
)
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def show(status: str | None, as_json: bool) -> None:
    """Every lesson (or those with one status), with how each is enforced."""
    with _learn() as service:
        rows = service.lessons(status)
    if as_json:
        print_json([_json(x) for x in rows])
        return
    if not rows:
        click.echo("No lessons yet. Say a rule in a prompt, or `vyre learn add TEXT`.")
    for lesson in rows:
        click.echo(_line(lesson))


@learn.command()
@click.argument("text")
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def distill(text: str, as_json: bool) -> None:
    """The check TEXT would become, or why none fits (changes nothing)."""
    with _learn() as service:
        found = service.distill(text)
    out = {
        "sentence": found.sentence,
        "check": found.check,
        "scope": found.scope,
        "shape": found.shape or None,
        "rule": found.rule,
        "reason": found.reason or None,
        "enforced": {lvl: _enforced(found.check, lvl) for lvl in LEVELS} if found.ok else None,
    }
    if as_json:
        print_json(out)
    elif found.ok:
        click.echo(f"{found.shape}: {found.check}")
        click.echo(_enforced(found.check, "block"))
    else:
        click.echo(f"no check: {found.reason}")
    if not found.ok:
        raise SystemExit(1)


def _enforced(check: dict | None, level: str) -> str:
    from vyre.learn.checks import enforced

    return enforced(check, level) if check else ""


@learn.command()
@click.argument("text")
@click.option("--level", type=click.Choice(LEVELS), default="block", show_default=True)
@click.option("--scope", default=None, help="all, project:SLUG or agent:ID (default: inferred)")
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def add(text: str, level: str, scope: str | None, as_json: bool) -> None:
    """Make TEXT an accepted lesson now (you, at your terminal)."""
    caller = owner_caller()
    with _learn() as service:
        lesson = service.add(
            text, level=level, scope=scope, caller=caller, cwd=os.getcwd(), now=now()
        )
    print_json(_json(lesson)) if as_json else click.echo(_line(lesson))


@learn.command()
@click.argument("lesson", type=int)
@domain_errors
def accept(lesson: int) -> None:
    """Keep a proposed lesson (you, at your terminal)."""
    caller = owner_caller()
    with _learn() as service:
        click.echo(_line(service.accept(lesson, caller=caller, now=now())))


@learn.command()
@click.argument("lesson", type=int)
@domain_errors
def decline(lesson: int) -> None:
    """Drop a proposed lesson (you, at your terminal)."""
    caller = owner_caller()
    with _learn() as service:
        click.echo(_line(service.decline(lesson, caller=caller)))


def _changes(
    level: str | None, max_level: str | None, scope: str | None, pin: bool, unpin: bool
) -> dict:
    return {
        "level": level,
        "max_level": max_level,
        "scope": scope,
        "pinned": True if pin else (False if unpin else None),
    }


_EDIT_OPTIONS = [
    click.option("--level", type=click.Choice(LEVELS)),
    click.option("--max-level", type=click.Choice(LEVELS)),
    click.option("--scope"),
    click.option("--pin", is_flag=True, help="no automatic change"),
    click.option("--unpin", is_flag=True),
]


def _edit_options(fn: F) -> F:
    for option in reversed(_EDIT_OPTIONS):
        fn = option(fn)
    return fn


@learn.command()
@click.argument("lesson", type=int)
@_edit_options
@domain_errors
def edit(
    lesson: int,
    level: str | None,
    max_level: str | None,
    scope: str | None,
    pin: bool,
    unpin: bool,
) -> None:
    """Tighten a lesson. A change that loosens it is refused: see `vyre learn relax`."""
    with _learn() as service:
        done = service.edit(
            lesson, caller="cli", cwd=os.getcwd(), **_changes(level, max_level, scope, pin, unpin)
        )
    click.echo(_line(done))


@learn.command()
@click.argument("lesson", type=int)
@_edit_options
@domain_errors
def relax(
    lesson: int,
    level: str | None,
    max_level: str | None,
    scope: str | None,
    pin: bool,
    unpin: bool,
) -> None:
    """Loosen a lesson (you, at your terminal)."""
    caller = owner_caller()
    with _learn() as service:
        done = service.relax(
            lesson, caller=caller, cwd=os.getcwd(), **_changes(level, max_level, scope, pin, unpin)
        )
    click.echo(_line(done))


@learn.command()
@click.argument("lesson", type=int)
@domain_errors
def retire(lesson: int) -> None:
    """Stop enforcing a lesson (you, at your terminal)."""
    caller = owner_caller()
    with _learn() as service:
        click.echo(_line(service.retire(lesson, caller=caller, now=now())))


@learn.command()
@click.argument("lesson", type=int)
@click.argument("scope")
@domain_errors
def scope(lesson: int, scope: str) -> None:
    """Widen a lesson's scope (all, project:SLUG, agent:ID); narrowing needs you in person."""
    with _learn() as service:
        done = service.set_scope(lesson, scope, caller=_caller_if_present(), cwd=os.getcwd())
    click.echo(_line(done))


def _caller_if_present() -> str:
    try:
        return owner_caller()
    except click.ClickException:
        return "agent:cli"


@learn.command()
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def stats(as_json: bool) -> None:
    """Does each lesson work? Applied, caught, broken, repeats and the verdict."""
    with _learn() as service:
        rows = service.stats(now=now())
    if as_json:
        print_json([{"lesson": _json(x), "effect": e.model_dump(mode="json")} for x, e in rows])
        return
    if not rows:
        click.echo("No active lessons.")
    for lesson, e in rows:
        rate = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
        click.echo(
            f"{lesson.id:>3}  {e.verdict:<11}  applied {e.applied} · caught {e.caught} · "
            f"broken {e.broken} · repeats {e.repeats} · per 100 turns before {rate(e.before)}, "
            f"after {rate(e.after)} ({count(e.turns_after, 'turn')} measured)  "
            f"\u201c{lesson.sentence}\u201d"
        )


@learn.command()
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def signals(as_json: bool) -> None:
    """Recent signals by kind, sentences waiting to be written by hand, and extraction rules
    you correct again and again (a curation bug, not a lesson)."""
    with _learn() as service:
        sigs = service.signals()
        jobs = service.jobs()
        curation = service.curation()
    if as_json:
        print_json(
            {
                "signals": [s.model_dump(mode="json") for s in sigs],
                "jobs": [j.model_dump(mode="json") for j in jobs],
                "curation": curation,
            }
        )
        return
    kinds: dict[str, int] = {}
    for s in sigs:
        kinds[s.kind] = kinds.get(s.kind, 0) + 1
    click.echo("signals: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"))
    click.echo(
        f"waiting sentences (no check shape fits; write them with `vyre learn add`): {len(jobs)}"
    )
    for job in jobs[-20:]:
        click.echo(f"  {job.id:>3}  {job.text}")
    for row in curation:
        if row["corrections"] >= 2:
            times = "once" if row["corrections"] == 1 else f"{row['corrections']} times"
            click.echo(f"curation: rule {row['rule']} corrected {times}")
