"""`vyre demo`: the bundled eval world in a fresh home, and a short tour of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from vyre.cli.common import domain_errors
from vyre.wording import count

DEMO_WORLD = Path(__file__).resolve().parents[2] / "eval" / "worlds" / "memory"

TOUR = [
    ("What memory holds across every project", ["memory"]),
    ("One person, in one project's room", ["memory", "about", "Priya", "--project", "keel-ash"]),
    ("Where a fact came from", ["why", "Priya Anand", "works_at"]),
    (
        "What the prompt hook would add in that project's folder",
        [
            "memory",
            "relevant",
            "Draft a note to Priya about the launch date",
            "--cwd",
            "/home/sam/work/keel-ash",
        ],
    ),
    ("The same name in two projects, and how to settle it", ["memory", "conflicts"]),
]


@click.command()
@click.option(
    "--home",
    type=click.Path(path_type=Path),
    default=None,
    help="Where to build the demo home (default: a new temporary folder).",
)
@click.option(
    "--world",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="Another world in the eval format (default: the bundled one).",
)
@click.pass_context
@domain_errors
def demo(ctx: click.Context, home: Path | None, world: Path | None) -> None:
    """Load the demo world into a fresh home and tour it."""
    world = world or DEMO_WORLD
    if not (world / "world.json").exists():
        raise click.ClickException(f"the demo world is missing at {world}")
    import tempfile

    home = home or Path(tempfile.mkdtemp(prefix="vyre-demo-"))
    if home.exists() and any(home.iterdir()):
        raise click.ClickException(f"{home} is not empty; the demo needs a fresh home")
    spec = json.loads((world / "world.json").read_text())
    os.environ["VYRE_HOME"] = str(home)
    os.environ["VYRE_NOW"] = spec["now"]
    from vyre.evaluate.memory import build

    memory = build(world, home)
    sessions = len(memory.ledger.sessions())
    memory.close()
    click.echo(
        f"Loaded the {spec.get('name', 'demo')} world ({count(sessions, 'session')}, "
        f"{count(len(spec.get('projects', [])), 'project')}) into {home}"
    )
    click.echo(f"Reads use VYRE_NOW={spec['now']}, the world's own clock.")
    from vyre.cli.main import cli

    for title, args in TOUR:
        click.echo(f"\n== {title}\n$ vyre {' '.join(_quote(a) for a in args)}\n")
        try:
            cli.main(args=args, prog_name="vyre", standalone_mode=False)
        except click.ClickException as exc:
            click.echo(exc.format_message())
    click.echo(f"\nExplore on: export VYRE_HOME={home} VYRE_NOW={spec['now']}")


def _quote(arg: str) -> str:
    return f'"{arg}"' if " " in arg else arg
