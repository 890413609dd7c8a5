"""Named extraction rules: entities and relations in one turn's text, no model.

Each mention is (rule, subject, subject_kind, rel, object, object_kind, quote). Entities are
mentions with rel `is` (object: the kind). What must stay true:
- Only the person's typed words and the assistant's own text are read; never tool output
  (except `git remote -v`, for `repo_for` only), injected context, commands or sidechains.
- Personal relations (deadline, client_of from words, prefers, decided) come only from the
  person's own words.
- A rule's name never changes once facts carry it: `vyre why` and corrections cite it.
- Code is not prose: fenced and inline code, markup blocks, pasted log lines and headings are
  blanked before the name rules read (vyre/extract/text.py).
- Every rule is linear in its text: patterns are matched once over the turn, and what a rule
  reads around a name is a bounded window (text.LOOK_BACK before, AFTER_CHARS after).

How a person is found (README "Extraction"): a given name from the gazetteer followed by a
surname-like word (`person.name`); any two capitalised words in a person's context: a title
appositive, an address, "from / at / over at" an org, an honorific, a title or a kinship word
before, "cc" (`person.context`); a given name alone (`person.short`, which resolves only to
one full name in the room); a first name with a cue that it is a person even with no surname
anywhere ("my brother Mateo", "Siobhan's grandparents", a speaker label "Caroline: ...") as
`person.first`; a nickname stated next to a full name ("goes by Ada") as `person.nickname`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache

from vyre.extract import dates, gazetteer
from vyre.extract.compiled import Patterns, longest_first
from vyre.extract.lexicon import (
    AMBIGUOUS_FIRST,
    DATA_EXTENSIONS,
    DEPARTMENTS,
    FILE_EXTENSIONS,
    HONORIFICS,
    IGNORED_DOMAINS,
    KINSHIP,
    NAME_PARTICLES,
    NOT_SURNAMES,
    ORG_NOUNS,
    ORG_WORDS,
    STOP_CAPS,
    TITLE_HEADS,
    words,
)
from vyre.extract.text import QUOTE_CHARS, Prose, sentence_start, squash
from vyre.extract.version import RULES_VERSION  # bump it there when a rule here changes
from vyre.wording import clip

_patterns = Patterns.beside(__file__)  # compiled once per install, not per process
_re = _patterns.compile

__all__ = ["QUOTE_CHARS", "RULES_VERSION", "extract"]

AFTER_CHARS = 160  # what a rule reads after a name
MAX_TEXT = 200_000  # a turn longer than this is read up to here (pasted dumps, generated text)

# -- building blocks -------------------------------------------------------------------------


def _letters(upper: bool) -> str:
    """A character class body of every upper (or lower) case letter in the Latin, Greek and
    Cyrillic blocks: names are written Łukasz, Şahin, Đặng, Ōshima and Ångström, not ASCII."""
    blocks = [(0x41, 0x24F), (0x370, 0x52F), (0x1E00, 0x1EFF)]
    chars = [
        chr(c)
        for lo, hi in blocks
        for c in range(lo, hi + 1)
        if (chr(c).isupper() if upper else chr(c).islower()) and chr(c).isalpha()
    ]
    ranges: list[str] = []
    start = prev = None
    for ch in chars:
        if prev is not None and ord(ch) == ord(prev) + 1:
            prev = ch
            continue
        if start is not None:
            ranges.append(start if start == prev else f"{start}-{prev}")
        start = prev = ch
    if start is not None:
        ranges.append(start if start == prev else f"{start}-{prev}")
    return "".join(ranges)


_UP = _letters(upper=True)
_LO = _letters(upper=False)
# A capitalised token: names ("Priya", "O'Neil", "Jean-Luc"), and org names that are
# all-caps or carry digits ("IBM", "OpenAI", "Auth0"); a dotted legal form, lowercase letters
# and all ("S.r.l.", "S.p.A.", "K.K."); an initial ("M."); "&". Written as one class of first
# characters, then the alternatives in their order (after "&", the lookbehind ends it at
# once; after a capital it never holds): the same matches as
# `[UP]\.(?:[LO UP]{1,2}\.)+|[UP][\w'’-]*\w|[UP]\.|&`, but `re` then skips to each capital
# with its first-character scan instead of trying every alternative at every character.
_TOKEN = _re(rf"[{_UP}&](?:(?<=&)|\.(?:[{_LO}{_UP}]{{1,2}}\.)+|[\w'’-]*[\w]|\.)")
_HEADS = "|".join(sorted((re.escape(h) for h in TITLE_HEADS), key=longest_first))
# a link word or a time word ends a title: "head of finance at Acme", "head of finance today"
_NOT_LINK = (
    r"(?!(?:at|for|with|in|on|from|and|or|but|since|until|today|tonight|tomorrow|yesterday"
    r"|now|again|too|also|already|though|anyway|then|here|there)\b)"
)
_TITLE = (
    rf"(?P<title>(?:[A-Za-z][\w&/-]*\s+){{0,3}}(?i:{_HEADS})"
    rf"(?:\s+of\s+{_NOT_LINK}[a-z][\w-]*(?:\s+{_NOT_LINK}[a-z][\w-]*)?)?)(?![\w-])"
)
_ORG_TOKEN = rf"(?:[{_UP}0-9][\w'’.-]*|&)"
_ORG = rf"(?P<org>{_ORG_TOKEN}(?:[ \t]+(?:{_ORG_TOKEN}|and|of|de|für|for))*)"
_EMAIL = r"(?<![\w.+-])([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})(?![\w-])"
EMAIL_RE = _re(_EMAIL)
_FUNCTION_WORDS = words("""
who is was are and or but the a an our their my at for with to in on by from as be
been he she they it this that what which
""")
_DET = r"(?:(?:the|our|their|a|an|my|his|her)\s+)?"
_NEW = r"(?:(?:new|current|acting|interim)\s+)?"
_LINK = r"(?:at|of|for|with)"
# "postdoc in the Moss lab at Acme", "engineer on Jo's team at Acme": a unit before the org
_UNIT = (
    r"(?:\s+(?:in|on)\s+(?:the\s+|[\w'’-]+['’]s\s+)?(?:[\w-]+\s+){0,2}?"
    r"(?:group|team|lab|department|dept|office|unit|division|squad))?"
)
# an appositive is set off by a comma or a dash: "Ana Silva, the CTO" / "Ana Silva — the CTO"
_APPOSE = r"(?:,|\s+[—–-])\s+"

_AFTER_PERSON = [
    (
        "has_title.appositive",
        _re(
            rf"{_APPOSE}(?:(?:who\s+is|who's|(?:she|he|they)(?:'s|’s|\s+is|\s+are|'re|’re))\s+)?"
            rf"(?:as\s+)?{_DET}{_NEW}{_TITLE}(?:{_UNIT}\s+{_LINK}\s+(?:the\s+)?{_ORG})?"
        ),
    ),
    (
        "has_title.parenthetical",
        _re(  # "(head of ops at Acme)", "(senior auditor, Acme AB)"
            rf"\s*\({_DET}{_NEW}{_TITLE}(?:(?:{_UNIT}\s+(?:at|of|for)\s+(?:the\s+)?|,\s+){_ORG})?\)"
        ),
    ),
    (
        "has_title.is",
        _re(
            rf"\s+(?:is|was)\s+(?:now\s+|still\s+)?(?:the|our|their|a|an)\s+{_NEW}{_TITLE}"
            rf"(?:{_UNIT}\s+{_LINK}\s+(?:the\s+)?{_ORG})?"
        ),
    ),
    (
        "has_title.possessive",  # "Rhys Talbot, Marlow's CFO"
        _re(
            rf",\s+(?:the\s+)?(?P<org>{_ORG_TOKEN}(?:[ \t]+{_ORG_TOKEN}){{0,3}})['’]s\s+"
            rf"{_NEW}{_TITLE}"
        ),
    ),
    ("works_at.over", _re(rf"\s+over\s+at\s+(?:the\s+)?{_ORG}")),
    ("works_at.from", _re(rf"\s+(?:from|of)\s+(?:the\s+)?{_ORG}")),
    ("works_at.at", _re(rf"\s+(?:at|@)\s+(?:the\s+)?{_ORG}")),
    ("works_at.parenthetical", _re(rf"\s*\((?:the\s+|from\s+|at\s+)?{_ORG}\)")),
    (
        "works_at.verb",
        _re(
            rf",?\s+(?:who\s+)?(?:now\s+|still\s+|also\s+)?(?:works|is working|is)\s+"
            rf"(?:now\s+)?(?:at|for|with)\s+(?:the\s+)?{_ORG}"
        ),
    ),
    (
        "works_at.joined",
        _re(rf",?\s+(?:who\s+)?(?:has\s+)?(?:just\s+)?joined\s+(?:the\s+)?{_ORG}"),
    ),
]
# a cheap first look at what follows a name: every _AFTER_PERSON pattern starts so
_AFTER_CUE = _re(
    r",|\s*\(|\s+[—–-]\s|\s+(?:is|was|from|of|at|@|over|works|is|who|has|just|joined|now|still|also)\b"
)
# rules whose org must look like an org (an org word, a legal form, "the X") before it counts
# for a pair of unknown words; after a known person, "at X" is where they work
_WEAK_ORG_RULES = {"works_at.from", "works_at.at", "works_at.parenthetical"}
_LOOSE_AFTER_PERSON = {"works_at.at", "works_at.parenthetical"}
_ADDRESS_AFTER = _re(
    r"\s*(?:[<(\[]\s*|:\s*|\s+(?:at|is|on|-|–)\s+|['’]s\s+(?:e-?mail|address)(?:\s+address)?"
    rf"\s+is\s+|,\s+(?:her|his|their)\s+(?:e-?mail|address)(?:\s+address)?\s+is\s+){_EMAIL}"
)
_TITLE_BEFORE = _re(rf"(?:^|[\s(])(?:the|our|their|my|his|her|your)\s+{_NEW}{_TITLE},?\s+$")
_TITLE_BEFORE_ORG = _re(  # "Marlow's CFO, Rhys Talbot" / "Acme's head of sales Jo Li"
    rf"(?:^|[\s(])(?P<org>{_ORG_TOKEN}(?:[ \t]+{_ORG_TOKEN}){{0,3}})['’]s\s+{_NEW}{_TITLE},?\s+$"
)
# "my physio is Dr. Hana Sato", "their accountant is also called Jo Reyes", "Rex's vet is ..."
_TITLE_NAMED = _re(
    rf"(?:(?:^|[\s(])(?:the|our|their|my|his|her|your)|"
    rf"(?P<org>{_ORG_TOKEN}(?:[ \t]+{_ORG_TOKEN}){{0,3}})['’]s)\s+{_NEW}{_TITLE}\s+"
    rf"(?:is|was)\s+(?:also\s+|now\s+|still\s+)?(?:called\s+|named\s+)?"
    rf"(?:(?:{'|'.join(HONORIFICS)})\.?\s+)?$"
)
_TITLE_OF = _re(rf"(?i:{_HEADS})\s+of\s+(?:the\s+)?$")
_HONORIFIC_BEFORE = _re(rf"(?:^|[\s(])(?:{'|'.join(HONORIFICS)})\.?\s+$")
_KIN = "|".join(sorted(KINSHIP, key=longest_first))
_KIN_BEFORE = _re(
    rf"(?:^|[\s(])(?:my|our|her|his|their|your)\s+(?:(?:older|younger|little|big|new|late)\s+)?"
    rf"(?P<kin>{_KIN}),?\s+$",
    re.I,
)
# "Siobhan's grandparents" says Siobhan is a person; "Biscuit's vet" says Biscuit is a pet
_KIN_OF_PEOPLE = "|".join(sorted(KINSHIP - {"vet"}, key=longest_first))
_KIN_AFTER = _re(
    rf"['’]s\s+(?:(?:older|younger|little|big|new|late)\s+)?(?:{_KIN_OF_PEOPLE})\b", re.I
)
_CC_BEFORE = _re(
    r"(?:^|[\s(])(?:cc|cc:|CC|CC:|Cc|Cc:|copying|(?:looping|loop|bringing|bring|pulling|pull|"
    r"roping|rope|copying|copy)\s+in)\s+$",
    re.I,
)
_SPEAKER = _re(rf"^(?P<name>[{_UP}][{_LO}'’-]+):\s+\S", re.M)
_CALLS = r"(?:everyone|everybody|people|we|they|most\s+people)\s+calls?\s+(?:him|her|them)"
_NICKNAME = _re(
    rf"\s*[,(]?\s*(?:who\s+)?(?:goes\s+by|aka|a\.k\.a\.|known\s+as|or\s+just|but\s+call\s+"
    rf"(?:him|her|them)|{_CALLS})\s+['\"“]?(?P<nick>[{_UP}][{_LO}'’-]+)"
)
# "... Ines Carvalho moved there in the summer and she's now head of legal ops at Acme."
_PRONOUN_TITLE = _re(
    rf"(?:^|[.;,—–]\s+|\s-\s+|\b(?:and|but|so)\s+)(?i:she|he|they)(?:'s|’s|\s+is|\s+are|'re|’re)\s+"
    rf"(?:now\s+|also\s+)?{_DET}{_NEW}{_TITLE}(?:\s+{_LINK}\s+(?:the\s+)?{_ORG})?"
)
# what every _PRONOUN_TITLE match holds: a cheap first look, since few turns have one
_PRONOUN_TAIL = r"(?:'s|’s|\s+is|\s+are|'re|’re)\s"
_PRONOUN_CUE = _re(rf"(?i:she|he|they){_PRONOUN_TAIL}")
# what every _PRONOUN_CUE match holds from its "h" on ("she's" holds "he's", "they're"
# "hey're"; no other letter is an "h", "e" or "y" to IGNORECASE): one scan of the text
_PRONOUN_HE = _re(rf"[hH][eE][yY]?{_PRONOUN_TAIL}")
_NICKNAME_LATER = _re(
    rf"[(,]\s*(?:who\s+)?(?:goes\s+by|aka|a\.k\.a\.|known\s+as|{_CALLS})\s+['\"“]?"
    rf"(?P<nick>[{_UP}][{_LO}'’-]+)"
)
_SIGNATURE_TITLE = _re(rf"^[ \t]*{_TITLE}[ \t]*(?:[|,–—-]|\bat\b)[ \t]*{_ORG}[ \t]*$", re.I | re.M)

# -- deadlines -------------------------------------------------------------------------------

_DATE = dates.DATE
_NP = r"(?P<subj>(?:[\w'-]+\s+){0,7}?[\w'-]+)"
_BY = r"(?:by|before|on|for)\s+"
_IN_SPAN = r"(?=in\s+\w+\s+(?:days?|weeks?)\b|in\s+a\s+fortnight)"  # "live in two weeks"
_DUE_VERBS = (
    r"(?:ship(?:ped)?|done|ready|finished|delivered|live|launched|out|signed\s+off|"
    r"submitted|in|land(?:ed)?|go\s+out|complete[d]?)"
)
# (rule, a word its pattern holds, the pattern): a cue sentence without the word is not read
_DEADLINES = [
    (
        "deadline.due",
        _re("due", re.I),
        _re(
            rf"\b{_NP}\s+(?:is|are|'s|’s)\s+(?:now\s+|still\s+)?due\s+(?:on\s+|by\s+)?{_DATE}", re.I
        ),
    ),
    (
        "deadline.due",
        _re("due", re.I),
        _re(rf"\b{_NP}\s+due\s+(?:on\s+|by\s+)?{_DATE}", re.I),
    ),
    (
        "deadline.deadline",
        _re("deadline", re.I),
        _re(
            rf"\bdeadline\s+(?:is\s+|'s\s+)(?:on\s+|by\s+)?{_DATE}\s+for\s+(?:the\s+|our\s+|my\s+)?"
            r"(?P<subj>[\w'-]+(?:\s+[\w'-]+)?)",
            re.I,
        ),
    ),
    (
        "deadline.deadline",
        _re("deadline", re.I),
        _re(rf"\b{_NP}\s+deadline\s+(?:is\s+)?(?:on\s+|by\s+)?{_DATE}", re.I),
    ),
    (
        "deadline.deadline",
        _re("deadline", re.I),
        _re(rf"\bdeadline\s+(?:for\s+{_NP}\s+)?(?:is\s+|'s\s+)?(?:on\s+|by\s+)?{_DATE}", re.I),
    ),
    (
        "deadline.launch",
        _re("launches|live", re.I),
        _re(
            rf"\b{_NP}\s+(?:launches|goes\s+live|is\s+going\s+live|will\s+go\s+live)\s+"
            rf"(?:on\s+|by\s+)?{_DATE}",
            re.I,
        ),
    ),
    (
        "deadline.launch",
        _re("go-live|launch|release", re.I),
        _re(
            rf"\b(?P<subj>go-live|launch|release)(?:\s+date)?\s+(?:is|'s|’s)\s+"
            rf"(?:now\s+|still\s+)?(?:on\s+|set\s+for\s+|planned\s+for\s+)?{_DATE}",
            re.I,
        ),
    ),
    (
        "deadline.ship",
        _re("ships", re.I),
        _re(rf"\b{_NP}\s+ships\s+(?:on|by)\s+{_DATE}", re.I),
    ),
    (
        "deadline.by",  # "the portal has to ship by the 14th", "it needs to be done by Friday"
        _re("has|have|need|must|should", re.I),
        _re(
            rf"\b{_NP}\s+(?:has|have|needs?|must|should)\s+(?:to\s+)?(?:be\s+)?"
            rf"{_DUE_VERBS}\s+(?:{_BY}|{_IN_SPAN}){_DATE}",
            re.I,
        ),
    ),
    (
        "deadline.by",  # "Rhys wants the Q4 forecast pack by Tuesday"
        _re("want|need|expect|asked|promised", re.I),
        _re(
            rf"\b(?:wants?|needs?|expects?|asked\s+for|promised)\s+(?:the\s+|our\s+|my\s+|a\s+)?"
            rf"{_NP}\s+{_BY}{_DATE}",
            re.I,
        ),
    ),
]
# "the board meets 10 Dec and the new dashboard has to ship by then": the date said before
_BY_THEN = _re(
    rf"\b{_NP}\s+(?:has|have|needs?|must|should)\s+(?:to\s+)?(?:be\s+)?{_DUE_VERBS}\s+"
    r"(?:by|before)\s+then\b",
    re.I,
)

# A pattern that opens with a noun phrase (`_NP`) tries every word of a sentence as its
# start; what follows the phrase (its tail, opening with whitespace) is found first instead:
# a sentence without the tail is not read, and one with it is read from at most the
# phrase's eight words before the tail's first place (`_phrase_start`). Same matches.
_NP_LEAD = r"\b" + _NP


def _np_tail(pattern: re.Pattern) -> re.Pattern | None:
    if not pattern.pattern.startswith(_NP_LEAD):
        return None
    tail = pattern.pattern[len(_NP_LEAD) :]
    assert tail.startswith(r"\s"), "a phrase's tail opens with whitespace"
    return _re(tail, pattern.flags)


def _phrase_start(text: str, at: int, lo: int) -> int:
    r"""The earliest start of an `_NP` that ends just before `at`: back over at most eight
    runs of its word characters (`[\w'-]`), each after whitespace, never before `lo`."""
    i = at
    for run in range(8):
        while i > lo and (text[i - 1].isalnum() or text[i - 1] in "_'-"):
            i -= 1
        if run == 7 or i <= lo or not text[i - 1].isspace():
            break
        while i > lo and text[i - 1].isspace():
            i -= 1
    return i


_DEADLINE_TAILS = [(rule, key, pattern, _np_tail(pattern)) for rule, key, pattern in _DEADLINES]
_BY_THEN_TAIL = _np_tail(_BY_THEN)
_CLAUSE_STOPS = words("says said thinks so and but if because when then now also")
_NP_PREPOSITIONS = words("for from of to with at in on about")
_NOT_SUBJECTS = words("it this that everything which and")
_NP_STOPS = words("""
the our my this that a an their your his her its says said thinks so and but if because
when then now also
""")
_DEADLINE_CUES = _re(
    r"due|deadline|launch|ships|live|needs?|wants?|has to|have to|must|should|expects?|asked|"
    r"promised"
)

# -- clients, orgs ---------------------------------------------------------------------------

# "client" as in a customer, not a client library, app or id
_CLIENT_NOUN = (
    r"client\b(?!\s*(?:library|libraries|lib|side|app|sdk|package|code|id|secret|key|cert))"
)
_CLIENT = [  # (pattern, whether the org is the last run of names before the cue)
    (
        _re(
            rf"\b(?:[Oo]ur|[Mm]y)\s+(?:new\s+|newest\s+|biggest\s+|first\s+|main\s+)?"
            rf"{_CLIENT_NOUN}(?:\s+is)?[,:]?\s+{_ORG}"
        ),
        False,
    ),
    (_re(rf"\b[Nn]ew\s+{_CLIENT_NOUN}:\s+{_ORG}"), False),
    (
        _re(rf"{_ORG}\s+(?:is|are)\s+(?:now\s+)?(?:a|an|our|my)\s+(?:new\s+)?{_CLIENT_NOUN}"),
        True,
    ),
    (_re(rf"{_ORG},\s+(?:a|an|our|my)\s+(?:new\s+)?{_CLIENT_NOUN}"), True),
]
# "my four clients this month: A, B, C and D"
_CLIENT_LIST = _re(
    r"\b(?:[Oo]ur|[Mm]y)\s+(?:\w+\s+){0,2}?clients\b[^:\n]{0,30}:\s+(?P<list>[^\n]{3,300})"
)
# "Sunward (the agency that runs their paid social)", "Fennel Cycles, an e-bike shop"
_NOUNS = "|".join(sorted(ORG_NOUNS, key=longest_first))
_ORG_APPOSITIVE = _re(
    rf"(?P<org>{_ORG_TOKEN}(?:[ \t]+(?:{_ORG_TOKEN}|and|of)){{0,4}})(?:,\s+|\s+\()"
    rf"(?:(?:a|an|the|their|our|my)\s+)(?:[\w'-]+\s+){{0,3}}?[\w-]*?(?:{_NOUNS})\b"
)
_APPOSITIVE_CUE = _re(r"[,(]\s*(?:a|an|the|their|our|my)\s")
# _ORG_VERB reads a turn only if its lowercase holds one of these (one search for them all)
_ORG_VERB_CUES = (
    "quote", "proposal", "estimate", "give us", "send us", "get us", "signed", "sent", "approved",
    "paid",
)  # fmt: skip
_ORG_VERB_CUE = _re("|".join(_ORG_VERB_CUES))
_ORG_TEAM = _re(rf"\bthe\s+(?P<org>{_ORG_TOKEN}(?:[ \t]+{_ORG_TOKEN}){{0,2}})\s+team\b")
_ORG_VERB = _re(
    rf"(?P<org>{_ORG_TOKEN}(?:[ \t]+(?:{_ORG_TOKEN}|and|of)){{0,4}})\s+"
    r"(?:asked\s+(?:us\s+|me\s+)?for\s+a\s+(?:quote|proposal|estimate)|"
    r"(?:wants|needs)\s+a\s+(?:quote|proposal|estimate)|"
    r"can\s+(?:give|send|get)\s+(?:us|me)\b|signed\s+(?:the|our)\s+|"
    r"sent\s+(?:us|me|over)\b|approved\s+the\s+(?:quote|proposal|estimate|budget|invoice)|"
    r"paid\s+(?:the|our)\s+invoice)"
)

# -- choices ---------------------------------------------------------------------------------

# "I" or, as people type, "i"; the choice runs to the end of its clause
_PREFERS = _re(
    r"\b[Ii]\s+(?:really\s+|much\s+|strongly\s+|always\s+)?prefer\s+(?P<obj>[^.!?\n]{3,100})"
    r"|\b[Ii](?:'d|’d| would)\s+(?:much\s+)?rather\s+(?P<obj2>[^.!?\n]{3,100})"
)
_DECIDED = _re(
    r"\b(?:[Ww]e|[Ii])(?:\s+have|'ve|’ve)?\s+(?:just\s+)?decided\s+(?:to\s+|on\s+|that\s+)?"
    r"(?P<obj>[^.!?\n]{3,100})"
    r"|\b[Ww]e(?:'re|’re| are)\s+going\s+with\s+(?P<obj2>[^.!?\n]{3,100})"
    # "decided: sqlite for the cache, no redis", a note to self with a colon
    r"|\b(?<![-/])[Dd]ecided:\s+(?![Ww]e(?:'re|’re| are)\s+going\s+with\b)"
    r"(?P<obj3>[^.!?\n]{3,100})"
)
_CHOICE_CUES = _re("prefer|rather|decided|going with")
# where a stated choice ends: "... in staging models, so dedupe there" keeps the choice only
_CLAUSE_END = _re(r",\s+(?:so|but|because|since|which|as|then|and\s+then)\b|;|\s+-\s+|\s+—\s+")

# -- repos, domains --------------------------------------------------------------------------

_REPO_URL = _re(
    r"(?:https?://|ssh://git@|git@)(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)[/:]"
    r"(?P<owner>[A-Za-z0-9_.-]+)/(?P<name>[A-Za-z0-9_.-]+?)(?:\.git)?(?=[/\s)\]\"'>,;:#?]|\.?$|\.\s)"
)
_REPO_SLUG = _re(
    r"\b(?i:repo|repository|clone|fork)(?::\s*|\s+)(?:is\s+|at\s+|called\s+|named\s+)?[`(]?"
    r"(?P<owner>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_.-]*[A-Za-z0-9_-])`?"
)
_REPO_SLUG_BEFORE = _re(
    r"`?(?<![\w/.-])(?P<owner>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_.-]*[A-Za-z0-9_-])`?"
    r"\s+(?:repo|repository)\b"
)
# "the dashboards repo (acme/dashboards)": the slug in brackets right after the word
_REPO_SLUG_PAREN = _re(
    r"\b(?i:repo|repository)\s*\((?P<owner>[A-Za-z0-9_-]+)/(?P<name>[A-Za-z0-9_.-]*[A-Za-z0-9_-])\)"
)
# "the churn-model repo": a repo named without its owner (an identifier, not a word)
_REPO_NAME = _re(
    r"\b(?i:the|our|this|that|my)\s+`?(?P<name>[a-z0-9]+(?:[-_.][a-z0-9]+)+)`?\s+(?:repo|repository)\b"
)
# "repo is set up as tern-gw", "the repo will be plots-web", "repo: plots-web": a repo
# named without its owner after the word (an identifier with a separator, not "repo is ready")
_REPO_CALLED = _re(
    r"\b(?i:repo|repository)(?:\s+(?:is|will\s+be|is\s+going\s+to\s+be)(?:\s+set\s+up\s+as|"
    r"\s+called|\s+named)?|\s+called|\s+named|:)\s+`?(?P<name>[a-z0-9]+(?:[-_][a-z0-9]+)+)`?"
    r"(?![\w/-]|\.[a-z0-9])"
)
# A bare owner/name only counts beside a code host's words ("PR", "issue #12", "GitHub").
_REPO_BARE = _re(
    r"(?<![\w/.~@:-])(?P<owner>[a-z0-9][a-z0-9_-]*)/(?P<name>[a-z0-9][a-z0-9_-]*[a-z0-9])(?![\w/.-])"
    r"(?P<issue>#\d+)?"
)
_CODE_HOST_CUE = _re(
    r"\b(?:github|gitlab|bitbucket|pull request|PR|gh|git|remote|clone[ds]?|cloned|fork(?:ed)?|"
    r"repo|repository|push(?:ed)?)\b",
    re.I,
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
_GIT_REMOTE = _re(r"^\S+\s+(?P<url>\S+)\s+\((?:fetch|push)\)\s*$", re.M)
_DOMAIN = _re(
    r"(?<![@\w.-])(?P<scheme>https?://)?(?:www\.)?"
    r"(?P<domain>(?:[a-z0-9][a-z0-9-]*\.)+(?P<tld>[a-z]{2,}))(?![\w-]|\.[a-z0-9])",
    re.I,
)

_DOMAIN_DOT = _re(r"\.[a-z]{2}", re.I)  # a TLD's dot, with the same case folding
_DOMAIN_RUN = _re(r"[\w.:/-]*")  # every character a _DOMAIN match is made of


# -- the entry point --------------------------------------------------------------------------


def extract(by: str, kind: str, text: str, ts: str | None, *, sidechain: bool = False) -> list:
    """Mentions in one turn, given who wrote it (see the module docstring for the trust rules)."""
    if sidechain:
        return []
    if by in ("tool", "program"):
        # `git remote -v` output (a tool result, or `!` shell output) names the workspace repo
        return _git_remotes(text) if "(fetch)" in text else []
    if kind != "text" or by not in ("person", "agent"):
        return []
    p = Prose(text[:MAX_TEXT])
    out: list[tuple] = []
    tokens = _Tokens(p.text)
    persons = _persons(p, tokens, by, out)
    org_spans = _orgs(p, tokens, persons, out)
    if "@" in p.with_code:
        _addresses(p, persons, out)
    if "." in p.with_code:
        _domains(p, out)
    if "/" in p.with_code or "repo" in p.with_code:
        _repos(p, out)
    _person_relations(p, persons, org_spans, out)
    if by == "person":
        lower = p.lower
        if _DEADLINE_CUES.search(lower):
            said = datetime.fromisoformat(ts) if ts else None
            _deadlines(p, said, out)
        if "client" in lower:
            _clients(p, out)
        if _CHOICE_CUES.search(lower):
            _choices(p, out)
    return _unique(out)


# -- people -----------------------------------------------------------------------------------

Span = tuple[int, int, str]


class _Tokens:
    """A turn's capitalised tokens (`_TOKEN` over the prose), each read once for every rule:
    where each starts and ends, its text (`raws`), its text without a possessive ending
    (`words`, `_bare`), and whether it stands one space (or a no-break space) after the
    token before (`adj[i]`; never for the first)."""

    __slots__ = ("adj", "ends", "n", "raws", "starts", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.raws: list[str] = []
        self.words: list[str] = []
        self.adj: list[bool] = []
        starts, ends = self.starts.append, self.ends.append
        raws, words, adj = self.raws.append, self.words.append, self.adj.append
        end = -2  # no token before the first: never one character before it
        for m in _TOKEN.finditer(text):  # one pass, filling every list (the cheapest way)
            start = m.start()
            raw = m.group()
            starts(start)
            raws(raw)
            words(raw[:-2] if raw.endswith(("'s", "’s")) else raw)
            # the gap from the token before is " " or "\u00a0": one character, one of those
            adj(start - end == 1 and text[end] in " \u00a0")
            end = m.end()
            ends(end)
        self.n = len(self.starts)

    def loose(self, i: int) -> bool:
        """Whether tokens i - 1 and i stand loosely together: nothing, a space or a stop
        between them ("S.A.", "Co. KG", "Pty Ltd")."""
        return self.text[self.ends[i - 1] : self.starts[i]] in (" ", "", ".", ". ")


@lru_cache(maxsize=65536)
def _given(word: str) -> bool:
    return (
        (word not in STOP_CAPS or word in AMBIGUOUS_FIRST)
        and _title_case(word)
        and gazetteer.fold_name(word) in gazetteer.given_names()
    )


@lru_cache(maxsize=65536)
def _may_name(word: str) -> bool:
    """Whether a token can start a person's name at all (a cheap first look)."""
    return (word not in STOP_CAPS or word in AMBIGUOUS_FIRST) and _title_case(word)


@lru_cache(maxsize=65536)
def _short_given(word: str) -> bool:
    return (
        (word not in STOP_CAPS or word in AMBIGUOUS_FIRST)
        and word not in ORG_WORDS
        and _title_case(word)
        and gazetteer.fold_name(word) in gazetteer.short_names()
    )


@lru_cache(maxsize=65536)
def _title_case(word: str) -> bool:
    """Capital then lowercase letters (hyphens and apostrophes allowed): a name's shape."""
    body = word[1:].replace("-", "").replace("'", "").replace("’", "")
    return (word[:1].isupper() and (not body or (body.isalpha() and body.islower()))) or (
        "-" in word and all(part[:1].isupper() and part[1:].islower() for part in word.split("-"))
    )


@lru_cache(maxsize=65536)
def _surname(word: str) -> bool:
    """A word that can be a family name: capitalised, with lowercase letters, not a stop word.
    Internal capitals are allowed (McDonald, DeLuca), digits are not."""
    return (
        len(word) > 1
        and word[0].isupper()
        and (not re.search(rf"[{_LO}][{_UP}]", word) or bool(_NAME_PREFIX.match(word)))
        and any(c.islower() for c in word)
        and not any(c.isdigit() for c in word)
        and word not in STOP_CAPS
        and word not in ORG_WORDS
        and word not in NOT_SURNAMES
        and word not in DEPARTMENTS
        and not gazetteer.legal_suffix_len(["X", word])
    )


def _bare(word: str) -> str:
    """A token without a possessive ending."""
    return word[:-2] if word.endswith(("'s", "’s")) else word


def _possessive(word: str) -> bool:
    return word.endswith(("'s", "’s"))


def _persons(p: Prose, tokens: _Tokens, by: str, out: list) -> list[Span]:
    """Find people; returns their spans (start, end, label). Short forms are labelled alone."""
    text = p.text
    found: list[Span] = []
    starts, ends, raws, words_, adj = (
        tokens.starts,
        tokens.ends,
        tokens.raws,
        tokens.words,
        tokens.adj,
    )
    n = tokens.n
    may = list(map(_may_name, words_))
    i = 0
    while i < n:
        if not may[i]:
            i += 1  # "API", "OpenAI", "The", "M.": no person's first word
            continue
        word = words_[i]
        raw = raws[i]
        at = starts[i]
        possessive = len(raw) != len(word)  # `_possessive(raw)`: `_bare` cut its ending
        before = text[max(0, at - 60) : at]
        near_next = i + 1 < n and starts[i + 1] - ends[i] <= 10
        if not near_next and not possessive and not _short_given(word):
            last = _last(before)
            if last not in KINSHIP and last != "named":
                i += 1  # a lone capitalised word no list knows and no cue names: "Added"
                continue
        if before.endswith(("a ", "an ", "A ", "An ")):
            i += 1  # "a Jack Russell", "an Amy Winehouse song": a kind of thing, not a person
            continue
        if before.endswith(("& ", "and ")) and i > 0 and tokens.loose(i):
            i += 1  # "Ashby & Crane": the second name of a firm
            continue
        if (
            _place(before)
            and not _cc(before)
            and ((i + 1 < n and adj[i + 1]) or text[ends[i] : ends[i] + 4] == " de ")
        ):
            i += 1  # "a workshop in San Francisco", "near Rio de Janeiro": a place
            continue
        if i > 0 and adj[i] and not sentence_start(text, starts[i - 1]) and not _honorific(before):
            i += 1  # "New York City", "Times Square": the tail of a longer name
            continue
        # the longest run of name-like words from here: first [initial] [particle] last [last]
        j, parts = i + 1, [word]
        if not possessive and _could_start_name(word):
            while j < n and len(parts) < 4 and adj[j]:
                nxt = raws[j]
                if len(parts) == 1 and _INITIAL.fullmatch(nxt):
                    parts.append(nxt)
                elif _surname(words_[j]):
                    parts.append(words_[j])
                else:
                    break
                j += 1
                if len(nxt) != len(words_[j - 1]):  # a possessive ends the name
                    break
            # "Anouk de Jong", "Ludwig van Beethoven": a lowercase particle between names
            if len(parts) == 1 and j < n:
                gap = text[ends[i] : starts[j]]
                m = _PARTICLE_GAP.fullmatch(gap) if len(gap) <= 12 else None
                if m and _surname(words_[j]):
                    parts = [word, gap.strip(), words_[j]]
                    j += 1
        follows_org_word = (
            j < n
            and adj[j]
            and (words_[j] in ORG_WORDS or gazetteer.legal_suffix_len(["X", raws[j]]))
        )
        while parts and parts[-1].endswith(".") and len(parts) > 1:
            parts.pop()  # "Dana M." is a first name and an initial, not a full name
        full = len([w for w in parts if not w.endswith(".")]) >= 2
        given = _given(word)
        end = starts[j - 1] + len(words_[j - 1]) if full else at + len(word)
        if full and _quoted_title(text, at, end):
            i = j  # "Summer Sounds", "The Lean Startup" in quotes: a title of a work
            continue
        if full and not follows_org_word:
            label = " ".join(parts)
            doubtful = (
                not given
                or (word in AMBIGUOUS_FIRST and sentence_start(text, at))
                or before.endswith(("the ", "The "))  # "the Lucia Ferro oven": a modifier
            )
            cue = _person_cue(p, at, end) if doubtful else False
            if given and not (doubtful and not cue):
                found.append((at, end, label))
                out.append(_is("person.name", label, "person", p.quote(at, end)))
                i = j
                continue
            if cue:
                found.append((at, end, label))
                out.append(_is("person.context", label, "person", p.quote(at, end)))
                i = j
                continue
        if len(parts) == 1 or (not full and parts):
            if _first_cue(p, at, at + len(word), raw):
                end = at + len(word)
                found.append((at, end, word))
                out.append(_is("person.first", word, "person", p.quote(at, end)))
            elif (
                (given or _short_given(word))
                and not follows_org_word
                and not _skip_first(text, at, word)
                and not _honorific(before)  # "Dr Smith": a surname alone
                and not (_place(before) and not _cc(before))
            ):
                end = at + len(word)
                found.append((at, end, word))
                out.append(_is("person.short", word, "person", p.quote(at, end)))
        i = j if full else i + 1
    speakers = _matches_from(_SPEAKER, p.text, _capital_lines(p.text)) if ":" in p.text else ()
    for m in speakers:  # "Caroline: hey, how was the trip?"
        name = m.group("name")
        if _given(name) and name not in STOP_CAPS:
            start, end = m.start("name"), m.end("name")
            if not any(s == start for s, _, _ in found):
                found.append((start, end, name))
            out.append(_is("person.first", name, "person", p.quote(start, end)))
    return found


_PLACE_BEFORE = _re(r"\b(?:in|near|around|outside|across|across from)\s+$", re.I)
_INITIAL = _re(rf"[{_UP}]\.")
_PARTICLES = "|".join(NAME_PARTICLES)
_PARTICLE_GAP = _re(rf" (?:{_PARTICLES})(?: (?:{_PARTICLES}))? ")
_PLACE_WORDS = frozenset({"in", "near", "around", "outside", "across", "from"})
_HONORIFIC_WORDS = frozenset(h.lower() for h in HONORIFICS)
_CC_WORDS = frozenset({"cc", "cc:", "copying", "in"})
_OWNERS = frozenset({"my", "our", "her", "his", "their", "your"})


def _last(before: str) -> str:
    """The last word before a name, lowercased, without its trailing punctuation."""
    parts = before.rsplit(None, 1)
    if not parts:
        return ""
    word = parts[-1]
    if "(" in word:
        word = word.rsplit("(", 1)[-1]
    return word.lower().rstrip(",.:")


def _honorific(before: str) -> bool:
    return _last(before) in _HONORIFIC_WORDS and bool(_HONORIFIC_BEFORE.search(before))


def _place(before: str) -> bool:
    return _last(before) in _PLACE_WORDS and bool(_PLACE_BEFORE.search(before))


def _cc(before: str) -> bool:
    return _last(before.replace("cc:", "cc")) in _CC_WORDS and bool(_CC_BEFORE.search(before))


def _kin(before: str) -> bool:
    return _last(before) in KINSHIP and bool(_KIN_BEFORE.search(before))


def _title_near(before: str) -> bool:
    """Whether a title's head word stands last before a name, or in the 40 characters before
    it: no title pattern is read without one."""
    last = _last(before)
    return last in TITLE_HEADS or any(w in TITLE_HEADS for w in before[-40:].lower().split())


# what a lone first name may say of itself: not "Berlin (Acme GmbH)" or "Paris, the ..."
_SHORT_RELATIONS = {"works_at.over", "works_at.from", "works_at.at", "has_title.appositive"}


def _quoted_title(text: str, start: int, end: int) -> bool:
    """A capitalised run that fills a pair of quotes is the title of a book, song or film."""
    left = text[max(0, start - 5) : start]
    right = text[end : end + 2]
    opened = re.search(r"[\"“]\s*(?:The\s+|A\s+)?$", left)
    return bool(opened and right[:1] in ('"', "”"))


_NAME_PREFIX = _re(rf"(?:Mc|Mac|O['’]|D['’]|De|Di|Da|Du|La|Le|Van|Von|St)[{_UP}][{_LO}]+$")


@lru_cache(maxsize=65536)
def _could_start_name(word: str) -> bool:
    return (
        word not in STOP_CAPS
        and word not in ORG_WORDS
        and word != "&"
        and not word.endswith(".")
        and any(c.islower() for c in word)
        and not any(c.isdigit() for c in word)
        and not re.search(rf"[{_LO}][{_UP}]", word)  # CamelCase is code or a product
    )


def _skip_first(text: str, start: int, word: str) -> bool:
    return word in AMBIGUOUS_FIRST and sentence_start(text, start)


def _person_cue(p: Prose, start: int, end: int) -> bool:
    """A capitalised pair is a person when a person's context stands before or after it."""
    text = p.text
    rest = text[end : end + AFTER_CHARS]
    if _ADDRESS_AFTER.match(rest) or _NICKNAME.match(rest):
        return True
    for rule, pattern in _AFTER_PERSON:
        m = pattern.match(rest)
        if not m:
            continue
        title = m.groupdict().get("title")
        if title is not None:
            if _good_title(title):
                return True
            continue
        org = _clean_org(m.group("org"))
        if org and (rule not in _WEAK_ORG_RULES or _looks_like_org(org)):
            return True
    before = text[max(0, start - 60) : start]
    if _signature_title(text, start, end):
        return True
    return bool(
        _honorific(before)
        or _kin(before)
        or _cc(before)
        or _last(before) == "named"
        or (
            _title_near(before)
            and (
                _good_title_match(_TITLE_BEFORE.search(before))
                or _good_title_match(_TITLE_BEFORE_ORG.search(before))
            )
        )
    )


def _first_cue(p: Prose, start: int, end: int, raw: str) -> bool:
    """A lone first name that is certainly a person: a kinship or role word before it ("my
    brother Tomas"), a kinship word after its possessive ("Siobhan's grandparents"), "named"."""
    word = _bare(raw)
    if not _title_case(word) or word in STOP_CAPS or len(word) < 2:
        return False
    before = p.text[max(0, start - 60) : start]
    if _kin(before) or _last(before) == "named":
        return True
    return _possessive(raw) and bool(_KIN_AFTER.match(p.text, end))


def _nicknames(p: Prose, persons: list[Span], out: list) -> None:
    """A nickname stated beside a full name: "Adaeze Nwosu (goes by Ada)", "..., head
    of ops at Saltmarsh (goes by Ada)": the first such cue after the name in its sentence,
    with no other person named between."""
    text = p.text
    starts = sorted(s for s, _, _ in persons)
    for start, end, label in persons:
        if len(label.split()) < 2:
            continue
        stop = min(p.sentence(end)[1], end + AFTER_CHARS)
        m = _NICKNAME.match(text, end) or _NICKNAME_LATER.search(text, end, stop)
        if not m:
            continue
        if any(end < s < m.start() for s in starts):
            continue  # the cue is about someone named after this person
        nick = m.group("nick")
        if nick in STOP_CAPS or nick == label.split()[0]:
            continue
        out.append(
            ("person.nickname", label, "person", "alias", nick, "person", p.quote(start, m.end()))
        )


def _person_relations(p: Prose, persons: list[Span], orgs: list[Span], out: list) -> None:
    text = p.text
    for start, end, label in persons:
        rest = text[end : end + AFTER_CHARS]
        lone = len(label.split()) < 2
        for rule, pattern in _AFTER_PERSON if _AFTER_CUE.match(rest) else ():
            if lone and rule not in _SHORT_RELATIONS:
                continue
            m = pattern.match(rest)
            if m and lone and rule == "works_at.from" and m.group(0).split()[0] == "of":
                continue  # "Lord of the Rings", "Name of the Wind": a title, not a job
            if not m:
                continue
            quote = p.quote(start, end + m.end())
            groups = m.groupdict()
            title = groups.get("title")
            if title is not None:
                if not _good_title(title):
                    continue
                out.append((rule, label, "person", "has_title", _title(title), "value", quote))
            org = _clean_org(groups.get("org"))
            if title is not None and not org and not lone:
                _their_org(p, orgs, label, start, end + m.start(), end + m.end(), out)
            if (
                org
                and rule in _WEAK_ORG_RULES
                and not _looks_like_org(
                    org,
                    loose=rule in _LOOSE_AFTER_PERSON
                    or m.group(0).lstrip().startswith(("from the", "of the")),
                )
            ):
                org = None
            if org:
                org_rule = rule if rule.startswith("works_at") else "works_at.appositive"
                out.append((org_rule, label, "person", "works_at", org, "org", quote))
                out.append(_is("org.context", org, "org", quote))
            if org and title is None:
                after = _AFTER_PERSON[0][1].match(rest, m.end())
                if after and _good_title(after.group("title")):
                    out.append(
                        (
                            "has_title.appositive",
                            label,
                            "person",
                            "has_title",
                            _title(after.group("title")),
                            "value",
                            p.quote(start, end + after.end()),
                        )
                    )
            if title is not None or org:
                break
        if len(label.split()) < 2:
            continue
        before = text[max(0, start - 80) : start]
        if not _title_near(before):
            continue  # no title pattern reads a name with no title's head before it
        for pattern, rule in (
            (_TITLE_BEFORE_ORG, "has_title.preceding"),
            (_TITLE_NAMED, "has_title.named"),
            (_TITLE_BEFORE, "has_title.preceding"),
        ):
            m = pattern.search(before)
            if not (m and _good_title(m.group("title"))):
                continue
            quote = p.quote(start - len(m.group(0)), end)
            title = _title(m.group("title"))
            out.append((rule, label, "person", "has_title", title, "value", quote))
            org = None
            if pattern is _TITLE_BEFORE_ORG:
                org = _clean_org(m.group("org"))
            elif pattern is _TITLE_NAMED:
                org = _clean_org(m.group("org"), last=True)
                # "Brandt Joinery's CFO is ...", "Acme Ltd's ...", never a lone name ("Rex's vet")
                if org and not _looks_like_org(org, loose=" " in org):
                    org = None
            if org:
                out.append(("works_at.possessive", label, "person", "works_at", org, "org", quote))
                out.append(_is("org.context", org, "org", quote))
            break
    _signatures(p, persons, out)
    _pronouns(p, persons, orgs, out)
    _nicknames(p, persons, out)


def _pronouns(p: Prose, persons: list[Span], orgs: list[Span], out: list) -> None:
    """A title said with a pronoun ("... and she's now head of legal ops at Acme") belongs to
    the nearest full name before it, in its sentence or the one before."""
    text = p.text
    if not persons or not _PRONOUN_HE.search(text) or not _cue_at(_PRONOUN_CUE, text, "hH", 1):
        return
    for m in _PRONOUN_TITLE.finditer(text):
        if not _good_title(m.group("title")):
            continue
        lo = p.sentence(p.sentence(m.start())[0] - 2)[0] if m.start() > 1 else 0
        near = [s for s in persons if lo <= s[0] and s[1] <= m.start()]
        if not near:
            continue
        label = max(near)[2]
        if len(label.split()) < 2:
            full = [s[2] for s in near if len(s[2].split()) >= 2 and s[2].startswith(label + " ")]
            if not full:
                continue
            label = full[-1]
        quote = p.quote(max(near)[0], m.end())  # the name and the pronoun's title together
        title = _title(m.group("title"))
        out.append(("has_title.pronoun", label, "person", "has_title", title, "value", quote))
        org = _clean_org(m.group("org"))
        if org:
            out.append(("works_at.pronoun", label, "person", "works_at", org, "org", quote))
            out.append(_is("org.context", org, "org", quote))
        else:
            _their_org(p, orgs, label, max(near)[0], m.start(), m.end(), out)


# "their CTO", "the office manager there": the title points back at an org named just before
_THEIR = _re(r"\btheir\s", re.I)
_THERE = _re(r"[ \t]+there\b")


def _their_org(
    p: Prose, orgs: list[Span], label: str, name_at: int, start: int, end: int, out: list
) -> None:
    """A title said as "their <title>" or "<title> there" (text[start:end]) works at the org
    named last before it, in the person's sentence or the one before ("... hosted by Corvel
    Hosting Ltd. Anouk Smit is their support engineer"). No org there: nothing."""
    text = p.text
    if not _THEIR.search(text, start, end) and not _THERE.match(text, end, end + 8):
        return
    lo = p.sentence(p.sentence(name_at)[0] - 2)[0] if name_at > 1 else 0
    before = [o for o in orgs if lo <= o[0] and o[1] <= start]
    if not before:
        return
    o_start, _, org = before[-1]
    quote = p.quote(o_start, end)
    out.append(("works_at.their", label, "person", "works_at", org, "org", quote))


def _signature_title(text: str, start: int, end: int) -> tuple[re.Match, int] | None:
    """A name alone on its line with "Title | Org" (or "Title, Org") on the next: an email
    signature. Returns the title line's match and where that line starts."""
    line_start = text.rfind("\n", max(0, start - 80), start) + 1
    if start - line_start > 80 or text[line_start:start].strip():
        return None
    line_end = text.find("\n", end, end + 80)
    if line_end < 0 or text[end:line_end].strip(" ,\t"):
        return None
    nxt_end = text.find("\n", line_end + 1, line_end + 1 + AFTER_CHARS)
    line = text[line_end + 1 : nxt_end if nxt_end > 0 else line_end + 1 + AFTER_CHARS]
    m = _SIGNATURE_TITLE.match(line)
    if not m or not _good_title(m.group("title")):
        return None
    return m, line_end + 1


def _signatures(p: Prose, persons: list[Span], out: list) -> None:
    """An email signature: a name alone on its line, then "Title | Org" (or "Title, Org")."""
    text = p.text
    for start, end, label in persons:
        if len(label.split()) < 2:
            continue
        found = _signature_title(text, start, end)
        if not found:
            continue
        m, line_at = found
        quote = p.quote(start, line_at + m.end())
        out.append(
            (
                "has_title.signature",
                label,
                "person",
                "has_title",
                _title(m.group("title")),
                "value",
                quote,
            )
        )
        org = _clean_org(m.group("org"))
        if org:
            out.append(("works_at.signature", label, "person", "works_at", org, "org", quote))
            out.append(_is("org.context", org, "org", quote))


def _good_title_match(m: re.Match | None) -> bool:
    return bool(m and _good_title(m.group("title")))


def _good_title(title: str) -> bool:
    raw = title.split()
    ws = [w.lower() for w in raw]
    heads = [i for i, w in enumerate(ws) if w in TITLE_HEADS]
    if not heads:
        return False
    head_at = max(heads)
    # "the IT lead": an acronym is no function word ("it")
    before = zip(ws[:head_at], raw[:head_at], strict=True)
    return not any(w in _FUNCTION_WORDS and not r.isupper() for w, r in before)


def _title(title: str) -> str:
    return " ".join(title.lower().split())


# -- organisations -----------------------------------------------------------------------------


def _orgs(p: Prose, tokens: _Tokens, persons: list[Span], out: list) -> list[Span]:
    """Capitalised names that end in an org word or a legal form: "Keel & Ash Architects",
    "Summit Dental", "Marlow Haulage Ltd", "Acme S.A."; orgs named by their context. Returns
    where each org stands, for the titles that point back at one ("their CTO")."""
    text = p.text
    spans: list[Span] = []
    taken = {(s, e) for s, e, _ in persons}
    starts, raws, words_, adj = tokens.starts, tokens.raws, tokens.words, tokens.adj
    n = tokens.n
    for i in range(n):
        word = words_[i]
        org_word = word in ORG_WORDS
        legal_first = gazetteer.may_start_legal(word)
        if not org_word and not legal_first:
            continue  # neither an org word nor a legal form's first word (most tokens)
        legal = _legal_at(tokens, i) if legal_first else 0
        if not legal and not org_word:
            continue
        last = i + legal - 1 if legal else i
        if (
            legal == 0
            and last + 1 < n
            and adj[last + 1]
            and (words_[last + 1] in ORG_WORDS or _legal_at(tokens, last + 1))
        ):
            continue  # the longer name ends later ("Harlow Law Group", "Marlow Haulage Ltd")
        if legal and i > 0 and _legal_at(tokens, i - 1):
            continue  # inside a longer legal form ("Pty Ltd")
        k = i
        while k > 0 and i - k < 4 and adj[k]:
            prev = words_[k - 1]
            if (
                prev in STOP_CAPS
                or (prev.endswith(".") and len(prev) > 2)
                or len(raws[k - 1]) != len(prev)  # a possessive
            ):
                break
            k -= 1
        while k < i and raws[k] == "&":
            k += 1
        names = words_[k:i]
        if not any(nm not in ORG_WORDS and nm != "&" for nm in names):
            continue
        lo, hi = max(0, starts[k] - 40), starts[k]
        if not legal and text.find("of", lo, hi) >= 0 and _TITLE_OF.search(text, lo, hi):
            continue  # "Head of Operations Analytics": a title's department, not an org
        end = starts[last] + len(words_[last])
        label = squash(text[starts[k] : end])
        if re.search(r"\.\s", label) and not legal:
            continue
        rule = "org.legal" if legal else "org.suffix"
        out.append(_is(rule, label, "org", p.quote(starts[k], end)))
        spans.append((starts[k], end, label))
    lower = p.lower
    appositive = _cue_at(_APPOSITIVE_CUE, lower, ",(", 0)
    for m in _ORG_APPOSITIVE.finditer(text) if appositive else ():
        org = _clean_org(m.group("org"), last=True)
        if org and _looks_like_org(org, loose=True) and not _is_person_span(m, taken):
            out.append(_is("org.appositive", org, "org", p.quote(m.start(), m.end())))
            spans.append((m.start("org"), m.end("org"), org))
    for m in _ORG_TEAM.finditer(text) if " team" in lower else ():
        org = _clean_org(m.group("org"))
        if org and org not in DEPARTMENTS and _looks_like_org(org, loose=True):
            out.append(_is("org.context", org, "org", p.quote(m.start(), m.end())))
            spans.append((m.start("org"), m.end("org"), org))
    for m in _ORG_VERB.finditer(text) if _ORG_VERB_CUE.search(lower) else ():
        org = _clean_org(m.group("org"), last=True)
        if org and " " not in org and re.search(r"(?:ing|ings|ies|[^s]s)$", org):
            continue  # "Winning can give us", "Memories can give us": a noun, not a name
        if org and _looks_like_org(org, loose=True) and not _is_person_span(m, taken):
            out.append(_is("org.context", org, "org", p.quote(m.start(), m.end())))
            spans.append((m.start("org"), m.end("org"), org))
    _runs(p, tokens, taken, out)
    return sorted(spans)


def _runs(p: Prose, tokens: _Tokens, taken: set, out: list) -> None:
    """Capitalised runs of two or three words ("the Tallow Cloud console"), no person and no
    org by themselves: resolution reads them only to spell out an org a cue named by its
    first word elsewhere in the room ("Jo at Tallow" is Tallow Cloud). Rule `org.run`."""
    text = p.text
    starts = {s for s, _ in taken}
    at, raws, words_, adj = tokens.starts, tokens.raws, tokens.words, tokens.adj
    n, i = tokens.n, 0
    while i < n:
        j = i
        while j < n and j - i < 3 and _run_word(raws[j]) and (j == i or adj[j]):
            j += 1
            if len(raws[j - 1]) != len(words_[j - 1]):  # a possessive ends the run
                break
        if j - i >= 2 and at[i] not in starts:
            last = words_[j - 1]
            end = at[j - 1] + len(last)
            label = squash(text[at[i] : end])
            if last not in ORG_WORDS and not gazetteer.legal_suffix_len(label.split()):
                quote = p.quote(at[i], end)
                out.append(("org.run", label, "run", "alias", label, "run", quote))
        i = max(j, i + 1)


@lru_cache(maxsize=65536)
def _run_word(raw: str) -> bool:
    word = _bare(raw)
    return (
        word not in STOP_CAPS
        and word not in DEPARTMENTS
        and _title_case(word)
        and len(word) > 1
        and not raw.endswith(".")
    )


def _is_person_span(m: re.Match, taken: set) -> bool:
    return any(s >= m.start("org") and e <= m.end("org") for s, e in taken)


def _legal_at(tokens: _Tokens, i: int) -> int:
    """How many tokens from i on spell a legal form that ends a name ("Ltd", "Pty Ltd",
    "S.A.", "GmbH & Co. KG"); 0 when none. Written forms only: "AB" and "Oy", never "as"."""
    best = 0
    text, start, ends = tokens.text, tokens.starts[i], tokens.ends
    for k in range(i, min(i + 6, tokens.n)):
        if k > i and not tokens.loose(k):
            break
        # the words as written: "S." and "A." with nothing between are the one word "S.A."
        ws = text[start : ends[k]].split()
        if _legal_written(ws) and gazetteer.legal_suffix_len(["X", *ws]) == len(ws):
            best = k - i + 1
    return best


_SHORT_WORDS = words("as at an am is it in on of or by be do go he if me my no so to up us we")


def _legal_written(ws: list[str]) -> bool:
    w = ws[-1].rstrip(".")
    if len(ws) > 1 or "." in ws[-1]:
        return True
    if len(w) >= 4:
        return w[0].isupper()
    if len(w) == 2 and w.lower() in _SHORT_WORDS:
        return w.isupper()  # "Nordic AS" is a company, "known As" is not
    return w[0].isupper()  # AB, LLC, GmbH; Ltd, Inc, Plc; Oy, Ab


def _looks_like_org(org: str, *, loose: bool = False) -> bool:
    """An org phrase a weak cue ("from X", "at X") may name: it carries an org word or legal
    form, or (loose) is a capitalised name that is no stop word and no lone given name."""
    ws = org.split()
    if any(w.rstrip(".,") in ORG_WORDS for w in ws) or gazetteer.legal_suffix_len(ws):
        return True
    if len(ws) == 1 and ws[0] not in STOP_CAPS and _BRAND.fullmatch(ws[0]):
        return True  # "from IBM", "at OpenAI", "over at Auth0": shaped like a company's name
    if not loose:
        return False
    if len(ws) == 1 and (_given(ws[0]) or ws[0] in STOP_CAPS or len(ws[0]) <= 2):
        return False  # a person's name, a stop word, "the UK office"
    return not all(w in STOP_CAPS or w in ("&", "and", "of") for w in ws)


# All-caps of three letters or more, inner capitals, or letters with digits: IBM, OpenAI,
# MongoDB, Auth0. Places and plain words are not written so.
_BRAND = _re(r"[A-Z]{3,}\d*|[A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z][A-Za-z]*\d[A-Za-z\d]*")


def _clean_org(raw: str | None, *, last: bool = False) -> str | None:
    """Trim a captured org phrase: stop at a stop word, drop trailing links and punctuation.

    With `last`, the org is the last clean run of names (it comes right before its cue, as
    in "... Friday. Summit Dental is our new client"); otherwise the first.
    """
    if not raw:
        return None
    ws: list[str] = []
    for word in raw.split():
        bare = re.sub(r"\.{2,}$", ".", _bare(word.rstrip(",;:!?")))
        stripped = bare.rstrip(".")
        keep_dot = (
            bare.endswith(".")
            and "." in bare[:-1]  # "S.A.", "S.p.A.": the dots are the form's own
            and gazetteer.legal_suffix_len(["X", bare])
        )
        bare = bare if keep_dot else stripped
        ends = word.endswith((".", ",", ";", ":", "!", "?", "'s", "’s")) and not keep_dot
        if not bare:
            break
        lowered = bare[:1].islower() and bare not in ("and", "of", "de", "für", "for")
        if bare in STOP_CAPS or (ws and lowered) or (not ws and bare[:1].islower()):
            if last:
                ws = []
                continue
            break
        if last and ends:
            ws = []
            continue
        ws.append(bare)
        if ends or len(ws) == 6:
            break
    while ws and ws[-1] in ("&", "and", "of", "de", "für", "for"):
        ws.pop()
    if not ws or ws[0] in ("&", "and", "of", "for"):
        return None
    if len(ws) == 1 and _given(ws[0]) and not gazetteer.legal_suffix_len(ws):
        return None  # "a note from Priya at Dana's": a person, not an org
    if ws[0].isdigit():
        return None
    return " ".join(ws)


def _clients(p: Prose, out: list) -> None:
    text = p.text
    for pattern, last in _CLIENT:
        for m in pattern.finditer(text):
            org = _clean_org(m.group("org"), last=last)
            if not org:
                continue
            quote = p.quote(m.start(), m.end())
            out.append(("client_of.words", org, "org", "client_of", "owner", "owner", quote))
            out.append(_is("org.context", org, "org", quote))
    for m in _CLIENT_LIST.finditer(text):
        start = m.start("list")
        for part in re.split(
            r",\s*|\s+and\s+|\s*&\s+(?=[A-Z][\w.-]*\s+(?:and|,|$))", m.group("list")
        ):
            org = _clean_org(part.strip())
            if not org:
                break
            whole = org.rstrip(".") == part.strip().rstrip(".,;:!?")
            quote = p.quote(start, start + len(m.group("list")))
            out.append(("client_of.list", org, "org", "client_of", "owner", "owner", quote))
            out.append(_is("org.context", org, "org", quote))
            if not whole:
                break  # the sentence goes on after this name: the list has ended


# -- addresses, domains, repos ----------------------------------------------------------------


def _addresses(p: Prose, persons: list[Span], out: list) -> None:
    text = p.with_code
    for m in EMAIL_RE.finditer(text):
        address = m.group(1).lower().rstrip(".")
        domain = address.rsplit("@", 1)[1]
        if domain in IGNORED_DOMAINS or address.startswith(("git@", "noreply", "no-reply")):
            continue
        if not gazetteer.registered(domain):
            continue  # "user@localhost", "x@build.local": not an address anyone writes to
        quote = p.quote(m.start(), m.end())
        out.append(_is("address.email", address, "address", quote))
        out.append(_is("domain.email", domain, "domain", quote))
    for start, end, label in persons:
        if len(label.split()) < 2:
            continue
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
                    p.quote(start, after.end()),
                )
            )


def _domains(p: Prose, out: list) -> None:
    text = p.with_code
    for m in _domain_matches(text):
        domain = m.group("domain").lower()
        if domain in IGNORED_DOMAINS or domain.endswith(_IGNORED_SUBDOMAINS):
            continue
        reg = gazetteer.registered(domain)
        if reg is None:
            continue
        name, suffix = reg
        if len(name) < 2 or name.isdigit() or name in FILE_STEMS:
            continue
        if any(label in DATA_EXTENSIONS for label in domain.split(".")[1:]):
            continue  # "profiles.yml.example", "settings.json.bak": files
        # "main.py", "notes.md", "app.ts": a file whose extension is also a country's suffix
        if not m.group("scheme") and suffix in FILE_EXTENSIONS:
            continue
        out.append(_is("domain.bare", domain, "domain", p.quote(m.start(), m.end())))


_IGNORED_SUBDOMAINS = tuple("." + d for d in sorted(IGNORED_DOMAINS))  # "api.github.com"


def _domain_matches(text: str) -> Iterator[re.Match]:
    """What `_DOMAIN.finditer(text)` finds, read only in the runs of address characters that
    hold a dot before two letters (a match lies inside one such run and holds its TLD's dot):
    most of a turn is words no domain can start in. A run is read whole, and the lookbehind
    still sees the text before it, so the matches are the same. The run's start is found in
    the text reversed (made once, when a dot is found): `_DOMAIN_RUN` read backwards from the
    dot, never before the last run's end."""
    end = 0
    size = len(text)
    backwards = ""
    for dot in _DOMAIN_DOT.finditer(text):
        at = dot.start()
        if at < end:
            continue  # inside the run just read
        backwards = backwards or text[::-1]  # text[at - 1] is backwards[size - at]
        before = _DOMAIN_RUN.match(backwards, size - at, size - end)
        start = at - (before.end() - (size - at)) if before else at
        run = _DOMAIN_RUN.match(text, at)  # never None: the pattern matches empty
        end = run.end() if run else len(text)
        yield from _DOMAIN.finditer(text, start, end)


def _repos(p: Prose, out: list) -> None:
    text = p.with_code
    lower = p.code_lower
    hosted = "github" in lower or "gitlab" in lower or "bitbucket" in lower
    # each slug pattern holds a "/": a turn without one is not read by them
    worded = "/" in text and ("repo" in lower or "clone" in lower or "fork" in lower)
    # where a match can start (_matches_from): a keyword's first letter, or a slug's owner;
    # a keyword is looked for in the lowercased text only when it kept the text's length
    aligned = len(lower) == len(text)
    repo_at = _found_at(lower, ("repo",)) if aligned and "repo" in lower else None
    slug_at = owner_at = None
    if worded:
        slug_at = _found_at(lower, _SLUG_WORDS) if aligned else None
        owner_at = _owners_at(text, _SLUG_OWNER, "`")
    for rule, pattern, wanted, starts in (
        ("repo.url", _REPO_URL, hosted, None),
        ("repo.slug", _REPO_SLUG, worded, slug_at),
        ("repo.slug", _REPO_SLUG_BEFORE, worded, owner_at),
        ("repo.slug", _REPO_SLUG_PAREN, worded, repo_at),
    ):
        if not wanted:
            continue  # cheap substring checks first: most turns name no repo
        for m in _matches_from(pattern, text, starts):
            owner, name = m.group("owner"), m.group("name").removesuffix(".git")
            if owner.lower() in _NOT_OWNERS or not name or name in (".", ".."):
                continue
            out.append(_is(rule, f"{owner}/{name}", "repo", p.quote(m.start(), m.end())))
    named = ((_REPO_NAME, None), (_REPO_CALLED, repo_at)) if "repo" in lower else ()
    for pattern, starts in named:
        for m in _matches_from(pattern, text, starts):
            name = m.group("name")
            if any(part in _FUNCTION_WORDS for part in re.split(r"[-_.]", name)):
                continue  # "up-to-date", "set-up": a phrase, not an identifier
            out.append(_is("repo.name", name, "repo", p.quote(m.start(), m.end())))
    if "/" not in text:
        return
    for m in _matches_from(_REPO_BARE, text, _owners_at(text, _BARE_OWNER, "")):
        owner, name = m.group("owner"), m.group("name")
        if owner in _NOT_OWNERS:
            continue
        lo, hi = p.sentence(m.start())
        if not m.group("issue") and not _CODE_HOST_CUE.search(text, lo, hi):
            continue  # "pros/cons", "allow/deny": alternatives, not a repo
        out.append(_is("repo.bare", f"{owner}/{name}", "repo", p.quote(m.start(), m.end())))


# The first words of _REPO_SLUG's keywords ("repository" starts with "repo"), and the
# characters of the owners _REPO_SLUG_BEFORE and _REPO_BARE take before their one "/".
_SLUG_WORDS = ("repo", "clone", "fork")
_SLUG_OWNER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_BARE_OWNER = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


def _matches_from(pattern: re.Pattern, text: str, starts: list[int] | None) -> Iterator[re.Match]:
    """What `pattern.finditer(text)` finds, tried only at `starts` (ascending), which hold
    every place one of its matches can start (None: every place). The leftmost match at or
    after the last one's end is the one at the first such start where `match` succeeds (the
    same match: `match` at a position sees the text before it, for lookbehinds and \\b, and
    none of these patterns matches empty). Python's `re` tries a pattern that opens with a
    lookbehind, \\b or a case-blind word at every character; most turns hold none."""
    if starts is None:
        yield from pattern.finditer(text)
        return
    end = 0
    for at in starts:
        if at < end:
            continue
        m = pattern.match(text, at)
        if m is not None:
            yield m
            end = m.end()


def _found_at(lower: str, words: tuple[str, ...]) -> list[int]:
    """Where each of `words` starts in `lower`: a case-blind match of a word made of the
    letters r, e, p, o, c, l, n, f and k starts only where the lowercased text has it (for
    them `re`'s IGNORECASE is `str.lower`, checked over every code point), when lowercasing
    kept every character one character (the caller checks the lengths: only U+0130 grows)."""
    found: set[int] = set()
    for word in words:
        at = lower.find(word)
        while at >= 0:
            found.add(at)
            at = lower.find(word, at + 1)
    return sorted(found)


def _owners_at(text: str, owner: frozenset[str], opener: str) -> list[int]:
    """Where a slug can start whose owner is made of `owner`'s characters, behind a
    lookbehind that refuses every one of them (each match holds one "/", the owner just
    before it): the first character of the run of them before each "/", and the `opener`
    just before that run when there is one (a backtick the pattern may take)."""
    starts: list[int] = []
    at = text.find("/")
    while at >= 0:
        lo = at
        while lo > 0 and text[lo - 1] in owner:
            lo -= 1
        if lo < at:
            if opener and lo > 0 and text[lo - 1] == opener:
                starts.append(lo - 1)
            starts.append(lo)
        at = text.find("/", at + 1)
    return starts


# a newline before a capital: where a line can start a speaker's name (`_capital_lines`)
_CAPITAL_LINE = _re(rf"\n(?=[{_UP}])")


def _capital_lines(text: str) -> list[int]:
    """The start, and every line start with a capital letter (the first character of every
    `_SPEAKER` match, which starts a line): found by one scan for the newlines before one."""
    return [0, *(m.end() for m in _CAPITAL_LINE.finditer(text))]


def _cue_at(pattern: re.Pattern, text: str, letters: str, back: int) -> bool:
    """Whether `pattern.search(text)` finds a match, when every match holds one of
    `letters` (the only characters re's IGNORECASE takes for them) at most `back`
    characters after its start: tried only there."""
    for letter in letters:
        at = text.find(letter)
        while at >= 0:
            for start in range(max(0, at - back), at + 1):
                if pattern.match(text, start):
                    return True
            at = text.find(letter, at + 1)
    return False


def _git_remotes(text: str) -> list:
    """`git remote -v` output in a tool result: the workspace's repo (for repo_for only)."""
    out = []
    for m in _GIT_REMOTE.finditer(text[:MAX_TEXT]):
        url = _REPO_URL.search(m.group("url") + " ")
        if not url:
            continue
        repo = f"{url.group('owner')}/{url.group('name').removesuffix('.git')}"
        quote = clip(m.group(0), QUOTE_CHARS)
        out.append(("repo.git_remote", repo, "repo", "git_remote", "workspace", "workspace", quote))
    return _unique(out)


# -- the person's own: deadlines, preferences, decisions -------------------------------------------


def _cue_sentences(p: Prose, cues: re.Pattern) -> list[tuple[int, int]]:
    """The sentences holding a cue word: a rule's patterns run only there."""
    spans: list[tuple[int, int]] = []
    for m in cues.finditer(p.lower):
        if spans and m.start() < spans[-1][1]:
            continue
        lo, hi = p.sentence(m.start())
        lo = p.sentence(lo - 2)[0] if lo > 1 else 0  # the sentence before may hold the subject
        spans.append((lo, hi))
    return spans


def _deadlines(p: Prose, said: datetime | None, out: list) -> None:
    text = p.text
    days: set = set()
    spans = _cue_sentences(p, _DEADLINE_CUES)
    for rule, key, pattern, tail in _DEADLINE_TAILS:
        # a sentence without the pattern's own word is not read by it (a cheap first look)
        keyed = [(lo, hi) for lo, hi in spans if key.search(text, lo, hi)]
        for m in (m for lo, hi in keyed for m in _finditer(pattern, tail, text, lo, hi)):
            day = dates.resolve(m, said)
            if day is None or day in days:
                continue  # one deadline per date and turn: the first rule that read it
            days.add(day)
            subject = _deadline_subject(rule, m.groupdict().get("subj"))
            quote = p.quote(m.start(), m.end())
            out.append((rule, subject, "thing", "deadline", day.isoformat(), "date", quote))
    then = "then" in p.lower
    for m in (
        m for lo, hi in spans if then for m in _finditer(_BY_THEN, _BY_THEN_TAIL, text, lo, hi)
    ):
        lo = p.sentence(m.start())[0]
        earlier = list(dates.DATE_RE.finditer(text, lo, m.end()))
        day = dates.resolve(earlier[-1], said) if earlier else None
        if day is None or day in days:
            continue
        days.add(day)
        subject = _deadline_subject("deadline.by", m.group("subj"))
        quote = p.quote(earlier[-1].start(), m.end())
        out.append(("deadline.by", subject, "thing", "deadline", day.isoformat(), "date", quote))


def _finditer(
    pattern: re.Pattern, tail: re.Pattern | None, text: str, lo: int, hi: int
) -> Iterator[re.Match]:
    """`pattern.finditer(text, lo, hi)`, read only from where its tail allows (`_np_tail`)."""
    if tail is not None:
        found = tail.search(text, lo, hi)
        if found is None:
            return iter(())
        lo = _phrase_start(text, found.start(), lo)
    return pattern.finditer(text, lo, hi)


def _deadline_subject(rule: str, np: str | None) -> str:
    """What is due, in the person's words: "the booking widget ships" -> booking widget;
    a launch keeps the word ("the site launches" -> site launch)."""
    ws = (np or "").lower().split()
    cut = [i for i, w in enumerate(ws) if w in _CLAUSE_STOPS]
    if cut:  # "Marcus says the intranet launch" -> intranet launch
        ws = ws[cut[-1] + 1 :]
    # "the abstract for the ornithology conference" -> abstract: what is due comes before its
    # preposition (or after it, when nothing does: "everything for the launch" -> launch)
    at = next((i for i, w in enumerate(ws) if w in _NP_PREPOSITIONS), None)
    if at is not None:
        head = [w for w in ws[:at] if w not in _NP_STOPS and w not in _NOT_SUBJECTS]
        ws = ws[:at] if head else ws[at + 1 :]
    ws = [w for w in ws if w not in _NP_STOPS]
    while ws and ws[-1] in ("is", "are", "'s", "’s", "was", "now", "still"):
        ws.pop()
    ws = [w for w in ws if w not in _NOT_SUBJECTS]
    ws = ws[-4:] if rule == "deadline.by" else ws[-3:]
    if rule == "deadline.launch":
        if ws and ws[-1] in ("go-live", "release"):
            return ws[-1]
        return " ".join([*ws, "launch"]) if ws and ws[-1] != "launch" else "launch"
    if rule == "deadline.ship" and not ws:
        return "release"
    return " ".join(ws) or "deadline"


def _choices(p: Prose, out: list) -> None:
    text = p.text
    for rule, rel, pattern in (
        ("prefers.words", "prefers", _PREFERS),
        ("decided.words", "decided", _DECIDED),
    ):
        for m in pattern.finditer(text):
            said = m.group("obj") or m.group("obj2") or m.groupdict().get("obj3") or ""
            value = _CLAUSE_END.split(said, maxsplit=1)[0]
            value = value.strip(" ,;:-")
            if len(value) < 3:
                continue
            out.append((rule, "owner", "owner", rel, value, "value", p.quote(m.start(), m.end())))


# -- helpers ------------------------------------------------------------------------------------


def _is(rule: str, label: str, kind: str, quote: str) -> tuple:
    return (rule, label, kind, "is", kind, "kind", quote)


def _unique(mentions: list) -> list:
    seen, out = set(), []
    for m in mentions:
        key = m[:6]
        if key not in seen:
            seen.add(key)
            out.append(m)
    return out


_patterns.save()  # every pattern above is compiled: keep their code for the next process
