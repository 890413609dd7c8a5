"""What a question asks: its kind, the words that must be answered, the names it gives.

Nothing here knows any world: question words, English stop words, a stemmer (Snowball, via
PyStemmer) and the relation words of `personal`.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass

import Stemmer

from vyre.ask.personal import RELATIONS
from vyre.resolve import fold

_STEMMER = Stemmer.Stemmer("english")

# Words that carry no content in a question: function words, question words, and the verbs
# questions are built with.
STOP = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can can't could couldn't did didn't do does doesn't
    doing don't down during each few for from further had hadn't has hasn't have haven't having
    he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm
    i've if in into is isn't it it's its itself let's me more most mustn't my myself no nor not
    of off on once only or other ought our ours ourselves out over own same shan't she she'd
    she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've this those through
    to too under until up very was wasn't we we'd we'll we're we've were weren't what what's
    when when's where where's which while who who's whom why why's with won't would wouldn't
    you you'd you'll you're you've your yours yourself yourselves
    whats whos wheres whens hows s t d ll re ve m
    remind tell know remember recall again please exactly actually ok okay yes yeah hey hi
    thanks cool great sure right also just
    according say said says thing things one ones
    much many""".split()
)

_WORD = re.compile(r"[\w][\w.'’/@+-]*[\w]|[\w]")
_CODE = re.compile(r"[A-Za-z0-9]+(?:[_./:-][A-Za-z0-9]+)+|[A-Z][A-Z0-9_]{2,}|\w+_\w+")

KINDS = ("person", "who", "date", "decision", "file", "config", "bug", "personal", "count", "place")
_CONFIG = {"config", "schema", "env", "variable", "setting", "host", "port", "url", "target"}
_FILE = {"file", "model", "path", "folder", "module", "script", "table", "staging"}
_BUG = {"caus", "fail", "broke", "break", "bug", "error", "wrong", "duplic", "doubl", "crash"}


@functools.lru_cache(maxsize=65536)
def _snowball(word: str) -> str:
    return _STEMMER.stemWord(word.casefold().strip("'’.-"))


# Words people use for the same thing in a question and in what was said ("wedding" /
# "getting married"): ordinary English, folded to one stem so either finds the other.
_SAME = [
    "wedding wed marry married marrying marriage",
    "found founded founder founding cofounder co-founder",
    "launch launches launched go-live golive release released",
    "deadline due",
    "pay paid price cost costs fee",
    "pick picked choose chose chosen select selected decide decided decision settle settled "
    "opt opted",
    "birthday born",
    "move moved relocate relocated",
    "hire hired recruit recruited",
    "email e-mail mail",
    "double doubled twice duplicate duplicates duplicated",
]
_ALIAS: dict[str, str] = {}
_GROUP_OF: dict[str, list[str]] = {}
for _group in _SAME:
    for _w in _group.split():
        _GROUP_OF[_w] = _group.split()
    _stems = [_snowball(w) for w in _group.split()]
    for _s in _stems:
        _ALIAS.setdefault(_s, _stems[0])


def expansions(text: str) -> list[str]:
    """The other words people use for a question's words ("wedding" -> "married", ...), so
    that search finds a turn that says it the other way."""
    out: list[str] = []
    for w in words(text):
        for other in _GROUP_OF.get(w.casefold(), ()):
            if other != w.casefold() and other not in out:
                out.append(other)
    return out


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    s = _snowball(word)
    return _ALIAS.get(s, s)


_POSSESSIVE = ("'s", "’s")


def words(text: str) -> list[str]:
    """Words as written, possessives dropped ("Marlow's" -> "Marlow")."""
    return [w[:-2] if w.endswith(_POSSESSIVE) else w for w in _WORD.findall(text)]


_PARTS = re.compile(r"[/._:-]+")


@functools.lru_cache(maxsize=8192)
def content(text: str) -> tuple[str, ...]:
    """Stems of the content words of a text, in order; a code word counts as its parts too
    ("search/indexer.py" says "search" and "indexer")."""
    out: list[str] = []
    for w in _WORD.findall(text):
        out += _word_stems(w)
    return tuple(out)


def content_set(text: str) -> frozenset[str]:
    """The stems `content` gives, as a set: each distinct word read once (long turns)."""
    out: set[str] = set()
    for w in set(_WORD.findall(text)):
        out.update(_word_stems(w))
    return frozenset(out)


@functools.lru_cache(maxsize=65536)
def _word_stems(w: str) -> tuple[str, ...]:
    if w.endswith(_POSSESSIVE):
        w = w[:-2]
    if w.casefold() in STOP or w.isdigit():
        return ()
    if not _PARTS.search(w):
        return (stem(w),)
    return (stem(w), *(stem(p) for p in _PARTS.split(w) if p and p.casefold() not in STOP))


@dataclass(frozen=True)
class Question:
    text: str
    key: str  # folded, for "the same question again"
    wh: str  # who | when | where | which | what | why | how_many | how_much | yesno | other
    kind: str  # one of KINDS, for reports and corrections by kind
    terms: tuple[str, ...]  # content stems, in order, unique
    names: tuple[str, ...]  # names and code words as written ("Marlow", "stg_x")
    personal: tuple[str, str] | None  # (who, attr) when it asks a personal fact
    head: tuple[str, ...] = ()  # "which staging model ...": the kind of thing asked for

    @property
    def digest(self) -> str:
        return hashlib.blake2b(self.key.encode(), digest_size=8).hexdigest()


def key(text: str) -> str:
    return " ".join(words(fold(text)))


def parse(text: str) -> Question:
    low = fold(text)
    first = low.split()[0] if low.split() else ""
    if re.search(r"\bhow\s+many\b", low):
        wh = "how_many"
    elif re.search(r"\bhow\s+(?:much|long|big|often|far)\b", low):
        wh = "how_much"
    elif first in ("who", "whom", "whose", "who's") or re.search(r"\bwho\b", low):
        wh = "who"
    elif first in ("when", "when's") or re.search(
        r"\bwhat(?:'s|\s+is|\s+was)?\s+(?:the\s+)?(?:date|day|time|deadline|due\s+date)\b", low
    ):
        wh = "when"
    elif first in ("where", "where's") or re.search(r"\bwhere\b", low):
        wh = "where"
    elif first in ("why",) or _WHY.search(low):
        wh = "why"
    elif first in ("which",) or re.search(r"\bwhich\b", low):
        wh = "which"
    elif first in ("what", "what's", "whats"):
        wh = "what"
    elif first in ("is", "are", "was", "were", "do", "does", "did", "has", "have", "can"):
        wh = "yesno"
    else:
        wh = "other"
    raw = words(text)
    terms = tuple(dict.fromkeys(content(text)))
    names = tuple(dict.fromkeys(_names(text, raw)))
    personal = _personal(low, wh)
    head = _head(low) if wh in ("which", "what") else ()
    if wh == "how_many":  # "how many depots": the thing counted
        head = _counted_noun(low)
    kind = _kind(wh, terms, personal)
    if wh == "why":  # "what was causing X": the cause is what is asked, not a word to find
        terms = tuple(t for t in terms if t not in WHY_WORDS)
    if kind in ("who", "person") and _CHOSE.search(text):
        kind = "decision"  # "did we end up going with X or Y?": a choice, said in other words
    return Question(text, key(text), wh, kind, terms, names, personal, head)


# A question that asks for a cause in other words than "why": "what was causing ...", "what
# caused ...", "what was behind ...", "the cause of ...", "what was the <thing> bug?".
_WHY = re.compile(
    r"\bwhy\b|\bcaus(?:e|es|ed|ing)\b|\bwhat(?:'s|\s+is|\s+was|\s+were)?\s+(?:behind|wrong\s+with)\b"
    r"|^\W*what(?:'s|\s+is|\s+was|\s+were)\s+(?:the|that)\s+(?:[\w-]+\s+){0,4}"
    r"(?:bug|issue|problem|glitch|regression)\W*$"
)
WHY_WORDS = frozenset({"caus", "behind"})  # stems that ask why in other words
# Plurals without an s, for the thing a "how many" question counts.
_PLURALS = frozenset("people children men women staff data media criteria".split())


def _counted_noun(low: str) -> tuple[str, ...]:
    """The thing a "how many" question counts, as written: the first plural of the words after
    it ("how many recorder sites have ..." -> sites; "how many depot managers" -> managers),
    else its first word ("how many staff work ..." -> staff)."""
    m = re.search(r"\bhow\s+many\s+((?:[\w-]+\s*){1,3})", low)
    if not m:
        return ()
    said = m.group(1).split()
    phrase = []
    for w in said:
        if w in STOP:
            break
        phrase.append(w)
    if not phrase:
        return ()
    plural = next((w for w in phrase if w in _PLURALS or (w.endswith("s") and len(w) > 3)), None)
    return (plural or phrase[0],)


_HEAD = re.compile(
    r"\b(?:which|what)(?:\s+(?:is|are|was|were|'s))?(?:\s+(?:the|a|an|our|my|their))?"
    r"((?:\s+[\w-]+){1,3})"
)


def _head(low: str) -> tuple[str, ...]:
    """The thing a which/what question asks for: "which staging model did ..." -> model."""
    m = _HEAD.search(low)
    if not m:
        return ()
    out = []
    for w in m.group(1).split():
        if w in STOP or w in ("did", "do", "does", "we", "i", "you"):
            break
        out.append(stem(w))
    return tuple(out)


def _names(text: str, raw: list[str]) -> list[str]:
    out = []
    for i, w in enumerate(raw):
        coded = "@" in w or _CODE.fullmatch(w)  # addresses, domains, paths, code words
        if coded or (w[:1].isupper() and (i > 0 or w.casefold() not in STOP)):
            if w.casefold() in STOP or w == "I":
                continue
            out.append(w)
    return out


_REL = "|".join(sorted((re.escape(r) for r in RELATIONS), key=len, reverse=True))
_MY_REL = re.compile(rf"\bmy\s+({_REL})\b")


def _personal(low: str, wh: str) -> tuple[str, str] | None:
    """(who, attr) for a question about the person's own life, else None."""
    m = _MY_REL.search(low)
    who = m.group(1) if m else ""
    if re.search(r"\bbirthday\b", low) and (m or re.search(r"\bmy\s+birthday\b", low)):
        return who, "birthday"
    if re.search(r"\b(?:live|lives|living|based)\b", low) and (
        m or re.search(r"\b(?:i|we)\b", low)
    ):
        return who, "lives_in"
    if re.search(r"\bwhere\b.*\bfrom\b", low) and (m or re.search(r"\b(?:i|am)\b", low)):
        return who, "from"
    if m and re.search(r"\bwork(?:s)?\s+(?:at|for)?\b|\bemploy", low) and wh in ("where", "who"):
        return who, "works_at"
    if (
        m
        and wh in ("who", "what", "other", "which")
        and not re.search(r"\b(?:birthday|address|email|phone|number|job|title|role)\b", low)
    ):
        return who, "name"
    return None


def _kind(wh: str, terms: tuple[str, ...], personal: tuple[str, str] | None) -> str:
    if personal:
        return "personal"
    t = set(terms)
    if wh in ("how_many", "how_much"):
        return "count"
    if wh == "when":
        return "date"
    if wh == "where":
        return "place"
    if wh == "why" or t & _BUG:
        return "bug"
    if t & DECISION:
        return "decision"
    if t & {stem(w) for w in _CONFIG}:
        return "config"
    if t & {stem(w) for w in _FILE}:
        return "file"
    if wh == "who":
        return "who"
    return "person" if wh in ("what", "which") else "who"


# a choice asked about in words no stem list holds: "go with", "went with", "ended up with"
_CHOSE = re.compile(
    r"\b(?:go|goes|going|gone|went)\s+with\b|\bend(?:ed|ing)?\s+up\s+(?:with|going|using|on)\b",
    re.I,
)

DECISION = frozenset(
    stem(w)
    for w in (
        "choose chose chosen pick picked decide decided decision settle settled agree agreed "
        "opt opted select selected alternative instead"
    ).split()
)

__all__ = ["KINDS", "STOP", "Question", "content", "content_set", "key", "parse", "stem", "words"]
