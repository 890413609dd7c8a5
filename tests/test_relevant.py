"""What the prompt hook adds, by the kind of prompt people type (vyre.memory.relevant).

Phrasings here are written against the bundled world and deliberately differ from its
labelled prompts: the eval measures those, these check each way a prompt reaches a fact."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import WORLD
from vyre.config import parse_time
from vyre.evaluate.memory import load_world
from vyre.memory.relevant import read, stem

SPEC, _ = load_world(WORLD)
NOW = parse_time(SPEC["now"])
FOLDER = {p["slug"]: p["folders"][0] for p in SPEC["projects"]}
FOLDER["unfiled"] = "/tmp/scratch"


@pytest.fixture(scope="module")
def memory(built_homes, tmp_path_factory):
    memory = built_homes.build(WORLD, tmp_path_factory.mktemp("relevant") / "home")
    yield memory
    memory.close()


def got(memory, room: str, prompt: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.rel, f.object) for f in memory.relevant(prompt, FOLDER[room], now=NOW)}


LENA = {
    ("Lena Park", "works_at", "Summit Dental"),
    ("Lena Park", "has_title", "office coordinator"),
}
MARCUS = {
    ("Marcus Bell", "works_at", "Harlow Legal"),
    ("Marcus Bell", "has_title", "managing partner"),
}


@pytest.mark.parametrize(
    "prompt",
    [
        "loop in lena@summitdental.com on the reminder copy",  # her own address
        "Could Dr. Park look over the reminder copy",  # honorific and surname
        "I think Park wanted the reminder copy shorter",  # surname, capitalised mid-sentence
        "get the office coordinator to look over the reminder copy",  # her title, said whole
    ],
)
def test_a_person_is_found_without_their_full_name(memory, prompt):
    assert got(memory, "summit-dental", prompt) >= LENA


def test_an_address_memory_holds_no_owner_for_is_read_by_its_name_and_domain(memory):
    facts = got(memory, "unfiled", "cc owen@wrenfieldbooks.co.uk on the invoice")
    assert ("Owen Hart", "works_at", "Wrenfield Books") in facts
    # an address at a known domain whose name is nobody's brings the org
    facts = got(memory, "summit-dental", "forward it to frontdesk@summitdental.com")
    assert ("Summit Dental", "client_of", "owner") in facts


def test_the_address_the_prompt_already_says_is_not_added_back(memory):
    facts = got(memory, "harlow", "email dana@harlow.law the agenda")
    assert ("Dana Reyes", "has_address", "dana@harlow.law") not in facts
    assert ("Dana Reyes", "works_at", "Harlow Legal") in facts


def test_a_domain_finds_its_org(memory):
    assert ("Keel & Ash Architects", "client_of", "owner") in got(
        memory, "keel-ash", "move the mail for keelash.com to the new host"
    )


def test_a_surname_at_the_start_of_a_sentence_or_in_lowercase_is_not_a_name(memory):
    assert not MARCUS & got(memory, "harlow", "Bell icons look blurry on the intranet")
    assert not MARCUS & got(memory, "harlow", "the bell icon looks blurry")
    assert got(memory, "harlow", "Ask Mr Bell about the bell icon") >= MARCUS


@pytest.mark.parametrize(
    ("room", "prompt", "deadline"),
    [
        ("summit-dental", "is the portal still on for the 14th?", "2026-10-14"),
        ("summit-dental", "Portal: are we going to make it?", "2026-10-14"),
        ("bramble", "how's the booking widget coming along", "2026-10-01"),
        ("harlow", "remind me when the intranet launch is", "2026-10-02"),
        ("summit-roofing", "have we got time to restyle the quote form", "2026-10-20"),
        ("keel-ash", "when do we launch?", "2026-10-09"),
    ],
)
def test_a_topic_finds_the_deadline_about_it(memory, room, prompt, deadline):
    deadlines = {o for s, r, o in got(memory, room, prompt) if r == "deadline"}
    assert deadlines == {deadline}


def test_one_word_of_a_longer_topic_needs_a_cue_of_its_kind(memory):
    assert got(memory, "summit-roofing", "restyle the form labels") == set()
    facts = got(memory, "summit-roofing", "is the form going to be ready in time?")
    assert {(r, o) for _, r, o in facts} == {("deadline", "2026-10-20")}


def test_one_word_of_a_topic_counts_beside_someone_who_was_there_when_it_was_said(memory):
    """Joy's title and the quote form launch were said in one session: "send Joy the form
    mockups" is about that launch; the same words naming nobody are not."""
    facts = got(memory, "summit-roofing", "send Joy the form mockups")
    assert ("deadline", "2026-10-20") in {(r, o) for _, r, o in facts}
    assert got(memory, "summit-roofing", "send the form mockups") == set()


@pytest.mark.parametrize(
    ("room", "prompt", "fact"),
    [
        ("keel-ash", "what's the clone url of this repo", ("keel-ash/keelash-site", "repo_for")),
        (
            "harlow",
            "open a PR on the repo for the search fix",
            ("harlowlegal/harlow-intranet", "repo_for"),
        ),
        (
            "summit-roofing",
            "what did our client say about the colours?",
            ("Summit Roofing", "client_of"),
        ),
        ("bramble", "who is the client contact here?", ("Bramble Dental", "client_of")),
    ],
)
def test_deixis_reads_the_rooms_own_repo_and_client(memory, room, prompt, fact):
    assert fact in {(s, r) for s, r, _ in got(memory, room, prompt)}


def test_what_is_due_brings_the_rooms_deadlines(memory):
    assert {(r, o) for _, r, o in got(memory, "summit-dental", "what's due?")} == {
        ("deadline", "2026-10-14")
    }
    assert got(memory, "summit-dental", "set a due date on each reminder") == set()


CODE_TALK = [
    "the client keeps reconnecting after a 502",
    "why does the Client class hold two sockets",
    "add a deadline to the context so the query gives up",
    "set a deadline on the fetch call",
    "Launch the dev server with --inspect",
    "PortalLayout renders twice on mount",
    "rename due_at to due_on in the model",
    "the portal.tsx file is too long, split it",
    "our API client needs a retry on 429",
]


@pytest.mark.parametrize("prompt", CODE_TALK)
@pytest.mark.parametrize("room", ["keel-ash", "summit-dental", "harlow"])
def test_code_talk_with_client_deadline_or_class_names_gets_nothing(memory, room, prompt):
    assert got(memory, room, prompt) == set()


IDENTIFIER = st.from_regex(r"[A-Z][a-z]{2,6}(?:[A-Z][a-z]{2,6}){1,2}", fullmatch=True)
SNAKE = st.from_regex(r"[a-z]{2,6}(?:_[a-z]{2,6}){1,2}", fullmatch=True)
TEMPLATES = [
    "why does {c} fail when the client sends {s}?",
    "the deadline in {s} should be configurable, see {c}",
    "move {c} next to {s} and fix the imports",
    "{c} throws when {s} is due",
    "rename {s} in {c}",
]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(template=st.sampled_from(TEMPLATES), c=IDENTIFIER, s=SNAKE)
def test_generated_code_talk_reaches_nothing(memory, template, c, s):
    prompt = template.format(c=c, s=s)
    for room in ("keel-ash", "harlow", "bramble", "summit-dental", "summit-roofing"):
        assert got(memory, room, prompt) == set(), (room, prompt)


QUESTIONS = [
    "when is the {t} due?",
    "is the {t} on track?",
    "how close is the {t}?",
    "{t}: still on for the date?",
    "what's the date for the {t} again",
]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(q=st.sampled_from(QUESTIONS), upper=st.booleans())
def test_generated_questions_about_a_topic_find_its_deadline(memory, q, upper):
    prompt = q.format(t="Booking Widget" if upper else "booking widget")
    assert ("deadline", "2026-10-01") in {(r, o) for _, r, o in got(memory, "bramble", prompt)}


def test_a_prompt_that_needs_nothing_gets_nothing(memory):
    for room in FOLDER:
        assert got(memory, room, "tidy up the imports and run the formatter") == set()


def test_reading_a_prompt_keeps_code_out_of_its_words():
    p = read("Ask Dr. Park why `ClientFactory` and due_date break in api/v2/client.py")
    assert p.code
    assert "clientfactory" not in p.words and "due_date" not in p.words
    assert p.words[:3] == ["ask", "dr", "park"] and p.capital[2] and not p.first[2]
    assert read("email lena@summitdental.com").emails == ["lena@summitdental.com"]


@pytest.mark.parametrize(
    ("inflected", "word"),
    [
        ("launching", "launch"),
        ("launches", "launch"),
        ("launched", "launch"),
        ("dashboards", "dashboard"),
        ("deciding", "decide"),
        ("decided", "decide"),
        ("taking", "take"),
        ("hours", "hour"),
        ("hourly", "hour"),
        ("invoicing", "invoice"),
        ("running", "run"),
        ("agreed", "agree"),
        ("deadlines", "deadline"),
        ("status", "status"),
    ],
)
def test_stems_meet_their_inflections(inflected, word):
    assert stem(inflected) == stem(word)
