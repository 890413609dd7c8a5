"""`vyre deck`: open the Deck, the local web page to see, ask and correct memory."""

from __future__ import annotations

import signal
import time

import click

from vyre.cli.common import domain_errors, owner_caller
from vyre.daemon.protocol import call


@click.group(invoke_without_command=True)
@click.option("--no-open", is_flag=True, help="Print the URL and keep serving; open nothing.")
@click.pass_context
@domain_errors
def deck(ctx: click.Context, no_open: bool) -> None:
    """Open the Deck (the daemon serves it on localhost; it starts the daemon if needed).

    The URL carries a one-time token: it signs one browser in, then stops working.
    """
    if ctx.invoked_subcommand:
        return
    if not no_open:
        _ensure_daemon()
        import webbrowser

        url = call("deck", caller="cli", timeout=15)["url"]
        click.echo(url)
        webbrowser.open(url)
        return
    from vyre.daemon import process

    # Ctrl-C, `kill` and a closed terminal all end the command the same way, stopping the
    # daemon it started; SIGINT too when it was inherited ignored (a job started with `&`).
    # Taken before the daemon starts: a stop that comes as soon as the URL is printed (or
    # before) still stops it.
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, _interrupt)
    started = False
    try:
        started = _ensure_daemon()
        click.echo(call("deck", caller="cli", timeout=15)["url"])
        while process.status() is not None:  # keep serving until a stop or the daemon ends
            time.sleep(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        if started:
            process.stop()


@deck.command()
@click.option("--no-open", is_flag=True, help="Print the URL only.")
@domain_errors
def passkey(no_open: bool) -> None:
    """Add a passkey: the Deck asks for it before it accepts, retires or relaxes a lesson.

    Only at your own terminal outside Claude Code (like corrections): a passkey is what lets
    the Deck trust a click, so a program running as you must not be able to add one.
    """
    caller = owner_caller()
    _ensure_daemon()
    url = call("deck_passkey", caller=caller, timeout=15)["url"]
    click.echo(url)
    if not no_open:
        import webbrowser

        webbrowser.open(url)


def _ensure_daemon() -> bool:
    """Start the daemon when none runs; True when this call started it."""
    from vyre.daemon import process

    if process.status() is not None:
        return False
    process.start()
    return True


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
