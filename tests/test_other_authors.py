"""One test per kind of miss seen on an eval world written by another author, who never saw
the rules (issue 8): names spelt beyond Latin-1, dotted legal forms, a forwarded email's
quoted signature, titles set off by a dash or said with "their" / "there", a role named before
the person, a "decided:" note, deadlines said "in two weeks" or "by then", and repos named
without their owner. Every sentence here is our own, in the shapes that world used."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.transcript import session
from vyre.api import Memory
from vyre.config import parse_time
from vyre.evaluate.memory import _match
from vyre.extract.rules import extract
from vyre.models import Fact

NOW = parse_time("2026-10-01T12:00:00Z")
TS = "2026-09-07T10:00:00.000Z"  # a Monday


def found(text: str, by: str = "person", ts: str = TS) -> set[tuple]:
    return {m[:6] for m in extract(by, "text", text, ts)}


def people(text: str) -> set[str]:
    return {m[1] for m in found(text) if m[2] == "person" and m[3] == "is"}


def orgs(text: str) -> set[str]:
    return {m[1] for m in found(text) if m[2] == "org" and m[3] == "is"}


def relation(text: str, rel: str, by: str = "person") -> set[tuple[str, str]]:
    return {(m[1], m[4]) for m in found(text, by) if m[3] == rel}


def facts(memory: Memory, room: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.rel, f.object) for f in memory.facts(room, now=NOW)}


# -- names and orgs spelt beyond Latin-1 --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "person", "org"),
    [
        ("Łucja Żmuda at Żuraw Labs wants the export.", "Łucja Żmuda", "Żuraw Labs"),
        ("Send it to Şule Çelik at Ödül Analytics.", "Şule Çelik", "Ödül Analytics"),
        ("Kenta Ōshima at Ōmura Systems signed off.", "Kenta Ōshima", "Ōmura Systems"),
    ],
)
def test_names_and_orgs_spelt_beyond_latin_1_are_read(text, person, org):
    assert person in people(text)
    assert (person, org) in relation(text, "works_at")


# -- dotted legal forms --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "org"),
    [
        ("the glass comes from Ferri Vetro S.r.l. in Murano", "Ferri Vetro S.r.l."),
        ("we buy the ovens from Marco Fabbri S.p.A. now", "Marco Fabbri S.p.A."),
        ("the sensors are made by Tsuru Denki K.K. in Sendai", "Tsuru Denki K.K."),
    ],
)
def test_a_dotted_legal_form_makes_an_org_not_a_person(text, org):
    assert org in orgs(text)
    assert not people(text)  # "Marco Fabbri" is a firm here, by its legal form


def _fact(subject: str, subject_kind: str, rel: str, obj: str, object_kind: str) -> Fact:
    return Fact(
        id="x",
        room="r",
        subject=subject,
        subject_kind=subject_kind,
        rel=rel,
        object=obj,
        object_kind=object_kind,
        confidence=1.0,
        fresh=1.0,
        stale=False,
        seen=None,
        valid_from=None,
        valid_to=None,
    )


def test_the_scorer_reads_an_org_with_or_without_its_legal_form_as_one():
    gold = {"room": "r", "subject": "Ferri Vetro", "rel": "is", "object": "org"}
    assert _match(gold, _fact("Ferri Vetro S.r.l.", "org", "is", "org", "kind"))
    works = {"room": "r", "subject": "Ada Neri", "rel": "works_at", "object": "Ferri Vetro Ltd"}
    assert _match(works, _fact("Ada Neri", "person", "works_at", "Ferri Vetro", "org"))
    assert not _match(works, _fact("Ada Neri", "person", "works_at", "Ferri Glass", "org"))


# -- a forwarded email, quoted line by line -------------------------------------------------------


def test_a_quoted_signature_in_a_forwarded_email_is_read():
    text = (
        "fwd from oona, do what she says:\n\n> Hi,\n> please rotate the keys.\n"
        "> Kind regards,\n> Oona Virtanen\n> Data Lead, Kuusi Analytics Oy\n"
        "> oona@kuusi.example\n\nthanks"
    )
    got = found(text)
    assert (
        "has_title.signature",
        "Oona Virtanen",
        "person",
        "has_title",
        "data lead",
        "value",
    ) in got
    assert ("Oona Virtanen", "Kuusi Analytics Oy") in relation(text, "works_at")


def test_a_quoted_log_line_still_makes_nothing():
    assert not people("> 2026-09-01 12:00:01 ERROR Dana Reyes not found in table users")


# -- titles set off by a dash, in brackets with the org, or "as owner of" ------------------------


def test_a_title_after_a_dash_with_a_unit_before_the_org():
    text = "the clips came in (Rafa Ortega — postdoc in the Moss lab at Quillon Institute)."
    assert ("Rafa Ortega", "postdoc") in relation(text, "has_title")
    assert ("Rafa Ortega", "Quillon Institute") in relation(text, "works_at")


def test_a_bracketed_title_with_the_org_after_a_comma():
    text = "Edda Berg (senior auditor, Tindra AB) needs read access for the audit."
    assert ("Edda Berg", "senior auditor") in relation(text, "has_title")
    assert ("Edda Berg", "Tindra AB") in relation(text, "works_at")


def test_as_owner_of_is_a_title_and_an_employer():
    text = "Nico Brandt, as owner of Brandt Joinery, signs the order off."
    assert ("Nico Brandt", "owner") in relation(text, "has_title", by="agent")
    assert ("Nico Brandt", "Brandt Joinery") in relation(text, "works_at", by="agent")


# -- "their engineer", "the officer there": the org named just before -----------------------------


@pytest.mark.parametrize(
    ("text", "person", "org"),
    [
        (
            "We rent the racks from Corvel Hosting Ltd. Anouk Smit is their support engineer.",
            "Anouk Smit",
            "Corvel Hosting Ltd",
        ),
        (
            "the glass is from Ferri Vetro S.r.l. (Ugo Sala, their service technician) today",
            "Ugo Sala",
            "Ferri Vetro S.r.l.",
        ),
        (
            "we applied to Alder Foundation. Mira Kaur is my contact, she's the grants officer "
            "there.",
            "Mira Kaur",
            "Alder Foundation",
        ),
    ],
)
def test_their_title_works_at_the_org_named_before(text, person, org):
    assert (person, org) in relation(text, "works_at")


def test_their_title_with_no_org_before_names_no_employer():
    text = "Anouk Smit is their support engineer, ask her about the VPN."
    assert ("Anouk Smit", "support engineer") in relation(text, "has_title")
    assert not relation(text, "works_at")


def test_a_pronoun_title_after_a_dash():
    text = "Jon Ekberg at Corvel Hosting set up the VPN — he's their network engineer, very quick."
    assert ("Jon Ekberg", "network engineer") in relation(text, "has_title")


# -- a role named before the person --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "person", "title"),
    [
        ("my physio is Dr. Hana Sato, book me in for Thursday", "Hana Sato", "physio"),
        ("their accountant is also called Lea Roth, funnily enough", "Lea Roth", "accountant"),
        ("Biscuit's vet is Dr. Omar Said at Harbour Vets", "Omar Said", "vet"),
    ],
)
def test_a_role_said_before_is_and_the_name_is_a_title(text, person, title):
    assert (person, title) in relation(text, "has_title")


def test_an_org_role_said_before_is_gives_the_employer_but_a_pet_is_no_person():
    text = "Brandt Joinery's site foreman is Kofi Adjei. Biscuit's vet is Dr. Omar Said."
    assert ("Kofi Adjei", "Brandt Joinery") in relation(text, "works_at")
    assert "Biscuit" not in people(text)
    assert ("Omar Said", "Biscuit") not in relation(text, "works_at")


def test_a_name_used_as_a_modifier_after_the_is_not_a_person():
    assert "Lucia Ferro" not in people("it broke the Lucia Ferro oven controller again")


# -- decisions noted with a colon ----------------------------------------------------------------


def test_a_decision_noted_with_a_colon():
    got = relation("ok, both tried. decided: sqlite for the cache, no redis. moving on", "decided")
    assert got == {("owner", "sqlite for the cache, no redis")}
    # "decided: we're going with X" is one decision, not two
    got = relation("decided: we're going with uv for packaging, not poetry.", "decided")
    assert got == {("owner", "uv for packaging, not poetry")}


def test_a_decision_is_the_persons_own():
    assert not relation("decided: sqlite for the cache, no redis.", "decided", by="agent")


# -- deadlines "in two weeks" and "by then" -------------------------------------------------------


def test_a_deadline_in_two_weeks_counts_from_the_turn():
    got = relation("the signup page needs to be live in two weeks, flyers are printed", "deadline")
    assert got == {("signup page", "2026-09-21")}


def test_by_then_reads_the_date_said_before_it():
    text = "the trustees meet 24 Sept and the new report has to ship by then."
    assert relation(text, "deadline") == {("new report", "2026-09-24")}
    assert not relation("the new report has to ship by then.", "deadline")  # no date said


# -- repos named without their owner -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "repo is set up as tern-gateway on our forgejo, skeleton pushed",
        "flask it is. repo will be tern-gateway.",
        "the repo is called tern-gateway",
    ],
)
def test_a_repo_named_after_the_word_repo(text):
    assert ("repo.name", "tern-gateway", "repo", "is", "repo", "kind") in found(text)


@pytest.mark.parametrize("text", ["the repo is ready", "repo is up-to-date now", "repo: done"])
def test_a_plain_word_after_repo_is_no_repo(text):
    assert not [m for m in found(text) if m[2] == "repo"]


def test_repo_colon_owner_name_is_a_repo():
    got = found("new project. repo: kwm/tern-gateway. start with the models")
    assert ("repo.slug", "kwm/tern-gateway", "repo", "is", "repo", "kind") in got


def test_the_projects_repo_named_by_the_orgs_first_word_is_the_orgs(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/w/tern",
        "r1",
        datetime(2026, 9, 1, 10).isoformat() + "Z",
        "repo is set up as ternwick-gateway on our forgejo. scaffold the parser.",
    )
    memory = Memory()
    memory.project_add("tern", "Tern", ["/w/tern"], "Ternwick Instruments", caller="local")
    memory.ingest(root)
    got = facts(memory, "tern")
    assert ("ternwick-gateway", "is", "repo") in got
    assert ("ternwick-gateway", "repo_for", "Ternwick Instruments") in got
    memory.close()


# -- deadlines: what is due comes before its preposition ----------------------------------------


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("the abstract for the winter symposium needs to be done by next friday", "abstract"),
        ("the beta build for Kenji is due 4 October.", "beta build"),
        ("and the survey report from the field team has to be in before the 14th", "survey report"),
        ("everything for the launch has to be done by Friday", "launch"),
    ],
)
def test_a_deadline_subject_is_the_thing_before_its_preposition(text, subject):
    assert {s for s, _ in relation(text, "deadline")} == {subject}


# -- prompts: what the hook reaches --------------------------------------------------------------

FOLDER = "/w/quill"


@pytest.fixture(scope="module")
def quill(tmp_path_factory):
    root = tmp_path_factory.mktemp("quill") / "projects"
    session(
        root,
        FOLDER,
        "q1",
        "2025-10-20T10:00:00Z",
        "Rafa Ortega, the data lead at Quillon Institute, owns the ingest pipeline.",
        "Wren Adair, the finance lead at Quillon Institute, approves invoices.",
    )
    session(
        root,
        FOLDER,
        "q2",
        "2026-09-20T10:00:00Z",
        "Rafa Ortega signed off the new schema.",
        "Kenji Mori, the plant manager at Tsuru Denki K.K., wants the sensor report.",
        "the lab kit is from Corvel Scientific Ltd (Solomon Achebe, their lab manager, "
        "everyone calls him Sol).",
        "Our client is Quillon Institute. Ines Duarte is my contact, she's the grants officer "
        "there.",
        "the survey portal launches on 12 October, Ines confirmed.",
    )
    memory = Memory()
    memory.project_add("quill", "Quill", [FOLDER], "Quillon Institute", caller="local")
    memory.ingest(root)
    yield memory
    memory.close()


def hook(memory: Memory, prompt: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.rel, f.object) for f in memory.relevant(prompt, FOLDER, now=NOW)}


def test_a_role_stays_fresh_while_the_room_keeps_naming_the_person(quill):
    # both said eleven months ago; only Rafa was named again since
    assert ("Rafa Ortega", "works_at", "Quillon Institute") in hook(quill, "send Rafa the notes")
    assert not hook(quill, "send Wren the notes")


def test_a_surname_with_a_japanese_honorific_finds_the_person(quill):
    got = hook(quill, "mori-san wants an update, what do I tell him")
    assert ("Kenji Mori", "has_title", "plant manager") in got


def test_a_nickname_stated_in_the_room_finds_the_person(quill):
    got = hook(quill, "ask Sol whether the freezer log is back")
    assert ("Solomon Achebe", "has_title", "lab manager") in got
    assert ("Solomon Achebe", "works_at", "Corvel Scientific Ltd") in got


def test_when_does_this_need_to_ship_reads_the_rooms_deadlines(quill):
    assert ("survey portal launch", "deadline", "2026-10-12") in hook(
        quill, "when does this need to ship?"
    )
    assert not hook(quill, "ship it friday, squash the commits on feat/x first")


def test_our_client_contact_brings_the_person_at_the_client(quill):
    got = hook(quill, "who is our client contact again?")
    assert ("Quillon Institute", "client_of", "owner") in got
    assert ("Ines Duarte", "works_at", "Quillon Institute") in got


def test_a_topic_after_a_named_person_is_a_topic(quill):
    got = hook(quill, "send Ines the launch checklist")
    assert ("survey portal launch", "deadline", "2026-10-12") in got


# -- an org named by its first word, written in full only in passing -----------------------------


def _tallow(tmp_path, *later: str) -> set[tuple[str, str, str]]:
    root = tmp_path / "projects"
    session(
        root, "/w/t", "o1", "2026-09-01T10:00:00Z", "Jo Marsh at Tallow set up the broker for us."
    )
    session(root, "/w/t", "o2", "2026-09-02T10:00:00Z", *later)
    memory = Memory()
    memory.ingest(root)
    got = facts(memory, "unfiled")
    memory.close()
    return got


def test_a_one_word_org_is_the_longer_name_the_room_writes_in_passing(tmp_path):
    got = _tallow(tmp_path, "the Tallow Cloud bill went up, check the staging size")
    assert ("Tallow Cloud", "is", "org") in got
    assert ("Jo Marsh", "works_at", "Tallow Cloud") in got
    assert ("Tallow", "is", "org") not in got


def test_a_run_said_in_passing_is_no_org_by_itself_and_two_runs_stay_apart(tmp_path):
    got = _tallow(tmp_path, "the Tallow Cloud bill and the Tallow Edge console both moved")
    assert ("Tallow", "is", "org") in got  # two longer names: which one is unsaid
    assert not {s for s, rel, o in got if rel == "is" and o == "org"} - {"Tallow"}


def test_a_title_and_its_employer_named_together_find_the_person_said_long_ago(tmp_path):
    root = tmp_path / "projects"
    session(
        root,
        "/w/a",
        "t1",
        "2026-02-01T10:00:00Z",
        "Noted: Liesel Brandt, head of sampling at Alder Instruments, sends the tables.",
    )
    memory = Memory()
    memory.ingest(root)
    got = {
        (f.subject, f.rel, f.object)
        for f in memory.relevant("write to the head of sampling at Alder about it", "/w/a", now=NOW)
    }
    memory.close()
    assert ("Liesel Brandt", "has_title", "head of sampling") in got


def test_a_lowercase_first_name_counts_in_a_prompt_that_capitalises_only_acronyms(quill):
    assert ("Rafa Ortega", "works_at", "Quillon Institute") in hook(
        quill, "did rafa ever send the FX rate source?"
    )
    # a writer who capitalises names mid-sentence wrote this one in lowercase: a word
    assert not hook(quill, "Ask Ines whether sol is the right unit for the FX table") & {
        ("Solomon Achebe", "has_title", "lab manager")
    }
