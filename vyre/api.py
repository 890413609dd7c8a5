"""The one library API every surface calls: CLI, hooks, MCP, eval and tests.

`Memory` is `vyre.interface.MemoryAPI` over the two stores of one home, opened in this
process: the ledger (opened at once) and the graph (opened on first use, since only one
process may hold it). Its methods return models from `vyre.models`; printing is the
surfaces' job. `vyre.daemon.client.open_memory()` gives the same API through the home's
daemon when one runs.

Besides the API, a `Memory` exposes the service objects it is made of (`ledger`, `store`,
`reader`, `editor`) for the daemon, the eval and tests.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from vyre import config
from vyre.callers import OWNER_CALLERS, require_owner
from vyre.errors import GraphDamaged, GraphError, OwnerOnly, ProjectError, VyreError
from vyre.graph import GraphStore, RoomRows, engine_name
from vyre.interface import OWNER_ONLY, MemoryAPI
from vyre.ledger import Ledger, graph_rooms
from vyre.ledger import corrections as corrections_store
from vyre.reports import DeriveReport, GraphHealth, Ingested
from vyre.rooms import health
from vyre.rooms import projects as project_ops
from vyre.rooms.membership import room_for_cwd
from vyre.rooms.names import MAIN, UNFILED

if TYPE_CHECKING:  # asking, learning, reading and the models (pydantic) load when first used:
    # a one-off `vyre ingest` needs none of them
    from vyre.ask.reply import AskReply
    from vyre.learn.service import Learn
    from vyre.memory.editing import Editor
    from vyre.memory.read import Reader
    from vyre.models import (
        Conflict,
        Correction,
        CorrectionAction,
        Edit,
        Entity,
        EntityPage,
        Fact,
        FactTarget,
        FolderSuggestion,
        Hub,
        MergeCandidate,
        Overview,
        Passage,
        Project,
        ProjectChange,
        ProjectHistory,
        Relation,
        Thread,
    )
    from vyre.rooms.pipeline import HeldMentions, LaterFiles, Planner
    from vyre.rooms.stored_plan import StoredPlan

F = TypeVar("F", bound=Callable[..., Any])
# rows of the rooms' files the daemon keeps as it wrote them (`GraphStore(keep_written=)`,
# ~0.2 KiB a row): the busiest room of the 30,000-session home (~60,000 rows) with room to spare
KEEP_WRITTEN_ROWS = 120_000


_gc_lock = threading.Lock()
_gc_held = 0  # threads inside `no_cycle_collection` now
_gc_was_on = False  # whether the collector ran when the first of them came in


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Ingest makes millions of short-lived, acyclic objects (parsed records), and a derive's
    rows, a room's view and a file's columns hold no cycles either: the cycle collector would
    walk them again and again for nothing (reference counting frees them). In the daemon it
    costs more the bigger the home: each young container it walks touches every old object
    it refers to, and those lie all over a heap of the home's size (the main graph's derive
    at 30,000 sessions 41 -> 23 ms of CPU). Threads may be inside at once (the daemon's
    watcher and its main graph's thread): the collector is off until the last one leaves,
    then as it was when the first came in."""
    global _gc_held, _gc_was_on
    with _gc_lock:
        if _gc_held == 0:
            _gc_was_on = gc.isenabled()
            gc.disable()
        _gc_held += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_held -= 1
            if _gc_held == 0 and _gc_was_on:
                gc.enable()


def _owner_only(method: F) -> F:
    """Refuse a caller that is not the owner before the method runs (the Protocol's mark)."""

    @functools.wraps(method)
    def checked(self: Memory, *args: Any, caller: str, **kwargs: Any) -> Any:
        require_owner(caller)
        return method(self, *args, caller=caller, **kwargs)

    setattr(checked, OWNER_ONLY, True)
    return cast(F, checked)


class _GraphSource:
    """Rooms' rows for a `Reader`: from the graph files, checked against the ledger (by the
    owner when it loads its views; a room it has not published is read as it is)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def rows(self, room: str) -> RoomRows | None:
        if self.memory._owner:
            try:
                return self.memory.store.read(room)
            except GraphDamaged:
                return None
        return self.memory._room_rows(room)

    def digest(self, room: str) -> str:
        held = graph_rooms.recorded(self.memory.ledger).get(room)
        return held.digest if held else ""

    def rooms(self) -> list[str]:
        return sorted(graph_rooms.recorded(self.memory.ledger))


class Memory:
    """`MemoryAPI` over the stores of one home, opened in this process (see the module)."""

    def __init__(
        self, home: Path | None = None, *, engine: str | None = None, owner: bool = False
    ) -> None:
        """`owner`: this process alone writes the graph (the daemon), so reads skip the
        per-call digest check; each derive publishes the rooms it wrote to the reader."""
        self.home = Path(home) if home else config.home()
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.ledger = self._open_ledger()
        self._engine = engine
        self._store: GraphStore | None = None
        self._opening_repair: GraphHealth | None = None  # what opening the graph fixed
        self._reader: Reader | None = None
        self._owner = owner
        self._controls_key: tuple[int, int | None, int] | None = None
        self._controls_rows: list[Correction] = []
        self._learn: Learn | None = None
        self.last_derive_seconds = 0.0
        # the daemon derives the main graph beside its writer (`vyre.daemon.main_graph`): a
        # derive here then leaves it stale, and says so in `main_stale`
        self.main_later = False
        self.main_stale = False
        self.derives = 0  # derives run (the daemon asks whether a call derived)
        # the rooms' plan, kept from derive to derive (in the ledger for a one-off process)
        self._planner: Planner | StoredPlan | None = None
        self._wrote: set[str] = set()  # the owner's: sessions it wrote, told to the kept plan
        self._held: HeldMentions | None = None  # the owner's: recent rooms' mention rows
        # the daemon's: rooms' files written by its thread after the derive that made them
        self.later_files: LaterFiles | None = None

    def _open_ledger(self) -> Ledger:
        return Ledger(self.home / "vyre.db")

    def close(self) -> None:
        """Let go of the graph and the ledger (the owner keeps its rooms' plan first)."""
        self._keep_plan()
        if self._store is not None:
            self._store.close()
            self._store = None
            self._reader = None
        self.ledger.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _graph_folder(self) -> Path:
        # One folder per engine: the engines cannot read each other's files, and the graph is
        # derived, so a switch simply derives a new one.
        return self.home / "graph" / (self._engine or engine_name())

    @property
    def store(self) -> GraphStore:
        """The graph, opened on first use (this process then writes it alone) and checked
        against the ledger: a room whose file is not the one written is derived again before
        anything reads it."""
        if self._store is None:
            pool = config.settings().get("graph.buffer_pool_mib")
            # the owner (the daemon) writes the same rooms again and again: it keeps what it
            # wrote of them, so a new line changes a copy of its room's file by what changed
            keep = KEEP_WRITTEN_ROWS if self._owner else 0
            store = GraphStore(self._graph_folder(), self._engine, pool_mib=pool, keep_written=keep)
            self._store = store
            moved = health.old_layout(store)
            found = health.look(self.ledger, store)
            if moved or not found.ok:
                health.forget(self.ledger, store, found)
                self.derive()
                found.repaired = True
                health.log.warning("vyre: %s", moved or found.summary())
                self._opening_repair = found
        return self._store

    def graph_health(self, *, repair: bool = False) -> GraphHealth:
        """Whether every room's graph file opens and holds what the ledger recorded for it
        (`vyre doctor`); with `repair`, the rooms whose file does not are derived again."""
        if self._store is None and not repair:  # look without opening it for writing
            looking = GraphStore(self._graph_folder(), self._engine, write=False)
            return health.look(self.ledger, looking, deep=True)
        store = self.store  # opening it repairs what a look at the files' stamps finds
        found = health.look(self.ledger, store, deep=True)
        if repair and not found.ok:
            health.forget(self.ledger, store, found)
            self.derive()
            found.repaired = True
        opened, self._opening_repair = self._opening_repair, None
        if repair and opened is not None:
            found.rooms = sorted({*found.rooms, *opened.rooms})
            found.damaged = {**opened.damaged, **found.damaged}
            found.repaired = True
        return found

    def _room_rows(self, room: str) -> RoomRows | None:
        """A room's rows from its file, checked against the ledger's record as they are read
        (the file opened once): a file the engine cannot read, or that holds other rows than
        were written, is derived again."""
        store = self.store
        try:
            rows = store.read(room)
            problem = health.unlike_rows(self.ledger, rows, room)
        except GraphDamaged as exc:
            rows, problem = None, exc.line()
        if problem:
            found = GraphHealth(str(store.folder), damaged={room: problem})
            health.forget(self.ledger, store, found)
            self.derive()
            found.repaired = True
            health.log.warning("vyre: %s", found.summary())
            rows = store.read(room)
        return rows

    @property
    def reader(self) -> Reader:
        if self._reader is None:
            from vyre.memory.read import Reader

            source = _GraphSource(self)
            self._reader = Reader(
                source,
                self._controls,
                check_digests=not self._owner,
                before_main=None if self._owner else self._main_current,
            )
        return self._reader

    def _main_current(self) -> None:
        """A main graph that a one-off ingest left behind its rooms (`ingest(main=False)`) is
        derived before it is read: every read sees the rooms as they are."""
        from vyre.rooms.pipeline import main_due

        if main_due(self.ledger):
            self.derive()

    @property
    def learn(self) -> Learn:
        """The learning loop: lessons, signals, enforcement's snapshot, measurement."""
        if self._learn is None:
            from vyre.learn.service import Learn

            self._learn = Learn(self.ledger, self.home)
        return self._learn

    @property
    def editor(self) -> Editor:
        from vyre.memory.editing import Editor

        return Editor(self.ledger, self.reader)

    def _controls(self) -> tuple[str, list[Correction]]:
        """Pins and mutes for reads, with a key that changes whenever they do."""
        key = self.ledger.db.execute(
            "SELECT count(*), max(id), count(undone) FROM memory_corrections"
        ).fetchone()
        if key != self._controls_key:
            self._controls_key = key
            self._controls_rows = [
                c for c in corrections_store.active(self.ledger) if c.kind in ("pin", "mute")
            ]
        return str(key), self._controls_rows

    # -- reading transcripts and deriving -------------------------------------------------

    def ingest(
        self,
        root: Path | None = None,
        progress: Callable[[int], object] | None = None,
        *,
        paths: Sequence[Path] | None = None,
        main: bool = True,
    ) -> Ingested:
        """Read new transcript lines, then re-derive the rooms they touch. `main=False` leaves
        the main graph to the next read of it or the next derive (a one-off `vyre ingest`:
        one new session changes its rooms; the main graph puts every room together)."""
        from vyre.ask import personal
        from vyre.extract import extract_draft, warm  # the rules: only ingest and derive
        from vyre.transcripts import ingest, worker_count

        self._rules_current()
        started = time.perf_counter()
        with no_cycle_collection():
            report = ingest(
                self.ledger,
                Path(root) if root else config.projects_root(),
                extract_draft,
                progress=progress,
                paths=[Path(p) for p in paths] if paths is not None else None,
                workers=worker_count(config.settings().get("ingest.workers")),
                warm=warm,
                # the person's own facts, found once per new turn, in its batch's transaction
                each_batch=lambda db: personal.index_in(self.ledger, db),
            )
            personal.index(self.ledger)  # the turns another process stored meanwhile
            self.planner.touched(report.sessions)
            if self._owner:
                self._wrote.update(report.sessions)
            read = time.perf_counter() - started
            derived = self.derive(main=main)
            derived.seconds = {"read": round(read, 4), **derived.seconds}
            return Ingested(report=report, derived=derived)

    def derive(self, *, force: bool = False, main: bool = True) -> DeriveReport:
        """Derive the rooms whose inputs changed (every room with `force`)."""
        from vyre.rooms.pipeline import derive

        started = time.perf_counter()
        # a reader's views are replaced as each room is written, never read back from files
        written = self._reader.publish if self._reader is not None else None
        main = main and not self.main_later
        with no_cycle_collection():  # a derive's rows hold no cycles either
            report = derive(
                self.ledger,
                self.store,
                config.settings(),
                force=force,
                main=main,
                written=written,
                planner=self.planner,
                mentions=self.held_mentions,
                later=self.later_files,
            )
        self.main_stale = report.main_stale
        self.derives += 1
        self.last_derive_seconds = time.perf_counter() - started
        return report

    @property
    def planner(self) -> Planner | StoredPlan:
        """Which rooms are stale, kept up to date from what changed (`vyre.rooms.pipeline`):
        in memory for the owner (the daemon), in the ledger for any other process, which
        plans once or a few times (`vyre.rooms.stored_plan`)."""
        if self._planner is None:
            from vyre.rooms.pipeline import Planner
            from vyre.rooms.stored_plan import StoredPlan

            self._planner = Planner() if self._owner else StoredPlan()
        return self._planner

    def _keep_plan(self) -> None:
        """The owner's plan, kept in the ledger for the next process without the daemon
        (`vyre.rooms.stored_plan`), which would otherwise plan from nothing. A failure is no
        loss: that process then does."""
        if self._planner is None or not self._owner:
            return
        from vyre.rooms import stored_plan
        from vyre.rooms.pipeline import Planner

        if isinstance(self._planner, Planner) and self._planner.key()[0]:
            with contextlib.suppress(sqlite3.Error, VyreError):
                stored_plan.keep(self.ledger, self._planner, config.settings(), self._wrote)

    @property
    def held_mentions(self) -> HeldMentions | None:
        """The mentions of the rooms derived last, for the owner (a daemon derives the same
        room again and again); None elsewhere (a one-off derive reads each room once)."""
        if self._held is None and self._owner:
            from vyre.rooms.pipeline import HeldMentions

            self._held = HeldMentions()
        return self._held

    def _rules_current(self) -> None:
        """Stored mentions were found by older rules: find them again from the turns."""
        from vyre.extract import RULES_VERSION, extract_draft
        from vyre.transcripts import reextract

        if self.ledger.meta("rules_version") == RULES_VERSION:
            return
        reextract(self.ledger, extract_draft)
        with self.ledger.transaction() as db:
            self.ledger.set_meta(db, "rules_version", RULES_VERSION)

    # -- projects -------------------------------------------------------------------------

    def projects(self) -> list[Project]:
        """Every project, by slug."""
        from vyre.models import Project

        return [Project.model_validate(p) for p in self.ledger.projects()]

    @_owner_only
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
        name or org (what is not given stays). A folder another project holds is refused."""
        change = project_ops.add(
            self.ledger,
            slug,
            name,
            folders,
            org,
            remove_folders,
            caller=caller,
            when=now or config.now(),
        )
        if change.added or change.removed:
            self.learn.folders_changed()
        return change

    @_owner_only
    def project_pick(
        self, slug: str, session: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """File a session from elsewhere in this project's room too."""
        change = project_ops.pick(
            self.ledger, slug, session, caller=caller, when=now or config.now()
        )
        from vyre.models import ProjectChange

        return ProjectChange(slug=slug, change=change)

    @_owner_only
    def project_unpick(
        self, slug: str, session: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """Take a picked session out of this project's room again."""
        change = project_ops.unpick(
            self.ledger, slug, session, caller=caller, when=now or config.now()
        )
        from vyre.models import ProjectChange

        return ProjectChange(slug=slug, change=change)

    @_owner_only
    def project_remove(
        self, slug: str, *, caller: str, now: datetime | None = None
    ) -> ProjectChange:
        """Delete a project: its sessions go back to the rooms their folders are in."""
        change = project_ops.remove(self.ledger, slug, caller=caller, when=now or config.now())
        self.learn.folders_changed()
        from vyre.models import ProjectChange

        return ProjectChange(slug=slug, change=change)

    @_owner_only
    def project_undo(
        self, change: int | None = None, *, caller: str, now: datetime | None = None
    ) -> ProjectHistory:
        """Put a project back as it was before one change (default: the newest not undone),
        a removed project with its folders and picks."""
        done = project_ops.undo(self.ledger, change, caller=caller, when=now or config.now())
        before, after = done.before, done.after
        if (before.folders if before else ()) != (after.folders if after else ()):
            self.learn.folders_changed()
        return done

    def project_history(self, slug: str | None = None) -> list[ProjectHistory]:
        """Every project change kept for undo, oldest first (only `slug`'s when given)."""
        return project_ops.history(self.ledger, slug)

    def project_suggest(self, limit: int = 10) -> list[FolderSuggestion]:
        """The working folders with the most sessions that no project holds yet."""
        from vyre.models import FolderSuggestion

        return [
            FolderSuggestion(folder=folder, sessions=n, slug=project_ops.slug_for(folder))
            for folder, n in project_ops.suggest(self.ledger, limit)
        ]

    # -- reading memory -------------------------------------------------------------------

    def room_for(self, cwd: str | None, session: str | None = None) -> str:
        """The room a Claude Code session reads: its project (by cwd or pick), else unfiled."""
        return self._room_of(cwd, session, self.ledger.projects())

    @staticmethod
    def _room_of(cwd: str | None, session: str | None, projects: list[dict]) -> str:
        if session:
            picked = sorted(p["slug"] for p in projects if session in p["picks"])
            home = room_for_cwd(cwd, projects)
            if picked and home not in picked:
                return picked[0]
        return room_for_cwd(cwd, projects)

    def check_room(self, room: str) -> str:
        """`room` itself when it exists; else ProjectError."""
        if room in (MAIN, UNFILED) or any(p["slug"] == room for p in self.ledger.projects()):
            return room
        raise ProjectError(f"no project {room!r} (see `vyre project list`)")

    def facts(
        self, room: str = MAIN, *, now: datetime | None = None, closed: bool = False
    ) -> list[Fact]:
        """Every open fact in one room (ended ones too with `closed`), by subject."""
        return self.reader.facts(self.check_room(room), now or config.now(), closed=closed)

    def about(self, name: str, room: str = MAIN, *, now: datetime | None = None) -> list[Entity]:
        """Each entity `name` points at in the room, with its facts."""
        return self.reader.about(name, self.check_room(room), now or config.now())

    def why(
        self,
        name: str,
        rel: Relation | None = None,
        obj: str | None = None,
        room: str | None = None,
        *,
        now: datetime | None = None,
    ) -> list[Fact]:
        """Facts about `name` with every source, in one room or in all of them."""
        rooms = [self.check_room(room)] if room else self.reader.rooms()
        return self.reader.why(name, rel, obj, rooms, now or config.now())

    def relevant(
        self,
        prompt: str,
        cwd: str | None,
        *,
        session: str | None = None,
        limit: int = 5,
        now: datetime | None = None,
    ) -> list[Fact]:
        """What the prompt hook adds to `prompt` in `cwd`: facts from that room only."""
        room = self.room_for(cwd, session)
        return self.reader.relevant(prompt, room, now or config.now(), limit=limit)

    def entities(
        self, room: str = MAIN, *, offset: int = 0, limit: int = 40, now: datetime | None = None
    ) -> EntityPage:
        """One page of a room's entities with their open facts, and its open deadlines."""
        return self.reader.entities(
            self.check_room(room), now or config.now(), offset=offset, limit=limit
        )

    def learned(
        self, since: datetime, room: str = MAIN, *, now: datetime | None = None
    ) -> list[Fact]:
        """Open facts first said since then, newest first."""
        return self.reader.learned(self.check_room(room), since, now or config.now())

    def session_names(self, sessions: list[str]) -> dict[str, str]:
        """What to call each session: its title (Claude Code's summary), else its first words."""
        return self.ledger.session_names(sessions)

    def thread(self, session: str, seq: int = 0, window: int = 25) -> Thread:
        """A session's turns around `seq`, each with who wrote it (the Deck's turn view)."""
        return self.ledger.thread(session, seq, window)

    def version(self, room: str = MAIN) -> str:
        """Changes whenever what a room shows changes (its rows, or a pin or mute)."""
        held = graph_rooms.recorded(self.ledger).get(self.check_room(room))
        return f"{held.digest if held else ''}:{self._controls()[0]}"

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
        from vyre.ask import recall as recall_search  # not loaded for commands that never ask

        view = recall_search.view(self.ledger)  # one look at the ledger for the whole call
        if everywhere:
            if caller not in OWNER_CALLERS:
                raise OwnerOnly(
                    f"refused: only your own surfaces search every room (caller {caller!r})"
                )
            room = MAIN
        elif project:
            if project == MAIN:
                raise OwnerOnly("refused: name a project, or ask for every room explicitly")
            if project != UNFILED and not any(p["slug"] == project for p in view.project_list):
                raise ProjectError(f"no project {project!r} (see `vyre project list`)")
            room = project
        else:
            room = self._room_of(cwd, session, view.project_list)
        return recall_search.search(
            self.ledger,
            query,
            recall_search.scope_in(view, room),
            limit=max(1, min(int(limit), 100)),
            now=now or config.now(),
            known=view,
        )

    def overview(self, room: str = MAIN, *, now: datetime | None = None) -> Overview:
        """One room in brief: counts, most named people and orgs, deadlines, conflicts."""
        return self.reader.overview(self.check_room(room), now or config.now())

    # -- asking memory (vyre/ask) -----------------------------------------------------------

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
        the session `thread`) with its sources, or "Not sure yet." with what memory knows."""
        room = self.check_room(project) if project else self.room_for(cwd, thread)
        if room == MAIN:
            room = UNFILED
        from vyre.ask import readers
        from vyre.ask.answer import ask as ask_memory

        return ask_memory(
            self,
            question,
            room=room,
            now=now or config.now(),
            id=id,
            events=events,
            reader=readers.active(),
        )

    @_owner_only
    def remember(self, text: str, *, caller: str, now: datetime | None = None) -> dict:
        """The person tells memory a fact of their life ("my wife is Juno")."""
        from vyre.ask import fixes

        return fixes.remember(self.ledger, text, caller=caller, when=now or config.now())

    @_owner_only
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
        from vyre.ask import fixes

        return fixes.correct(
            self.ledger, answer, action, object, caller=caller, when=now or config.now()
        )

    @_owner_only
    def uncorrect_answer(self, fix: int, *, caller: str, now: datetime | None = None) -> dict:
        """Undo a correction of an answer by its number."""
        from vyre.ask import fixes

        return fixes.undo(self.ledger, fix, caller=caller, when=now or config.now())

    def answer_corrections(self, *, now: datetime | None = None) -> dict:
        """The person's corrections of answers, with counts by kind of question."""
        from vyre.ask import fixes

        return fixes.listing(self.ledger)

    def suggest(self, prefix: str, *, cwd: str | None = None, limit: int = 8) -> list[dict]:
        """Completions for the people and things memory knows ("my wi" -> wife: Juno)."""
        room = self.room_for(cwd)
        from vyre.ask.suggest import suggestions

        return suggestions(self, prefix, room=(UNFILED if room == MAIN else room), limit=limit)

    # -- the user's decisions (owner callers only) -----------------------------------------

    @_owner_only
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
        """Record a correction and derive, so it has taken effect when this returns."""
        scope = self.check_room(scope)
        row = self.editor.correct(
            target,
            action,
            scope=scope,
            caller=caller,
            value=value,
            at=at,
            note=note,
            when=now or config.now(),
        )
        from vyre.models import Edit

        return Edit(correction=row, derived=self.derive())

    @_owner_only
    def uncorrect(self, cid: int, *, caller: str, now: datetime | None = None) -> Edit:
        """Undo any decision (correction, pin, mute, merge, split) by its id."""
        row = corrections_store.undo(self.ledger, cid, caller=caller, when=now or config.now())
        from vyre.models import Edit

        return Edit(correction=row, derived=self.derive())

    @_owner_only
    def pin(self, target: FactTarget, *, caller: str, now: datetime | None = None) -> Correction:
        """Pin a fact: enrichment never drops it when its subject comes up."""
        return self.editor.mark("pin", target, caller=caller, when=now or config.now())

    @_owner_only
    def mute(self, target: FactTarget, *, caller: str, now: datetime | None = None) -> Correction:
        """Mute an entity (by name) or one fact: it never reaches a prompt."""
        return self.editor.mark("mute", target, caller=caller, when=now or config.now())

    @_owner_only
    def merge(self, keep: str, other: str, *, caller: str, now: datetime | None = None) -> Edit:
        """Two names are one identity."""
        row = self.editor.merge(keep, other, caller=caller, when=now or config.now())
        from vyre.models import Edit

        return Edit(correction=row, derived=self.derive())

    @_owner_only
    def split(
        self, name: str, *, room: str | None = None, caller: str, now: datetime | None = None
    ) -> Edit:
        """One name is more than one identity: one per room (or just `room`'s, apart)."""
        room = self.check_room(room) if room else None
        row = self.editor.split(name, room, caller=caller, when=now or config.now())
        from vyre.models import Edit

        return Edit(correction=row, derived=self.derive())

    def corrections(self, *, undone: bool = True) -> list[Correction]:
        """Every decision the user made, oldest first."""
        return corrections_store.listing(self.ledger, undone=undone)

    def conflicts(self, *, now: datetime | None = None) -> list[Conflict]:
        """Where rooms (or newer sessions and a correction) disagree, and how to settle it."""
        return self.editor.conflicts(now or config.now())

    def suggest_merges(self) -> list[MergeCandidate]:
        """Near-identical names that share an address or an org (suggestions only)."""
        from vyre.graph import analysis  # networkx: only for these two

        return analysis.merge_candidates(self.reader.room(MAIN).rows)

    def hubs(self) -> list[Hub]:
        """Orgs by how many rooms and sessions name them, and whether the hub rule holds."""
        from vyre.graph import analysis
        from vyre.rooms.main_graph import hub_figures

        return analysis.hub_candidates(hub_figures(self.store.main_inputs()))


def load_views(memory: Memory) -> None:
    """Read every room the memory's reader does not hold yet, checked against the ledger (the
    daemon, at start: from then on each derive publishes the rooms it writes)."""
    reader = memory.reader
    for room, held in sorted(graph_rooms.recorded(memory.ledger).items()):
        if not reader.holds(room, held.digest):
            rows = memory._room_rows(room)
            if rows is not None:
                reader.publish(rows)


def reading(owner: Memory, before_main: Callable[[], None] | None = None) -> Memory:
    """`owner` for readers in other threads (the daemon's socket): the same views, a ledger
    connection of its own that only reads, and no graph writes. A read then never waits for
    a derive, and never sees one half done. One thread at a time per reading memory.
    `before_main` is called before each read of the main graph (the daemon waits there for
    a main graph a reply promised)."""
    return _ReadOnlyMemory(owner, before_main)


class _ReadOnlyMemory(Memory):
    """`reading(owner)`: reads only, beside the owner that writes."""

    def __init__(self, owner: Memory, before_main: Callable[[], None] | None = None) -> None:
        super().__init__(owner.home, engine=owner._engine, owner=True)
        self._reader = owner.reader.sharing(self._controls, before_main)

    def _open_ledger(self) -> Ledger:
        return Ledger.read_only(self.home / "vyre.db")

    @property
    def store(self) -> GraphStore:
        raise GraphError("this memory only reads: the graph is written by its owner")


if TYPE_CHECKING:

    def _satisfies(memory: Memory) -> MemoryAPI:  # mypy checks Memory against the Protocol
        return memory
