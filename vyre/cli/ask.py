"""`vyre memory ask` and `vyre memory remember`: ask memory, tell memory."""

from __future__ import annotations

import os

import click

from vyre.cli.common import domain_errors, now, open_memory, print_json

SHOWN_SOURCES = 3


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
            question, cwd=None if project else (cwd or os.getcwd()), project=project, now=now()
        )
    if as_json:
        print_json(reply.model_dump(mode="json"))
    else:
        click.echo(reply.answer)
        if not reply.abstained:
            click.echo(f"{reply.meta_line()} · answer {reply.answer_id}")
            shown = reply.sources if all_sources else reply.sources[:SHOWN_SOURCES]
            for s in shown:
                when = s.ts.strftime("%Y-%m-%d") if s.ts else ""
                where = f"{s.name} #{s.seq}" if s.session else s.name
                click.echo(f'  - {where}  {when}  "{_clip(s.quote)}"')
            if len(reply.sources) > len(shown):
                click.echo(f"  ({len(reply.sources) - len(shown)} more: --sources)")
    if reply.abstained:
        raise SystemExit(1)


@click.command("remember")
@click.argument("text")
@domain_errors
def remember(text: str) -> None:
    """Tell memory a fact of your life, in your words ("my wife is Juno")."""
    from vyre.cli.edit import owner_caller

    caller = owner_caller()
    with open_memory() as mem:
        row = mem.remember(text, caller=caller, now=now())
    click.echo(f"remembered: {row['fact']} (#{row['id']})")


def _clip(text: str, most: int = 140) -> str:
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1] + "…"
