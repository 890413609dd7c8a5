"""What every command shares: opening memory, turning domain errors into one line, printing,
and the marks of a command the daemon may run for a fast `vyre` (`served` for reads, `handed`
for `vyre ingest`; see vyre.cli.served).

Module-level imports here stay light (click, the standard library, vyre's stdlib modules):
`vyre --help` loads every command module.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from vyre import config
from vyre.errors import VyreError
from vyre.memory.text import age_note, phrase

if TYPE_CHECKING:
    from vyre.interface import MemoryAPI
    from vyre.models import Fact

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound=click.Command)
SERVED = "vyre_served"
HANDED = "vyre_handed"

# Set while the daemon runs a served command: its memory, and the caller's folder.
_served: contextvars.ContextVar[tuple[MemoryAPI, Path] | None] = contextvars.ContextVar(
    "served", default=None
)


def served(command: C) -> C:
    """Mark a command that only reads and prints: the daemon may run it for `vyre`."""
    setattr(command, SERVED, True)
    return command


def handed(command: C) -> C:
    """Mark a command that writes only what the daemon writes on its own (new transcript
    lines and what is derived from them): while the daemon runs, `vyre` hands it to the warm
    daemon and waits for it, instead of loading the library and the rules in a new process."""
    setattr(command, HANDED, True)
    return command


def served_here() -> bool:
    """Whether the daemon is running this command for a `vyre` elsewhere."""
    return _served.get() is not None


@contextlib.contextmanager
def serving(memory: MemoryAPI, folder: Path) -> Iterator[None]:
    token = _served.set((memory, folder))
    try:
        yield
    finally:
        _served.reset(token)


def cwd() -> str:
    """The folder the command was run in (the caller's, when the daemon runs it)."""
    here = _served.get()
    return str(here[1]) if here else os.getcwd()


def domain_errors(fn: F) -> F:
    """A known failure prints one line and exits 1; nothing else is caught."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VyreError as exc:
            raise click.ClickException(exc.line()) from exc

    return cast(F, wrapper)


def stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


def owner_caller() -> str:
    """`cli` when a person is at this terminal, outside Claude Code; otherwise refuse, saying
    why. Every command that changes what memory believes, or which room a session's facts
    reach (corrections, projects), names its caller with this."""
    if os.environ.get("CLAUDECODE"):
        reason = "this runs inside Claude Code (CLAUDECODE is set)"
    elif not stdin_is_terminal():
        reason = "there is no terminal on stdin"
    else:
        return "cli"
    raise click.ClickException(
        f"refused: {reason}; only you, at your own terminal, can change memory"
    )


def open_memory() -> MemoryAPI:
    """The daemon's memory when it runs, else the stores opened by this process."""
    here = _served.get()
    if here:
        return here[0]
    from vyre.daemon.client import open_memory as through_daemon_or_here

    return through_daemon_or_here("cli")


def now() -> datetime:
    return config.now()


def fact_json(f: Fact) -> dict:
    return {
        "id": f.id,
        "subject": f.subject,
        "subject_kind": f.subject_kind,
        "rel": f.rel,
        "object": f.object,
        "object_kind": f.object_kind,
        "room": f.room,
        "confidence": f.confidence,
        "fresh": f.fresh,
        "stale": f.stale,
        "status": f.status,
        "source": f.source,
        "seen": f.seen.isoformat() if f.seen else None,
        "valid_from": f.valid_from.isoformat() if f.valid_from else None,
        "valid_to": f.valid_to.isoformat() if f.valid_to else None,
        "sources": [
            {
                "session": s.session,
                "seq": s.seq,
                "quote": s.quote,
                "ts": s.ts.isoformat() if s.ts else None,
                "rule": s.rule,
            }
            for s in f.sources
        ],
    }


def print_json(value: object) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


def fact_line(f: Fact, at: datetime, *, room: bool = False) -> str:
    bits = [f"conf {f.confidence:.2f}", f"fresh {f.fresh:.2f}", age_note(f, at)]
    if f.status:
        bits.append(f.status)
    if room:
        bits.append(f"[{f.room}]")
    return f"{f.id}  {phrase(f)}  ({' · '.join(bits)})"
