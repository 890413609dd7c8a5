"""The Deck's pages and calls over the demo world, in process (the browser tests drive the
same app in Chromium)."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import WORLD
from tests.deck_support import copy_home, signed_in_client
from tests.transcript import session as transcript_session

NOW = json.loads((WORLD / "world.json").read_text())["now"]


@pytest.fixture
def deck(world_template, tmp_path, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", NOW)
    home = copy_home(world_template, tmp_path / "home")
    monkeypatch.setenv("VYRE_HOME", str(home))
    client, memory = signed_in_client(home)
    yield client, memory
    memory.close()


def test_memory_shows_one_room_with_provenance(deck):
    client, memory = deck
    page = client.get("/memory?scope=harlow")
    assert page.status_code == 200
    html = page.text
    assert "Dana Reyes is the office manager" in html
    assert "Harlow Legal" in html
    # every fact's source links to the exact turn
    links = re.findall(r'href="/turn/([^"?]+)\?seq=(\d+)#t\d+"', html)
    assert links
    for session, seq in links[:5]:
        turn = memory.ledger.turn(session, int(seq))
        assert turn is not None and turn["by"] in ("person", "agent")


def test_a_room_never_shows_another_rooms_people(deck):
    client, memory = deck
    harlow = client.get("/memory?scope=harlow").text
    others = {f.subject for f in memory.facts("summit-roofing") if f.subject_kind == "person"}
    own = {f.subject for f in memory.facts("harlow") if f.subject_kind == "person"}
    for name in others - own:
        assert name not in harlow


def test_everything_shows_the_conflict_with_its_three_answers(deck):
    client, _ = deck
    html = client.get("/memory?scope=*").text
    assert "Same Dana Reyes?" in html
    for label in ("No, two people", "Yes, they moved", "Yes, both are true"):
        assert label in html


def test_a_suggested_merge_is_asked_and_merged_only_when_told(deck, tmp_path):
    client, memory = deck
    root = tmp_path / "projects"
    transcript_session(
        root,
        "/home/sam",
        "near",
        "2026-09-01T10:00:00Z",
        "Jon Marsh from Wrenfield Books sent the list.",
        "Jonn Marsh from Wrenfield Books followed up.",
    )
    memory.ingest(root)
    html = client.get("/memory?scope=*").text
    assert "Same Jon Marsh as Jonn Marsh?" in html or "Same Jonn Marsh as Jon Marsh?" in html
    people = {f.subject for f in memory.facts("unfiled") if f.object == "person"}
    assert {"Jon Marsh", "Jonn Marsh"} <= people  # shown, nothing changed
    (candidate,) = memory.suggest_merges()
    done = client.post(
        "/api/conflicts", json={"how": "merge", "keep": candidate.keep, "other": candidate.other}
    )
    assert done.status_code == 200, done.text
    assert memory.corrections()[-1].kind == "merge"
    people = {f.subject for f in memory.facts("unfiled") if f.object == "person"}
    assert len(people & {"Jon Marsh", "Jonn Marsh"}) == 1
    assert "Same Jon" not in client.get("/memory?scope=*").text
    client.post(f"/api/corrections/{done.json()['undo']}/undo")
    people = {f.subject for f in memory.facts("unfiled") if f.object == "person"}
    assert {"Jon Marsh", "Jonn Marsh"} <= people


def test_an_unknown_scope_says_so_in_one_line(deck):
    client, _ = deck
    page = client.get("/memory?scope=nope")
    assert page.status_code == 200
    assert "no project &#39;nope&#39;" in page.text or "no project 'nope'" in page.text


def test_correct_then_undo_gives_back_the_fact(deck):
    client, memory = deck
    fact = next(
        f for f in memory.facts("harlow") if f.rel == "has_title" and f.subject == "Dana Reyes"
    )
    done = client.post(
        f"/api/facts/{fact.id}/correct", json={"action": "replace", "object": "practice manager"}
    )
    assert done.status_code == 200, done.text
    titles = {
        f.object
        for f in memory.facts("harlow")
        if f.rel == "has_title" and f.subject == "Dana Reyes" and f.status != "closed"
    }
    assert titles == {"practice manager"}
    assert memory.corrections()[-1].prior_rule  # recorded as the owner's correction
    undone = client.post(f"/api/corrections/{done.json()['undo']}/undo")
    assert undone.status_code == 200
    titles = {
        f.object
        for f in memory.facts("harlow")
        if f.rel == "has_title" and f.subject == "Dana Reyes" and f.status != "closed"
    }
    assert titles == {"office manager"}


def test_pin_and_mute_are_owner_rows_and_undoable(deck):
    client, memory = deck
    fact = next(f for f in memory.facts("harlow") if f.rel == "works_at")
    pinned = client.post(f"/api/facts/{fact.id}/pin").json()
    muted = client.post(f"/api/facts/{fact.id}/mute").json()
    kinds = [(c.kind, c.undone) for c in memory.corrections()]
    assert ("pin", None) in kinds and ("mute", None) in kinds
    added = memory.relevant(f"note to {fact.subject}", "/home/sam/work/harlow")
    assert fact.id not in {f.id for f in added}  # muted: it never reaches a prompt
    client.post(f"/api/corrections/{muted['undo']}/undo")
    client.post(f"/api/corrections/{pinned['undo']}/undo")
    assert all(c.undone for c in memory.corrections())


def test_a_bad_correction_is_one_line_and_changes_nothing(deck):
    client, memory = deck
    before = memory.corrections()
    r = client.post("/api/facts/f0000000000/correct", json={"action": "wrong"})
    assert r.status_code == 400
    assert "no fact" in r.json()["error"]
    assert memory.corrections() == before


def test_the_turn_view_marks_who_wrote_each_turn(deck):
    client, memory = deck
    session = next(
        iter(
            memory.session_names(
                [f.sources[0].session for f in memory.facts("harlow") if f.sources]
            )
        )
    )
    page = client.get(f"/turn/{session}?seq=2").text
    assert 'id="t2"' in page and 'aria-current="true"' in page
    assert "tool output" in page.lower() and "<details>" in page  # tool output collapsed


def test_the_memory_view_pages(deck, monkeypatch):
    client, _ = deck
    monkeypatch.setattr("vyre.deck.views.PAGE_SIZE", 5)
    first = client.get("/memory?scope=*").text
    assert "page 1 of" in first and "Next page" in first
    second = client.get("/memory?scope=*&page=2").text
    assert "Previous page" in second


def test_a_get_changes_nothing(deck):
    client, memory = deck
    fact = next(f for f in memory.facts("harlow") if f.rel == "works_at")
    r = client.get(f"/api/facts/{fact.id}/pin")
    assert r.status_code == 405
    assert memory.corrections() == []
