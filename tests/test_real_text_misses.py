"""One test per kind of miss seen on text nobody here wrote (issue 8, "Real text"), in
sentences of our own: chat speakers named by first name only, a breed, a book's title or a
square cut into a person or an org, `a/b` alternatives read as repos, brand-shaped org names,
addresses on a two-level public suffix, and the rest of the forms the rules now read."""

from __future__ import annotations

import pytest

from tests.transcript import session
from vyre.api import Memory
from vyre.config import parse_time
from vyre.extract.rules import extract

NOW = parse_time("2026-10-01T12:00:00Z")
TS = "2026-09-07T10:00:00.000Z"


def found(text: str, by: str = "person") -> list[tuple]:
    return [m[:6] for m in extract(by, "text", text, TS)]


def people(text: str) -> set[str]:
    return {m[1] for m in found(text) if m[2] == "person" and m[3] == "is"}


def orgs(text: str) -> set[str]:
    return {m[1] for m in found(text) if m[2] == "org" and m[3] == "is"}


def facts(memory: Memory, room: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.rel, f.object) for f in memory.facts(room, now=NOW)}


# -- people who talk, named by first name only --------------------------------------------------


def test_a_chat_speaker_named_by_first_name_is_a_person(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/home/u/chat",
        "c1",
        "2026-09-01T10:00:00Z",
        "Noor: hey Idris, how was the trip?",
        "Noor: glad you made it back",
    )
    memory = Memory()
    memory.ingest(root)
    assert ("Noor", "is", "person") in facts(memory, "unfiled")
    memory.close()


def test_a_kinship_word_makes_a_first_name_a_person_and_a_full_name_still_wins(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/home/u",
        "k1",
        "2026-09-01T10:00:00Z",
        "my brother Tomasz is getting married in June, to Ngozi.",
        "Ngozi's grandparents need the front table.",
    )
    session(root, "/home/u", "k2", "2026-09-02T10:00:00Z", "Ask Priya about the seating plan.")
    memory = Memory()
    memory.ingest(root)
    got = facts(memory, "unfiled")
    assert {("Tomasz", "is", "person"), ("Ngozi", "is", "person")} <= got
    assert ("Priya", "is", "person") not in got  # a first name alone, no cue: a short form
    memory.close()


# -- names cut from something longer ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "not_a_person"),
    [
        ("We got a Jack Russell last spring.", "Jack Russell"),
        ("I loved reading Charlotte's Web as a kid.", "Charlotte Web"),
        ('My favourite song is "Summer Nights".', "Summer Nights"),
        ("We flew into New York City on Friday.", "York City"),
        ("They met at Times Square.", "Square"),
        ("The office is near London Bridge.", "London Bridge"),
    ],
)
def test_a_thing_named_like_a_person_is_not_one(text, not_a_person):
    assert not_a_person not in people(text)


def test_a_three_part_name_is_read_whole():
    assert people("I loved the memoir by Amy Ellis Nutt.") == {"Amy Ellis Nutt"}
    assert "Anouk de Jong" in people("Anouk de Jong sent the export.")


def test_times_square_is_not_an_org():
    assert orgs("They met at Times Square and then Union Square.") == set()


# -- alternatives are not repos --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Weigh the pros/cons first.",
        "Fine-grained allow/deny lists live in settings.",
        "It works in non-interactive/print mode.",
        "Users add their pup's preferences/needs.",
    ],
)
def test_a_slash_between_words_is_not_a_repo(text):
    assert not [m for m in found(text) if m[2] == "repo"]


def test_a_bare_owner_name_beside_a_code_host_word_is_a_repo():
    assert ("repo.bare", "acme/site", "repo", "is", "repo", "kind") in found(
        "I made acme/site for this, it's cloned here."
    )
    assert ("repo.bare", "acme/site", "repo", "is", "repo", "kind") in found(
        "See acme/site#12 for the fix."
    )


# -- org names shaped like brands -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("Priya Anand from IBM sent the contract.", "IBM"),
        ("Dana Reyes at OpenAI wants a demo.", "OpenAI"),
        ("Tom Brennan works at MongoDB now.", "MongoDB"),
        ("Sam Okonkwo over at Auth0 replied.", "Auth0"),
    ],
)
def test_all_caps_and_digit_bearing_orgs_can_be_employers(text, org):
    assert any(m[3] == "works_at" and m[4] == org for m in found(text))


@pytest.mark.parametrize(
    "text",
    [
        "We use Stripe for payments and Snowflake for the warehouse.",
        "Our API client uses OpenAI.",
        "A Looker report on the BigQuery table is quickest.",
    ],
)
def test_a_product_named_in_passing_is_not_an_org(text):
    assert orgs(text) == set()


def test_a_place_after_from_is_not_an_employer():
    got = found("Priya Anand from Berlin called, and Dana Reyes from the UK office.")
    assert not [m for m in got if m[3] == "works_at"]


# -- legal forms, short forms and public suffixes ------------------------------------------------


def test_legal_forms_short_forms_and_co_uk_addresses_are_one_org(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/w/tide",
        "t1",
        "2026-09-01T10:00:00Z",
        "Adaeze Nwosu, head of operations analytics at Saltmarsh, is our contact.",
        "Elif Kaya is the data engineer at Saltmarsh Shipping Ltd; "
        "her address is e.kaya@saltmarshshipping.co.uk.",
        "Ruth Obi <ruth@saltmarshshipping.co.uk> approved it.",
    )
    memory = Memory()
    memory.project_add("tide", "Saltmarsh", ["/w/tide"], "Saltmarsh Shipping", caller="local")
    memory.ingest(root)
    got = facts(memory, "tide")
    assert ("Adaeze Nwosu", "works_at", "Saltmarsh Shipping") in got
    assert ("Elif Kaya", "works_at", "Saltmarsh Shipping") in got
    assert ("saltmarshshipping.co.uk", "domain_of", "Saltmarsh Shipping") in got
    assert ("Ruth Obi", "works_at", "Saltmarsh Shipping") in got  # through her address
    orgs_here = {s for s, rel, o in got if rel == "is" and o == "org"}
    assert orgs_here == {"Saltmarsh Shipping"}
    memory.close()


@pytest.mark.parametrize(
    "domain",
    ["harlow.law", "fernwood.coop", "spokes.bike", "acme.io", "acme.dev", "acme.example"],
)
def test_any_public_suffix_makes_a_domain(domain):
    assert ("domain.bare", domain, "domain", "is", "domain", "kind") in found(
        f"The site lives at {domain} now."
    )


@pytest.mark.parametrize("name", ["main.py", "notes.md", "run.sh", "profiles.yml.example"])
def test_a_file_name_is_not_a_domain(name):
    assert not [m for m in found(f"Edit {name} please.") if m[2] == "domain"]


# -- nicknames, signatures, deadlines said with a weekday and a date -----------------------------


def test_a_nickname_resolves_to_its_full_name(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/w/tide",
        "n1",
        "2026-09-01T10:00:00Z",
        "my contact is Adaeze Nwosu, head of operations at Saltmarsh Ltd (goes by Ada).",
    )
    session(root, "/w/tide", "n2", "2026-09-02T10:00:00Z", "Ada wants the dashboard by Friday.")
    memory = Memory()
    memory.ingest(root)
    got = facts(memory, "unfiled")
    assert ("Adaeze Nwosu", "has_title", "head of operations") in got
    rows = [r for r in memory.store.facts("unfiled") if r.rel == "mentioned_in"]
    ada = {r.object_label for r in rows if r.subject_label == "Adaeze Nwosu"}
    assert ada == {"n1", "n2"}  # both sessions: the second named her only "Ada"
    memory.close()


def test_a_pasted_signature_gives_title_and_employer():
    got = found("thoughts?\n\nRuth Obi\nBI Lead | Saltmarsh Shipping Ltd\nruth@saltmarsh.example\n")
    assert ("has_title.signature", "Ruth Obi", "person", "has_title", "bi lead", "value") in got
    assert (
        "works_at.signature",
        "Ruth Obi",
        "person",
        "works_at",
        "Saltmarsh Shipping Ltd",
        "org",
    ) in got


def test_a_weekday_with_a_date_resolves_to_the_date():
    # said on Thursday 2026-11-19: "due Thursday 26 November" is the 26th, not the 19th
    got = extract(
        "person",
        "text",
        "Matthias needs the writeup by Monday, and the model handover is due Thursday 26 November.",
        "2026-11-19T10:00:00.000Z",
    )
    assert sorted(m[4] for m in got if m[3] == "deadline") == ["2026-11-23", "2026-11-26"]


# -- the person's choices -----------------------------------------------------------------------


def test_near_duplicates_of_one_preference_are_one_fact(tmp_path):
    root = tmp_path / "projects"
    session(root, "/home/u", "p1", "2026-09-01T10:00:00Z", "i prefer uv over poetry.")
    session(
        root,
        "/home/u",
        "p2",
        "2026-09-20T10:00:00Z",
        "I prefer uv over poetry for anything new, so drop the poetry bits.",
    )
    session(root, "/home/u", "p3", "2026-09-21T10:00:00Z", "I'd rather keep timestamps in UTC.")
    memory = Memory()
    memory.ingest(root)
    prefs = [f for f in memory.facts("unfiled", now=NOW) if f.rel == "prefers"]
    assert sorted((f.object, f.sessions) for f in prefs) == [
        ("keep timestamps in UTC", 1),
        ("uv over poetry", 2),
    ]
    memory.close()
