"""The named extraction rules, one turn at a time (vyre/extract/rules.py).

Every case asserts the exact mention tuple (rule, subject, subject_kind, rel, object,
object_kind); quotes are checked separately. Turns are said on Monday 7 September 2026 unless
a case says otherwise, with a timestamp shaped like the ones Claude Code writes.
"""

from __future__ import annotations

import pytest

from vyre.extract.rules import QUOTE_CHARS, extract

MONDAY = "2026-09-07T10:00:00.000Z"
FRIDAY = "2026-09-11T10:00:00.000Z"


def found(text: str, by: str = "person", ts: str | None = MONDAY, **kw) -> list[tuple]:
    """The mentions without their quotes."""
    return [m[:6] for m in extract(by, "text", text, ts, **kw)]


def is_(rule: str, label: str, kind: str) -> tuple:
    return (rule, label, kind, "is", kind, "kind")


def rel(rule: str, subject: str, subject_kind: str, relation: str, obj: str, obj_kind: str):
    return (rule, subject, subject_kind, relation, obj, obj_kind)


def works_at(rule: str, person: str, org: str) -> tuple:
    return (rule, person, "person", "works_at", org, "org")


def has_title(rule: str, person: str, title: str) -> tuple:
    return (rule, person, "person", "has_title", title, "value")


def deadline(rule: str, thing: str, day: str) -> tuple:
    return (rule, thing, "thing", "deadline", day, "date")


def client(org: str) -> tuple:
    return ("client_of.words", org, "org", "client_of", "owner", "owner")


def rules_of(mentions: list[tuple]) -> set[str]:
    return {m[0] for m in mentions}


# -- one named rule per row: the sentence gives exactly this mention ---------------------------

POSITIVE = [
    # people
    ("person.name", "I met Priya Anand yesterday.", is_("person.name", "Priya Anand", "person")),
    ("person.name-initial", "Dana M. Reyes called.", is_("person.name", "Dana M. Reyes", "person")),
    (
        "person.name-possessive",
        "Priya Anand's drawings arrived.",
        is_("person.name", "Priya Anand", "person"),
    ),
    ("person.short", "Ask Priya about the drawings.", is_("person.short", "Priya", "person")),
    (
        "person.context-appositive",
        "Tell Zorvan Quill, the office manager, to call.",
        is_("person.context", "Zorvan Quill", "person"),
    ),
    (
        "person.context-email",
        "Zorvan Quill <zorvan@harlowlaw.com> sent it.",
        is_("person.context", "Zorvan Quill", "person"),
    ),
    (
        "person.context-from-org",
        "Zorvan Quill from Harlow Law Group sent it.",
        is_("person.context", "Zorvan Quill", "person"),
    ),
    # organisations
    (
        "org.suffix-ampersand",
        "Keel & Ash Architects won the bid.",
        is_("org.suffix", "Keel & Ash Architects", "org"),
    ),
    (
        "org.suffix-longest",
        "Harlow Law Group signed today.",
        is_("org.suffix", "Harlow Law Group", "org"),
    ),
    ("org.suffix-two-words", "Summit Dental called.", is_("org.suffix", "Summit Dental", "org")),
    (
        "org.context",
        "Priya Anand at Keel & Ash Architects sent it.",
        is_("org.context", "Keel & Ash Architects", "org"),
    ),
    (
        "org.context-client",
        "Our new client Harlow Law Group wants a site.",
        is_("org.context", "Harlow Law Group", "org"),
    ),
    (
        "org.legal",
        "Marlow Haulage Ltd signed today.",
        is_("org.legal", "Marlow Haulage Ltd", "org"),
    ),
    # addresses and domains
    (
        "address.email",
        "Email me at sam@keelash.co please.",
        is_("address.email", "sam@keelash.co", "address"),
    ),
    (
        "address.email-lowercased",
        "Write to Sam@KeelAsh.CO please.",
        is_("address.email", "sam@keelash.co", "address"),
    ),
    (
        "domain.email",
        "Email me at sam@keelash.co please.",
        is_("domain.email", "keelash.co", "domain"),
    ),
    ("domain.bare", "See keelash.co for details.", is_("domain.bare", "keelash.co", "domain")),
    (
        "domain.bare-url",
        "Visit https://www.keelash.co/about today.",
        is_("domain.bare", "keelash.co", "domain"),
    ),
    (
        "domain.bare-subdomain",
        "Visit shop.keelash.co today.",
        is_("domain.bare", "shop.keelash.co", "domain"),
    ),
    # repos
    (
        "repo.url-https",
        "See https://github.com/keel-ash/site for the code.",
        is_("repo.url", "keel-ash/site", "repo"),
    ),
    (
        "repo.url-ssh",
        "Clone git@github.com:keel-ash/site.git first.",
        is_("repo.url", "keel-ash/site", "repo"),
    ),
    (
        "repo.url-gitlab",
        "Clone https://gitlab.com/harlow/intranet.git today.",
        is_("repo.url", "harlow/intranet", "repo"),
    ),
    (
        "repo.url-sentence-end",
        "The code is at https://github.com/keel-ash/site.",
        is_("repo.url", "keel-ash/site", "repo"),
    ),
    (
        "repo.slug-keyword-before",
        "The repo keel-ash/site is private.",
        is_("repo.slug", "keel-ash/site", "repo"),
    ),
    (
        "repo.slug-keyword-after",
        "The keel-ash/site repo is private.",
        is_("repo.slug", "keel-ash/site", "repo"),
    ),
    (
        "repo.slug-backticks",
        "Please fork `Keel-Ash/Site` tomorrow.",
        is_("repo.slug", "Keel-Ash/Site", "repo"),
    ),
    (
        "repo.bare",
        "Open a PR on keel-ash/site later.",
        is_("repo.bare", "keel-ash/site", "repo"),
    ),
    # works_at
    (
        "works_at.from",
        "Priya Anand from Summit Dental called.",
        works_at("works_at.from", "Priya Anand", "Summit Dental"),
    ),
    (
        "works_at.at",
        "Priya Anand at Keel & Ash Architects sent it.",
        works_at("works_at.at", "Priya Anand", "Keel & Ash Architects"),
    ),
    (
        "works_at.verb",
        "Priya Anand works at Keel & Ash Architects now.",
        works_at("works_at.verb", "Priya Anand", "Keel & Ash Architects"),
    ),
    (
        "works_at.verb-who",
        "Priya Anand, who works for Summit Dental, called.",
        works_at("works_at.verb", "Priya Anand", "Summit Dental"),
    ),
    (
        "works_at.joined",
        "Priya Anand has joined Summit Dental.",
        works_at("works_at.joined", "Priya Anand", "Summit Dental"),
    ),
    (
        "works_at.appositive",
        "Priya Anand, the project architect at Keel & Ash Architects, sent drawings.",
        works_at("works_at.appositive", "Priya Anand", "Keel & Ash Architects"),
    ),
    (
        "works_at.appositive-parenthetical",
        "Priya Anand (the office manager at Summit Dental) called.",
        works_at("works_at.appositive", "Priya Anand", "Summit Dental"),
    ),
    (
        "works_at.appositive-is",
        "Priya Anand is the office manager at Summit Dental.",
        works_at("works_at.appositive", "Priya Anand", "Summit Dental"),
    ),
    # has_title
    (
        "has_title.appositive",
        "Priya Anand, the project architect at Keel & Ash Architects, sent drawings.",
        has_title("has_title.appositive", "Priya Anand", "project architect"),
    ),
    (
        "has_title.parenthetical",
        "Priya Anand (office manager) called.",
        has_title("has_title.parenthetical", "Priya Anand", "office manager"),
    ),
    (
        "has_title.is",
        "Priya Anand is the office manager at Summit Dental.",
        has_title("has_title.is", "Priya Anand", "office manager"),
    ),
    (
        "has_title.preceding",
        "I spoke to our project architect, Priya Anand about it.",
        has_title("has_title.preceding", "Priya Anand", "project architect"),
    ),
    (
        "has_title.preceding-no-comma",
        "I spoke to the office manager Priya Anand about it.",
        has_title("has_title.preceding", "Priya Anand", "office manager"),
    ),
    # has_address
    (
        "has_address.adjacent-angle",
        "Priya Anand <priya@keelash.co> is copied.",
        rel(
            "has_address.adjacent",
            "Priya Anand",
            "person",
            "has_address",
            "priya@keelash.co",
            "address",
        ),
    ),
    (
        "has_address.adjacent-colon",
        "Priya Anand: priya@keelash.co",
        rel(
            "has_address.adjacent",
            "Priya Anand",
            "person",
            "has_address",
            "priya@keelash.co",
            "address",
        ),
    ),
    (
        "has_address.adjacent-possessive",
        "Priya Anand's email is priya@keelash.co",
        rel(
            "has_address.adjacent",
            "Priya Anand",
            "person",
            "has_address",
            "priya@keelash.co",
            "address",
        ),
    ),
    # client_of
    (
        "client_of.words-our-new-client",
        "We signed our new client, Summit Dental, today.",
        client("Summit Dental"),
    ),
    (
        "client_of.words-no-comma",
        "Our new client Harlow Law Group wants a site.",
        client("Harlow Law Group"),
    ),
    ("client_of.words-is-a-client", "Summit Dental is a client of ours.", client("Summit Dental")),
    ("client_of.words-is-our-client", "Summit Dental is our new client.", client("Summit Dental")),
    ("client_of.words-appositive", "Summit Dental, a new client, called.", client("Summit Dental")),
    # deadlines (said on Monday 2026-09-07)
    (
        "deadline.due-weekday",
        "The booking widget is due Friday.",
        deadline("deadline.due", "booking widget", "2026-09-11"),
    ),
    (
        "deadline.due-next-weekday",
        "The booking widget is due next Friday.",
        deadline("deadline.due", "booking widget", "2026-09-18"),
    ),
    (
        "deadline.due-same-weekday",
        "The booking widget is due on Monday.",
        deadline("deadline.due", "booking widget", "2026-09-14"),
    ),
    (
        "deadline.due-month-day",
        "The booking widget is due October 9.",
        deadline("deadline.due", "booking widget", "2026-10-09"),
    ),
    (
        "deadline.due-month-day-past",
        "The booking widget is due August 1.",
        deadline("deadline.due", "booking widget", "2027-08-01"),
    ),
    (
        "deadline.due-iso",
        "The booking widget is due 2026-10-15.",
        deadline("deadline.due", "booking widget", "2026-10-15"),
    ),
    (
        "deadline.due-tomorrow",
        "The report is due tomorrow.",
        deadline("deadline.due", "report", "2026-09-08"),
    ),
    (
        "deadline.due-by",
        "Invoices due by October 1.",
        deadline("deadline.due", "invoices", "2026-10-01"),
    ),
    (
        "deadline.due-after-says",
        "Priya Anand from Summit Dental says the booking widget is due Friday.",
        deadline("deadline.due", "booking widget", "2026-09-11"),
    ),
    (
        "deadline.deadline-for-after",
        "The deadline is Friday for the intranet.",
        deadline("deadline.deadline", "intranet", "2026-09-11"),
    ),
    (
        "deadline.deadline-for-before",
        "The deadline for the homepage is October 9.",
        deadline("deadline.deadline", "homepage", "2026-10-09"),
    ),
    (
        "deadline.launch",
        "The site launches on Friday.",
        deadline("deadline.launch", "site launch", "2026-09-11"),
    ),
    (
        "deadline.launch-date",
        "The launch date is October 12.",
        deadline("deadline.launch", "launch", "2026-10-12"),
    ),
    (
        "deadline.launch-goes-live",
        "The site goes live by Thursday.",
        deadline("deadline.launch", "site launch", "2026-09-10"),
    ),
    (
        "deadline.ship",
        "The booking widget ships on Friday.",
        deadline("deadline.ship", "booking widget", "2026-09-11"),
    ),
    # the person's choices
    (
        "prefers.words",
        "I prefer tabs over spaces.",
        rel("prefers.words", "owner", "owner", "prefers", "tabs over spaces", "value"),
    ),
    (
        "prefers.words-rather",
        "I'd rather use Postgres for this.",
        rel("prefers.words", "owner", "owner", "prefers", "use Postgres for this", "value"),
    ),
    (
        "decided.words",
        "We decided to drop the carousel.",
        rel("decided.words", "owner", "owner", "decided", "drop the carousel", "value"),
    ),
    (
        "decided.words-have",
        "We have decided to drop the carousel.",
        rel("decided.words", "owner", "owner", "decided", "drop the carousel", "value"),
    ),
    (
        "decided.words-going-with",
        "We're going with the Tuesday slot.",
        rel("decided.words", "owner", "owner", "decided", "the Tuesday slot", "value"),
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [p[1:] for p in POSITIVE], ids=[p[0] for p in POSITIVE]
)
def test_a_named_rule_finds_its_mention(text, expected):
    assert expected in found(text)


def test_every_named_rule_fires_on_the_table():
    fired = {m[0] for p in POSITIVE for m in extract("person", "text", p[1], MONDAY)}
    fired |= {m[0] for m in extract("tool", "tool_result", REMOTE, MONDAY)}
    assert fired >= {
        "person.name",
        "person.short",
        "person.context",
        "org.suffix",
        "org.context",
        "org.legal",
        "address.email",
        "domain.email",
        "domain.bare",
        "repo.url",
        "repo.slug",
        "repo.bare",
        "repo.git_remote",
        "works_at.from",
        "works_at.at",
        "works_at.verb",
        "works_at.joined",
        "works_at.appositive",
        "has_title.appositive",
        "has_title.parenthetical",
        "has_title.is",
        "has_title.preceding",
        "has_address.adjacent",
        "client_of.words",
        "deadline.due",
        "deadline.deadline",
        "deadline.launch",
        "deadline.ship",
        "prefers.words",
        "decided.words",
    }


# -- whole-turn expectations ------------------------------------------------------------------


def test_a_full_name_is_not_also_a_short_form():
    assert found("I met Priya Anand yesterday.") == [is_("person.name", "Priya Anand", "person")]


def test_the_longest_org_name_only():
    got = found("Harlow Law Group signed today.")
    orgs = [m for m in got if m[0] == "org.suffix"]
    assert orgs == [is_("org.suffix", "Harlow Law Group", "org")]


def test_keel_and_ash_architects_is_one_org():
    got = found("Keel & Ash Architects won the bid.")
    assert got == [is_("org.suffix", "Keel & Ash Architects", "org")]


def test_person_context_with_an_org_gives_person_org_and_works_at():
    got = found("Zorvan Quill from Harlow Law Group sent it.")
    assert set(got) == {
        is_("person.context", "Zorvan Quill", "person"),
        is_("org.suffix", "Harlow Law Group", "org"),
        works_at("works_at.from", "Zorvan Quill", "Harlow Law Group"),
        is_("org.context", "Harlow Law Group", "org"),
    }


def test_an_email_gives_address_and_domain_and_the_adjacent_name():
    got = found("Zorvan Quill <zorvan@harlowlaw.com> sent it.")
    assert set(got) == {
        is_("person.context", "Zorvan Quill", "person"),
        is_("address.email", "zorvan@harlowlaw.com", "address"),
        is_("domain.email", "harlowlaw.com", "domain"),
        rel(
            "has_address.adjacent",
            "Zorvan Quill",
            "person",
            "has_address",
            "zorvan@harlowlaw.com",
            "address",
        ),
    }


def test_an_email_domain_is_not_also_a_bare_domain():
    got = found("Email me at sam@keelash.co please.")
    assert "domain.bare" not in rules_of(got)


def test_the_appositive_gives_title_works_at_and_org_together():
    got = found("Priya Anand, the project architect at Keel & Ash Architects, sent drawings.")
    assert set(got) == {
        is_("person.name", "Priya Anand", "person"),
        is_("org.suffix", "Keel & Ash Architects", "org"),
        has_title("has_title.appositive", "Priya Anand", "project architect"),
        works_at("works_at.appositive", "Priya Anand", "Keel & Ash Architects"),
        is_("org.context", "Keel & Ash Architects", "org"),
    }


def test_a_title_of_two_head_words_is_read_whole_with_its_org():
    # "lead" and "designer" are both title heads; the title is the whole phrase, and the org
    # after it still gives works_at.
    got = found("Priya Anand, the lead designer at Summit Dental, called.")
    assert has_title("has_title.appositive", "Priya Anand", "lead designer") in got
    assert works_at("works_at.appositive", "Priya Anand", "Summit Dental") in got


def test_a_head_of_title_stops_before_at_and_keeps_the_org():
    got = found("Priya Anand is the head of design at Summit Dental.")
    assert has_title("has_title.is", "Priya Anand", "head of design") in got
    assert works_at("works_at.appositive", "Priya Anand", "Summit Dental") in got


def test_we_have_contracted_is_a_decision():
    # "We've decided" is the most common way to say "We have decided".
    for text in ("We've decided on a blue palette.", "We’ve decided on a blue palette."):
        assert rel("decided.words", "owner", "owner", "decided", "a blue palette", "value") in (
            found(text)
        ), text
    assert rel("decided.words", "owner", "owner", "decided", "drop the carousel", "value") in (
        found("I've decided to drop the carousel.")
    )


def test_x_deadline_is_names_x():
    # "Our homepage deadline is next Wednesday": the homepage is what is due (said on a Monday,
    # next Wednesday is nine days later).
    got = found("Our homepage deadline is next Wednesday.")
    assert deadline("deadline.deadline", "homepage", "2026-09-16") in got


# -- negatives --------------------------------------------------------------------------------

NO_PERSON = [
    ("ambiguous-first-at-sentence-start", "Will you check the build?"),
    ("ambiguous-first-verb", "Mark the task done."),
    ("unknown-pair-no-context", "Zorvan Quill sent it."),
    ("unknown-pair-org-without-org-word", "Zorvan Quill from Qellor sent it."),
    ("unknown-pair-no-title", "Zorvan Quill, a friend, sent it."),
    ("first-name-starting-an-org", "Priya Studio is closed."),
    ("title-word", "Send it to Dr Smith."),
]


@pytest.mark.parametrize("text", [n[1] for n in NO_PERSON], ids=[n[0] for n in NO_PERSON])
def test_no_person_is_found(text):
    assert not [m for m in found(text) if m[2] == "person"]


def test_a_first_name_starting_an_org_is_the_org():
    assert found("Priya Studio is closed.") == [is_("org.suffix", "Priya Studio", "org")]


def test_an_ambiguous_first_name_mid_sentence_is_a_person():
    assert is_("person.short", "Will", "person") in found("Ask Will about it.")


def test_capitalised_words_without_an_org_word_are_not_an_org():
    assert not [m for m in found("The Reading Room is open.") if m[2] == "org"]


@pytest.mark.parametrize(
    "text",
    [
        "Edit README.md and then package.json please.",
        "Open index.html in the browser.",
        "Run setup.py, then check app.ts and styles.css and main.go.",
        "The version is 1.2.3 and node.js is fine, e.g. this.",
    ],
)
def test_file_names_and_versions_are_not_domains(text):
    assert not [m for m in found(text) if m[2] == "domain"]


@pytest.mark.parametrize(
    "text",
    [
        "Pin it in requirements.in first.",
        "Add the data files to MANIFEST.in too.",
        "Build from Dockerfile.dev locally.",
    ],
)
def test_file_names_with_a_tld_like_extension_are_not_domains(text):
    assert not [m for m in found(text) if m[2] == "domain"]


@pytest.mark.parametrize(
    "text",
    [
        "Check github.com for it.",
        "See https://github.com/keel-ash/site for the code.",
        "See https://github.com/keel-ash for it.",
        "Mail priya@github.com about it.",
        "The gist is on gist.github.com somewhere.",
        "Clone git@github.com:keel-ash/site.git first.",
    ],
)
def test_github_com_is_never_a_domain(text):
    got = found(text)
    assert not [m for m in got if m[2] == "domain" or m[4] == "domain"]
    assert not [m for m in got if "github" in m[1]]


def test_placeholder_and_noreply_addresses_are_ignored():
    got = found("Mail priya@example.com and noreply@keelash.co and git@github.com now.")
    assert not [m for m in got if m[2] in ("address", "domain")]


@pytest.mark.parametrize(
    "text",
    [
        "Use the API client to fetch it.",
        "The HTTP client times out.",
        "Our API client is flaky.",
        "Check the client for errors.",
    ],
)
def test_software_clients_are_not_client_of(text):
    assert "client_of.words" not in rules_of(found(text))


def test_a_client_sentence_after_a_capitalised_word_is_still_read():
    # The sentence before ends in a capitalised word ("Friday.", "Priya."); the org pattern must
    # not swallow it and lose the client.
    for text in (
        "The widget is due Friday. Summit Dental is our new client.",
        "I talked to Priya. Summit Dental is our new client.",
        "I talked to Priya. Summit Dental, a new client, called.",
    ):
        assert client("Summit Dental") in found(text), text


def test_a_sentence_initial_repo_keyword_still_names_the_repo():
    assert is_("repo.slug", "Keel-Ash/Site", "repo") in found("Clone Keel-Ash/Site first.")


def test_a_client_library_is_not_client_of():
    assert "client_of.words" not in rules_of(found("Axios is a client library for HTTP."))
    assert "client_of.words" not in rules_of(found("Stripe is a client library."))


@pytest.mark.parametrize(
    "text",
    [
        "Let's ship it Friday.",
        "We should ship it Friday.",
        "Due diligence takes time.",
        "The deadline moved.",
        "It is due soon.",
    ],
)
def test_no_deadline_without_a_due_phrase_and_a_date(text):
    assert not [m for m in found(text) if m[3] == "deadline"]


def test_one_deadline_per_date_and_turn():
    got = found("The booking widget is due Friday and the booking widget ships on Friday.")
    assert [m for m in got if m[3] == "deadline"] == [
        deadline("deadline.due", "booking widget", "2026-09-11")
    ]


def test_no_timestamp_resolves_only_absolute_dates():
    got = found("The booking widget is due Friday. The homepage is due 2026-10-15.", ts=None)
    assert [m for m in got if m[3] == "deadline"] == [
        deadline("deadline.due", "homepage", "2026-10-15")
    ]


# -- weekday phrases resolve against the turn's own date ----------------------------------------


@pytest.mark.parametrize(
    ("said", "phrase", "day"),
    [
        (MONDAY, "Friday", "2026-09-11"),
        (MONDAY, "on Friday", "2026-09-11"),
        (MONDAY, "this Friday", "2026-09-11"),
        (MONDAY, "next Friday", "2026-09-18"),  # said on a Monday: eleven days later
        (MONDAY, "Monday", "2026-09-14"),  # strictly after the turn's date
        (MONDAY, "Tuesday", "2026-09-08"),
        (MONDAY, "Sunday", "2026-09-13"),
        (FRIDAY, "Friday", "2026-09-18"),
        (FRIDAY, "Monday", "2026-09-14"),
        (FRIDAY, "next Monday", "2026-09-14"),  # already next week: no week skipped
        ("2026-09-12T09:00:00.000Z", "next Friday", "2026-09-18"),  # Saturday
        ("2026-12-30T09:00:00.000Z", "Friday", "2027-01-01"),  # across the year
        (MONDAY, "Oct 9", "2026-10-09"),
        (MONDAY, "October 9th", "2026-10-09"),
        (MONDAY, "9 October", "2026-10-09"),
        (MONDAY, "October 9, 2027", "2027-10-09"),
        (MONDAY, "August 8", "2026-08-08"),  # 30 days back: still this year
        (MONDAY, "August 7", "2027-08-07"),  # 31 days back: next year
        ("2026-12-20T09:00:00.000Z", "January 5", "2027-01-05"),
        (MONDAY, "2026-10-15", "2026-10-15"),
        (MONDAY, "2025-01-02", "2025-01-02"),  # ISO dates are taken as written
    ],
)
def test_a_due_date_resolves_against_the_turn(said, phrase, day):
    got = found(f"The booking widget is due {phrase}.", ts=said)
    assert [m for m in got if m[3] == "deadline"] == [
        deadline("deadline.due", "booking widget", day)
    ]


# -- who wrote it --------------------------------------------------------------------------------

TURN = (
    "Summit Dental is our new client. "
    "Priya Anand from Summit Dental says the booking widget is due Friday. "
    "I prefer short emails. We decided to drop the carousel. "
    "Her address is priya@summitdental.com and the site is summitdental.com; the code is at "
    "https://github.com/summit/site."
)
PERSONAL = {"deadline", "client_of", "prefers", "decided"}


def test_the_person_gives_everything():
    got = found(TURN)
    assert {
        is_("person.name", "Priya Anand", "person"),
        works_at("works_at.from", "Priya Anand", "Summit Dental"),
        is_("org.suffix", "Summit Dental", "org"),
        deadline("deadline.due", "booking widget", "2026-09-11"),
        client("Summit Dental"),
        rel("prefers.words", "owner", "owner", "prefers", "short emails", "value"),
        rel("decided.words", "owner", "owner", "decided", "drop the carousel", "value"),
        is_("address.email", "priya@summitdental.com", "address"),
        is_("domain.bare", "summitdental.com", "domain"),
        is_("repo.url", "summit/site", "repo"),
    } <= set(got)


def test_the_agent_gives_entities_but_no_personal_relations():
    got = found(TURN, by="agent")
    assert {
        is_("person.name", "Priya Anand", "person"),
        works_at("works_at.from", "Priya Anand", "Summit Dental"),
        is_("org.suffix", "Summit Dental", "org"),
        is_("address.email", "priya@summitdental.com", "address"),
        is_("domain.bare", "summitdental.com", "domain"),
        is_("repo.url", "summit/site", "repo"),
    } <= set(got)
    assert not [m for m in got if m[3] in PERSONAL]
    assert not [m for m in got if m[0].startswith(("deadline.", "client_of.", "prefers."))]


@pytest.mark.parametrize(
    "text",
    [
        "The booking widget is due Friday.",
        "Summit Dental is our new client.",
        "I prefer short emails.",
        "We decided to drop the carousel.",
    ],
)
def test_the_agent_saying_a_personal_relation_gives_none(text):
    assert not [m for m in found(text, by="agent") if m[3] in PERSONAL]
    assert [m for m in found(text) if m[3] in PERSONAL]  # the person saying it does


def test_tool_output_gives_nothing():
    assert found(TURN, by="tool") == []


def test_program_text_gives_nothing():
    assert found(TURN, by="program") == []


@pytest.mark.parametrize("by", ["person", "agent", "tool", "program"])
def test_a_sidechain_gives_nothing(by):
    assert found(TURN, by=by, sidechain=True) == []
    remote = "origin\tgit@github.com:keel-ash/site.git (fetch)"
    assert found(remote, by=by, sidechain=True) == []


@pytest.mark.parametrize("kind", ["tool_use", "prompt", "command", "meta"])
def test_only_text_turns_are_read(kind):
    assert extract("person", kind, TURN, MONDAY) == []
    assert extract("agent", kind, TURN, MONDAY) == []


# -- git remotes: tool output only ---------------------------------------------------------------

REMOTE = (
    "origin\tgit@github.com:keel-ash/site.git (fetch)\n"
    "origin\tgit@github.com:keel-ash/site.git (push)\n"
)
GIT_REMOTE = ("repo.git_remote", "keel-ash/site", "repo", "git_remote", "workspace", "workspace")


def test_git_remote_output_gives_the_workspace_repo():
    assert found(REMOTE, by="tool") == [GIT_REMOTE]


def test_git_remote_https_and_several_remotes():
    text = (
        "origin\thttps://github.com/keel-ash/site.git (fetch)\n"
        "origin\thttps://github.com/keel-ash/site.git (push)\n"
        "upstream\tgit@gitlab.com:harlow/intranet.git (fetch)\n"
        "upstream\tgit@gitlab.com:harlow/intranet.git (push)\n"
    )
    assert found(text, by="tool") == [
        GIT_REMOTE,
        ("repo.git_remote", "harlow/intranet", "repo", "git_remote", "workspace", "workspace"),
    ]


def test_tool_output_with_a_remote_gives_only_the_remote():
    text = REMOTE + "Priya Anand from Summit Dental wrote priya@summitdental.com on keelash.co\n"
    assert found(text, by="tool") == [GIT_REMOTE]


def test_a_git_remote_line_in_person_text_is_not_a_git_remote():
    got = found(REMOTE)
    assert "repo.git_remote" not in rules_of(got)
    assert not [m for m in got if m[3] == "git_remote"]


def test_a_git_remote_line_in_agent_text_is_not_a_git_remote():
    assert "repo.git_remote" not in rules_of(found(REMOTE, by="agent"))


def test_a_git_remote_quote_is_the_line():
    (mention,) = extract("tool", "tool_result", REMOTE, MONDAY)
    assert mention[6] == "origin git@github.com:keel-ash/site.git (fetch)"


# -- repos: what is not one ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Edit src/main.py and tests/test_x.py now.",
        "The branch is feature/login-form today.",
        "Use and/or here.",
        "Open ~/work/site please.",
        "It is 3/4 done.",
    ],
)
def test_paths_and_branches_are_not_repos(text):
    assert not [m for m in found(text) if m[2] == "repo"]


# -- fenced code -----------------------------------------------------------------------------------


def test_names_inside_fenced_code_are_not_mentions():
    text = (
        "Here is the fixture:\n```python\n"
        'PEOPLE = ["Priya Anand from Summit Dental", "sam@keelash.co"]\n'
        "# The booking widget is due Friday.\n"
        "```\nThat is all."
    )
    assert found(text) == []


def test_an_unclosed_fence_hides_the_rest():
    assert found("Sample:\n```\nPriya Anand from Summit Dental") == []


def test_prose_around_a_fence_is_still_read():
    text = "Ask Priya Anand.\n```\nZorvan Quill <zorvan@harlowlaw.com>\n```\nAlso Summit Dental."
    assert found(text) == [
        is_("person.name", "Priya Anand", "person"),
        is_("org.suffix", "Summit Dental", "org"),
    ]


# -- quotes --------------------------------------------------------------------------------------


def test_a_quote_is_the_sentence_around_the_match():
    text = "We met on site. Priya Anand from Summit Dental sent drawings. Then lunch."
    quotes = {m[0]: m[6] for m in extract("person", "text", text, MONDAY)}
    assert quotes["person.name"] == "Priya Anand from Summit Dental sent drawings."
    assert quotes["works_at.from"] == "Priya Anand from Summit Dental sent drawings."


def test_quotes_are_clipped_to_160_characters():
    filler = " ".join(["and then we talked about the drawings for a while"] * 8)
    text = f"{filler} with Priya Anand from Summit Dental {filler} is due Friday"
    got = extract("person", "text", text, MONDAY)
    assert len(text) > 2 * QUOTE_CHARS
    assert QUOTE_CHARS == 160
    assert {m[0] for m in got} >= {"person.name", "works_at.from", "deadline.due"}
    for m in got:
        assert len(m[6]) <= QUOTE_CHARS, m
    name = next(m for m in got if m[0] == "person.name")
    assert "Priya Anand" in name[6]


def test_a_quote_is_not_cut_at_a_dot_inside_an_address():
    text = "Ask Priya Anand (priya@keelash.co) now."
    for m in extract("person", "text", text, MONDAY):
        assert m[6] == text, m


def test_the_cached_public_suffixes_are_the_lists_own(tmp_path, monkeypatch):
    """The ICANN rules are kept in the cache with their punycode forms and given back to the
    package as its source: the same rules, the same answers as the package's own parse."""
    from publicsuffixlist import PublicSuffixList

    from vyre.extract import gazetteer

    monkeypatch.setenv("VYRE_CACHE", str(tmp_path))
    gazetteer._psl.cache_clear()
    try:
        first = gazetteer._psl()  # parsed from the package, and cached
        assert len(list(tmp_path.glob("public-suffixes-*.txt"))) == 1
        gazetteer._psl.cache_clear()
        cached = gazetteer._psl()  # read back from the cache
    finally:
        gazetteer._psl.cache_clear()
    own = PublicSuffixList(only_icann=True)
    assert cached._publicsuffix == first._publicsuffix == own._publicsuffix
    assert cached._maxlabel == own._maxlabel
    for host in (
        "marlow.co.uk",
        "harlow.law",
        "a.b.kobe.jp",
        "xn--80ak6aa92e.com",
        "main.py",
        "shop.example",
        "foo.blogspot.com",
        "city.kobe.jp",
        "公司.cn",
        "x.公司.cn",
    ):
        assert cached.publicsuffix(host, accept_unknown=False) == own.publicsuffix(
            host, accept_unknown=False
        ), host


def test_the_word_lists_are_cached_once_per_install_for_every_fresh_home(tmp_path, monkeypatch):
    """Without VYRE_CACHE the lists are kept beside the module's bytecode when bytecode is
    written, and a second fresh home reads them there instead of scanning the names' data
    file again; with bytecode off they go to the home's cache only, as before."""
    import sys

    from vyre.extract import gazetteer

    install = tmp_path / "install"
    monkeypatch.delenv("VYRE_CACHE", raising=False)
    monkeypatch.setattr(gazetteer, "cache_from_source", lambda _: str(install / "g.pyc"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "home1"))
    want = gazetteer._names(gazetteer.MIN_SOURCES, gazetteer.MIN_PEOPLE)
    assert len(list(install.glob("given-names-*.txt"))) == 2
    assert not (tmp_path / "home1" / "cache").exists()

    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "home2"))
    monkeypatch.setattr(gazetteer, "_scan", lambda *_: pytest.fail("scanned again"))
    assert gazetteer._names(gazetteer.MIN_SOURCES, gazetteer.MIN_PEOPLE) == want

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("VYRE_HOME", str(tmp_path / "home3"))
    gazetteer._psl.cache_clear()
    try:
        gazetteer._psl()
    finally:
        gazetteer._psl.cache_clear()
    assert not list(install.glob("public-suffixes-*.txt"))
    assert len(list((tmp_path / "home3" / "cache").glob("public-suffixes-*.txt"))) == 1
