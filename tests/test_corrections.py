"""The user is in charge: corrections, undo, pin, mute, merge, split, conflicts, owners."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT
from tests.transcript import session
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.config import parse_time
from vyre.errors import CorrectionError, OwnerOnly
from vyre.ledger.corrections import events

NOW = parse_time("2026-10-01T12:00:00Z")
OWNER = "local"


def two_rooms(tmp_path):
    """Harlow and Bramble, a Dana Reyes in each, Marcus Bell and Helen Quist: (memory, root)."""
    root = tmp_path / "projects"
    memory = Memory()
    memory.project_add("harlow", "Harlow", ["/w/harlow"], "Harlow Legal", caller="local")
    memory.project_add("bramble", "Bramble", ["/w/bramble"], "Bramble Dental", caller="local")
    session(
        root,
        "/w/harlow",
        "h1",
        "2026-09-01T10:00:00Z",
        "Dana Reyes, the office manager at Harlow Legal, wants a directory.",
        "Marcus Bell from Harlow Legal signs off.",
    )
    session(
        root,
        "/w/bramble",
        "b1",
        "2026-09-20T10:00:00Z",
        "Dana Reyes, the practice manager at Bramble Dental, wants online booking.",
        "Helen Quist, the clinical lead at Bramble Dental, reviews it.",
    )
    memory.ingest(root)
    yield memory, root
    memory.close()


@pytest.fixture
def world(tmp_path):
    yield from two_rooms(tmp_path)


def held(memory: Memory, room: str, *, closed=False) -> dict[tuple, object]:
    return {
        (f.subject, f.rel, f.object): f
        for f in memory.facts(room, now=NOW, closed=closed)
        if f.rel != "is"
    }


def test_wrong_drops_a_fact_from_every_vote_and_undo_restores_it_byte_for_byte(world):
    memory, root = world
    before = memory.store.dump()
    row = memory.correct(
        ("Marcus Bell", "works_at", "Harlow Legal"), "wrong", caller=OWNER, now=NOW
    ).correction
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(memory, "harlow")
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(memory, "*")
    # never re-derived, whatever new sessions say
    session(root, "/w/harlow", "h2", "2026-09-25T10:00:00Z", "Marcus Bell from Harlow Legal.")
    memory.ingest(root)
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(memory, "harlow")
    memory.uncorrect(row.id, caller=OWNER, now=NOW)
    assert ("Marcus Bell", "works_at", "Harlow Legal") in held(memory, "harlow")
    (root / "-w-harlow" / "h2.jsonl").unlink()
    memory.ledger.db.execute("DELETE FROM turns WHERE session = 'h2'")
    memory.ledger.db.execute("DELETE FROM mentions WHERE session = 'h2'")
    memory.ledger.db.execute("DELETE FROM sessions WHERE id = 'h2'")
    memory.ledger.db.execute("DELETE FROM files WHERE session = 'h2'")
    memory.derive()
    assert memory.store.dump() == before


def test_ended_closes_and_only_newer_evidence_reopens(world):
    memory, root = world
    memory.correct(
        ("Marcus Bell", "works_at", "Harlow Legal"),
        "ended",
        at=parse_time("2026-09-10T00:00:00Z"),
        caller=OWNER,
        now=NOW,
    )
    row = held(memory, "harlow", closed=True)[("Marcus Bell", "works_at", "Harlow Legal")]
    assert row.status == "closed" and row.valid_to == parse_time("2026-09-10T00:00:00Z")
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(memory, "harlow")
    session(root, "/w/harlow", "h0", "2026-08-01T10:00:00Z", "Marcus Bell from Harlow Legal.")
    memory.ingest(root)  # older evidence: still ended
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(memory, "harlow")
    session(root, "/w/harlow", "h3", "2026-09-28T10:00:00Z", "Marcus Bell from Harlow Legal.")
    memory.ingest(root)  # newer evidence opens it again
    row = held(memory, "harlow")[("Marcus Bell", "works_at", "Harlow Legal")]
    assert row.valid_from == parse_time("2026-09-28T10:01:00Z")


def test_replace_ends_the_old_and_adds_yours_without_decay(world):
    memory, _ = world
    memory.correct(
        ("Dana Reyes", "has_title", "office manager"),
        "replace",
        value="operations director",
        scope="harlow",
        caller=OWNER,
        now=parse_time("2026-09-28T09:00:00Z"),
    )
    facts = held(memory, "harlow", closed=True)
    assert facts[("Dana Reyes", "has_title", "office manager")].status == "closed"
    mine = facts[("Dana Reyes", "has_title", "operations director")]
    assert (mine.source, mine.confidence, mine.fresh) == ("user", 1.0, 1.0)
    # scoped to one project: the other Dana keeps her title
    assert ("Dana Reyes", "has_title", "practice manager") in held(memory, "bramble")
    out = CliRunner().invoke(
        cli, ["memory", "about", "Dana", "-p", "harlow"], env={"VYRE_NOW": "2026-10-01T12:00:00Z"}
    )
    assert "Dana Reyes is the operations director" in out.output
    assert "your correction, 3 days ago" in out.output


def test_confirm_is_certain_never_decays_and_derive_never_closes_it(world):
    memory, root = world
    memory.correct(("Marcus Bell", "works_at", "Harlow Legal"), "confirm", caller=OWNER, now=NOW)
    session(root, "/w/harlow", "h4", "2026-09-29T10:00:00Z", "Marcus Bell joined Keel Partners.")
    memory.ingest(root)
    facts = held(memory, "harlow")
    confirmed = facts[("Marcus Bell", "works_at", "Harlow Legal")]
    assert (confirmed.confidence, confirmed.source, confirmed.valid_to) == (1.0, "confirmed", None)
    later = memory.facts("harlow", now=parse_time("2028-01-01T00:00:00Z"))
    assert next(f for f in later if f.id == confirmed.id).fresh == 1.0


def test_add_a_fact_memory_never_saw(world):
    memory, _ = world
    memory.correct(
        ("Helen Quist", "has_address", "helen@brambledental.com"), "add", caller=OWNER, now=NOW
    )
    assert ("Helen Quist", "has_address", "helen@brambledental.com") in held(memory, "bramble")
    # an everywhere-scoped add never brings Helen into a room that never named her
    assert not any(s == "Helen Quist" for s, _, _ in held(memory, "harlow"))


def test_unknown_facts_and_actions_are_clear_errors(world):
    memory, _ = world
    with pytest.raises(CorrectionError, match="memory holds no fact"):
        memory.correct(("Nobody", "works_at", "Nowhere"), "wrong", caller=OWNER)
    with pytest.raises(CorrectionError, match="not a fact id"):
        memory.correct("not-an-id", "wrong", caller=OWNER)
    with pytest.raises(CorrectionError, match="--object"):
        memory.correct(
            ("Dana Reyes", "has_title", "office manager"), "replace", caller=OWNER, scope="harlow"
        )
    with pytest.raises(CorrectionError, match="no correction 99"):
        memory.uncorrect(99, caller=OWNER)


@pytest.mark.parametrize("caller", ["hook", "mcp", "agent:kit", "cli-agent", "deckish"])
def test_only_owner_callers_may_change_memory(world, caller):
    memory, _ = world
    fact = ("Marcus Bell", "works_at", "Harlow Legal")
    for attempt in (
        lambda: memory.correct(fact, "wrong", caller=caller),
        lambda: memory.pin(fact, caller=caller),
        lambda: memory.mute("Marcus Bell", caller=caller),
        lambda: memory.merge("Dana Reyes", "Marcus Bell", caller=caller),
        lambda: memory.split("Dana Reyes", caller=caller),
    ):
        with pytest.raises(OwnerOnly, match="only you can change memory"):
            attempt()
    row = memory.correct(fact, "wrong", caller=OWNER).correction
    with pytest.raises(OwnerOnly):
        memory.uncorrect(row.id, caller=caller)
    assert memory.corrections()[-1].undone is None


def test_the_cli_refuses_without_a_terminal_or_inside_claude_code(world, monkeypatch):
    args = ["memory", "correct", "Marcus Bell", "works_at", "Harlow Legal", "--action", "wrong"]
    no_tty = CliRunner().invoke(cli, args)
    assert no_tty.exit_code == 1
    assert no_tty.output.strip() == (
        "Error: refused: there is no terminal on stdin; only you, "
        "at your own terminal, can change memory"
    )
    monkeypatch.setenv("CLAUDECODE", "1")
    inside = CliRunner().invoke(cli, ["memory", "merge", "Dana Reyes", "Marcus Bell"])
    assert inside.exit_code == 1 and "inside Claude Code (CLAUDECODE is set)" in inside.output
    assert world[0].corrections() == []


def test_the_cli_at_a_real_terminal_is_the_owner(world):
    memory, _ = world
    memory.close()
    env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
    primary, secondary = pty.openpty()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vyre.cli.main",
            "memory",
            "correct",
            "Marcus Bell",
            "works_at",
            "Harlow Legal",
            "--action",
            "wrong",
            "--note",
            "he left in June",
        ],
        stdin=secondary,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    os.close(primary)
    os.close(secondary)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "correction 1: wrong: Marcus Bell works_at Harlow Legal" in proc.stdout
    again = Memory()
    assert ("Marcus Bell", "works_at", "Harlow Legal") not in held(again, "harlow")
    again.close()


def test_the_corrected_event_carries_no_labels_ids_or_notes(world):
    memory, _ = world
    memory.correct(
        ("Dana Reyes", "works_at", "Harlow Legal"),
        "wrong",
        scope="harlow",
        note="wrong Dana",
        caller=OWNER,
        now=NOW,
    )
    (event,) = events(memory.ledger, "corrected")
    assert set(event) == {
        "kind",
        "id",
        "action",
        "rel",
        "scope",
        "prior_source",
        "prior_rule",
        "prior_confidence",
    }
    assert (event["action"], event["rel"], event["scope"]) == ("wrong", "works_at", "project")
    assert (event["prior_source"], event["prior_rule"]) == ("extracted", "works_at.appositive")
    raw = memory.ledger.db.execute("SELECT data FROM events").fetchone()[0]
    for secret in ("Dana", "Harlow", "person:", "h1", "wrong Dana"):
        assert secret not in raw


def test_pin_keeps_a_stale_fact_and_mute_hides_one_fact_not_the_person(world):
    memory, _ = world
    later = parse_time("2028-06-01T00:00:00Z")  # every extracted fact long stale
    assert memory.relevant("Ask Marcus Bell", "/w/harlow", now=later) == []
    memory.pin(("Marcus Bell", "works_at", "Harlow Legal"), caller=OWNER)
    got = memory.relevant("Ask Marcus Bell", "/w/harlow", now=later)
    assert [(f.subject, f.rel, f.object) for f in got] == [
        ("Marcus Bell", "works_at", "Harlow Legal")
    ]
    memory.mute(("Dana Reyes", "has_title", "office manager"), caller=OWNER)
    rels = {f.rel for f in memory.relevant("Email Dana Reyes", "/w/harlow", now=NOW)}
    assert "works_at" in rels and "has_title" not in rels
    mute = memory.mute("Dana Reyes", caller=OWNER)
    assert memory.relevant("Email Dana Reyes", "/w/harlow", now=NOW) == []
    assert ("Dana Reyes", "works_at", "Harlow Legal") in held(memory, "harlow")  # only reads
    memory.uncorrect(mute.id, caller=OWNER)
    assert memory.relevant("Email Dana Reyes", "/w/harlow", now=NOW)


def test_conflict_then_split_by_room_makes_two_people_and_undo_brings_it_back(world):
    memory, _ = world
    (conflict,) = memory.conflicts(now=NOW)
    assert conflict.question == "Same Dana Reyes?"
    assert {s.object for s in conflict.sides} == {"Harlow Legal", "Bramble Dental"}
    assert 'vyre memory split "Dana Reyes" --room bramble' in " ".join(conflict.commands)
    before = memory.store.dump()
    row = memory.split("Dana Reyes", room="bramble", caller=OWNER, now=NOW).correction
    assert memory.conflicts(now=NOW) == []
    main = [f for f in memory.facts("*", now=NOW) if f.subject == "Dana Reyes"]
    assert len({f.id for f in main if f.rel == "is"}) == 2
    assert {f.object for f in main if f.rel == "works_at"} == {"Harlow Legal", "Bramble Dental"}
    assert all(f.status == "" for f in main)
    memory.uncorrect(row.id, caller=OWNER, now=NOW)
    assert memory.store.dump() == before


def test_moved_settles_the_conflict_with_ended(world):
    memory, _ = world
    memory.correct(("Dana Reyes", "works_at", "Harlow Legal"), "ended", caller=OWNER, now=NOW)
    assert memory.conflicts(now=NOW) == []
    main = held(memory, "*", closed=True)
    assert main[("Dana Reyes", "works_at", "Harlow Legal")].status == "closed"
    assert main[("Dana Reyes", "works_at", "Bramble Dental")].valid_to is None


def test_newer_transcripts_that_disagree_with_you_raise_a_conflict_never_a_change(world):
    memory, root = world
    memory.correct(
        ("Marcus Bell", "works_at", "Harlow Legal"),
        "replace",
        value="Keel Partners",
        caller=OWNER,
        now=parse_time("2026-09-05T00:00:00Z"),
    )
    session(root, "/w/harlow", "h5", "2026-09-29T10:00:00Z", "Marcus Bell from Harlow Legal.")
    memory.ingest(root)
    main = held(memory, "*", closed=True)
    assert main[("Marcus Bell", "works_at", "Keel Partners")].source == "user"
    assert main[("Marcus Bell", "works_at", "Keel Partners")].valid_to is None
    (conflict,) = [c for c in memory.conflicts(now=NOW) if c.subject == "Marcus Bell"]
    assert conflict.question.startswith("You said Marcus Bell works at Keel Partners")


def test_merge_joins_two_names_and_suggest_merges_finds_them_first(tmp_path):
    root = tmp_path / "projects"
    memory = Memory()
    session(
        root,
        "/home/sam",
        "a",
        "2026-09-01T10:00:00Z",
        "Jon Marsh from Wrenfield Books sent the list.",
        "Jonn Marsh from Wrenfield Books followed up.",
    )
    memory.ingest(root)
    (candidate,) = memory.suggest_merges()
    assert {candidate.keep, candidate.other} == {"Jon Marsh", "Jonn Marsh"}
    assert candidate.shared == ("Wrenfield Books",)
    people = {f.subject for f in memory.facts("unfiled", now=NOW) if f.object == "person"}
    assert people == {"Jon Marsh", "Jonn Marsh"}  # a suggestion changes nothing
    row = memory.merge("Jon Marsh", "Jonn Marsh", caller=OWNER).correction
    people = {f.subject for f in memory.facts("unfiled", now=NOW) if f.object == "person"}
    assert len(people) == 1
    memory.uncorrect(row.id, caller=OWNER)
    assert len({f.subject for f in memory.facts("unfiled", now=NOW) if f.object == "person"}) == 2
    memory.close()


# -- a correction derives again only the rooms that name what it corrects -----------------------


def test_a_correction_derives_only_the_rooms_that_name_its_subject(world):
    memory, root = world
    marcus = ("Marcus Bell", "works_at", "Harlow Legal")
    edit = memory.correct(marcus, "wrong", caller=OWNER, now=NOW)
    assert edit.derived.rooms == ["harlow"]  # bramble never names Marcus: not derived again
    assert marcus not in held(memory, "harlow") and marcus not in held(memory, "*")
    # a room that names him later takes the correction with his first mention there
    session(root, "/w/bramble", "b2", "2026-09-25T10:00:00Z", "Marcus Bell from Harlow Legal.")
    memory.ingest(root)
    assert "Marcus Bell" in {f.subject for f in memory.facts("bramble", now=NOW)}
    assert marcus not in held(memory, "bramble")
    # and its undo now derives both rooms that name him, which get the fact back
    undo = memory.uncorrect(edit.correction.id, caller=OWNER, now=NOW)
    assert undo.derived.rooms == ["bramble", "harlow"]
    assert marcus in held(memory, "harlow") and marcus in held(memory, "bramble")
    dana = memory.correct(("Dana Reyes", "is", "person"), "wrong", caller=OWNER, now=NOW)
    assert dana.derived.rooms == ["bramble", "harlow"]  # both rooms name Dana


def test_a_room_whose_names_are_not_kept_counts_every_correction(world):
    """The names a derive found are a cache: lost, every correction counts in every room."""
    memory, _ = world
    memory.ledger.db.execute("DELETE FROM room_names")
    edit = memory.correct(
        ("Marcus Bell", "works_at", "Harlow Legal"), "wrong", caller=OWNER, now=NOW
    )
    assert edit.derived.rooms == ["bramble", "harlow"]
    # names kept again: the next correction about Helen derives only bramble
    helen = memory.correct(
        ("Helen Quist", "works_at", "Bramble Dental"), "confirm", caller=OWNER, now=NOW
    )
    assert helen.derived.rooms == ["bramble"]
