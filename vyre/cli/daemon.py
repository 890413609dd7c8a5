"""`vyre daemon run|start|stop|status` and `vyre hook EVENT`."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import cast

import click

from vyre.cli.common import domain_errors
from vyre.wording import count


@click.group()
def daemon() -> None:
    """The process that owns memory's stores and answers hooks in milliseconds."""


@daemon.command()
@domain_errors
def run() -> None:
    """Run in the foreground (for systemd or launchd)."""
    from vyre.daemon.server import Daemon

    Daemon().run()


@daemon.command()
@domain_errors
def start() -> None:
    """Start in the background and wait until it answers."""
    from vyre.daemon import process

    info = process.start()
    click.echo(
        f"daemon running (pid {info['pid']}), {count(info['sessions'], 'session')}, "
        f"watching {info['root']}"
    )


@daemon.command()
@domain_errors
def stop() -> None:
    """Stop it (the CLI then opens the stores itself)."""
    from vyre.daemon import process

    stopped = process.stop()
    click.echo("daemon stopped" if stopped else "no daemon was running")


@daemon.command()
def status() -> None:
    """Whether it runs, and what it holds."""
    from vyre.daemon import process

    info = process.status()
    if not info:
        click.echo("no daemon is running for this home")
        sys.exit(1)
    click.echo(
        f"daemon running (pid {info['pid']}, up {info['uptime_s']:.0f} s): "
        f"{count(info['sessions'], 'session')}, {count(len(info['rooms']), 'room')}, "
        f"{count(info['ingests'], 'ingest')} since start; watching {info['root']}"
    )
    skipped = info.get("skipped") or {}
    if skipped:
        reasons = ", ".join(f"{n:,} {why}" for why, n in sorted(skipped.items()))
        click.echo(f"skipped {sum(skipped.values()):,} unreadable lines since start: {reasons}")
    error = info.get("last_error")
    if error:
        at = datetime.fromtimestamp(error["at"]).strftime("%Y-%m-%d %H:%M:%S")
        n = info.get("errors", 1)
        click.echo(f"last error ({at}, {n} since start): {error['error']} (more in daemon.log)")


@click.command()
@click.argument("event")
def hook(event: str) -> None:
    """Answer a Claude Code hook EVENT (JSON on stdin). Installed hooks call the same code
    without the CLI: python -I -m vyre.hooks EVENT."""
    from vyre.hooks.run import main

    sys.exit(main(["vyre-hook", event]))


@click.command("mcp")
def mcp_command() -> None:
    """Serve memory to Claude Code over MCP (stdio): read-only tools scoped to the session's
    room. Claude Code starts it as: <python> -I -m vyre.mcp."""
    from vyre.mcp.server import main

    main()


@daemon.command()
@click.option(
    "--system",
    type=click.Choice(["systemd", "launchd"]),
    default=None,
    help="Which service manager (default: launchd on macOS, else systemd).",
)
@click.option("--dry-run", is_flag=True, help="Show the file; write nothing.")
@domain_errors
def install(system: str | None, dry_run: bool) -> None:
    """Start the daemon at login: write a systemd user unit or a launchd agent."""
    from vyre.daemon import service

    chosen = cast("service.System | None", system)
    done = service.install(chosen, dry_run=dry_run)
    if dry_run:
        text = service.launchd_plist() if done.system == "launchd" else service.systemd_unit()
        click.echo(f"would write {done.path}:\n")
        click.echo(text.decode() if isinstance(text, bytes) else text)
        return
    said = "wrote" if done.changed else "already installed:"
    click.echo(f"{said} {done.path}")
    click.echo(f"turn it on (stopping a daemon started by hand first): {done.enable}")


@daemon.command()
@click.option("--system", type=click.Choice(["systemd", "launchd"]), default=None)
@domain_errors
def uninstall(system: str | None) -> None:
    """Stop starting the daemon at login: remove the file `install` wrote."""
    from vyre.daemon import service

    removed = service.uninstall(cast("service.System | None", system))
    if removed is None:
        click.echo("no daemon unit installed")
        return
    path, stop = removed
    click.echo(f"removed {path}")
    click.echo(f"stop the one running now with: {stop}")
