"""Read commands run inside the daemon, for a `vyre` that need not load anything.

When the daemon runs, `vyre memory relevant ...` (any command marked `@served`) is sent to it
as its arguments, folder and clock by `vyre.cli.fast`, with the standard library only; the
daemon runs the very same click command against the memory it holds and sends back what it
printed and its exit code. So the output is the CLI's own, byte for byte, and the cost is a
bare interpreter and one round trip instead of loading click, pydantic and the stores.

What must stay true:
- Only commands marked `@served` run here: they read, and print only what they read. A
  command that changes memory, asks who is at the terminal, or starts anything is never
  served (`served_command` says no, and the client runs the CLI itself). The one exception
  is a command marked `@handed` (`vyre ingest`): it writes only what the daemon writes on its
  own, new transcript lines and what is derived from them, so the warm daemon does it (a new
  process would load the library, the rules and the engine first) and the caller waits.
- The memory a served command opens offers only the API's non-owner operations: even a
  mistake in a served command cannot change memory from here.
- A served command reads the caller's folder and clock (`common.cwd()`, `config.now()`),
  never the daemon's.
- Served commands run side by side, each on its connection's thread: what one prints goes to
  its own buffers (`_Routed`), so a long handed `vyre ingest` holds up no read command.
"""

from __future__ import annotations

import contextvars
import io
import sys
import threading
from pathlib import Path
from typing import Any

import click

from vyre import config
from vyre.cli import common
from vyre.errors import OwnerOnly
from vyre.interface import MemoryAPI, operations

# The buffers of the served command running on this thread (a thread starts with none)
_buffers: contextvars.ContextVar[tuple[io.StringIO, io.StringIO] | None] = contextvars.ContextVar(
    "served_buffers", default=None
)
_installing = threading.Lock()


class _Routed(io.TextIOBase):
    """sys.stdout (or sys.stderr) of a daemon that serves commands: what a served command
    prints goes to its own buffer, anything else to the stream this replaced. It has no
    `buffer`, so click writes text to it as it does to a StringIO (and never caches a
    binary writer of one command's stream for the next)."""

    def __init__(self, replaced: Any, which: int) -> None:
        self._replaced, self._which = replaced, which

    def _now(self) -> Any:
        buffers = _buffers.get()
        return buffers[self._which] if buffers is not None else self._replaced

    def write(self, text: str) -> int:
        stream = self._now()
        return len(text) if stream is None else stream.write(text)

    def flush(self) -> None:
        stream = self._now()
        if stream is not None:
            stream.flush()

    def isatty(self) -> bool:
        stream = self._now()
        return stream is not None and stream.isatty()

    def fileno(self) -> int:
        stream = self._now()
        if stream is None:
            raise io.UnsupportedOperation("fileno")
        return stream.fileno()

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._now(), "encoding", None) or "utf-8"

    @property
    def errors(self) -> str:  # type: ignore[override]
        return getattr(self._now(), "errors", None) or "strict"


def _route_streams() -> None:
    """sys.stdout and sys.stderr as `_Routed`, once (again if something replaced them)."""
    with _installing:
        if not isinstance(sys.stdout, _Routed):
            sys.stdout = _Routed(sys.stdout, 0)
        if not isinstance(sys.stderr, _Routed):
            sys.stderr = _Routed(sys.stderr, 1)


def served_command(argv: list[str]) -> bool:
    """Whether these arguments name a command the daemon may run because it only reads."""
    command = _command(argv)
    return command is not None and getattr(command, common.SERVED, False)


def handed_command(argv: list[str]) -> bool:
    """Whether these arguments name a command that writes, handed to the daemon to run."""
    command = _command(argv)
    return command is not None and getattr(command, common.HANDED, False)


def _command(argv: list[str]) -> click.Command | None:
    """The command these arguments name (None for the top-level group itself)."""
    from vyre.cli.main import cli

    command: click.Command = cli
    for arg in argv:
        if not isinstance(command, click.Group) or arg not in command.commands:
            break
        command = command.commands[arg]
    return None if command is cli else command


class _ReadOnly:
    """A memory of which only the non-owner operations can be called."""

    def __init__(self, memory: MemoryAPI) -> None:
        self._memory = memory
        self._ops = {name for name, op in operations().items() if not op.owner_only}

    def __enter__(self) -> _ReadOnly:
        return self

    def __exit__(self, *exc: object) -> None:
        pass  # the daemon keeps its memory open

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        if name not in self._ops:
            raise OwnerOnly(f"refused: {name} is not served to the CLI by the daemon")
        return getattr(self._memory, name)


def run(argv: list[str], *, cwd: str, now: str | None, memory: MemoryAPI) -> dict | None:
    """The command's output and exit code, or None when it is not one the daemon serves."""
    if not (served_command(argv) or handed_command(argv)):
        return None
    from vyre.cli.main import cli

    _route_streams()
    out, err = io.StringIO(), io.StringIO()
    token = _buffers.set((out, err))
    try:
        with common.serving(_ReadOnly(memory), Path(cwd)), config.clock(now):
            code = _main(cli, argv)
    finally:
        _buffers.reset(token)
    return {"out": out.getvalue(), "err": err.getvalue(), "code": code}


def _main(cli: click.Group, argv: list[str]) -> int:
    """What `cli.main` exits with, as a number (click's standalone handling, kept here)."""
    try:
        cli.main(args=argv, prog_name="vyre", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        click.echo("Aborted!", err=True)
        return 1
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0
