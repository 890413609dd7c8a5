"""What a run reports: an ingest's, a derive's, a look at the graph's. Dataclasses of the
standard library, not pydantic models: a one-off `vyre ingest` makes and prints these and
loads no pydantic at all (~0.09 s of its start). `vyre.models` shares them with the rest.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from vyre.wording import count, plural


@dataclass
class IngestReport:
    """What one ingest read. A dataclass, not a model: ingest counts into it line by line."""

    files: int = 0
    read: int = 0  # files with new bytes
    records: int = 0
    turns: int = 0
    by: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)  # lines nothing was taken from, by why
    repaired: Counter[str] = field(default_factory=Counter)  # lines read without one bad value
    ignored: Counter[str] = field(default_factory=Counter)
    rewrites: int = 0
    pending: int = 0  # unfinished last lines left for the next run
    empty: int = 0  # 0-byte files (nothing to read yet)
    aliases: int = 0  # files already read under another path
    workers: int = 0  # processes that read new files ahead of the writer (0: none)
    sessions: set[str] = field(default_factory=set)  # sessions that changed

    def summary(self) -> str:
        by = ", ".join(f"{k} {v:,}" for k, v in sorted(self.by.items()))
        line = f"{count(self.files, 'file')} ({self.read:,} with new lines), "
        line += f"{self.turns:,} new {plural(self.turns, 'turn')}"
        if by:
            line += f" ({by})"
        skipped = sum(self.skipped.values())
        if skipped:
            reasons = ", ".join(f"{v:,} {k}" for k, v in sorted(self.skipped.items()))
            line += f"; skipped {skipped:,} lines: {reasons}"
        else:
            line += "; skipped 0 lines"
        repaired = sum(self.repaired.values())
        if repaired:
            reasons = ", ".join(f"{v:,} {k}" for k, v in sorted(self.repaired.items()))
            line += f"; repaired {repaired:,} lines: {reasons}"
        if self.empty:
            line += f"; {count(self.empty, 'empty file')}"
        if self.pending:
            line += f"; {count(self.pending, 'unfinished last line')} left for next time"
        if self.rewrites:
            line += f"; {count(self.rewrites, 'rewritten file')} read again"
        if self.aliases:
            line += f"; {count(self.aliases, 'file')} already read under another path"
        return line


@dataclass
class DeriveReport:
    """What one derive changed."""

    rooms: list[str] = field(default_factory=list)  # rooms re-derived
    dropped: list[str] = field(default_factory=list)
    facts: int = 0
    main_stale: bool = False  # the main graph still waits for its turn
    # where its time went, by step (plan, mentions, derive, view, write): seconds
    seconds: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        if not self.rooms and not self.dropped:
            return "memory is up to date"
        return f"derived {count(len(self.rooms), 'room')}, {count(self.facts, 'fact')}"


@dataclass
class GraphHealth:
    """What a look at the graph found (and, after a repair, what was put right): rooms whose
    file is not the one the ledger recorded, and files the engine cannot read."""

    folder: str
    rooms: list[str] = field(default_factory=list)  # rooms that do not match the ledger
    damaged: dict[str, str] = field(default_factory=dict)  # room -> why its file is unreadable
    repaired: bool = False

    @property
    def ok(self) -> bool:
        return not self.rooms and not self.damaged

    def summary(self) -> str:
        if self.ok:
            return f"the memory graph in {self.folder} matches the ledger"
        done = "rebuilt" if self.repaired else "to be rebuilt"
        if self.damaged:
            why = self.damaged[min(self.damaged)]
            more = f" (and {len(self.damaged) - 1} more room(s))" if len(self.damaged) > 1 else ""
            return f"{why}{more}; {done} from the ledger"
        rooms = ", ".join(self.rooms[:5])
        if len(self.rooms) > 5:
            rooms += f" and {len(self.rooms) - 5} more"
        return (
            f"the memory graph in {self.folder} does not match the ledger in "
            f"{len(self.rooms)} room(s) ({rooms}); {done} from the ledger"
        )


@dataclass(frozen=True)
class Ingested:
    """What an ingest read, and what deriving it changed."""

    report: IngestReport
    derived: DeriveReport
