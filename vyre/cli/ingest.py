"""`vyre ingest` and `vyre derive`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from vyre import config
from vyre.cli import common
from vyre.cli.common import domain_errors, open_memory

HANDED_NOTE = "read by the running daemon{pid}; this waited for it to finish"


@common.handed
@click.command()
@click.argument("root", required=False, type=click.Path(path_type=Path))
@domain_errors
def ingest(root: Path | None) -> None:
    """Read new Claude Code transcript lines (ROOT: default ~/.claude/projects).

    While the daemon runs, it does the reading (it is warm) and this waits for it. Without
    it, the main graph is left to the next read of it (as the daemon leaves it to a pause):
    one new session changes its rooms, and this answers once they are written."""
    # the caller's folder, also when the daemon runs this for a `vyre` elsewhere
    root = Path(common.cwd(), root.expanduser()) if root else config.projects_root()
    with open_memory() as memory:
        from vyre.daemon.client import RemoteMemory

        local = not (common.served_here() or isinstance(memory, RemoteMemory))
        if local and sys.stderr.isatty() and root.is_dir():
            from vyre.transcripts import transcript_count

            # the bar's length from a count of names: the ingest lists them again as cheaply
            total = transcript_count(root)
            with click.progressbar(length=total, label="reading", file=sys.stderr) as bar:
                done = memory.ingest(root, progress=bar.update, main=False)
        elif local:
            done = memory.ingest(root, main=False)
        else:
            done = memory.ingest(root)
    click.echo(f"ingested {done.report.summary()}")
    click.echo(done.derived.summary())
    if not local:
        pid = f" (pid {os.getpid()})" if common.served_here() else ""
        click.echo(HANDED_NOTE.format(pid=pid), err=True)


@click.command("derive")
@click.option("--all", "force", is_flag=True, help="Derive every room again, changed or not.")
@domain_errors
def derive_command(force: bool) -> None:
    """Re-derive the rooms whose sessions or projects changed."""
    with open_memory() as memory:
        click.echo(memory.derive(force=force).summary())
