"""The `vyre` command's entry, which loads nothing it does not need.

- `vyre --help` and `vyre -h` print the top-level help from `vyre/cli/help.txt` (click's own
  rendering of it at 80 columns, kept equal by tests/test_docs.py; a narrower terminal gets
  click's), and `vyre --version` the version, without importing click.
- When this home's daemon runs, a read command (one marked `@served`: `vyre memory`,
  `memory about|facts|relevant|ask|...`, `vyre why`, `project list|suggest`) is sent to it
  with the caller's folder and VYRE_NOW; the daemon runs the same click command and sends back
  its output and exit code (vyre.cli.served). Standard library only on this path.
- `vyre ingest` (a command marked `@handed`) is sent to the daemon the same way, with the
  caller's projects folder when none is named, and waits as long as an ingest takes: the warm
  daemon reads the new lines and derives, where a new process would first load the library.
- Everything else, and anything the daemon does not take, runs the full click CLI
  (vyre.cli.main), which prints the same.
"""

from __future__ import annotations

import os
import sys

HELP = os.path.join(os.path.dirname(__file__), "help.txt")
HANDED = ("ingest",)  # the commands marked @handed (tests/test_cli_fast.py checks the list)
HANDED_TIMEOUT_S = 600  # as long as an ingest through the daemon may take (vyre.daemon.client)


def main() -> None:
    args = sys.argv[1:]
    if args in (["--help"], ["-h"]) and _columns() >= 80:
        with open(HELP, encoding="utf-8") as f:
            sys.stdout.write(f.read())
        sys.exit(0)
    if args == ["--version"]:
        from vyre import __version__

        sys.stdout.write(f"vyre, version {__version__}\n")
        sys.exit(0)
    code = served(args)
    if code is not None:
        sys.exit(code)
    import vyre
    from vyre.cli.main import main as full

    vyre.own_process = True

    full()


def _columns() -> int:
    """The terminal's width as click reads it (COLUMNS, else the terminal, else 80)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, or not a terminal
        return 80


def served(args: list[str]) -> int | None:
    """The exit code of `args` run by this home's daemon, or None for the CLI to run them."""
    from vyre.daemon.protocol import call, socket_path
    from vyre.errors import Untrusted, VyreError

    if not os.path.exists(socket_path()):
        return None
    handed = bool(args) and args[0] in HANDED
    if args == ["ingest"]:  # the caller's projects folder, not the daemon's
        from vyre.config import projects_root

        args = [*args, str(projects_root())]
    payload = {"argv": args, "cwd": os.getcwd(), "now": os.environ.get("VYRE_NOW") or None}
    try:
        reply = call("cli", payload, caller="cli", timeout=HANDED_TIMEOUT_S if handed else 60)
    except Untrusted:
        return None  # the full CLI says so in one line
    except VyreError:
        return None  # no daemon, or one too old to serve commands: the CLI does it here
    if not isinstance(reply, dict):
        return None  # not a command the daemon serves
    sys.stdout.write(reply.get("out", ""))
    sys.stderr.write(reply.get("err", ""))
    return int(reply.get("code", 1))
