"""Where things live and what time it is.

One function knows where home is (`home()`, from VYRE_HOME), one knows what "now" is
(`now()`, from VYRE_NOW), and one knows where Claude Code keeps its transcripts
(`projects_root()`). Derive never calls `now()`: only reads do.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vyre.errors import ConfigError

DEFAULT_SETTINGS: dict[str, Any] = {
    # The person's own "I prefer" / "we decided": on since issue 8 measured precision 1.0 on
    # the bundled world and on juniper (the bar is 0.9 on both); turn off per relation here.
    "relations.prefers": True,
    "relations.decided": True,
    # The graph engine's buffer pool in MiB for each room's file; None sizes it from the file.
    "graph.buffer_pool_mib": None,
    # Processes that read a big batch's new files (vyre/transcripts/workers.py); None: one per
    # CPU, 1: none (the writer reads every file itself).
    "ingest.workers": None,
}


def home() -> Path:
    """The Vyre home folder (VYRE_HOME, default ~/.vyre), created 0700 on first use."""
    path = Path(os.environ.get("VYRE_HOME") or Path.home() / ".vyre").expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"VYRE_HOME is {path}, which is not a folder")
    if not path.exists():
        try:
            path.mkdir(parents=True, mode=0o700)
        except OSError as exc:
            raise ConfigError(f"cannot make the Vyre home {path}: {exc.strerror}") from exc
    return path


def projects_root() -> Path:
    """Claude Code's projects folder: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects."""
    base = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(base) if base else Path.home() / ".claude").expanduser() / "projects"


def parse_time(text: str) -> datetime:
    """An ISO time as naive UTC (the graph engine drops offsets, so we never keep them)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(f"not an ISO time: {text!r}") from exc
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def now() -> datetime:
    """The clock for every read: VYRE_NOW when set (tests, evals), else the real time. A
    command the daemon runs for a caller reads the caller's VYRE_NOW (`clock`)."""
    fixed = _caller_now.get() if _caller_now.get() is not _UNSET else os.environ.get("VYRE_NOW")
    if fixed:
        return parse_time(fixed)
    return datetime.now(UTC).replace(tzinfo=None)


_UNSET = "\0unset"
_caller_now: contextvars.ContextVar[str | None] = contextvars.ContextVar("now", default=_UNSET)


@contextlib.contextmanager
def clock(fixed: str | None) -> Iterator[None]:
    """Read the time as a caller whose VYRE_NOW is `fixed` (None: the real time) would."""
    token = _caller_now.set(fixed)
    try:
        yield
    finally:
        _caller_now.reset(token)


def settings() -> dict[str, Any]:
    """Defaults overlaid with $VYRE_HOME/settings.json when it exists."""
    merged = dict(DEFAULT_SETTINGS)
    path = home() / "settings.json"
    if path.exists():
        try:
            merged.update(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read {path}: {exc}") from exc
    return merged
