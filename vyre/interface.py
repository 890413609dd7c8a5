"""`MemoryAPI`: the one typed API over a home's memory, as a Protocol.

Two classes satisfy it: `vyre.api.Memory` (the stores opened in this process) and
`vyre.daemon.client.RemoteMemory` (the same calls answered by the home's daemon). Every
surface (CLI, hooks, MCP, Deck, eval) is written against this Protocol, so it behaves the
same whichever way memory was reached.

What must stay true:
- The daemon serves every method defined here except `close`, and nothing else: its
  operations come from `operations()`, and `RemoteMemory`'s methods are made from these
  signatures. Adding a method here and to `Memory` is all it takes to serve it.
- A method marked `@owner_only` changes what memory believes (or which room a session's
  facts reach). It takes a keyword `caller`, and `Memory` refuses any caller that is not the
  owner (`vyre.callers`). Any method with a `caller` parameter (owner-only, or one that reads
  more for the owner, like `recall(everywhere=True)`) has it filled by the daemon from the
  connection's caller, never from the arguments.
- A method marked `@read_only` changes nothing, in the ledger or the graph: it answers from
  the rooms as last derived and the ledger as last committed. The daemon serves it beside
  its writer (`vyre.api.reading`), so it never waits for an ingest or a derive.
- Every value returned is a model from `vyre.models` (or a list of them), a str, or None.
- Standard library only at run time (the models are imported for type checkers only), so
  the CLI reads this without loading pydantic.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple, Protocol, TypeVar

from vyre.rooms.names import MAIN

if TYPE_CHECKING:
    from vyre.models import (
        AskReply,
        Conflict,
        Correction,
        CorrectionAction,
        DeriveReport,
        Edit,
        Entity,
        EntityPage,
        Fact,
        FactTarget,
        FolderSuggestion,
        GraphHealth,
        Hub,
        Ingested,
        MergeCandidate,
        Overview,
        Passage,
        Project,
        ProjectChange,
        ProjectHistory,
        Relation,
        Thread,
    )

F = TypeVar("F", bound=Callable[..., object])
OWNER_ONLY: Final = "__vyre_owner_only__"
READ_ONLY: Final = "__vyre_read_only__"
LOCAL_ONLY: Final = frozenset({"close"})  # about this process's handle, not about memory


def owner_only(method: F) -> F:
    """Mark an API method as one only the owner may call (see the module docstring)."""
    setattr(method, OWNER_ONLY, True)
    return method


def read_only(method: F) -> F:
    """Mark an API method as one that changes nothing (see the module docstring)."""
    setattr(method, READ_ONLY, True)
    return method


class Operation(NamedTuple):
    owner_only: bool  # marked @owner_only: refused for anyone but the owner
    takes_caller: bool  # has a `caller` parameter: the daemon fills it from the connection
    read_only: bool  # marked @read_only: served beside the writer, never waiting for it


def operations() -> dict[str, Operation]:
    """Every method the daemon serves, read from `MemoryAPI` itself."""
    return {
        name: Operation(
            bool(getattr(fn, OWNER_ONLY, False)),
            "caller" in inspect.signature(fn).parameters,
            bool(getattr(fn, READ_ONLY, False)),
        )
        for name, fn in vars(MemoryAPI).items()
        if callable(fn) and not name.startswith("_") and name not in LOCAL_ONLY
    }


class MemoryAPI(Protocol):
    """What every memory offers. Times are naive UTC; `now` defaults to `config.now()`."""

    # -- reading transcripts and deriving -------------------------------------------------

    def ingest(
        self,
        root: Path | None = None,
        progress: Callable[[int], object] | None = None,
        *,
        paths: Sequence[Path] | None = None,
        main: bool = True,
    ) -> Ingested:
        """Read new transcript lines under `root` (default Claude Code's projects folder),
        then derive the rooms they touch (and the main graph unless `main` is False).
        `progress(n)` is told of each n files read (in this process only)."""
        ...

    def derive(self, *, force: bool = False, main: bool = True) -> DeriveReport:
        """Derive the rooms whose sessions, projects, settings or corrections changed
        (every room with `force`)."""
        ...

    def graph_health(self, *, repair: bool = False) -> GraphHealth:
        """Whether every room's graph file opens and holds what the ledger recorded for it
        (`vyre doctor`); with `repair`, the rooms whose file does not are derived again."""
        ...

    # -- projects -------------------------------------------------------------------------

    @read_only
    def projects(self) -> list[Project]:
        """Every project, by slug."""
        ...

    @owner_only
    def project_add(
        self,
        slug: str,
        name: str | None = None,
        folders: Sequence[str] = (),
        org: str | None = None,
        remove_folders: Sequence[str] = (),
        *,
        caller: str,
        now: datetime | None = None,
    ) -> ProjectChange:
        """Create a project, or change one: add folders, take out `remove_folders`, set a
        name or org (what is not given stays). A folder another project holds is refused.
        Undone by `project_undo(change.change)`."""
        ...

    @owner_only
    def project_pick(
        self, slug: str, session: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """File a session from elsewhere in this project's room too."""
        ...

    @owner_only
    def project_unpick(
        self, slug: str, session: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """Take a picked session out of this project's room again."""
        ...

    @owner_only
    def project_remove(
        self, slug: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """Delete a project: its sessions go back to the rooms their folders are in."""
        ...

    @owner_only
    def project_undo(
        self, change: int | None = None, *, caller: str, now: datetime | None = None
    ) -> ProjectHistory:
        """Put a project back as it was before one change (default: the newest not undone),
        a removed project with its folders and picks. Refused when the project changed since
        (undo the newer change first) or a folder it had is in another project now."""
        ...

    @read_only
    def project_history(self, slug: str | None = None) -> list[ProjectHistory]:
        """Every project change kept for undo, oldest first (only `slug`'s when given)."""
        ...

    @read_only
    def project_suggest(self, limit: int = 10) -> list[FolderSuggestion]:
        """The working folders with the most sessions that no project holds yet."""
        ...

    # -- reading memory -------------------------------------------------------------------

    @read_only
    def room_for(self, cwd: str | None, session: str | None = None) -> str:
        """The room a Claude Code session in `cwd` reads: its project (by folder, or a pick
        of `session`), else `unfiled`. Never the main graph."""
        ...

    @read_only
    def check_room(self, room: str) -> str:
        """`room` itself when it exists (a project slug, `unfiled` or `*`); else
        ProjectError."""
        ...

    @read_only
    def facts(
        self, room: str = MAIN, *, now: datetime | None = None, closed: bool = False
    ) -> list[Fact]:
        """Every open fact in one room (ended ones too with `closed`), by subject."""
        ...

    @read_only
    def about(self, name: str, room: str = MAIN, *, now: datetime | None = None) -> list[Entity]:
        """Each entity `name` points at in the room (a full name, or a short form only one
        entity there has), with its facts."""
        ...

    @read_only
    def why(
        self,
        name: str,
        rel: Relation | None = None,
        obj: str | None = None,
        room: str | None = None,
        *,
        now: datetime | None = None,
    ) -> list[Fact]:
        """Facts about `name` (narrowed to a relation and object) with every source, in one
        room or in all of them."""
        ...

    @read_only
    def relevant(
        self,
        prompt: str,
        cwd: str | None,
        *,
        session: str | None = None,
        limit: int = 5,
        now: datetime | None = None,
    ) -> list[Fact]:
        """What the prompt hook adds to `prompt` in `cwd`: facts from that room only, best
        first."""
        ...

    @read_only
    def entities(
        self, room: str = MAIN, *, offset: int = 0, limit: int = 40, now: datetime | None = None
    ) -> EntityPage:
        """One page of a room's entities with their open facts, and its open deadlines."""
        ...

    @read_only
    def learned(
        self, since: datetime, room: str = MAIN, *, now: datetime | None = None
    ) -> list[Fact]:
        """Open facts first said since then, newest first."""
        ...

    @read_only
    def session_names(self, sessions: list[str]) -> dict[str, str]:
        """What to call each session: its title (Claude Code's summary), else its first words."""
        ...

    @read_only
    def thread(self, session: str, seq: int = 0, window: int = 25) -> Thread:
        """A session's turns around `seq`, each with who wrote it (the Deck's turn view)."""
        ...

    @read_only
    def version(self, room: str = MAIN) -> str:
        """Changes whenever what a room shows changes (its rows, or a pin or mute)."""
        ...

    def recall(
        self,
        query: str,
        *,
        cwd: str | None = None,
        project: str | None = None,
        session: str | None = None,
        everywhere: bool = False,
        limit: int = 10,
        caller: str = "local",
        now: datetime | None = None,
    ) -> list[Passage]:
        """The turns that best answer `query`, best first, from one room: `project`'s, or the
        room of `cwd` (and `session`, for its picks). `everywhere` reads every room, for the
        owner's own surfaces only: never a hook's, a model's or an agent's caller."""
        ...

    @read_only
    def overview(self, room: str = MAIN, *, now: datetime | None = None) -> Overview:
        """One room in brief: counts, most named people and orgs, deadlines, conflicts."""
        ...

    # -- asking memory ------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        cwd: str | None = None,
        project: str | None = None,
        thread: str | None = None,
        id: str | None = None,
        events: Callable[[dict], None] | None = None,
        now: datetime | None = None,
    ) -> AskReply:
        """The question answered from the room of `project` (or of the folder `cwd`, or of
        the session `thread`) with its sources, or "Not sure yet." with what memory knows.
        `events(event)` hears each stage (in this process only)."""
        ...

    @owner_only
    def remember(self, text: str, *, caller: str, now: datetime | None = None) -> dict:
        """The person tells memory a fact of their life ("my wife is Juno")."""
        ...

    @owner_only
    def correct_answer(
        self,
        answer: str,
        action: str,
        *,
        caller: str,
        object: str | None = None,
        now: datetime | None = None,
    ) -> dict:
        """Correct an answer where it appears: replace (with `object`), wrong, or forget."""
        ...

    @owner_only
    def uncorrect_answer(self, fix: int, *, caller: str, now: datetime | None = None) -> dict:
        """Undo a correction of an answer by its number."""
        ...

    @read_only
    def answer_corrections(self, *, now: datetime | None = None) -> dict:
        """The person's corrections of answers, with counts by kind of question."""
        ...

    @read_only
    def suggest(self, prefix: str, *, cwd: str | None = None, limit: int = 8) -> list[dict]:
        """Completions for the people and things memory knows ("my wi" -> wife: Juno)."""
        ...

    # -- the user's decisions -------------------------------------------------------------

    @owner_only
    def correct(
        self,
        target: FactTarget,
        action: CorrectionAction,
        *,
        caller: str,
        value: str | None = None,
        at: datetime | None = None,
        scope: str = MAIN,
        note: str | None = None,
        now: datetime | None = None,
    ) -> Edit:
        """Record a correction of a fact (by id, or as subject, relation, object) and
        derive, so it has taken effect when this returns."""
        ...

    @owner_only
    def uncorrect(self, cid: int, *, caller: str, now: datetime | None = None) -> Edit:
        """Undo any decision (correction, pin, mute, merge, split) by its id."""
        ...

    @owner_only
    def pin(self, target: FactTarget, *, caller: str, now: datetime | None = None) -> Correction:
        """Pin a fact: enrichment never drops it when its subject comes up."""
        ...

    @owner_only
    def mute(self, target: FactTarget, *, caller: str, now: datetime | None = None) -> Correction:
        """Mute an entity (by name) or one fact: it never reaches a prompt."""
        ...

    @owner_only
    def merge(self, keep: str, other: str, *, caller: str, now: datetime | None = None) -> Edit:
        """Two names are one identity."""
        ...

    @owner_only
    def split(
        self, name: str, *, room: str | None = None, caller: str, now: datetime | None = None
    ) -> Edit:
        """One name is more than one identity: one per room (or just `room`'s, apart)."""
        ...

    @read_only
    def corrections(self, *, undone: bool = True) -> list[Correction]:
        """Every decision the user made, oldest first (without undone ones if not `undone`)."""
        ...

    @read_only
    def conflicts(self, *, now: datetime | None = None) -> list[Conflict]:
        """Where rooms (or newer sessions and a correction) disagree, and how to settle it."""
        ...

    @read_only
    def suggest_merges(self) -> list[MergeCandidate]:
        """Near-identical names that share an address or an org (suggestions only)."""
        ...

    def hubs(self) -> list[Hub]:
        """Orgs by how many rooms and sessions name them, and whether the hub rule holds."""
        ...

    # -- this handle ----------------------------------------------------------------------

    def close(self) -> None:
        """Let go of the stores (for a daemon's memory: nothing to let go of)."""
        ...

    def __enter__(self) -> MemoryAPI: ...

    def __exit__(self, *exc: object) -> None: ...
