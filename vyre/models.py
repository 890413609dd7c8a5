"""Pure values shared across packages. No database code lives here."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict


class Value(BaseModel):
    model_config = ConfigDict(frozen=True)


class Source(Value):
    session: str
    seq: int
    quote: str
    ts: datetime | None
    rule: str = ""


class Passage(Value):
    """A turn recall found for a question: who said it, when, the words, how well it matched.
    `quote` is a piece of the turn's own text, as written (the whole turn is at `seq`)."""

    session: str
    seq: int
    role: str  # user | assistant
    by: str  # person | agent
    quote: str
    ts: datetime | None
    score: float


class Fact(Value):
    """A belief as the read API shows it, with its freshness computed at read time."""

    id: str
    room: str
    subject: str
    subject_kind: str
    rel: str
    object: str
    object_kind: str
    confidence: float
    fresh: float
    stale: bool
    seen: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    status: str = ""  # '' | 'conflict' | 'closed'
    source: str = "extracted"
    sessions: int = 0
    rules: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()


class Correction(Value):
    """Something the user said about memory: a ledger row, applied in derive, undoable."""

    id: int
    kind: Literal["correct", "pin", "mute", "merge", "split"]
    action: str | None = None  # correct: wrong | ended | replace | confirm | add
    scope: str = "*"  # '*' everywhere, or one room
    subject: str  # entity id
    subject_label: str
    subject_kind: str
    rel: str | None = None
    object: str | None = None  # entity id
    object_label: str | None = None
    object_kind: str | None = None
    value: str | None = None  # replace: the new object's label
    at: datetime | None = None
    note: str | None = None
    created: datetime
    undone: datetime | None = None
    prior_source: str | None = None
    prior_rule: str | None = None
    prior_confidence: float | None = None


class TurnView(Value):
    seq: int
    ts: datetime | None
    role: str
    by: Literal["person", "agent", "tool", "program"]
    kind: str
    text: str


class Thread(Value):
    """Some of one session's turns, as the Deck's turn view shows them."""

    session: str
    title: str | None
    cwd: str | None
    turns: tuple[TurnView, ...]
    before: int | None = None  # the seq to link to for earlier turns, if any
    after: int | None = None


class EntityFacts(Value):
    """One entity of a room with its open facts (a row of the Deck's Memory view)."""

    id: str
    label: str
    kind: str
    facts: tuple[Fact, ...] = ()


class EntityPage(Value):
    """A page of a room's entities, in kind then name order, and its open deadlines."""

    room: str
    total: int
    offset: int
    entities: tuple[EntityFacts, ...]
    deadlines: tuple[Fact, ...] = ()
