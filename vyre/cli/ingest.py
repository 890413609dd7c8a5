"""`vyre ingest` and `vyre derive`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vyre import config
from vyre.cli.common import domain_errors, open_memory


@click.command()
@click.argument("root", required=False, type=click.Path(path_type=Path))
@domain_errors
def ingest(root: Path | None) -> None:
    """Read new Claude Code transcript lines (ROOT: default ~/.claude/projects)."""
    root = root or config.projects_root()
    from vyre.api import Memory
    from vyre.transcripts import transcript_files

    with open_memory() as memory:
        if sys.stderr.isatty() and root.is_dir() and isinstance(memory, Memory):
            files = transcript_files(root)  # listed once: for the bar and for the ingest
            with click.progressbar(length=len(files), label="reading", file=sys.stderr) as bar:
                done = memory.ingest(root, progress=bar.update, paths=files)
        else:
            done = memory.ingest(root)
    click.echo(f"ingested {done.report.summary()}")
    click.echo(done.derived.summary())


@click.command("derive")
@click.option("--all", "force", is_flag=True, help="Derive every room again, changed or not.")
@domain_errors
def derive_command(force: bool) -> None:
    """Re-derive the rooms whose sessions or projects changed."""
    with open_memory() as memory:
        click.echo(memory.derive(force=force).summary())
