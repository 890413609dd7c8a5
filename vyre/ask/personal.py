"""Personal facts: what the person has said about their own life, in their own words.

"my wife is Juno", "Tomas, my brother", "I live in Lisbon", "my physio is Dr. Osei at
Lakeside Clinic", "my brother's birthday is 3 May": each becomes a `PersonalFact` with the
turn that said it. A question such as "what's my wife's name?" is answered from them in
milliseconds, with no model ("from what you have said").

What must stay true:
- Source trust (ARCHITECTURE.md "Who wrote a turn"): only turns with `by = 'person'` and
  `kind = 'text'`, never sidechain turns, never the assistant, tool output or pasted text.
  What the person tells memory themselves (`Memory.remember`) is a ledger row of its own,
  the highest trust of all.
- Facts are found once per turn, when it is stored (`index`, after each ingest), and kept
  beside it (`personal_said`): a question reads them with one indexed query. A deleted or
  rewritten turn takes its facts with it; forgotten turns and rooms are applied when read, so
  a correction takes effect at once.
- The latest statement wins ("I live in Lisbon", later "we moved to Porto": Porto).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime

from vyre.errors import LedgerBusy
from vyre.extract.compiled import Patterns, longest_first
from vyre.extract.dates import DATE, DATE_RE, resolve
from vyre.extract.gazetteer import is_given_name
from vyre.ledger import Ledger
from vyre.ledger.store import ts_value

_patterns = Patterns.beside(__file__)  # compiled once per install, not per process
_re = _patterns.compile

# The people (and animals) in someone's life that they name as "my X". A word list of
# English, not of any world: relations people have, as they say them.
FAMILY = (
    "wife husband partner spouse fiancee fiancée fiance fiancé girlfriend boyfriend son daughter "
    "child kid baby mother mom mum mam father dad brother sister sibling twin cousin aunt "
    "auntie uncle niece nephew grandmother grandma granny gran nan nana grandfather grandpa "
    "grandad granddad grandson granddaughter stepson stepdaughter stepmother stepmom stepmum "
    "stepfather stepdad stepbrother stepsister mother-in-law father-in-law brother-in-law "
    "sister-in-law son-in-law daughter-in-law godfather godmother godson goddaughter "
    "godchild"
).split()
PETS = "dog cat puppy kitten pet horse rabbit bunny parrot hamster tortoise".split()
HELPERS = (
    "doctor gp dentist physio physiotherapist therapist counsellor counselor psychologist "
    "psychiatrist optician optometrist surgeon midwife vet accountant lawyer solicitor "
    "attorney landlord landlady plumber electrician mechanic hairdresser barber trainer coach "
    "tutor boss manager mentor neighbour neighbor friend flatmate roommate housemate "
    "babysitter nanny cleaner"
).split()
TWO_WORD = [
    "best friend",
    "personal trainer",
    "financial adviser",
    "financial advisor",
    "estate agent",
    "letting agent",
    "family doctor",
]
RELATIONS = frozenset(FAMILY + PETS + HELPERS + TWO_WORD)
_PLURAL = {"kids": "kid", "children": "child", "sons": "son", "daughters": "daughter"}

_REL = "|".join(sorted((re.escape(r) for r in RELATIONS | set(_PLURAL)), key=longest_first))
_HONORIFIC = r"(?:Dr|Mr|Mrs|Ms|Miss|Prof|Dr\.|Mr\.|Mrs\.|Ms\.|Prof\.)"
# A name as people write it: capitalised words, an honorific first; a lowercase given name
# passes only when it is a known given name ("my wife is juno").
_CAP = r"[^\W\d_][\w'’-]*"
_NAME = rf"(?:{_HONORIFIC}\.?\s+)?{_CAP}(?:\s+{_CAP}){{0,2}}"
_ORG = rf"{_CAP}(?:\s+(?:&\s+)?{_CAP}){{0,4}}"
_PLACE = rf"{_CAP}(?:[\s-]+{_CAP}){{0,2}}"

# Words that end a name run, or are never names themselves.
_NOT_NAME = frozenset(
    """a an the and or but so at in on of for to with from by is was are were be been being
    he she they it we you i me my our your his her their this that these those there here
    who what when where why how which also too very really just still now then today
    tomorrow yesterday said says told tells called named asked wants wanted thinks will would
    can could should might must has have had not no yes ok okay please thanks thank hi hey
    sick ill away home busy out back here late early fine well good great happy tired""".split()
)
_MONTHS_DAYS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)

_P_IS = _re(
    rf"\bmy\s+(?P<who>{_REL})(?P<named>['’]s\s+name)?\s+(?:is|'s|’s|was)\s+"
    rf"(?P<called>(?:called|named)\s+)?(?P<name>{_NAME})",
    re.I,
)
_MY_RELATION = _re(rf"\bmy\s+(?:{_REL})\b", re.I)
_P_APPOS = _re(rf"\bmy\s+(?P<who>{_REL}),?\s+(?P<name>{_NAME})", re.I)
_P_CALLED = _re(
    rf"\bmy\s+(?P<who>{_REL})(?:\s+is|['’]s)?\s+(?:called|named)\s+(?P<name>{_NAME})", re.I
)
_P_BACK = _re(
    rf"(?P<name>{_NAME}),?\s+(?:\(\s*)?(?:is\s+|who\s+is\s+|who's\s+)?my\s+(?P<who>{_REL})\b",
    re.I,
)
_P_BIRTHDAY = _re(
    rf"\bmy\s+(?:(?P<who>{_REL})['’]s\s+)?birthday\s+(?:is\s+|'s\s+|’s\s+|was\s+|falls\s+)?"
    rf"(?:on\s+)?(?:the\s+)?(?P<date>{DATE})",
    re.I,
)
_P_LIVE = _re(
    rf"\b(?:(?P<i>i|we)\s+(?:live|am\s+living|'m\s+living|’m\s+living|am\s+based|'m\s+based|"
    rf"’m\s+based|are\s+based|moved|have\s+moved|'ve\s+moved|’ve\s+moved|just\s+moved|"
    rf"relocated)|my\s+(?P<who>{_REL})\s+(?:lives|is\s+based|moved|has\s+moved))\s+"
    rf"(?:in|to)\s+(?P<place>{_PLACE})",
    re.I,
)
_P_FROM = _re(rf"\b(?:i\s+am|i['’]m)\s+(?:originally\s+)?from\s+(?P<place>{_PLACE})", re.I)
_P_WORKS = _re(
    rf"\b(?:(?P<i>i)|my\s+(?P<who>{_REL}))\s+(?:works|work|is\s+working|am\s+working|"
    rf"'m\s+working)\s+(?:at|for)\s+(?P<org>{_ORG})",
    re.I,
)
_AT = _re(rf"\s*,?\s*(?:at|from|of)\s+(?:the\s+)?(?P<org>{_ORG})")


@dataclass(frozen=True, slots=True)
class PersonalFact:
    """One thing the person said about their life.

    `who` is the relation ("wife", "brother") or "" for the person themself; `attr` is what
    is said of them: name, birthday, lives_in, from, works_at."""

    who: str
    attr: str
    value: str
    session: str | None
    seq: int | None
    quote: str
    ts: datetime | None
    rule: str
    at: str | None = None  # "Dr. Osei at Lakeside Clinic": where they are
    remembered: int | None = None  # a row the person wrote with `remember`

    def sentence(self) -> str:
        return sentence(self.who, self.attr, self.value, self.at)


def sentence(who: str, attr: str, value: str, at: str | None = None) -> str:
    """The fact told back to the person: "Your wife is Juno", "You live in Lisbon"."""
    owner = f"Your {who}" if who else "You"
    if attr == "name":
        return f"{owner} is {value}" + (f" at {at}" if at else "")
    if attr == "birthday":
        return f"{owner}r birthday is {value}" if not who else f"Your {who}'s birthday is {value}"
    if attr == "lives_in":
        return f"{owner} {'live' if not who else 'lives'} in {value}"
    if attr == "from":
        return f"{owner} {'are' if not who else 'is'} from {value}"
    if attr == "works_at":
        return f"{owner} {'work' if not who else 'works'} at {value}"
    return f"{owner}: {value}"


# -- finding facts in a turn ------------------------------------------------------------------


def _name(raw: str, text_is_lower: bool) -> str | None:
    """The name in a matched run, cut at the first word that is not part of a name."""
    words = raw.split()
    out: list[str] = []
    for i, w in enumerate(words):
        bare = w.strip("'’.,").removesuffix("'s").removesuffix("’s")
        low = bare.casefold()
        if i == 0 and re.fullmatch(_HONORIFIC + r"\.?", w, re.I):
            out.append(w)
            continue
        if not bare or low in _NOT_NAME or low in _MONTHS_DAYS or low in RELATIONS:
            break
        if bare[0].isupper():
            out.append(bare)
        elif text_is_lower or not out:
            # lowercase writers: a known given name, title-cased ("juno" -> "Juno")
            if is_given_name(bare) and (not out or text_is_lower):
                out.append(bare.title())
            else:
                break
        else:
            break
        if w.endswith((",", "'s", "’s")):
            break
    if not out or (len(out) == 1 and re.fullmatch(_HONORIFIC + r"\.?", out[0], re.I)):
        return None
    return " ".join(out)


def _place(raw: str) -> str | None:
    words = []
    for w in re.split(r"\s+", raw):
        bare = w.strip(".,;:!?")
        if not bare or bare.casefold() in _NOT_NAME or not bare[0].isupper():
            break
        words.append(bare)
        if w != bare:
            break
    return " ".join(words) or None


def _rel(word: str) -> str:
    word = word.casefold()
    return _PLURAL.get(word, word)


def _quote(text: str, start: int, end: int) -> str:
    """The sentence around a match, as written (grounding checks quotes against turns)."""
    left = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    rights = [i for i in (text.find(c, end) for c in ".!?\n") if i != -1]
    right = min(rights) + 1 if rights else len(text)
    return text[left:right].strip()


def facts_in(text: str) -> list[tuple[str, str, str, str | None, str, int, int]]:
    """(who, attr, value, at, rule, start, end) for each personal fact the text states."""
    lower = text == text.lower()
    out: list[tuple[str, str, str, str | None, str, int, int]] = []
    taken: list[tuple[int, int]] = []

    def add(who: str, attr: str, value: str, at: str | None, rule: str, m: re.Match) -> None:
        if value and not any(s <= m.start() < e for s, e in taken):
            out.append((who, attr, value, at, rule, m.start(), m.end()))
            taken.append((m.start(), m.end()))

    low = text.casefold()
    if "birthday" in low:
        for m in _P_BIRTHDAY.finditer(text):
            add(_rel(m["who"] or ""), "birthday", m["date"].strip(), None, "personal.birthday", m)
    # the patterns of "my <relation>" (costly: a name can start anywhere) only where one is said
    named = _MY_RELATION.search(text) is not None
    for rule, pattern in (
        ("personal.called", _P_CALLED),
        ("personal.is", _P_IS),
        ("personal.appositive", _P_APPOS),
    ):
        for m in pattern.finditer(text) if named else ():
            name = _name(m["name"], lower or bool(m.groupdict().get("called")))
            if not name:
                continue
            at = _AT.match(text, _end_of(text, m.start("name"), name))
            place = _place(at["org"]) if at else None
            add(_rel(m["who"]), "name", name, place, rule, m)
    for m in _P_BACK.finditer(text) if named else ():
        name = _name(_tail_name(m["name"]), lower)
        if name:
            add(_rel(m["who"]), "name", name, None, "personal.named_back", m)
    for m in _P_LIVE.finditer(text):
        place = _place(m["place"])
        if place:
            add(_rel(m["who"] or ""), "lives_in", place, None, "personal.lives", m)
    for m in _P_FROM.finditer(text):
        place = _place(m["place"])
        if place:
            add("", "from", place, None, "personal.from", m)
    for m in _P_WORKS.finditer(text):
        org = _place(m["org"].replace("&", "& "))
        if org:
            add(_rel(m["who"] or ""), "works_at", org, None, "personal.works", m)
    return out


def _end_of(text: str, start: int, name: str) -> int:
    """Where the kept name ends in the text (names may have been title-cased)."""
    last = name.split()[-1].casefold()
    idx = text.casefold().find(last, start)
    return idx + len(last) if idx >= 0 else start


def _tail_name(raw: str) -> str:
    """In "then Tomas, my brother": the run is "then Tomas"; keep its last capitalised words."""
    words = raw.split()
    keep: list[str] = []
    for w in reversed(words):
        bare = w.strip(",")
        if bare.casefold() in _NOT_NAME or not (bare[:1].isupper() or is_given_name(bare)):
            break
        keep.insert(0, bare)
    return " ".join(keep)


# -- reading them from the ledger -----------------------------------------------------------

_FIRST_WORDS = sorted({r.split()[0] for r in RELATIONS} | set(_PLURAL))
# A turn can state a personal fact only if it says one of these words: the cheap test that
# keeps the pattern work to a few turns in a home of thousands.
_WORTH_READING = frozenset(
    _FIRST_WORDS
    + "birthday live lives living moved based relocated from works work working".split()
)
_LOWER_WORDS = _re(r"[a-z][a-z-]*")


def _worth_reading(text: str) -> bool:
    """A turn can state a personal fact only if it says "my", "I" or "we" and a relation
    word: the cheap test (a set lookup per word) that keeps the patterns to a few turns."""
    found = set(_LOWER_WORDS.findall(text.lower()))
    return bool(found & {"my", "i", "we"}) and bool(found & _WORTH_READING)


RULES_VERSION = "1"  # bump when a pattern changes what it finds: every turn is read again
_PERSON_TEXT = "by = 'person' AND kind = 'text' AND sidechain = 0"


def index(ledger: Ledger) -> bool:
    """Find the personal facts of the person's turns stored since the last time (and of turns
    changed since), into `personal_said`: after each ingest, and before a question in case
    another process stored turns. False when another process holds the write lock (the facts
    stored so far are read; the rest are found next time)."""
    if not _behind(ledger):
        return True
    try:
        with ledger.transaction() as db:
            _index(ledger, db)
    except LedgerBusy:
        return False
    return True


def index_in(ledger: Ledger, db: sqlite3.Connection) -> None:
    """`index` in a write transaction the caller holds (each batch of an ingest: the facts
    of a big read are found as it goes, beside its workers, not after it)."""
    if _behind(ledger):
        _index(ledger, db)


def _behind(ledger: Ledger) -> bool:
    db = ledger.db
    if ledger.meta("personal.version") != RULES_VERSION:
        return True
    top = db.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0]
    if top > int(ledger.meta("personal.mark") or 0):
        return True
    return db.execute("SELECT 1 FROM personal_dirty LIMIT 1").fetchone() is not None


def _index(ledger: Ledger, db: sqlite3.Connection) -> None:
    mark = int(ledger.meta("personal.mark") or 0)
    if ledger.meta("personal.version") != RULES_VERSION:  # new patterns: read everything again
        db.execute("DELETE FROM personal_said")
        db.execute("DELETE FROM personal_dirty")
        mark = 0
    top = db.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0]
    dirty = [t for (t,) in db.execute("SELECT turn FROM personal_dirty")]
    rows = db.execute(
        f"SELECT id, session, seq, ts, text FROM turns WHERE id > ? AND id <= ? AND {_PERSON_TEXT}",
        (mark, top),
    ).fetchall()
    for lo in range(0, len(dirty), 500):
        part = dirty[lo : lo + 500]
        db.execute(f"DELETE FROM personal_said WHERE turn IN ({','.join('?' * len(part))})", part)
        rows += db.execute(
            f"SELECT id, session, seq, ts, text FROM turns WHERE id IN "
            f"({','.join('?' * len(part))}) AND {_PERSON_TEXT}",
            part,
        ).fetchall()
    found = [
        (turn, f.session, f.seq, f.who, f.attr, f.value, f.at, f.quote, ts, f.rule)
        for turn, session, seq, ts, text in rows
        if _worth_reading(text)
        for f in _facts_of(session, seq, ts_value(ts), text)
    ]
    db.executemany(
        "INSERT INTO personal_said (turn, session, seq, who, attr, value, at, quote, ts, rule) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        found,
    )
    db.execute("DELETE FROM personal_dirty")
    ledger.set_meta(db, "personal.mark", str(top))
    ledger.set_meta(db, "personal.version", RULES_VERSION)


def _facts_of(session: str, seq: int, when: datetime | None, text: str) -> list[PersonalFact]:
    out = []
    for who, attr, value, at, rule, start, end in facts_in(text):
        if attr == "birthday":
            value = _day(value, when)
        out.append(
            PersonalFact(who, attr, value, session, seq, _quote(text, start, end), when, rule, at)
        )
    return out


def from_turns(
    ledger: Ledger,
    sessions: frozenset[str] | None,
    *,
    who: str | None = None,
    attr: str | None = None,
    forgotten: frozenset[tuple[str, int]] = frozenset(),
) -> list[PersonalFact]:
    """Personal facts said in these sessions' person turns (None: every session), oldest
    first: read from what `index` found, so a question costs one indexed query."""
    where, args = [], []
    if attr is not None:
        where.append("attr = ?")
        args.append(attr)
    if who is not None:
        where.append("who = ?")
        args.append(who)
    rows = ledger.db.execute(
        "SELECT rowid, session, seq, who, attr, value, at, quote, ts, rule FROM personal_said"
        + (f" WHERE {' AND '.join(where)}" if where else ""),
        args,
    ).fetchall()
    found = [
        (rowid, PersonalFact(w, a, value, session, seq, quote, ts_value(ts), rule, at))
        for rowid, session, seq, w, a, value, at, quote, ts, rule in rows
        if (sessions is None or session in sessions) and (session, seq) not in forgotten
    ]  # in the order said; a turn's facts in the order it says them
    found.sort(key=lambda r: (_when(r[1].ts), r[1].session or "", r[1].seq or 0, r[0]))
    out = [f for _, f in found]
    return out


def _day(phrase: str, said: datetime | None) -> str:
    """A birthday as the day it is ("3 May"): years and weekdays are not part of it."""
    m = DATE_RE.search(phrase)
    if not m:
        return phrase
    # only the day and month matter: any reference time will do when none is known
    day: date | None = resolve(m, said or datetime(2000, 1, 1))
    if m["iso"] and day:
        return f"{day.day} {day:%B}"
    return f"{day.day} {day:%B}" if day and (m["md"] or m["dm"]) else phrase


def _when(ts: datetime | None) -> float:
    """A time to sort by: none first (a turn's time is aware, a bare minimum would not be)."""
    return ts.timestamp() if ts else float("-inf")


def remembered(db: sqlite3.Connection) -> list[PersonalFact]:
    """What the person told memory themselves, newest last."""
    rows = db.execute(
        "SELECT id, who, attr, value, at, text, created FROM remembered "
        "WHERE undone IS NULL ORDER BY created, id"
    ).fetchall()
    return [
        PersonalFact(who, attr, value, None, None, text, ts_value(created), "remembered", at, rid)
        for rid, who, attr, value, at, text, created in rows
    ]


def best(facts: Iterable[PersonalFact]) -> dict[tuple[str, str], list[PersonalFact]]:
    """Facts grouped by (who, attr), the one to answer with first: what the person told
    memory outranks what they said in a session; otherwise the latest statement wins."""
    groups: dict[tuple[str, str], list[PersonalFact]] = {}
    for f in facts:
        groups.setdefault((f.who, f.attr), []).append(f)
    for key, items in groups.items():
        items.sort(
            key=lambda f: (
                f.remembered is not None,
                _when(f.ts),
                f.session or "",
                f.seq or 0,
            ),
            reverse=True,
        )
        groups[key] = items
    return groups


def parse_told(text: str) -> PersonalFact:
    """What the person tells memory ("my wife is Juno"), as a fact, or ValueError."""
    found = facts_in(text)
    if not found:
        raise ValueError(
            "say it as you would to a friend: 'my wife is Juno', 'I live in Lisbon', "
            "'my brother's birthday is 3 May'"
        )
    who, attr, value, at, _rule, _, _ = found[0]
    if attr == "birthday":
        value = _day(value, None)
    fact = PersonalFact(who, attr, value, None, None, text.strip(), None, "remembered", at)
    return replace(fact)


__all__ = [
    "RELATIONS",
    "PersonalFact",
    "best",
    "facts_in",
    "from_turns",
    "index",
    "parse_told",
    "remembered",
    "sentence",
]


_patterns.save()  # every pattern above is compiled: keep their code for the next process
