"""Property-based tests of the rules: a grammar of the ways people write plants a fact in a
sentence (many orders, with and without punctuation and capitals, in filler), and the rules
must find it with its rule and a quote that holds it; code talk full of capitalised
identifiers must give nothing.

Names are drawn from pools of many cultures (given names the gazetteer knows) and from
invented words (for the forms that must work on a name no list has); orgs are invented.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from vyre.extract.gazetteer import fold_name, short_names
from vyre.extract.rules import _ORG_VERB_CUES, extract

GIVEN = [
    "Siobhan",
    "Chidinma",
    "Thandiwe",
    "Grzegorz",
    "Siobhan",
    "Kwame",
    "Xiomara",
    "Björn",
    "Zoltán",
    "Ngozi",
    "Saoirse",
    "Eitan",
    "Priyanka",
    "Mateo",
    "Ingrid",
    "Haruto",
    "Amara",
    "Dmitri",
    "Fatima",
    "Lucía",
    "Tomasz",
    "Chiara",
    "Kofi",
    "Lena",
    "Omar",
    "Yusuf",
]
SURNAMES = [
    "Okonkwo",
    "Lindgren",
    "Nakamura",
    "Castellanos",
    "Brennan",
    "Kowalczyk",
    "Haddad",
    "Van Der Berg",
    "Abernathy",
    "Mbeki",
    "Iyer",
    "Fairweather",
    "Delacroix",
    "Oyelaran",
]
SYLLABLES = ["tav", "bran", "qu", "orv", "zel", "mir", "dax", "ul", "cor", "wen", "thra", "yl"]
TITLES = [
    "office manager",
    "project architect",
    "head of finance",
    "data engineer",
    "CFO",
    "lead designer",
    "practice manager",
    "site operations manager",
    "product analyst",
    "managing partner",
    "clinical lead",
    "estimator",
    "founder",
    "IT lead",
]
ORG_ENDS = [
    "Dental",
    "Logistics",
    "Architects",
    "Ltd",
    "LLC",
    "GmbH",
    "LLP",
    "Labs",
    "Group",
    "Pty Ltd",
    "S.A.",
    "Roofing",
    "Analytics",
    "Collective",
]
VERBS = ["says the form is broken", "wants a call", "sent the files", "asked about the quote"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]

invented = (
    st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3)
    .map(lambda parts: "".join(parts).capitalize())
    .filter(lambda w: fold_name(w) not in short_names())  # no list has it ("Wenzel" has)
)
person = st.tuples(st.sampled_from(GIVEN), st.sampled_from(SURNAMES)).map(" ".join)
unknown_person = st.tuples(invented, invented).map(" ".join)
org = st.tuples(invented, st.sampled_from(ORG_ENDS)).map(" ".join)
title = st.sampled_from(TITLES)
verb = st.sampled_from(VERBS)
filler = st.sampled_from(["", "ok so ", "fyi: ", "quick one. ", "Morning! "])
ending = st.sampled_from([".", "", "!", " today."])

PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mentions(text: str, ts: str = "2026-09-07T10:00:00.000Z", by: str = "person") -> list:
    # "Acme S.A." ends its sentence with the form's own full stop, as people write it
    return extract(by, "text", text.replace("..", "."), ts)


def has(got: list, rel: str, subject: str, obj: str | None = None, rules=None) -> tuple:
    for m in got:
        same = m[3] == rel and m[1] == subject and (obj is None or m[4] == obj)
        if same and (rules is None or m[0] in rules):
            return m
    raise AssertionError(f"no {rel} {subject} {obj} in {[x[:5] for x in got]}")


def _cased(title_text: str, upper: bool) -> str:
    # a signature capitalises each word and keeps an acronym: "IT lead" -> "IT Lead", not "It Lead"
    if not upper:
        return title_text
    return " ".join(w if w.isupper() else w.capitalize() for w in title_text.split())


TITLE_FORMS = [
    ("{p}, the {t} at {o}, {v}", "has_title.appositive", "works_at.appositive"),
    ("{p} is the {t} at {o} and {v}", "has_title.is", "works_at.appositive"),
    ("{o}'s {t}, {p}, {v}", "has_title.preceding", "works_at.possessive"),
    ("{p} ({t} at {o}) {v}", "has_title.parenthetical", "works_at.appositive"),
    ("{p}, {o}'s {t}, {v}", "has_title.possessive", "works_at.appositive"),
    ("{p} from {o} {v}; she's the {t}", "has_title.pronoun", "works_at.from"),
    ("looping in {p}, she's the new {t} at {o}", "has_title.appositive", "works_at.appositive"),
    ("{p}\n{t} | {o}\n", "has_title.signature", "works_at.signature"),
]


@PROPS
@given(
    form=st.sampled_from(TITLE_FORMS),
    p=st.one_of(person, unknown_person),
    t=title,
    o=org,
    v=verb,
    pre=filler,
    end=ending,
    upper=st.booleans(),
)
def test_a_title_and_an_employer_are_found_in_every_form(form, p, t, o, v, pre, end, upper):
    template, title_rule, works_rule = form
    shown = _cased(t, upper and "signature" in title_rule)
    sep = "\n" if "signature" in title_rule and pre else ""  # a signature starts its line
    text = pre + sep + template.format(p=p, t=shown, o=o, v=v) + end
    got = mentions(text)
    m = has(got, "has_title", p, t.lower(), {title_rule})
    assert p in m[6]
    w = has(got, "works_at", p, o, {works_rule})
    assert p in w[6] and o.split()[0] in w[6]
    assert has(got, "is", p)[4] == "person"


WORKS_FORMS = [
    ("{p} from {o} {v}", "works_at.from"),
    ("{p} at {o} {v}", "works_at.at"),
    ("{p} over at {o} {v}", "works_at.over"),
    ("{p} works at {o} now", "works_at.verb"),
    ("{p}, who works for {o}, {v}", "works_at.verb"),
    ("{p} has just joined {o}", "works_at.joined"),
    ("{p} (from {o}) {v}", "works_at.parenthetical"),
]


@PROPS
@given(form=st.sampled_from(WORKS_FORMS), p=person, o=org, v=verb, pre=filler, end=ending)
def test_an_employer_is_found_in_every_form(form, p, o, v, pre, end):
    template, rule = form
    got = mentions(pre + template.format(p=p, o=o, v=v) + end)
    m = has(got, "works_at", p, o, {rule})
    assert p in m[6]


@PROPS
@given(
    kin=st.sampled_from(["brother", "sister", "cousin", "wife", "husband", "daughter", "mum"]),
    name=st.sampled_from(GIVEN),
    rest=st.sampled_from(["is getting married in June", "can't make it", "will visit"]),
)
def test_a_first_name_after_a_kinship_word_is_a_person(kin, name, rest):
    got = mentions(f"my {kin} {name} {rest}")
    assert ("person.first", name, "person", "is", "person", "kind") in [m[:6] for m in got]


@PROPS
@given(p=unknown_person, cue=st.sampled_from(["cc ", "Dr. ", "looping in ", "our accountant "]))
def test_a_name_no_gazetteer_has_is_a_person_by_its_cue(p, cue):
    got = mentions(f"{cue}{p} on this please.")
    assert has(got, "is", p, rules={"person.context"})


# -- organisations ------------------------------------------------------------------------


@PROPS
@given(
    name=invented,
    form=st.sampled_from(
        [
            "{o} asked for a quote",
            "we met the {o} team yesterday",
            "{o}, a design agency in town, wants a site",
            "{o} (the agency that runs their ads) sent the numbers",
            "{o} can give us a staging URL",
        ]
    ),
)
def test_an_org_without_an_org_word_is_found_by_its_context(name, form):
    got = mentions(form.format(o=name))
    assert has(got, "is", name)[4] == "org"


@PROPS
@given(
    stem=st.tuples(invented, invented).map(" ".join),
    legal=st.sampled_from(["Ltd", "LLC", "GmbH", "LLP", "Pty Ltd", "S.A.", "AB", "Oy", "Inc."]),
)
def test_a_legal_form_makes_an_org(stem, legal):
    got = mentions(f"We signed with {stem} {legal} this week.")
    # a label keeps a dotted form's dots ("S.A.") but not a lone closing one ("Inc.")
    label = f"{stem} {legal if '.' in legal[:-1] else legal.rstrip('.')}"
    assert has(got, "is", label, rules={"org.legal"})


# -- clients ---------------------------------------------------------------------------------


@PROPS
@given(
    o=org,
    form=st.sampled_from(
        [
            "our new client {o} wants a site",
            "{o} is a client now",
            "{o} is our new client.",
            "{o}, a new client, called",
            "new client: {o}. they want dashboards",
            "my new client {o} needs a quote",
        ]
    ),
    pre=filler,
)
def test_a_client_is_found_in_every_form(o, form, pre):
    got = mentions(pre + form.format(o=o))
    m = has(got, "client_of", o)
    assert m[4] == "owner" and o.split()[0] in m[6]


@PROPS
@given(orgs=st.lists(org, min_size=2, max_size=4, unique=True))
def test_a_list_of_clients_gives_each(orgs):
    listed = ", ".join(orgs[:-1]) + " and " + orgs[-1]
    got = mentions(f"invoice run. my {len(orgs)} clients this month: {listed}. hours attached")
    for o in orgs:
        has(got, "client_of", o, rules={"client_of.list"})


# -- deadlines -------------------------------------------------------------------------------


def _spoken(day: date, said: date, style: str) -> str:
    if style == "iso":
        return day.isoformat()
    if style == "dm":
        return f"{day.day} {MONTHS[day.month - 1]}"
    if style == "md":
        return f"{MONTHS[day.month - 1][:3]} {day.day}"
    if style == "wdd":
        return f"{WEEKDAYS[day.weekday()]} {day.day} {MONTHS[day.month - 1]}"
    if style == "wd-paren":
        return f"{WEEKDAYS[day.weekday()]} ({day.day} {MONTHS[day.month - 1]})"
    return WEEKDAYS[day.weekday()]  # a bare weekday: the next one after the turn's date


DEADLINE_FORMS = [
    ("the {s} is due {d}", "deadline.due"),
    ("{s} due by {d}", "deadline.due"),
    ("Lena needs the {s} by {d}", "deadline.by"),
    ("the {s} has to ship by {d}", "deadline.by"),
    ("the deadline for the {s} is {d}", "deadline.deadline"),
    ("the {s} goes live on {d}", "deadline.launch"),
]


@PROPS
@given(
    form=st.sampled_from(DEADLINE_FORMS),
    subject=st.sampled_from(["portal", "forecast pack", "model handover", "booking widget"]),
    said=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 12, 1)),
    ahead=st.integers(min_value=1, max_value=25),
    style=st.sampled_from(["iso", "dm", "md", "wdd", "wd-paren", "wd"]),
    pre=filler,
)
def test_a_deadline_resolves_against_the_turn(form, subject, said, ahead, style, pre):
    if style == "wd":
        ahead = min(ahead, 7)  # a bare weekday means the next one
    day = said.date() + timedelta(days=ahead)
    template, rule = form
    text = pre + template.format(s=subject, d=_spoken(day, said.date(), style))
    got = mentions(text, ts=said.isoformat())
    deadlines = [m for m in got if m[3] == "deadline"]
    assert [(m[0], m[4]) for m in deadlines] == [(rule, day.isoformat())], text
    assert subject.split()[-1] in deadlines[0][6]


# -- code talk gives nothing ------------------------------------------------------------------

camel = st.tuples(
    invented,
    st.sampled_from(
        ["Client", "Service", "Loader", "Manager", "Config", "Handler", "Factory", "Test"]
    ),
).map("".join)
const = st.lists(
    st.sampled_from(["MAX", "API", "KEY", "TIMEOUT", "USER", "DB", "URL"]), min_size=2, max_size=3
).map("_".join)
CODE_FORMS = [
    "class {c}(Base): pass",
    "the {c} times out after {k} retries",
    "rename {c} to {c2} in src/{c}.py",
    "set `{k}` in the env and restart {c}",
    "## {c} and {c2}\nrun `pytest -k {c}`",
    '```\nPerson(name="{p}", org="{o}")\n```',
    "the API client for {c} is flaky; ship it Friday",
    'git commit -m "fix {c}: due Friday"',
    "{c}.{c2}() returns None when {k} is unset",
    "use --{f} with {c}",
]


@PROPS
@given(
    form=st.sampled_from(CODE_FORMS),
    c=camel,
    c2=camel,
    k=const,
    p=person,
    o=org,
    f=st.sampled_from(["dry-run", "no-cache", "force"]),
)
def test_code_talk_with_capitalised_identifiers_gives_nothing(form, c, c2, k, p, o, f):
    text = form.format(c=c, c2=c2, k=k, p=p, o=o, f=f)
    got = mentions(text)
    assert not [m for m in got if m[2] in ("person", "org") or m[3] in ("deadline", "client_of")]


def _texts(bits: list[str], max_size: int) -> st.SearchStrategy[str]:
    """Texts made of pieces from `bits`, joined: where a pattern's edges are met."""
    return st.lists(st.sampled_from(bits), max_size=max_size).map("".join)


# Text built to meet the repo patterns' edges: slugs beside backticks and brackets, keywords
# in any case (with the Kelvin sign and dotted capital I, whose lowercase is not one ASCII
# letter), slashes inside paths and words, and letters no owner may hold.
_SLUG_BITS = [
    "repo", "Repo", "REPOSITORY", "repository", "clone", "CLONE", "fork", "FOR\u212a",
    "\u0130", "\u0131", "the", "our", "is", "called", "named", " set up as ", ":", " ",
    "  ", "\n", "\t", "\u00a0", "/", "//", "`", "(", ")", "#12", ".", "-", "_", "~",
    "@", "acme", "Acme", "churn-model", "tern-gw", "a.b", "x9", "é", "Zürich", ".git",
    "github.com/", "https://", "src", "origin", "acme/tern-gw", "`acme/x`", "a/b",
    "fork a/b", "Fork: a-b/c_d", "clone `x/y`", "REPO at o/n", "repository (acme/x)",
    "acme/x repo", "`o/n` repository", "repo is called tern-gw", "repo: plots-web",
    "repo will be a-b", "pros/cons", "acme/x#3",
]  # fmt: skip


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(_SLUG_BITS, 16))
def test_repo_patterns_tried_at_their_starts_find_what_finditer_finds(text):
    from vyre.extract import rules

    lower = text.lower()
    for pattern, starts in (
        (rules._REPO_SLUG, rules._found_at(lower, rules._SLUG_WORDS)),
        (rules._REPO_SLUG_PAREN, rules._found_at(lower, ("repo",))),
        (rules._REPO_CALLED, rules._found_at(lower, ("repo",))),
        (rules._REPO_SLUG_BEFORE, rules._owners_at(text, rules._SLUG_OWNER, "`")),
        (rules._REPO_BARE, rules._owners_at(text, rules._BARE_OWNER, "")),
    ):
        by_owner = pattern in (rules._REPO_SLUG_BEFORE, rules._REPO_BARE)
        if not by_owner and len(lower) != len(text):
            continue  # the caller reads such a text with finditer
        want = [(m.span(), m.groupdict()) for m in pattern.finditer(text)]
        got = [(m.span(), m.groupdict()) for m in rules._matches_from(pattern, text, starts)]
        assert got == want, (pattern.pattern, text)


def test_repos_in_a_text_whose_lowercase_is_longer_are_still_found():
    # U+0130 lowercases to two characters: the keywords' places are not looked up there
    found = extract("agent", "text", "\u0130stanbul: the repo is acme/tern-gw on GitHub.", None)
    assert ("repo.slug", "acme/tern-gw") in {(m[0], m[1]) for m in found}


_CUE_BITS = [
    "she", "She", "SHE", "\u017fhe", "he", "He", "they", "THEY", "the", "'s", "’s", " is",
    " are", "'re", "’re", " ", "  ", "\n", "\t", "\u00a0", ",", "(", "a", "an", "the",
    "their", "our", "my", "Caroline", "Dana", ":", ": ", ":\n", "x", "\u0130", ".",
    "tHEY", "hey", "heY", "t", "S", "\u017f", "e", "E", "y", "Łukasz", "Σοφία", "\n\n",
]  # fmt: skip


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(_CUE_BITS, 16))
def test_cue_patterns_tried_at_their_letters_find_what_search_finds(text):
    from vyre.extract import rules

    lower = text.lower()
    pronoun = rules._PRONOUN_CUE.search(text) is not None
    assert rules._cue_at(rules._PRONOUN_CUE, text, "hH", 1) == pronoun, text
    assert rules._PRONOUN_HE.search(text) is not None or not pronoun, text  # a first look
    appositive = rules._APPOSITIVE_CUE.search(lower) is not None
    assert rules._cue_at(rules._APPOSITIVE_CUE, lower, ",(", 0) == appositive, text
    want = [m.span() for m in rules._SPEAKER.finditer(text)]
    starts = rules._capital_lines(text)
    assert [m.span() for m in rules._matches_from(rules._SPEAKER, text, starts)] == want, text


# -- the deadline patterns read from their tail: the same matches as reading every word ------

_PHRASE_WORDS = st.sampled_from(
    [
        *"the board pack report portal site it Q4 forecast re-do O'Neil's naïve ﬁle x_y 2027 is "
        "are 's now still due deadline launches ships goes live has have needs must should to be "
        "ready done shipped by before on for then 14 March 3rd Friday next week".split(),
        "is due on 14 March",
        "due by Friday",
        "has to ship by 3 March",
        "needs to be ready by then",
        "must be done before 2027-03-14",
        "deadline is on Friday for the pack",
        "launches on 14 March",
        "goes live next week",
        "ships by Friday",
        "wants the pack by Friday",
    ]
)
_GAPS = st.sampled_from([" ", "  ", "\n", "\t", "\u00a0", "\u2003", ", ", ". ", "-", "'", "."])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_PHRASE_WORDS, _GAPS), min_size=1, max_size=40), st.data())
def test_deadline_patterns_read_from_their_tail_find_the_same_matches(words, data) -> None:
    from vyre.extract import rules

    text = "".join(w + g for w, g in words)
    hi = data.draw(st.integers(0, len(text)))
    # every start a sentence span can have in a word's neighbourhood, and a drawn one
    los = {i for i in range(len(text)) if i == 0 or not text[i - 1].isalnum()}
    los.add(data.draw(st.integers(0, len(text))))
    patterns = [(p, t) for _, _, p, t in rules._DEADLINE_TAILS]
    patterns.append((rules._BY_THEN, rules._BY_THEN_TAIL))
    assert any(t is not None for _, t in patterns)
    found = 0
    for lo in sorted(los):
        for end in {hi, len(text)}:
            for pattern, tail in patterns:
                want = [(m.span(), m.groupdict()) for m in pattern.finditer(text, lo, end)]
                got = [
                    (m.span(), m.groupdict()) for m in rules._finditer(pattern, tail, text, lo, end)
                ]
                assert got == want, (pattern.pattern[:60], lo, end)
                found += len(want)
    note(f"matches: {found}")


# -- what the rules read once for every family: the same as reading it as they did -----------

_TOKEN_BITS = [
    "Ana", "Łukasz", "Şahin", "Ōshima", "Σοφία", "Жанна", "ǅ", "O'Neil", "O’Neil", "Jean-Luc",
    "IBM", "Auth0", "S.p.A.", "S.r.l.", "K.K.", "M.", "S.", "A.", "&", "&&", "'s", "’s", "-",
    "'", "’", ".", "..", "x", "ab", "9", "_", " ", "  ", "\u00a0", "\u2003", "\n", "\t", ",",
    "Co.", "Ltd", "GmbH & Co. KG", "Pty Ltd", "S. A.", "é", "Ab", "s",
]  # fmt: skip
_OLD_TOKEN = (
    r"[{up}]\.(?:[{lo}{up}]{{1,2}}\.)+|[{up}][\w'’-]*[\w]|[{up}]\.|&"  # before one first class
)


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(_TOKEN_BITS, 20))
def test_the_tokens_read_once_are_the_tokens_and_gaps_the_rules_read(text):
    import re

    from vyre.extract import rules

    old = re.compile(_OLD_TOKEN.format(up=rules._UP, lo=rules._LO))
    found = list(old.finditer(text))
    tokens = rules._Tokens(text)
    assert [(m.start(), m.end()) for m in found] == list(
        zip(tokens.starts, tokens.ends, strict=True)
    )
    assert [m.group() for m in found] == tokens.raws
    assert [rules._bare(m.group()) for m in found] == tokens.words
    for i in range(1, len(found)):
        gap = text[found[i - 1].end() : found[i].start()]
        assert tokens.adj[i] == (gap in (" ", "\u00a0")), (text, i)
        assert tokens.loose(i) == (gap in (" ", "", ".", ". ")), (text, i)
    assert tokens.adj[:1] == [False] * (len(found) > 0)  # the first stands after none
    assert tokens.n == len(found) == len(tokens.adj)


_PROSE_BITS = [
    "```", "``", "`", "```py\n", "code", "\n", " ", "\t", "> ", ">", ">>>", " > > ", "a > b",
    "=>", "x", "Ana", "\n> quoted", "\n  >", "<b>", "</b>", "<system-reminder>", "#", "# h",
    "[Acme](https://acme.com)", "é", "\u00a0", "\r\n",
]  # fmt: skip


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_texts(_PROSE_BITS, 20))
def test_prose_blanks_what_it_blanked_before(raw):
    import re

    from vyre.extract import text as prose

    old_fence = re.compile(r"```.*?(?:```|\Z)", re.S)
    assert [m.span() for m in prose._FENCE.finditer(raw)] == [
        m.span() for m in old_fence.finditer(raw)
    ]

    def old_blank(match: re.Match) -> str:
        return "\n".join(" " * len(line) for line in match.group(0).split("\n"))

    assert old_fence.sub(old_blank, raw) == prose._FENCE.sub(prose._blank, raw)
    # the first look for a quote mark misses none
    looked = bool(prose._QUOTE_FIRST.match(raw) or prose._QUOTE_START.search(raw))
    assert looked or not prose._QUOTE_MARK.search(raw), raw
    p = prose.Prose(raw)
    assert p.lower == p.text.lower() and p.code_lower == p.with_code.lower()


_DOMAIN_BITS = [
    "acme", "Acme", "co", "uk", ".", "..", ".io", ".CO", "x9", "-", "_", ":", "/", "//", "@",
    "https://", "www.", " ", "\n", "é", "ß", "٣", "e.g.", "main.py", "a.b.c", "…", "~",
]  # fmt: skip


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(_DOMAIN_BITS, 20))
def test_domains_read_in_their_runs_are_what_finditer_finds(text):
    from vyre.extract import rules

    want = [(m.span(), m.groupdict()) for m in rules._DOMAIN.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in rules._domain_matches(text)] == want, text


_VERB_BITS = [
    *_ORG_VERB_CUES,
    "QUOTE", "Paid", "give", "us", "sen", "t", "signe", "d", "approve", "quot", " ", "\n", "-",
    "\u0130", "\u212a", "é", "x",
]  # fmt: skip


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
@given(text=_texts(_VERB_BITS, 8))
def test_the_org_verb_first_look_is_the_cue_words_one_by_one(text):
    from vyre.extract import rules

    lower = text.lower()
    verb_cue = any(c in lower for c in rules._ORG_VERB_CUES)
    assert (rules._ORG_VERB_CUE.search(lower) is not None) == verb_cue
