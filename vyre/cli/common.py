"""What every command shares: opening memory, turning domain errors into one line, printing."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar, cast

import click

from vyre import config
from vyre.errors import VyreError
from vyre.interface import MemoryAPI
from vyre.memory.text import age_note, phrase
from vyre.models import Fact

F = TypeVar("F", bound=Callable[..., Any])


def domain_errors(fn: F) -> F:
    """A known failure prints one line and exits 1; nothing else is caught."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VyreError as exc:
            raise click.ClickException(exc.line()) from exc

    return cast(F, wrapper)


def open_memory() -> MemoryAPI:
    """The daemon's memory when it runs, else the stores opened by this process."""
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
