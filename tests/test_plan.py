"""The kept plans: after any changes, what a `Planner` kept from derive to derive (the
daemon's) and the plan kept in the ledger (`StoredPlan`, a one-off process's) say equals
`plan()` from nothing, whether they were told which sessions an ingest wrote or not, and
after a process killed between the ledger's writes; and the mentions held for the rooms
derived last are the ledger's."""

from __future__ import annotations

import contextlib
import json
import os
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.transcript import Transcript
from vyre import config
from vyre.api import Memory
from vyre.errors import CorrectionError
from vyre.ledger import corrections
from vyre.rooms import stored_plan
from vyre.rooms.pipeline import SESSIONS_KEY, HeldMentions, Planner, plan
from vyre.rooms.stored_plan import StoredPlan

NOW = datetime(2026, 9, 3, tzinfo=UTC)
CWDS = ["/w/a", "/w/a/sub", "/w/b", "/w/b/x", "/home/sam", None]  # None: no cwd said yet


def _same(got: tuple, want: tuple) -> None:
    """Two plans are the same: digests, bases and memberships equal, each room's sessions the
    same sessions (their order is no part of a plan)."""
    digests, by_room, membership, bases = got
    assert digests == want[0]
    assert bases == want[3]
    assert membership == want[2]
    assert {r: sorted(s["id"] for s in ss) for r, ss in by_room.items()} == {
        r: sorted(s["id"] for s in ss) for r, ss in want[1].items()
    }
    assert {s["id"]: s for ss in by_room.values() for s in ss} == {
        s["id"]: s for ss in want[1].values() for s in ss
    }


class _Home:
    """Sessions written as Claude Code writes them and read by the real ingest."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
        self.root.mkdir(parents=True)
        self.memory = Memory()
        self.files: dict[str, Path] = {}  # session -> its file
        self.n = 0

    def write(self, path: Path, cwd: str | None, session: str, text: str) -> None:
        self.n += 1
        record: dict = {
            "type": "user",
            "uuid": f"u{self.n}",
            "sessionId": session,
            "timestamp": f"2026-09-{1 + self.n % 28:02d}T10:00:00.000Z",
            "message": {"role": "user", "content": text},
        }
        if cwd:
            record["cwd"] = cwd
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(record) + "\n")
        self.files[session] = path

    def new_session(self) -> None:
        cwd = self.rng.choice(CWDS)
        sid = f"s{self.n}"
        self.write(self.root / "-w" / f"{sid}.jsonl", cwd, sid, f"Dana Reyes {self.n} called.")

    def append(self) -> None:
        if self.files:
            sid = self.rng.choice(sorted(self.files))
            cwd = self.rng.choice(CWDS)  # a cwd said later only fills one not said yet
            self.write(self.files[sid], cwd, sid, f"Omar Haddad {self.n} replied.")

    def subagent(self) -> None:
        parent = self.rng.choice([*sorted(self.files), "later-parent"])
        sid = f"agent-{self.n}"
        path = self.root / "-w" / parent / "subagents" / f"{sid}.jsonl"
        self.write(path, self.rng.choice(CWDS), sid, "Subagent work.")
        if parent == "later-parent" and self.rng.random() < 0.5:  # its parent comes later
            self.write(self.root / "-w" / "later-parent.jsonl", "/w/b", parent, "The parent.")

    def project(self) -> None:
        m, rng = self.memory, self.rng
        slugs = [p.slug for p in m.projects()]
        choice = rng.random()
        if choice < 0.4 or not slugs:
            folder = rng.choice(["/w/a", "/w/a/sub", "/w/b", "/home/sam"])
            taken = {f for p in m.projects() for f in p.folders}
            if folder not in taken:
                m.project_add(f"p{self.n}", folders=[folder], caller="local")
                self.n += 1
        elif choice < 0.7 and self.files:
            m.project_pick(rng.choice(slugs), rng.choice(sorted(self.files)), caller="local")
        elif choice < 0.85:
            slug = rng.choice(slugs)
            project = next(p for p in m.projects() if p.slug == slug)
            if project.picks:
                m.project_unpick(project.slug, project.picks[0], caller="local")
        else:
            m.project_remove(rng.choice(slugs), caller="local")

    def delete(self) -> None:
        """A session deleted by hand (as some tests do; nothing in Vyre deletes one)."""
        if self.files:
            sid = self.rng.choice(sorted(self.files))
            self.files.pop(sid).unlink()
            db = self.memory.ledger.db
            for table, column in (("turns", "session"), ("mentions", "session")):
                db.execute(f"DELETE FROM {table} WHERE {column} = ?", (sid,))
            db.execute("DELETE FROM files WHERE session = ?", (sid,))
            db.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    def ingest(self) -> set[str]:
        """The real read of what was written, without the derive `Memory.ingest` runs after
        it: a plan reads the ledger's sessions, projects, settings and corrections, never
        the graph, and those derives were half this module's CPU."""
        from vyre.extract import extract_draft
        from vyre.transcripts import ingest

        return ingest(self.memory.ledger, self.root, extract_draft).sessions


def _applied_one_by_one(ledger, settings: dict) -> tuple:
    """A plan from nothing made by the per-change path (`_apply`, session by session), not
    the one pass a fresh planner takes (`_load`)."""
    planner = Planner()
    planner._load = planner._apply  # type: ignore[method-assign]
    return planner.plan(ledger, settings)


class Killed(BaseException):
    """The process killed at this point."""


def _stored(rng: random.Random, monkeypatch, ledger, settings: dict, written: set[str]) -> tuple:
    """The plan of a fresh process (`StoredPlan`) told of what the ingest wrote, except when
    the process that wrote them was killed before it planned; sometimes killed itself while
    it writes the plan it kept (after its writes, before they commit)."""
    planner = StoredPlan()
    if rng.random() < 0.85:
        planner.touched(written)
    if rng.random() < 0.2:
        with monkeypatch.context() as m:
            for name in ("_from_nothing", "keep"):
                owner = stored_plan if name == "_from_nothing" else stored_plan._Changes
                real = getattr(owner, name)

                def killed(*args, _real=real, **kwargs):
                    _real(*args, **kwargs)
                    raise Killed

                m.setattr(owner, name, killed)
            with contextlib.suppress(Killed):
                planner.plan(ledger, settings)
        planner = StoredPlan()  # the next process: told of nothing
    return planner.plan(ledger, settings)


@pytest.mark.parametrize("seed", range(5))
def test_a_kept_plan_equals_a_plan_from_nothing(seed, monkeypatch):
    rng = random.Random(seed)
    home = _Home(rng)
    told, untold = Planner(), Planner()
    settings: dict = {}
    for _ in range(45):
        for _ in range(rng.randint(1, 3)):
            rng.choice([home.new_session, home.append, home.append, home.subagent])()
        written = home.ingest()
        if rng.random() < 0.25:
            home.project()
        if rng.random() < 0.1:
            settings = {"relations.deadline": rng.random() < 0.5}
        if rng.random() < 0.05:
            home.delete()
        if rng.random() < 0.1:  # a decision: every room's digest reads the corrections
            home.memory.derive(main=False)  # the names it finds are the graph's
            with contextlib.suppress(CorrectionError):  # both named yet?
                home.memory.merge("Dana Reyes", "Omar Haddad", caller="local")
        told.touched(written)
        want = plan(home.memory.ledger, settings)
        _same(told.plan(home.memory.ledger, settings), want)
        _same(untold.plan(home.memory.ledger, settings), want)
        _same(_applied_one_by_one(home.memory.ledger, settings), want)
        _same(_stored(rng, monkeypatch, home.memory.ledger, settings, written), want)
    assert len(want[2]) > 20  # the plans compared had sessions in them


def _spy_on(ledger, monkeypatch) -> list[str]:
    """The SQL the ledger is asked from here on (until `monkeypatch.undo()`), in order."""
    seen: list[str] = []
    db = ledger.db

    class Spy:
        in_transaction = False

        def execute(self, sql: str, *args):
            seen.append(sql)
            return db.execute(sql, *args)

        def executemany(self, sql: str, *args):
            seen.append(sql)
            return db.executemany(sql, *args)

    monkeypatch.setattr(ledger, "db", Spy())
    return seen


def test_a_kept_plan_reads_only_the_sessions_it_was_told_of(monkeypatch):
    """A planner told what an ingest wrote reads those sessions, not the whole table (the cost
    at 30,000 sessions); told nothing, it notices the change and reads everything."""
    home = _Home(random.Random(1))
    for _ in range(30):
        home.new_session()
    home.ingest()
    planner = Planner()
    planner.plan(home.memory.ledger, {})
    home.append()
    written = home.ingest()
    want = plan(home.memory.ledger, {})
    seen = _spy_on(home.memory.ledger, monkeypatch)
    planner.touched(written)
    _same(planner.plan(home.memory.ledger, {}), want)
    reads = [q for q in seen if "FROM sessions" in q and q != SESSIONS_KEY]  # its totals: m021
    assert reads and all("WHERE id IN" in q for q in reads)
    monkeypatch.undo()
    home.append()
    home.ingest()  # not told: the sums show a change, and every session is read again
    _same(planner.plan(home.memory.ledger, {}), plan(home.memory.ledger, {}))


def test_the_plan_kept_in_the_ledger_reads_only_what_changed(monkeypatch):
    """A fresh process told what its ingest wrote reads those sessions and the kept rows of
    the rooms they are in, never the whole sessions table; the sessions of a room are read
    when a derive asks for them."""
    home = _Home(random.Random(2))
    for _ in range(30):
        home.new_session()
    home.ingest()
    StoredPlan().plan(home.memory.ledger, {})  # kept from nothing
    home.append()
    written = home.ingest()
    want = plan(home.memory.ledger, {})
    seen = _spy_on(home.memory.ledger, monkeypatch)
    planner = StoredPlan()
    planner.touched(written)
    got = planner.plan(home.memory.ledger, {})
    assert got[0] == want[0] and got[3] == want[3]
    reads = [q for q in seen if "FROM sessions" in q and q != SESSIONS_KEY]  # its totals: m021
    assert reads and all("WHERE id IN" in q for q in reads)
    assert not any(
        q.startswith("SELECT") and "plan_sessions" in q and "WHERE" not in q for q in seen
    )
    assert not any(q.startswith("DELETE FROM plan_") and "WHERE" not in q for q in seen)
    monkeypatch.undo()
    _same(got, want)


def test_the_plan_kept_in_the_ledger_follows_a_correction_a_project_and_a_pick(monkeypatch):
    """One-off processes one after another (each `Memory` plans from what the last one kept):
    after a merge (every room's identity changes, its sessions do not), a project added, a
    pick and an undone merge, the plan a fresh process reads is the plan from nothing."""
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    one = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    one.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    one.write()
    two = Transcript(root, cwd="/w/other", session="k2", start="2026-09-02T10:00:00Z")
    two.user("Jonas Eberhardt, the studio director at Keel & Ash Architects, approved it.")
    two.write()

    planned: list[str] = []  # how each plan was made
    nothing, keep = stored_plan._from_nothing, stored_plan._Changes.keep

    def from_nothing(*args):
        planned.append("from nothing")
        return nothing(*args)

    def kept(self):
        planned.append("kept")
        return keep(self)

    monkeypatch.setattr(stored_plan, "_from_nothing", from_nothing)
    monkeypatch.setattr(stored_plan._Changes, "keep", kept)

    def process(change) -> list[str]:
        planned.clear()
        memory = Memory()
        change(memory)
        memory.ingest(root)
        settings = config.settings()  # what its derive planned with
        _same(StoredPlan().plan(memory.ledger, settings), plan(memory.ledger, settings))
        memory.close()
        return planned[:]

    assert process(lambda m: None) == ["from nothing", "kept"]
    merged = process(lambda m: m.merge("Priya Anand", "Jonas Eberhardt", caller="local"))
    assert merged == ["kept"] * 3  # its derive, the ingest's and the one compared
    # the projects (their folders and picks) are in every room's digest: from nothing
    assert process(lambda m: m.project_add("keel", folders=["/w/keel"], caller="local"))[0] == (
        "from nothing"
    )
    assert process(lambda m: m.project_pick("keel", "k2", caller="local"))[0] == "from nothing"
    two.user("Dana Reyes, the office manager at Harlow Legal, called.")
    two.write()
    undo = process(
        lambda m: corrections.undo(m.ledger, m.corrections()[-1].id, caller="local", when=NOW)
    )
    assert undo == ["kept"] * 2  # the ingest's (the session changed too) and the one compared
    assert Memory().corrections(undone=False) == []


def test_held_mentions_are_the_ledgers_after_changes_and_stay_bounded():
    rng = random.Random(3)
    home = _Home(rng)
    held = HeldMentions(limit=12)
    for _ in range(30):
        rng.choice([home.new_session, home.append])()
        home.ingest()
        _, by_room, _, _ = plan(home.memory.ledger, {})
        for room in sorted(by_room):
            ids = [s["id"] for s in by_room[room]]
            assert held.of(home.memory.ledger, room, by_room[room]) == (
                home.memory.ledger.mentions(ids)
            )
    held_rows = sum(len(rows) for _, rows in held._held.values())
    assert held_rows <= 12 or len(held._rooms) == 1


def test_a_daemon_derive_reads_only_the_changed_sessions_mentions(monkeypatch):
    """The owner derives a room again from the mentions it holds, reading only the sessions that
    changed, and derives the same rows as a process that reads them all."""
    t = Transcript(
        Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects",
        cwd="/w/keel",
        session="k1",
        start="2026-09-01T10:00:00Z",
    )
    t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    t.write()
    other = Transcript(t.root, cwd="/w/keel", session="k2", start="2026-09-02T10:00:00Z")
    other.user("Jonas Eberhardt, the studio director at Keel & Ash Architects, approved it.")
    other.write()
    owner = Memory(owner=True)
    owner.ingest(t.root)
    read: list[list[str]] = []
    real = owner.ledger.mentions

    def spy(sessions):
        ids = sorted(set(sessions))
        read.append(ids)
        return real(ids)

    monkeypatch.setattr(owner.ledger, "mentions", spy)
    other.user("Dana Reyes, the office manager at Harlow Legal, called.")
    other.write()
    owner.ingest(t.root)
    assert read == [["k2"]]
    mine = owner.store.read("unfiled")
    owner.close()
    fresh = Memory()
    fresh.derive(force=True)
    assert fresh.store.read("unfiled") == mine


def test_the_daemons_plan_is_kept_as_it_stops(monkeypatch):
    """The owner (the daemon) plans in memory; as it closes it keeps that plan in the ledger:
    from the sessions it wrote when the plan kept was current as it started, else from its
    own planner. The next process without it then plans from what was kept, never from
    nothing, and that plan is the plan from nothing. A daemon that never derived keeps none."""
    root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    one = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    one.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
    one.write()
    planned: list[str] = []
    nothing = stored_plan._from_nothing

    def from_nothing(ledger, db, settings, context, planner):
        planned.append("from nothing" if planner is None else "from the daemon's planner")
        return nothing(ledger, db, settings, context, planner)

    monkeypatch.setattr(stored_plan, "_from_nothing", from_nothing)
    Memory().ingest(root)  # a one-off process: its plan kept from nothing

    def daemon(change) -> list[str]:
        planned.clear()
        owner = Memory(owner=True)
        change(owner)
        owner.ingest(root)
        owner.ingest(root)
        owner.close()
        return planned[:]

    def written(transcript: Transcript, text: str):
        def write(memory: Memory) -> None:
            transcript.user(text)
            transcript.write()

        return write

    two = Transcript(root, cwd="/w/other", session="k2", start="2026-09-02T10:00:00Z")
    two.user("Jonas Eberhardt, the studio director at Keel & Ash Architects, approved it.")
    two.write()
    # a project changes every room's digest: the plan kept is written from the daemon's
    added = daemon(lambda m: m.project_add("keel", folders=["/w/keel"], caller="local"))
    assert added == ["from the daemon's planner"]
    # the plan kept was current as it started: brought up to date from what it wrote
    assert daemon(written(one, "Dana Reyes, the office manager at Harlow Legal, called.")) == []
    three = Transcript(root, cwd="/w/keel", session="k3", start="2026-09-03T10:00:00Z")
    three.user("Omar Haddad at Keel & Ash Architects wants the survey.")
    three.write()
    memory = Memory()
    memory.ingest(root)
    settings = config.settings()
    _same(StoredPlan().plan(memory.ledger, settings), plan(memory.ledger, settings))
    assert planned == []
    memory.close()

    idle = Memory(owner=True)  # a daemon that never planned keeps nothing
    idle.project_add("harlow", folders=["/w/other"], caller="local")
    idle.close()
    Memory().ingest(root)
    assert planned == ["from nothing"]
