"""Pure values shared across packages, and everything `vyre.api` returns. No database code
lives here, and nothing here reads a store or the clock.

What must stay true:
- Every value a `MemoryAPI` method returns is one of these models (or a list of them), a
  derive or ingest report, or a plain str/int/bool: the daemon's wire rebuilds them by name
  (`vyre.daemon.codec`), so the CLI gets the same objects with or without a daemon.
- The `Literal` types (`vyre.vocabulary`) name every value a field can hold; a new
  relation, kind or status is added there first.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

# The reply of `ask`, defined beside the code that makes it and shared from here.
from vyre.ask.reply import AskReply as AskReply
from vyre.ask.reply import AskSource as AskSource

# What a run reports, defined without pydantic for `vyre ingest`.
from vyre.reports import DeriveReport as DeriveReport
from vyre.reports import GraphHealth as GraphHealth
from vyre.reports import Ingested as Ingested
from vyre.reports import IngestReport as IngestReport

# The words memory is written in, defined without pydantic for the surfaces that start fast.
from vyre.vocabulary import ACTIONS as ACTIONS
from vyre.vocabulary import RELATION_KINDS as RELATION_KINDS
from vyre.vocabulary import CorrectionAction as CorrectionAction
from vyre.vocabulary import CorrectionKind as CorrectionKind
from vyre.vocabulary import EntityKind as EntityKind
from vyre.vocabulary import FactSource as FactSource
from vyre.vocabulary import FactStatus as FactStatus
from vyre.vocabulary import FactTarget as FactTarget
from vyre.vocabulary import Kind as Kind
from vyre.vocabulary import Relation as Relation


class Value(BaseModel):
    # Schemas are built when a model is first used, not when this module loads: a command
    # that shows facts pays for Fact, not for every model here.
    model_config = ConfigDict(frozen=True, defer_build=True)


# -- facts ---------------------------------------------------------------------------------------


class Source(Value):
    """One turn a fact was said in."""

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
    subject_kind: Kind
    rel: Relation
    object: str
    object_kind: Kind
    confidence: float
    fresh: float
    stale: bool
    seen: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    status: FactStatus = ""
    source: FactSource = "extracted"
    sessions: int = 0
    rules: tuple[str, ...] = ()
    sources: tuple[Source, ...] = ()


class Entity(Value):
    """One person, org, address, domain or repo a name points at, with its facts (`about`)."""

    name: str
    kind: Kind
    facts: tuple[Fact, ...]


class Overview(Value):
    """What one room holds, in brief: counts, the most named people and orgs, deadlines."""

    room: str
    counts: dict[str, int]  # entities by kind
    facts: int  # open facts that are not identity rows, the same ones `stale` counts
    people: tuple[Fact, ...]  # their `is` rows, most named first
    orgs: tuple[Fact, ...]
    deadlines: tuple[Fact, ...]
    conflicts: tuple[Fact, ...]
    stale: int
    mentions: dict[str, int]  # label -> sessions that name it
    titles: dict[str, str]  # person label -> title


# -- projects ------------------------------------------------------------------------------------


class Project(Value):
    """A room the user made: its folders, optional client org, and sessions picked into it."""

    slug: str
    name: str
    org: str | None = None
    folders: tuple[str, ...] = ()
    picks: tuple[str, ...] = ()


class FolderSuggestion(Value):
    """A working folder no project holds yet, how many sessions ran there, and a slug for it."""

    folder: str
    sessions: int
    slug: str


class ProjectChange(Value):
    """What a project command did: whether it made the project, the name or org it set, the
    folders it added and took out (none of them: nothing changed), and notes to print."""

    slug: str
    created: bool = False
    name: str | None = None
    org: str | None = None
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    change: int | None = None  # its row in the history, for `vyre project undo` (None: no change)

    @property
    def changed(self) -> bool:
        return bool(self.created or self.name or self.org or self.added or self.removed)


ProjectChangeKind = Literal["add", "pick", "unpick", "remove"]


class ProjectHistory(Value):
    """One change to a project, as the ledger keeps it for undo: the project before and after
    it (None: it did not exist), who made it and when, and when it was undone."""

    id: int
    slug: str
    kind: ProjectChangeKind
    caller: str
    created: datetime
    before: Project | None = None
    after: Project | None = None
    undone: datetime | None = None


# -- the user's decisions ------------------------------------------------------------------------


class Correction(Value):
    """Something the user said about memory: a ledger row, applied in derive, undoable."""

    id: int
    kind: CorrectionKind
    action: CorrectionAction | None = None  # for kind 'correct'
    scope: str = "*"  # '*' everywhere, or one room
    subject: str  # entity id
    subject_label: str
    subject_kind: Kind
    rel: Relation | None = None
    object: str | None = None  # entity id
    object_label: str | None = None
    object_kind: Kind | None = None
    value: str | None = None  # replace: the new object's label
    at: datetime | None = None
    note: str | None = None
    created: datetime
    undone: datetime | None = None
    prior_source: FactSource | None = None
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


class Edit(Value):
    """A decision recorded and derived: it has taken effect when this is returned."""

    correction: Correction
    derived: DeriveReport


class ConflictSide(Value):
    object: str
    rooms: tuple[str, ...]  # or ("your correction",)
    seen: datetime | None
    fact: str  # its id


class Conflict(Value):
    """Two answers to one question in the main graph, and the commands that settle it."""

    subject: str
    rel: Relation
    question: str
    sides: tuple[ConflictSide, ...]
    commands: tuple[str, ...]


class MergeCandidate(Value):
    """Two near-identical names that share an address or an org (a suggestion only)."""

    keep: str
    other: str
    kind: EntityKind
    similarity: float
    shared: tuple[str, ...]
    command: str


class Hub(Value):
    """An org by how many rooms and sessions name it, and whether the hub rule holds."""

    org: str
    rooms: int
    sessions: int
    share: float
    hub: bool
    why: str
