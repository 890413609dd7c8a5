"""Rooms: computed per project, nothing crossing between them; the main graph's rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import WORLD, copy_home
from tests.transcript import session
from vyre.api import Memory
from vyre.config import parse_time
from vyre.evaluate.memory import build
from vyre.graph import GraphStore
from vyre.ledger import graph_rooms
from vyre.rooms.membership import session_rooms

NOW = parse_time("2026-10-01T12:00:00Z")


def room_rows(memory: Memory, room: str) -> list[tuple]:
    facts = sorted(tuple(vars(f).values()) for f in memory.store.facts(room))
    evidence = sorted(tuple(vars(e).values()) for e in memory.store.evidence(room))
    return facts + evidence


def keys(memory: Memory, room: str, *, closed: bool = False) -> set[tuple[str, str, str]]:
    return {(f.subject, f.rel, f.object) for f in memory.facts(room, now=NOW, closed=closed)}


# -- the room invariant -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def world(world_template, tmp_path_factory):
    """The bundled world, one copy for the module's read-only tests."""
    home = copy_home(world_template, tmp_path_factory.mktemp("world") / "vyre")
    with Memory(home) as memory:
        yield memory


ROOMS = ["keel-ash", "harlow", "bramble", "summit-dental", "summit-roofing", "unfiled"]


@pytest.mark.parametrize("room", ROOMS)
def test_deleting_every_other_rooms_sessions_leaves_a_room_byte_identical(world, room, tmp_path):
    before = room_rows(world, room)
    assert before, f"{room} has rows"
    membership = session_rooms(world.ledger.sessions(), world.ledger.projects())
    keep = {s for s, rooms in membership.items() if room in rooms}
    pruned = tmp_path / "world"
    shutil.copytree(WORLD, pruned, ignore=shutil.ignore_patterns("transcripts"))
    for path in (WORLD / "transcripts").rglob("*.jsonl"):
        session = path.parent.parent.name if path.parent.name == "subagents" else path.stem
        if session in keep or path.stem in keep:
            target = pruned / path.relative_to(WORLD)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    # picks of sessions that are gone cannot be made; the room's own picks all remain
    spec = json.loads((WORLD / "world.json").read_text())
    for p in spec["projects"]:
        p["picks"] = [s for s in p["picks"] if s in keep]
    (pruned / "world.json").write_text(json.dumps(spec))
    alone = build(pruned, tmp_path / "home")
    try:
        assert room_rows(alone, room) == before
    finally:
        alone.close()


def test_derive_is_deterministic_and_a_second_pass_changes_nothing(world_home):
    home = world_home
    memory = Memory(home)
    first = memory.store.dump()
    assert memory.derive().rooms == []  # nothing changed: nothing re-derived
    memory.close()
    shutil.rmtree(home / "graph")
    again = Memory(home)
    again.derive()
    assert again.store.dump() == first
    again.close()


# -- small worlds ---------------------------------------------------------------------------------


@pytest.fixture
def two_clients(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    memory.project_add("keel", "Keel", ["/w/keel"], "Keel & Ash Architects", caller="local")
    memory.project_add("harlow", "Harlow", ["/w/harlow"], "Harlow Legal", caller="local")
    session(
        root,
        "/w/keel",
        "k1",
        "2026-09-01T10:00:00Z",
        "Priya Anand, the project architect at Keel & Ash Architects, sent the plans.",
    )
    session(
        root,
        "/w/harlow",
        "h1",
        "2026-09-02T10:00:00Z",
        "Dana Reyes, the office manager at Harlow Legal, wants a directory.",
    )
    session(
        root,
        "/home/sam",
        "plan",
        "2026-09-03T10:00:00Z",
        "Weekly planning: Priya Anand needs the plans, Dana Reyes wants the directory, "
        "and Ines Carvalho from Tidewater Print quotes the brochures.",
    )
    memory.ingest(root)
    memory.project_pick("keel", "plan", caller="local")
    memory.project_pick("harlow", "plan", caller="local")
    memory.derive()
    yield memory, root
    memory.close()


def test_anchor_rule_a_shared_thread_never_carries_one_client_into_another(two_clients):
    memory, _ = two_clients
    keel, harlow = keys(memory, "keel"), keys(memory, "harlow")
    assert ("Priya Anand", "is", "person") in keel
    assert ("Dana Reyes", "is", "person") in harlow
    # the planning thread names both, but each room only keeps its own anchored people
    assert ("Dana Reyes", "is", "person") not in keel
    assert ("Priya Anand", "is", "person") not in harlow
    # someone named only in the shared thread is in neither room
    for room in (keel, harlow):
        named = {s for s, _, _ in room} | {o for _, _, o in room}
        assert not {"Ines Carvalho", "Tidewater Print"} & named
    # and the shared thread's words still count as evidence where they are anchored
    why = memory.why("Priya Anand", "is", None, "keel", now=NOW)
    assert {s.session for s in why[0].sources} == {"k1", "plan"}


def test_picked_session_is_in_the_project_not_unfiled_and_unpick_moves_it_back(two_clients):
    memory, _ = two_clients
    assert "unfiled" not in memory.reader.rooms()
    memory.project_unpick("keel", "plan", caller="local")
    memory.project_unpick("harlow", "plan", caller="local")
    memory.derive()
    unfiled = keys(memory, "unfiled")
    assert ("Ines Carvalho", "is", "person") in unfiled
    assert ("Priya Anand", "is", "person") in unfiled  # said there, in its own room now
    assert {
        s.session for s in memory.why("Priya Anand", "is", None, "keel", now=NOW)[0].sources
    } == {"k1"}


def test_only_the_rooms_a_change_touches_are_derived_again(two_clients, tmp_path):
    memory, root = two_clients
    session(root, "/w/keel", "k2", "2026-09-10T10:00:00Z", "Priya wants bigger photos.")
    derived = memory.ingest(root).derived
    assert derived.rooms == ["keel"]


def test_the_main_graph_after_one_room_changed_opens_no_other_rooms_file(two_clients, monkeypatch):
    memory, root = two_clients
    home = memory.home
    memory.close()
    reads: list[str] = []
    real = GraphStore.read

    def read(self, room):
        reads.append(room)
        return real(self, room)

    monkeypatch.setattr(GraphStore, "read", read)
    session(root, "/w/keel", "k2", "2026-09-10T10:00:00Z", "Priya wants bigger photos.")
    with Memory(home) as fresh:  # a new process: what the main graph reads is kept on disk
        derived = fresh.ingest(root).derived
        assert derived.rooms == ["keel"] and not derived.main_stale
        assert reads == []
        kept = fresh.store.dump()
    # a kept input lost or damaged is read from its room's file: the same main graph
    folder = next((home / "graph").iterdir())
    (folder / "input.harlow.json").unlink()
    (folder / "input.keel.json").write_text("{not json")
    with Memory(home) as again:
        graph_rooms.forget(again.ledger, ["*"])  # the main graph is derived again, no room
        derived = again.derive()
        assert derived.rooms == [] and sorted(reads) == ["harlow", "keel"]
        assert again.store.dump() == kept
    assert json.loads((folder / "input.keel.json").read_text())["room"] == "keel"


def test_relevant_outside_every_project_reads_unfiled_never_a_clients_room(two_clients):
    memory, _ = two_clients
    assert memory.relevant("Draft a note to Priya Anand", "/w/keel/src", now=NOW)
    assert memory.relevant("Draft a note to Priya Anand", "/home/sam", now=NOW) == []
    assert memory.relevant("Draft a note to Priya Anand", "/w/keelish", now=NOW) == []


def test_short_forms_resolve_to_the_rooms_own_claimant(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    memory.project_add("dental", "Dental", ["/w/dental"], "Summit Dental", caller="local")
    memory.project_add("roofing", "Roofing", ["/w/roofing"], "Summit Roofing", caller="local")
    session(root, "/w/dental", "d1", "2026-09-01T10:00:00Z", "Omar Haddad at Summit tests it.")
    session(root, "/w/roofing", "r1", "2026-09-01T10:00:00Z", "Marco Silva at Summit wants it.")
    memory.ingest(root)
    assert ("Omar Haddad", "works_at", "Summit Dental") in keys(memory, "dental")
    assert ("Marco Silva", "works_at", "Summit Roofing") in keys(memory, "roofing")
    assert not any(o == "Summit" for _, _, o in keys(memory, "dental") | keys(memory, "roofing"))
    memory.close()


def conflict_world(tmp_path, harlow_said: str) -> Memory:
    root = tmp_path / "projects"
    memory = Memory()
    memory.project_add("harlow", "Harlow", ["/w/harlow"], "Harlow Legal", caller="local")
    memory.project_add("bramble", "Bramble", ["/w/bramble"], "Bramble Dental", caller="local")
    session(
        root,
        "/w/harlow",
        "h1",
        harlow_said,
        "Dana Reyes, the office manager at Harlow Legal, wants a directory.",
    )
    session(
        root,
        "/w/bramble",
        "b1",
        "2026-09-20T10:00:00Z",
        "Dana Reyes, the practice manager at Bramble Dental, wants online booking.",
    )
    memory.ingest(root)
    return memory


def main_works_at(memory: Memory) -> dict[str, object]:
    return {
        f.object: f
        for f in memory.facts("*", now=NOW, closed=True)
        if f.subject == "Dana Reyes" and f.rel == "works_at"
    }


def test_rooms_that_disagree_within_90_days_are_a_conflict_in_the_main_graph(tmp_path):
    memory = conflict_world(tmp_path, "2026-09-01T10:00:00Z")
    rows = main_works_at(memory)
    assert {o: f.status for o, f in rows.items()} == {
        "Harlow Legal": "conflict",
        "Bramble Dental": "conflict",
    }
    # each room keeps its own Dana, untouched by the other
    assert ("Dana Reyes", "works_at", "Harlow Legal") in keys(memory, "harlow")
    assert ("Dana Reyes", "works_at", "Bramble Dental") not in keys(memory, "harlow")
    memory.close()


def test_beyond_90_days_the_older_is_closed_in_the_main_graph_only(tmp_path):
    memory = conflict_world(tmp_path, "2026-02-01T10:00:00Z")
    rows = main_works_at(memory)
    assert rows["Bramble Dental"].status == "" and rows["Bramble Dental"].valid_to is None
    assert rows["Harlow Legal"].status == "closed"
    assert rows["Harlow Legal"].valid_to == parse_time("2026-09-20T10:01:00Z")
    assert ("Dana Reyes", "works_at", "Harlow Legal") in keys(memory, "harlow")
    memory.close()


def test_a_moved_winner_closes_the_old_row_and_silence_closes_nothing(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-02-01T10:00:00Z",
        "Marco Silva from Summit Roofing called about the quote.",
    )
    session(root, "/home/sam", "b", "2026-02-03T10:00:00Z", "Joy Tran from Summit Roofing too.")
    session(
        root,
        "/home/sam",
        "c",
        "2026-09-01T10:00:00Z",
        "Marco Silva joined Ridgeline Roofing last month.",
    )
    memory.ingest(root)
    rows = {
        f.object: f
        for f in memory.facts("unfiled", now=NOW, closed=True)
        if f.subject == "Marco Silva" and f.rel == "works_at"
    }
    assert rows["Ridgeline Roofing"].valid_to is None
    assert rows["Summit Roofing"].status == "closed"
    assert rows["Summit Roofing"].valid_to == parse_time("2026-09-01T10:01:00Z")
    # Joy was never said again: eight months of silence leave her row open, only stale
    joy = next(
        f
        for f in memory.facts("unfiled", now=NOW)
        if f.subject == "Joy Tran" and f.rel == "works_at"
    )
    assert joy.valid_to is None and joy.stale
    memory.close()


def test_hub_rule_marks_an_org_in_many_rooms_but_never_a_projects_own(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    for slug, org in (
        ("a", "Keel & Ash Architects"),
        ("b", "Harlow Legal"),
        ("c", "Bramble Dental"),
    ):
        memory.project_add(slug, slug, [f"/w/{slug}"], org, caller="local")
        session(
            root,
            f"/w/{slug}",
            f"{slug}1",
            "2026-09-01T10:00:00Z",
            f"Payments go through Ledgerline Payments Ltd; {org} signs off, and "
            "Keel & Ash Architects drew the logo.",
        )
    memory.ingest(root)
    status = {f.subject: f.status for f in memory.facts("*", now=NOW) if f.rel == "is"}
    assert status["Ledgerline Payments Ltd"] == "hub"
    assert status["Keel & Ash Architects"] == ""  # in three rooms, but a project names it
    assert "Ledgerline Payments Ltd" not in {f.subject for f in memory.overview("*", now=NOW).orgs}
    hubs = {h.org: h for h in memory.hubs()}  # the offline listing agrees, with reasons
    assert hubs["Ledgerline Payments Ltd"].hub and hubs["Ledgerline Payments Ltd"].rooms == 3
    assert not hubs["Keel & Ash Architects"].hub
    assert hubs["Keel & Ash Architects"].why == "a project names it: never a hub"
    memory.close()


def test_two_names_with_one_address_are_one_identity(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-01T10:00:00Z",
        "Dana M. Reyes <dana@harlow.law> sent the plan.",
        "Dana Reyes <dana@harlow.law> confirmed.",
        "Dani Reyes <dana@harlow.law> signed it.",
    )
    memory.ingest(root)
    people = {
        f.subject
        for f in memory.facts("unfiled", now=NOW)
        if f.rel == "is" and f.object == "person"
    }
    assert people == {"Dana Reyes"}
    memory.close()


def test_near_names_are_never_merged(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-01T10:00:00Z",
        "Dana Reyes from Harlow Legal and Dana Reyez from Bramble Dental both wrote.",
    )
    memory.ingest(root)
    people = {
        f.subject
        for f in memory.facts("unfiled", now=NOW)
        if f.rel == "is" and f.object == "person"
    }
    assert people == {"Dana Reyes", "Dana Reyez"}
    memory.close()


def test_an_address_local_part_names_the_one_person_at_its_domain(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-01T10:00:00Z",
        "Priya Anand, the project architect at Keel & Ash Architects, is the contact. "
        "Send the invoice to panand@keelash.com and copy office@keelash.com.",
    )
    memory.ingest(root)
    rows = {
        (f.subject, f.object): f for f in memory.facts("unfiled", now=NOW) if f.rel == "has_address"
    }
    assert set(rows) == {("Priya Anand", "panand@keelash.com")}
    assert rows[("Priya Anand", "panand@keelash.com")].confidence == 0.75
    assert ("keelash.com", "domain_of", "Keel & Ash Architects") in keys(memory, "unfiled")
    memory.close()


def test_deadlines_close_two_days_after_their_date(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-20T10:00:00Z",
        "The brochure is due on September 29. The site launches October 9.",
    )
    memory.ingest(root)
    due = {f.object for f in memory.facts("unfiled", now=NOW) if f.rel == "deadline"}
    assert due == {"2026-10-09"}  # September 29 closed on October 1 at 00:00
    closed = {
        f.object: f for f in memory.facts("unfiled", now=NOW, closed=True) if f.rel == "deadline"
    }
    assert closed["2026-09-29"].valid_to == parse_time("2026-10-01T00:00:00")
    memory.close()


def test_preferences_and_decisions_are_on_and_each_can_be_turned_off(tmp_path, vyre_home: Path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-20T10:00:00Z",
        "I prefer plain css over a framework. We decided to keep the old blog urls.",
    )
    memory.ingest(root)
    got = keys(memory, "unfiled")
    assert ("owner", "prefers", "plain css over a framework") in got
    assert ("owner", "decided", "keep the old blog urls") in got
    (vyre_home / "settings.json").write_text(
        json.dumps({"relations.prefers": False, "relations.decided": False})
    )
    assert memory.derive().rooms == ["unfiled"]  # a setting is an input of every room
    assert not {r for _, r, _ in keys(memory, "unfiled")} & {"prefers", "decided"}
    memory.close()


def test_deriving_after_each_append_gives_the_rows_of_one_derive_from_nothing(tmp_path):
    """Incremental work is only a shortcut: a home that read the world's transcripts in
    three goes (every room and the main graph derived after each) holds the same graph as
    a home that read them once (the rooms' digests aside: they count each session's reads)."""
    grown = tmp_path / "grown"
    shutil.copytree(WORLD, grown)
    files = sorted((grown / "transcripts").rglob("*.jsonl"))
    whole = {path: path.read_bytes().splitlines(keepends=True) for path in files}
    for path, lines in whole.items():
        path.write_bytes(b"".join(lines[: max(1, len(lines) // 3)]))
    memory = build(grown, tmp_path / "home-grown")
    try:
        for step in (2, 3):
            for path, lines in whole.items():
                path.write_bytes(b"".join(lines[: max(1, len(lines) * step // 3)]))
            derived = memory.ingest(grown / "transcripts").derived
            assert derived.rooms and not derived.main_stale
        incremental = [row for row in memory.store.dump() if row[0] != "room"]
    finally:
        memory.close()
    scratch = build(WORLD, tmp_path / "home-scratch")
    try:
        assert incremental == [row for row in scratch.store.dump() if row[0] != "room"]
    finally:
        scratch.close()
