"""Named extraction rules: entities and relations in one turn's text, no model.

Each mention is (rule, subject, subject_kind, rel, object, object_kind, quote). Entities are
mentions with rel `is` (object: the kind). What must stay true:
- Only the person's typed words and the assistant's own text are read; never tool output
  (except `git remote -v`, for `repo_for` only), injected context, commands or sidechains.
- Personal relations (deadline, client_of from words, prefers, decided) come only from the
  person's own words.
- A rule's name never changes once facts carry it: `vyre why` and corrections cite it.
- Fenced code is not prose: names in code samples are not mentions.
"""

from __future__ import annotations

import re
from datetime import datetime

from vyre.extract import dates
from vyre.extract.lexicon import (
    AMBIGUOUS_FIRST,
    FIRST_NAMES,
    IGNORED_DOMAINS,
    KNOWN_ORGS,
    ORG_WORDS,
    STOP_CAPS,
    TITLE_HEADS,
    TLDS,
    words,
)

# Bump when a rule changes what it finds: stored mentions are then recomputed from turns.
RULES_VERSION = "4"

QUOTE_CHARS = 160

# -- building blocks -------------------------------------------------------------------------

_UP = "A-ZÀ-ÖØ-Þ"
_LO = "a-zß-öø-ÿ"
_CAP = rf"[{_UP}][{_UP}{_LO}'’-]*[{_LO}]"
_TOKEN = re.compile(rf"{_CAP}(?:['’]s)?|[{_UP}]\.|&")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_HEADS = "|".join(sorted((re.escape(h) for h in TITLE_HEADS), key=len, reverse=True))
_NOT_LINK = r"(?!(?:at|for|with|in|on|from)\b)"
_TITLE = (
    rf"(?P<title>(?:[A-Za-z][\w-]*\s+){{0,3}}(?i:{_HEADS})"
    rf"(?:\s+of\s+{_NOT_LINK}[a-z][\w-]*(?:\s+{_NOT_LINK}[a-z][\w-]*)?)?)(?![\w-])"
)
_ORG = r"(?P<org>(?:[A-Z][\w'’.-]*|&)(?:[ \t]+(?:[A-Z][\w'’.-]*|&|and|of))*)"
_EMAIL = r"(?<![\w.+-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![\w-])"
EMAIL_RE = re.compile(_EMAIL)
_FUNCTION_WORDS = words("""
who is was are and or but the a an our their my at for with to in on by from as be
been he she they it this that what which
""")

_AFTER_PERSON = [
    (
        "has_title.appositive",
        re.compile(
            rf",\s+(?:(?:the|our|their|a|an|my)\s+)?{_TITLE}"
            rf"(?:\s+(?:at|of|for|with)\s+(?:the\s+)?{_ORG})?"
        ),
    ),
    (
        "has_title.parenthetical",
        re.compile(
            rf"\s*\((?:(?:the|our|their|a|an)\s+)?{_TITLE}(?:\s+(?:at|of|for)\s+(?:the\s+)?{_ORG})?\)"
        ),
    ),
    (
        "has_title.is",
        re.compile(
            rf"\s+(?:is|was)\s+(?:now\s+)?(?:the|our|their|a|an)\s+{_TITLE}"
            rf"(?:\s+(?:at|of|for|with)\s+(?:the\s+)?{_ORG})?"
        ),
    ),
    ("works_at.from", re.compile(rf"\s+(?:from|of)\s+(?:the\s+)?{_ORG}")),
    ("works_at.at", re.compile(rf"\s+(?:at|@)\s+(?:the\s+)?{_ORG}")),
    (
        "works_at.verb",
        re.compile(
            rf",?\s+(?:who\s+)?(?:now\s+|still\s+|also\s+)?(?:works|worked|is working|is|was)\s+"
            rf"(?:now\s+)?(?:at|for|with)\s+(?:the\s+)?{_ORG}"
        ),
    ),
    ("works_at.joined", re.compile(rf"\s+(?:has\s+)?(?:just\s+)?joined\s+(?:the\s+)?{_ORG}")),
]
_ADDRESS_AFTER = re.compile(
    r"\s*(?:[<(\[]\s*|:\s*|\s+(?:at|is|on|-|–)\s+|['’]s\s+(?:e-?mail|address)(?:\s+address)?"
    rf"\s+is\s+){_EMAIL}"
)
_TITLE_BEFORE = re.compile(rf"(?:^|\s)(?:the|our|their|my)\s+{_TITLE},?\s+$")

_DATE = dates.DATE
_NP = r"(?P<subj>(?:[\w'-]+\s+){0,3}?[\w'-]+)"
_DEADLINES = [
    (
        "deadline.due",
        re.compile(
            rf"\b{_NP}\s+(?:is|are|'s|’s)\s+(?:now\s+|still\s+)?due\s+(?:on\s+|by\s+)?{_DATE}", re.I
        ),
    ),
    ("deadline.due", re.compile(rf"\b{_NP}\s+due\s+(?:on|by)\s+{_DATE}", re.I)),
    (
        "deadline.deadline",
        re.compile(
            rf"\bdeadline\s+(?:is\s+|'s\s+)(?:on\s+|by\s+)?{_DATE}\s+for\s+(?:the\s+|our\s+|my\s+)?"
            r"(?P<subj>[\w'-]+(?:\s+[\w'-]+)?)",
            re.I,
        ),
    ),
    (
        "deadline.deadline",
        re.compile(rf"\b{_NP}\s+deadline\s+(?:is\s+)?(?:on\s+|by\s+)?{_DATE}", re.I),
    ),
    (
        "deadline.deadline",
        re.compile(
            rf"\bdeadline\s+(?:for\s+{_NP}\s+)?(?:is\s+|'s\s+)?(?:on\s+|by\s+)?{_DATE}", re.I
        ),
    ),
    (
        "deadline.launch",
        re.compile(rf"\b{_NP}\s+(?:launches|goes\s+live)\s+(?:on\s+|by\s+)?{_DATE}", re.I),
    ),
    (
        "deadline.launch",
        re.compile(rf"\blaunch(?:\s+date)?\s+is\s+(?:on\s+|set\s+for\s+)?{_DATE}", re.I),
    ),
    ("deadline.ship", re.compile(rf"\b{_NP}\s+ships\s+(?:on|by)\s+{_DATE}", re.I)),
]
_NP_STOPS = words("""
the our my this that a an their your his her its says said thinks so and but if because
when then now also
""")

# "client" as in a customer, not a client library, app or id
_CLIENT_NOUN = (
    r"client\b(?!\s*(?:library|libraries|lib|side|app|sdk|package|code|id|secret|key|cert))"
)
_CLIENT = [  # (pattern, whether the org is the last run of names before the cue)
    (
        re.compile(
            rf"\b[Oo]ur\s+(?:new\s+|newest\s+|biggest\s+|first\s+)?{_CLIENT_NOUN},?\s+{_ORG}"
        ),
        False,
    ),
    (
        re.compile(rf"{_ORG}\s+(?:is|are)\s+(?:now\s+)?(?:a|an|our)\s+(?:new\s+)?{_CLIENT_NOUN}"),
        True,
    ),
    (re.compile(rf"{_ORG},\s+(?:a|an|our)\s+(?:new\s+)?{_CLIENT_NOUN}"), True),
]
_PREFERS = re.compile(
    r"\bI\s+(?:really\s+|much\s+|strongly\s+|always\s+)?prefer\s+(?P<obj>[^.!?\n]{3,100})"
    r"|\bI(?:'d|’d| would)\s+(?:much\s+)?rather\s+(?P<obj2>[^.!?\n]{3,100})"
)
_DECIDED = re.compile(
    r"\b(?:[Ww]e|I)(?:\s+have|'ve|’ve)?\s+(?:just\s+)?decided\s+(?:to\s+|on\s+|that\s+)?"
    r"(?P<obj>[^.!?\n]{3,100})"
    r"|\b[Ww]e(?:'re|’re| are)\s+going\s+with\s+(?P<obj2>[^.!?\n]{3,100})"
)

_REPO_URL = re.compile(
    r"(?:https?://|ssh://git@|git@)(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)[/:]"
    r"(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?(?=[/\s)\]\"'>,;:#?]|\.?$|\.\s)"
)
_REPO_SLUG = re.compile(
    r"\b(?i:repo|repository|clone|fork)\s+(?:is\s+|at\s+|called\s+|named\s+)?`?"
    r"(?P<owner>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_.-]*[A-Za-z0-9_-])`?"
)
_REPO_SLUG_BEFORE = re.compile(
    r"`?(?<![\w/.-])(?P<owner>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_.-]*[A-Za-z0-9_-])`?"
    r"\s+(?:repo|repository)\b"
)
_REPO_BARE = re.compile(
    r"(?<![\w/.~@:-])(?P<owner>[a-z0-9][a-z0-9_-]*)/(?P<name>[a-z0-9][a-z0-9_-]*[a-z0-9])(?![\w/.-])"
)
_NOT_OWNERS = words("""
orgs settings features about topics search marketplace sponsors login apps src lib
app docs test tests bin usr home etc var tmp origin upstream feature fix bugfix hotfix
release main master dev node_modules public static assets dist build scripts config
""")
# "requirements.in", "Dockerfile.dev", "MANIFEST.in": file names, not domains
FILE_STEMS = words("""
requirements manifest dockerfile makefile procfile gemfile package setup config index main
app readme license changelog tsconfig settings local test tests constraints env
""")
_PAIRS = words("and/or read/write client/server input/output true/false yes/no on/off his/her")
_GIT_REMOTE = re.compile(r"^\S+\s+(?P<url>\S+)\s+\((?:fetch|push)\)\s*$", re.M)
_DOMAIN = re.compile(
    r"(?<![@\w.-])(?:https?://)?(?:www\.)?(?P<domain>(?:[a-z0-9][a-z0-9-]*\.)+(?P<tld>[a-z]{2,}))"
    r"(?![\w-]|\.[a-z0-9])",
    re.I,
)


# -- the entry point --------------------------------------------------------------------------


def extract(by: str, kind: str, text: str, ts: str | None, *, sidechain: bool = False) -> list:
    """Mentions in one turn, given who wrote it (see the module docstring for the trust rules)."""
    if sidechain or by in ("program",):
        return []
    if by == "tool":
        return _git_remotes(text) if "(fetch)" in text else []
    if kind != "text" or by not in ("person", "agent"):
        return []
    prose = _FENCE.sub(" ", text) if "```" in text else text
    out: list[tuple] = []
    # Cheap substring checks first: most turns are code talk that names nobody.
    tokens = list(_TOKEN.finditer(prose))
    persons = _persons(prose, tokens, out)
    _orgs(prose, tokens, out)
    if "@" in prose:
        _addresses(prose, persons, out)
    if "." in prose:
        _domains(prose, out)
    if "/" in prose:
        _repos(prose, out)
    _person_relations(prose, persons, out)
    if by == "person":
        lower = prose.lower()
        if _DEADLINE_CUES.search(lower):
            said = datetime.fromisoformat(ts) if ts else None
            _deadlines(prose, said, out)
        if "client" in lower:
            _clients(prose, out)
        if _CHOICE_CUES.search(lower):
            _choices(prose, out)
    return _unique(out)


_DEADLINE_CUES = re.compile("due|deadline|launch|ships|live")
_CHOICE_CUES = re.compile("prefer|rather|decided|going with")


# -- people -----------------------------------------------------------------------------------


def _persons(text: str, tokens: list[re.Match], out: list) -> list[tuple[int, int, str]]:
    """Find people; returns their spans (start, end, label). Short forms are labelled alone."""
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        word = _bare(tok.group())
        if word in FIRST_NAMES and not _skip_first(text, tok, word):
            j, middle = i + 1, ""
            if (
                j < len(tokens)
                and _adjacent(text, tokens[j - 1], tokens[j])
                and re.fullmatch(rf"[{_UP}]\.", tokens[j].group())
            ):
                middle, j = tokens[j].group(), j + 1
            if (
                j < len(tokens)
                and _adjacent(text, tokens[j - 1], tokens[j])
                and _surname(tokens[j].group())
            ):
                last = _bare(tokens[j].group())
                label = " ".join(p for p in (word, middle, last) if p)
                end = tokens[j].start() + len(last)
                found.append((tok.start(), end, label))
                out.append(_is("person.name", label, "person", _quote(text, tok.start(), end)))
                i = j + 1
                continue
            if not middle and not _next_is_org_word(text, tokens, i):
                end = tok.start() + len(word)
                found.append((tok.start(), end, word))
                out.append(_is("person.short", word, "person", _quote(text, tok.start(), end)))
        elif _could_be_name(word) and i + 1 < len(tokens):
            nxt = tokens[i + 1]
            if _adjacent(text, tok, nxt) and _surname(nxt.group()) and _could_be_name(word):
                last = _bare(nxt.group())
                end = nxt.start() + len(last)
                if _person_context(text, end):
                    label = f"{word} {last}"
                    found.append((tok.start(), end, label))
                    out.append(
                        _is("person.context", label, "person", _quote(text, tok.start(), end))
                    )
                    i += 2
                    continue
        i += 1
    return found


def _skip_first(text: str, tok: re.Match, word: str) -> bool:
    return word in AMBIGUOUS_FIRST and _sentence_start(text, tok.start())


def _surname(raw: str) -> bool:
    word = _bare(raw)
    return (
        len(word) > 1
        and not word.endswith(".")
        and word not in STOP_CAPS
        and word not in ORG_WORDS
        and word[0].isupper()
        and any(c.islower() for c in word)
    )


def _could_be_name(word: str) -> bool:
    return (
        word not in STOP_CAPS
        and word not in ORG_WORDS
        and word != "&"
        and not word.endswith(".")
        and any(c.islower() for c in word)
    )


def _person_context(text: str, end: int) -> bool:
    """A capitalised pair not in the name list is a person only in a person's context."""
    rest = text[end : end + 120]
    if _ADDRESS_AFTER.match(rest):
        return True
    m = _AFTER_PERSON[0][1].match(rest) or _AFTER_PERSON[1][1].match(rest)
    if m and _good_title(m.group("title")):
        return True
    m = _AFTER_PERSON[3][1].match(rest) or _AFTER_PERSON[4][1].match(rest)
    return bool(m and _clean_org(m.group("org")) and _has_org_word(m.group("org")))


def _next_is_org_word(text: str, tokens: list, i: int) -> bool:
    return (
        i + 1 < len(tokens)
        and _adjacent(text, tokens[i], tokens[i + 1])
        and _bare(tokens[i + 1].group()) in ORG_WORDS
    )


def _person_relations(text: str, persons: list, out: list) -> None:
    for start, end, label in persons:
        rest = text[end : end + 160]
        for rule, pattern in _AFTER_PERSON:
            m = pattern.match(rest)
            if not m:
                continue
            quote = _quote(text, start, end + m.end())
            groups = m.groupdict()
            title = groups.get("title")
            if title is not None:
                if not _good_title(title):
                    continue
                out.append((rule, label, "person", "has_title", _title(title), "value", quote))
            org = _clean_org(groups.get("org"))
            if org:
                org_rule = rule if rule.startswith("works_at") else "works_at.appositive"
                out.append((org_rule, label, "person", "works_at", org, "org", quote))
                out.append(_is("org.context", org, "org", quote))
            if title is not None or org:
                break
        before = _TITLE_BEFORE.search(text[max(0, start - 60) : start])
        if before and _good_title(before.group("title")):
            quote = _quote(text, start - len(before.group(0)), end)
            out.append(
                (
                    "has_title.preceding",
                    label,
                    "person",
                    "has_title",
                    _title(before.group("title")),
                    "value",
                    quote,
                )
            )


def _good_title(title: str) -> bool:
    words = title.lower().split()
    head_at = (
        max(i for i, w in enumerate(words) if w in TITLE_HEADS)
        if any(w in TITLE_HEADS for w in words)
        else -1
    )
    return head_at >= 0 and not any(w in _FUNCTION_WORDS for w in words[:head_at])


def _title(title: str) -> str:
    return " ".join(title.lower().split())


# -- organisations -----------------------------------------------------------------------------


def _orgs(text: str, tokens: list[re.Match], out: list) -> None:
    """Capitalised names that end in an org word: "Keel & Ash Architects", "Summit Dental"."""
    for i, tok in enumerate(tokens):
        if _bare(tok.group()) not in ORG_WORDS:
            continue
        if (
            i + 1 < len(tokens)
            and _adjacent(text, tok, tokens[i + 1])
            and _bare(tokens[i + 1].group()) in ORG_WORDS
        ):
            continue  # the longer name ends later ("Harlow Law Group")
        k = i
        while k > 0 and i - k < 4 and _adjacent(text, tokens[k - 1], tokens[k]):
            prev = _bare(tokens[k - 1].group())
            if prev in STOP_CAPS or prev.endswith("."):
                break
            k -= 1
        while k < i and tokens[k].group() == "&":
            k += 1
        names = [_bare(t.group()) for t in tokens[k:i]]
        if not any(n not in ORG_WORDS and n != "&" for n in names):
            continue
        end = tok.start() + len(_bare(tok.group()))
        label = _squash(text[tokens[k].start() : end])
        out.append(_is("org.suffix", label, "org", _quote(text, tokens[k].start(), end)))
    for tok in tokens:
        word = _bare(tok.group())
        if word in KNOWN_ORGS:
            out.append(_is("org.known", word, "org", _quote(text, tok.start(), tok.end())))


def _clean_org(raw: str | None, *, last: bool = False) -> str | None:
    """Trim a captured org phrase: stop at a stop word, drop trailing links and punctuation.

    With `last`, the org is the last clean run of names (it comes right before its cue, as
    in "... Friday. Summit Dental is our new client"); otherwise the first.
    """
    if not raw:
        return None
    words: list[str] = []
    for word in raw.split():
        bare = _bare(word.rstrip(".,;:!?"))
        ends = word.endswith((".", ",", ";", ":", "!", "?", "'s", "’s")) and bare not in (
            "Inc",
            "Co",
        )
        if bare in STOP_CAPS or (words and bare[:1].islower() and bare not in ("and", "of")):
            if last:
                words = []
                continue
            break
        if last and ends:
            words = []
            continue
        words.append(bare)
        if ends or len(words) == 5:
            break
    while words and words[-1] in ("&", "and", "of"):
        words.pop()
    if not words or words[0] in ("&", "and", "of"):
        return None
    if len(words) == 1 and words[0] in FIRST_NAMES:
        return None  # "a note from Priya at Dana's": a person, not an org
    return " ".join(words)


def _has_org_word(raw: str) -> bool:
    return any(_bare(w.rstrip(".,;:")) in ORG_WORDS for w in raw.split())


def _clients(text: str, out: list) -> None:
    for pattern, last in _CLIENT:
        for m in pattern.finditer(text):
            org = _clean_org(m.group("org"), last=last)
            if not org:
                continue
            quote = _quote(text, m.start(), m.end())
            out.append(("client_of.words", org, "org", "client_of", "owner", "owner", quote))
            out.append(_is("org.context", org, "org", quote))


# -- addresses, domains, repos ----------------------------------------------------------------


def _addresses(text: str, persons: list, out: list) -> None:
    for m in EMAIL_RE.finditer(text):
        address = m.group(1).lower().rstrip(".")
        domain = address.rsplit("@", 1)[1]
        if domain in IGNORED_DOMAINS or address.startswith(("git@", "noreply", "no-reply")):
            continue
        quote = _quote(text, m.start(), m.end())
        out.append(_is("address.email", address, "address", quote))
        out.append(_is("domain.email", domain, "domain", quote))
    for start, end, label in persons:
        after = _ADDRESS_AFTER.match(text, end)
        if after:
            address = after.group(1).lower().rstrip(".")
            if address.rsplit("@", 1)[1] in IGNORED_DOMAINS:
                continue
            out.append(
                (
                    "has_address.adjacent",
                    label,
                    "person",
                    "has_address",
                    address,
                    "address",
                    _quote(text, start, after.end()),
                )
            )


def _domains(text: str, out: list) -> None:
    for m in _DOMAIN.finditer(text):
        domain = m.group("domain").lower()
        if m.group("tld").lower() not in TLDS or domain in IGNORED_DOMAINS:
            continue
        if any(domain.endswith("." + d) for d in IGNORED_DOMAINS):
            continue
        labels = domain.split(".")
        if len(labels[-2]) < 2 or labels[-2].isdigit() or labels[-2] in FILE_STEMS:
            continue
        out.append(_is("domain.bare", domain, "domain", _quote(text, m.start(), m.end())))


def _repos(text: str, out: list) -> None:
    for rule, pattern in (
        ("repo.url", _REPO_URL),
        ("repo.slug", _REPO_SLUG),
        ("repo.slug", _REPO_SLUG_BEFORE),
        ("repo.bare", _REPO_BARE),
    ):
        for m in pattern.finditer(text):
            owner, name = m.group("owner"), m.group("name").removesuffix(".git")
            if owner.lower() in _NOT_OWNERS or not name or name in (".", ".."):
                continue
            if f"{owner}/{name}".lower() in _PAIRS:
                continue
            out.append(_is(rule, f"{owner}/{name}", "repo", _quote(text, m.start(), m.end())))


def _git_remotes(text: str) -> list:
    """`git remote -v` output in a tool result: the workspace's repo (for repo_for only)."""
    out = []
    for m in _GIT_REMOTE.finditer(text):
        url = _REPO_URL.search(m.group("url") + " ")
        if not url:
            continue
        repo = f"{url.group('owner')}/{url.group('name').removesuffix('.git')}"
        quote = _squash(m.group(0))[:QUOTE_CHARS]
        out.append(("repo.git_remote", repo, "repo", "git_remote", "workspace", "workspace", quote))
    return _unique(out)


# -- the person's own: deadlines, preferences, decisions -------------------------------------------


def _deadlines(text: str, said: datetime | None, out: list) -> None:
    days: set = set()
    for rule, pattern in _DEADLINES:
        for m in pattern.finditer(text):
            day = dates.resolve(m, said)
            if day is None or day in days:
                continue  # one deadline per date and turn: the first rule that read it
            days.add(day)
            subject = _deadline_subject(rule, m.groupdict().get("subj"))
            quote = _quote(text, m.start(), m.end())
            out.append((rule, subject, "thing", "deadline", day.isoformat(), "date", quote))


def _deadline_subject(rule: str, np: str | None) -> str:
    """What is due, in the person's words: "the booking widget ships" -> booking widget;
    a launch keeps the word ("the site launches" -> site launch)."""
    words = (np or "").lower().split()
    cut = [i for i, w in enumerate(words) if w in _NP_STOPS]
    if cut:  # "Marcus says the intranet launch" -> intranet launch
        words = words[cut[-1] + 1 :]
    while words and words[-1] in ("is", "are", "'s", "’s", "was", "now", "still"):
        words.pop()
    words = [w for w in words if w not in ("it", "this", "that", "everything", "which", "and")]
    words = words[-3:]
    if rule == "deadline.launch":
        return " ".join([*words, "launch"]) if words and words[-1] != "launch" else "launch"
    if rule == "deadline.ship" and not words:
        return "release"
    return " ".join(words) or "deadline"


def _choices(text: str, out: list) -> None:
    for rule, rel, pattern in (
        ("prefers.words", "prefers", _PREFERS),
        ("decided.words", "decided", _DECIDED),
    ):
        for m in pattern.finditer(text):
            value = (m.group("obj") or m.group("obj2") or "").strip(" ,;:-")
            if len(value) < 3:
                continue
            out.append(
                (rule, "owner", "owner", rel, value, "value", _quote(text, m.start(), m.end()))
            )


# -- helpers ------------------------------------------------------------------------------------


def _is(rule: str, label: str, kind: str, quote: str) -> tuple:
    return (rule, label, kind, "is", kind, "kind", quote)


def _bare(word: str) -> str:
    """A token without a possessive ending."""
    return word[:-2] if word.endswith(("'s", "’s")) else word


def _adjacent(text: str, a: re.Match, b: re.Match) -> bool:
    return text[a.end() : b.start()] in (" ", "\u00a0")


def _sentence_start(text: str, pos: int) -> bool:
    before = text[:pos].rstrip(" \t\"'“(*_-#>")
    return not before or before[-1] in ".!?:\n"


def _squash(text: str) -> str:
    return " ".join(text.split())


def _quote(text: str, start: int, end: int) -> str:
    """The sentence around [start, end), clipped to 160 characters around the match."""
    stops = [m.start() for m in _SENTENCE_END.finditer(text)]
    left = max((i for i in stops if i < start), default=-1) + 1
    right = min((i for i in stops if i >= end), default=len(text) - 1) + 1
    sentence = text[left:right]
    if len(sentence) > QUOTE_CHARS:
        mid = (start + end) // 2 - left
        lo = max(0, min(mid - QUOTE_CHARS // 2, len(sentence) - QUOTE_CHARS))
        sentence = sentence[lo : lo + QUOTE_CHARS]
    return _squash(sentence)[:QUOTE_CHARS]


_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


def _unique(mentions: list) -> list:
    seen, out = set(), []
    for m in mentions:
        key = m[:6]
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out
