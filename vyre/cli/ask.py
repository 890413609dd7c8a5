"""`vyre memory ask` and `vyre memory remember`: ask memory, tell memory."""

from __future__ import annotations

import click

from vyre.ask.text import lines
from vyre.cli.common import cwd as current_folder
from vyre.cli.common import domain_errors, now, open_memory, print_json, served


@served
@click.command("ask")
@click.argument("question")
@click.option("--cwd", default=None, help="Ask as from this folder (default: here).")
@click.option("--project", "-p", default=None, help="Ask in this project's room.")
@click.option("--sources", "all_sources", is_flag=True, help="Show every source.")
@click.option("--json", "as_json", is_flag=True, help="Print the reply object.")
@domain_errors
def ask(
    question: str, cwd: str | None, project: str | None, all_sources: bool, as_json: bool
) -> None:
    """Ask memory QUESTION: the answer with its sources, or "Not sure yet." (exit 1)."""
    if cwd and project:
        raise click.UsageError("give --cwd or --project, not both")
    with open_memory() as mem:
        reply = mem.ask(
            question, cwd=None if project else (cwd or current_folder()), project=project, now=now()
        )
    if as_json:
        print_json(reply.model_dump(mode="json"))
    else:
        click.echo("\n".join(lines(reply.model_dump(mode="json"), all_sources=all_sources)))
    if reply.abstained:
        raise SystemExit(1)


@click.command("remember")
@click.argument("text")
@domain_errors
def remember(text: str) -> None:
    """Tell memory a fact of your life, in your words ("my wife is Juno")."""
    from vyre.cli.common import owner_caller

    caller = owner_caller()
    with open_memory() as mem:
        row = mem.remember(text, caller=caller, now=now())
    click.echo(f"remembered: {row['fact']} (#{row['id']})")


@click.command("fix")
@click.argument("answer", metavar="ANSWER_ID")
@click.option("--action", required=True, type=click.Choice(["replace", "wrong", "forget"]))
@click.option("--object", "value", default=None, help="replace: the right answer, your words.")
@domain_errors
def fix(answer: str, action: str, value: str | None) -> None:
    """Correct an answer `vyre memory ask` gave (its answer id): replace, wrong or forget."""
    from vyre.cli.common import owner_caller

    caller = owner_caller()
    with open_memory() as mem:
        row = mem.correct_answer(answer, action, object=value, caller=caller, now=now())
    told = " (and remembered as yours)" if row.get("remembered") else ""
    click.echo(f"fix {row['fix']}: {action} for answer {answer}{told}")
    click.echo(f"undo with: vyre memory unfix {row['fix']}")


@click.command("unfix")
@click.argument("fix_id", type=int, metavar="FIX")
@domain_errors
def unfix(fix_id: int) -> None:
    """Undo a correction of an answer by its fix id."""
    from vyre.cli.common import owner_caller

    caller = owner_caller()
    with open_memory() as mem:
        mem.uncorrect_answer(fix_id, caller=caller, now=now())
    click.echo(f"undid fix {fix_id}")


@served
@click.command("fixes")
@click.option("--json", "as_json", is_flag=True)
@domain_errors
def fixes(as_json: bool) -> None:
    """Your corrections of answers, with counts by kind of question."""
    with open_memory() as mem:
        listing = mem.answer_corrections()
    if as_json:
        print_json(listing)
        return
    rows = listing["answers"]
    if not rows:
        click.echo("no corrected answers yet")
    for r in rows:
        state = "undone" if r["undone"] else "in force"
        what = f" -> {r['object']}" if r["object"] else ""
        click.echo(f"{r['id']:>4}  {r['action']}{what}  [{r['kind']}; {state}]")
    if listing["by_kind"]:
        kinds = ", ".join(f"{k} {n}" for k, n in listing["by_kind"].items())
        click.echo(f"in force by kind: {kinds}")
