"""The one library API every surface calls: CLI, hooks, MCP, eval and tests.

`Memory` owns the two stores of one home: the ledger (opened at once) and the graph (opened
on first use, since only one process may hold it). Methods return values from `vyre.models`
or plain data; printing is the surfaces' job.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from vyre import config
from vyre.ask import fixes, readers
from vyre.ask import recall as recall_search
from vyre.ask.answer import ask as ask_memory
from vyre.ask.reply import AskReply
from vyre.ask.suggest import suggestions
from vyre.errors import OwnerOnly
from vyre.extract import RULES_VERSION, extract_draft
from vyre.graph import GraphStore, analysis, engine_name
from vyre.learn.service import Learn
from vyre.ledger import Ledger
from vyre.memory import Reader
from vyre.memory import corrections as corrections_store
from vyre.memory.editing import Editor
from vyre.models import Correction, EntityPage, Fact, Passage, Thread
from vyre.rooms import MAIN, DeriveReport, derive, room_for_cwd
from vyre.rooms import projects as project_ops
from vyre.transcripts import IngestReport, ingest, reextract


@contextmanager
def _no_cycle_collection():
    """Ingest makes millions of short-lived, acyclic objects (parsed records); the cycle
    collector would walk them again and again for nothing. Reference counting frees them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Memory:
    def __init__(self, home: Path | None = None, *, engine: str | None = None, owner: bool = False):
        """`owner`: this process alone writes the graph (the daemon), so reads skip the
        per-call digest check and the caller invalidates after each derive."""
        self.home = Path(home) if home else config.home()
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.ledger = Ledger(self.home / "vyre.db")
        self._engine = engine
        self._store: GraphStore | None = None
        self._reader: Reader | None = None
        self._owner = owner
        self._controls_key: tuple | None = None
        self._controls_rows: list[Correction] = []
        self._learn: Learn | None = None
        self.last_derive_seconds = 0.0

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
            self._reader = None
        self.ledger.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def store(self) -> GraphStore:
        if self._store is None:
            # One file per engine in the graph folder: the engines cannot read each other's
            # files, and the graph is derived, so a switch simply derives a new one.
            folder = self.home / "graph"
            folder.mkdir(mode=0o700, exist_ok=True)
            name = self._engine or engine_name()
            self._store = GraphStore(folder / f"memory.{name}", name)
        return self._store

    @property
    def reader(self) -> Reader:
        if self._reader is None:
            self._reader = Reader(self.store, self._controls, check_digests=not self._owner)
        return self._reader

    @property
    def learn(self) -> Learn:
        """The learning loop: lessons, signals, enforcement's snapshot, measurement."""
        if self._learn is None:
            self._learn = Learn(self.ledger, self.home)
        return self._learn

    @property
    def editor(self) -> Editor:
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

    # -- writes -------------------------------------------------------------------------

    def ingest(
        self, root: Path | None = None, progress=None, *, paths=None, main: bool = True
    ) -> tuple[IngestReport, DeriveReport]:
        """Read new transcript lines, then re-derive the rooms they touch."""
        self._rules_current()
        with _no_cycle_collection():
            report = ingest(
                self.ledger,
                Path(root) if root else config.projects_root(),
                extract_draft,
                progress=progress,
                paths=paths,
            )
            return report, self.derive(main=main)

    def derive(self, *, force: bool = False, main: bool = True) -> DeriveReport:
        started = time.perf_counter()
        report = derive(self.ledger, self.store, config.settings(), force=force, main=main)
        if self._reader is not None and (report.rooms or report.dropped or main):
            self._reader.invalidate()
        self.last_derive_seconds = time.perf_counter() - started
        return report

    def _rules_current(self) -> None:
        """Stored mentions were found by older rules: find them again from the turns."""
        if self.ledger.meta("rules_version") == RULES_VERSION:
            return
        reextract(self.ledger, extract_draft)
        with self.ledger.transaction() as db:
            self.ledger.set_meta(db, "rules_version", RULES_VERSION)

    # -- projects -------------------------------------------------------------------------

    def projects(self) -> list[dict]:
        return self.ledger.projects()

    def project_add(self, slug, name, folders, org=None) -> list[str]:
        notes = project_ops.add(self.ledger, slug, name, folders, org)
        self.learn.folders_changed()
        return notes

    def project_pick(self, slug: str, session: str) -> None:
        project_ops.pick(self.ledger, slug, session)

    def project_unpick(self, slug: str, session: str) -> None:
        project_ops.unpick(self.ledger, slug, session)

    def project_remove(self, slug: str) -> None:
        project_ops.remove(self.ledger, slug)
        self.learn.folders_changed()

    def project_suggest(self, limit: int = 10) -> list[tuple[str, int]]:
        return project_ops.suggest(self.ledger, limit)

    # -- reads ----------------------------------------------------------------------------

    def room_for(self, cwd: str | None, session: str | None = None) -> str:
        """The room a Claude Code session reads: its project (by cwd or pick), else unfiled."""
        projects = self.projects()
        if session:
            picked = sorted(p["slug"] for p in projects if session in p["picks"])
            home = room_for_cwd(cwd, projects)
            if picked and home not in picked:
                return picked[0]
        return room_for_cwd(cwd, projects)

    def check_room(self, room: str) -> str:
        if room in (MAIN, "unfiled") or any(p["slug"] == room for p in self.projects()):
            return room
        raise project_ops.ProjectError(f"no project {room!r} (see `vyre project list`)")

    def facts(self, room: str = MAIN, *, now: datetime | None = None, closed=False) -> list[Fact]:
        return self.reader.facts(self.check_room(room), now or config.now(), closed=closed)

    def about(self, name: str, room: str = MAIN, *, now: datetime | None = None):
        return self.reader.about(name, self.check_room(room), now or config.now())

    def why(self, name: str, rel=None, obj=None, room: str | None = None, *, now=None):
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
        digest = self.store.digests().get(self.check_room(room), "")
        return f"{digest}:{self._controls()[0]}"

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
        if everywhere:
            if caller not in corrections_store.OWNER_CALLERS:
                raise OwnerOnly(
                    f"refused: only your own surfaces search every room (caller {caller!r})"
                )
            room = MAIN
        elif project:
            room = self.check_room(project)
            if room == MAIN:
                raise OwnerOnly("refused: name a project, or ask for every room explicitly")
        else:
            room = self.room_for(cwd, session)
        scope = recall_search.scope_for(room, self.projects())
        return recall_search.search(
            self.ledger, query, scope, limit=max(1, min(int(limit), 100)), now=now or config.now()
        )

    def overview(self, room: str = MAIN, *, now: datetime | None = None) -> dict:
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
        events=None,
        now: datetime | None = None,
    ) -> AskReply:
        """The question answered from the room of `project` (or of the folder `cwd`, or of
        the session `thread`) with its sources, or "Not sure yet." with what memory knows."""
        room = self.check_room(project) if project else self.room_for(cwd, thread)
        if room == MAIN:
            room = "unfiled"
        return ask_memory(
            self,
            question,
            room=room,
            now=now or config.now(),
            id=id,
            events=events,
            reader=readers.active(),
        )

    def remember(self, text: str, *, caller: str, now: datetime | None = None) -> dict:
        """The person tells memory a fact of their life ("my wife is Juno")."""
        return fixes.remember(self.ledger, text, caller=caller, when=now or config.now())

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
        return fixes.correct(
            self.ledger, answer, action, object, caller=caller, when=now or config.now()
        )

    def uncorrect_answer(self, fix: int, *, caller: str, now: datetime | None = None) -> dict:
        return fixes.undo(self.ledger, fix, caller=caller, when=now or config.now())

    def answer_corrections(self, *, now: datetime | None = None) -> dict:
        """The person's corrections of answers, with counts by kind of question."""
        return fixes.listing(self.ledger)

    def suggest(self, prefix: str, *, cwd: str | None = None, limit: int = 8) -> list[dict]:
        """Completions for the people and things memory knows ("my wi" -> wife: Juno)."""
        room = self.room_for(cwd)
        return suggestions(self, prefix, room=("unfiled" if room == MAIN else room), limit=limit)

    # -- the user's decisions (owner callers only) -----------------------------------------

    def correct(
        self,
        target,
        action: str,
        *,
        caller: str,
        value: str | None = None,
        at: datetime | None = None,
        scope: str = MAIN,
        note: str | None = None,
        now: datetime | None = None,
    ) -> tuple[Correction, DeriveReport]:
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
        return row, self.derive()

    def uncorrect(self, cid: int, *, caller: str, now: datetime | None = None):
        row = corrections_store.undo(self.ledger, cid, caller=caller, when=now or config.now())
        return row, self.derive()

    def pin(self, target, *, caller: str, now: datetime | None = None) -> Correction:
        return self.editor.mark("pin", target, caller=caller, when=now or config.now())

    def mute(self, target, *, caller: str, now: datetime | None = None) -> Correction:
        return self.editor.mark("mute", target, caller=caller, when=now or config.now())

    def merge(self, keep: str, other: str, *, caller: str, now: datetime | None = None):
        row = self.editor.merge(keep, other, caller=caller, when=now or config.now())
        return row, self.derive()

    def split(
        self, name: str, *, room: str | None = None, caller: str, now: datetime | None = None
    ):
        room = self.check_room(room) if room else None
        row = self.editor.split(name, room, caller=caller, when=now or config.now())
        return row, self.derive()

    def corrections(self, *, undone: bool = True) -> list[Correction]:
        return corrections_store.listing(self.ledger, undone=undone)

    def conflicts(self, *, now: datetime | None = None):
        return self.editor.conflicts(now or config.now())

    def suggest_merges(self) -> list[dict]:
        return analysis.merge_candidates(self.reader.room(MAIN).rows)

    def hubs(self) -> list[dict]:
        return analysis.hub_candidates(self.store)
