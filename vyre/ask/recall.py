"""Recall: the turns of a room that answer a question, ranked, with no model.

`search(ledger, question, scope)` reads the ledger's search index (vyre/ledger/search.py) and
returns `Passage`s. How a question is ranked, each step measured (README "Recall"):

1. Words. The question is split as the index splits text; stop words and question words are
   dropped and the rest are OR-ed: any word counts and none is required (implicit AND and
   phrase matching are what users of other memory tools complain about). Stemming is the
   index's own (Porter), so "painted" finds "painting".
2. BM25 per word (FTS5's `bm25`), each word read on its own so the steps below can see which
   turn and which session matched which word.
3. Neighbours. A turn is read beside the turns around it in its session: it lends half its
   score to the turns before and after it and a quarter to those two away (the
   neighbouring-turns field), so a short reply ("yes, last Friday") is found through the turn
   it answers, and a fact told after an exchange through the exchange.
4. Asking. A turn that asks something holds the question's words but not its answer: it keeps
   half its score and lends the whole of it to the turn after it, the answer.
5. Who said it. A question in the first person ("my", "did I") is about the person's own
   turns, one in the second ("did you", "Claude") about the assistant's: the other side's
   turns count half.
6. The session. A session is also scored as one document (BM25 over sessions, a word's count
   being how many of the session's turns have it), and its score is fused with the turn's.
7. Dates. A question that names a date or a period ("on 9 October 2022", "in June", "last
   week") favours sessions held then or in the week after (when people tell what they did).
8. Fusion. The turn's score over the best turn's, plus the session's over the best session's
   and the date's, weighted as below, for turns that matched a word themselves (a turn that is
   a candidate only for its neighbours' words keeps what they lent it); ties go to the newer
   turn.
9. The kind of answer. A question asking when ("when did...", "what day...") is answered by
   a turn that tells a time: among the best candidates, such a turn gains half the best score.

Parameters are round numbers chosen on those principles (half, whole), not fitted. Where a
word is so common that reading all its turns would be slow (a heavy home, a word in a
fifth of all turns), only its newest PER_WORD turns in the room are read: its weight is low
anyway, and recall stays inside its time budget.

Scope: a room's sessions (its folders and picks, or `unfiled`), or every room for the owner's
own surfaces that ask for it (`Scope.everywhere`). Rooms are applied twice: in the index
query (so a big home reads little) and again on the rows that come back (so a turn outside
the room can never be returned).
"""

from __future__ import annotations

import math
import re
import sqlite3
from array import array
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

import Stemmer

from vyre.ledger import Ledger
from vyre.ledger import search as index
from vyre.models import Passage
from vyre.rooms.membership import session_rooms
from vyre.rooms.names import MAIN, UNFILED
from vyre.wording import clip


@dataclass(frozen=True)
class Ranking:
    """The weights of steps 3 to 8 (0 turns a step off; the eval measures each that way)."""

    stop_words: bool = True  # step 1: drop stop and question words
    neighbour: float = 0.5  # what a turn lends the turns beside it
    asking: bool = True  # a turn that asks keeps ASKED of its score, lends ANSWER to the next
    other_side: float = 0.5  # a first- or second-person question: the other speaker's turns
    session: float = 0.4  # the session's score, fused with the turn's
    dated: float = 0.5  # a session held in the period the question names
    timed: float = 0.5  # a question asking when: a turn that tells a time


RANKING = Ranking()
ASKED = 0.5  # what a turn that asks keeps: it holds the question's words, not the answer
ANSWER = 1.0  # what it lends the turn after it, the answer
WINDOW = 3  # the kind of answer is checked on the best limit x WINDOW turns
LENDS = 0.25  # a turn lends to its neighbours when it matched a quarter as well as the best
TOLD_WITHIN = timedelta(days=7)  # how long after a period its events are still told
PER_WORD = 500  # the most turns read for one word (its newest in the room)
K1, B = 1.2, 0.75  # BM25's usual saturation and length norm
QUOTE_CHARS = 300

_WORD = re.compile(r"[^\W_]+")
_PORTER = Stemmer.Stemmer("porter")  # the index's own stemmer (FTS5's `porter` tokenizer)
_PLACE_BITS = index.SESSION_SHIFT - index.PLACE_SHIFT  # a place is session << bits | at
_AT = (1 << _PLACE_BITS) - 1

# Words that say nothing about what is asked: NLTK's English stop words (the usual list),
# the question words and modal verbs it leaves out, and the verbs a question about talk uses
# for the talking itself ("what did you say about..."). Dropping them leaves the content.
STOP = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom
    this that these those am is are was were be been being have has had having do does did
    doing a an the and but if or because as until while of at by for with about against
    between into through during before after above below to from up down in out on off over
    under again further then once here there when where why how all any both each few more
    most other some such no nor not only own same so than too very s t can will just don
    should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn
    needn shan shouldn wasn weren won wouldn
    whose whats us mine yes also even ever onto would could might must shall may
    get got let lets done tell said say says
    """.split()
)
_FIRST = frozenset({"i", "me", "my", "mine", "myself"})
_SECOND = frozenset({"you", "your", "yours", "yourself", "claude"})


@dataclass(frozen=True)
class Scope:
    """Which sessions a search reads: one room, or every room (owner surfaces only)."""

    room: str  # a project slug, `unfiled`, or MAIN for every room
    expression: str = ""  # the index query's scope clause ('' for every room)

    @property
    def everywhere(self) -> bool:
        return self.room == MAIN


def scope_for(room: str, projects: list[dict]) -> Scope:
    """The index's scope clause for a room: its folders (less the deeper folders of other
    projects, which own the sessions under them), its picks; `unfiled` is what no project
    holds."""
    if room == MAIN:
        return Scope(MAIN)
    if room == UNFILED:
        held = [index.folder_token(f) for p in projects for f in p["folders"]]
        held += [index.session_token(s) for p in projects for s in p["picks"]]
        if not held:
            return Scope(room, "scope:all")
        return Scope(room, f"scope:all NOT scope:({' OR '.join(sorted(set(held)))})")
    project = next((p for p in projects if p["slug"] == room), None)
    if project is None:
        return Scope(room, "scope:none")  # no such project: nothing (checked by the caller)
    branches = []
    for folder in project["folders"]:
        deeper = sorted(
            {
                index.folder_token(g)
                for other in projects
                if other["slug"] != room
                for g in other["folders"]
                if _owns_before(g, other["slug"], folder, room)
            }
        )
        branch = f"scope:{index.folder_token(folder)}"
        if deeper:
            branch = f"({branch} NOT scope:({' OR '.join(deeper)}))"
        branches.append(branch)
    branches += [f"scope:{index.session_token(s)}" for s in project["picks"]]
    if not branches:
        return Scope(room, "scope:none")
    return Scope(room, "(" + " OR ".join(branches) + ")")


def _owns_before(other: str, other_slug: str, folder: str, slug: str) -> bool:
    """Another project's folder takes the sessions under it from `folder`: it is deeper
    inside it, or the same folder and that project comes first (as `project_for_cwd`)."""
    other, folder = other.rstrip("/") or "/", folder.rstrip("/") or "/"
    if other == folder:
        return other_slug < slug
    return other.startswith(folder if folder == "/" else folder + "/")


# -- what the question asks ------------------------------------------------------------------


def words(question: str, *, stop: bool = True) -> list[str]:
    """The question's content words, in order, once each."""
    out: list[str] = []
    for w in _WORD.findall(question.lower()):
        if not (stop and w in STOP) and w not in out:
            out.append(w)
    return out


_WHEN = re.compile(
    r"^\W*(?:(?:and|so|ok|okay)\W+)?(?:when\b|since when\b|how long ago\b"
    r"|what (?:day|date|month|year|time|week)\b|which (?:day|date|month|year|week)\b)",
    re.I,
)
_TIME_WORDS = (
    "yesterday today tonight tomorrow ago recently lately weekend morning afternoon evening "
    "night noon midnight summer winter spring autumn fall week weeks month months year years "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "june july august september october november december jan feb mar apr jun jul aug sep "
    "sept oct nov dec"
)
_TIME_SET = frozenset(_TIME_WORDS.split())
_TIME_FORMS = re.compile(
    r"\b(?:(?:19|20)\d\d|\d{1,2}:\d\d|\d{1,2}\s*(?:am|pm)|\d{1,2}/\d{1,2})\b", re.I
)


def tells_time(text: str) -> bool:
    """A turn that tells a time: a date, a day, a time of day, "last week", "two years ago"."""
    if not _TIME_SET.isdisjoint(_WORD.findall(text.lower())):
        return True
    return bool(_TIME_FORMS.search(text))


def asks_when(question: str) -> bool:
    """A question whose answer is a time ("when did...", "what day...")."""
    return bool(_WHEN.search(question))


def speaker(question: str) -> str | None:
    """`person` for a question in the first person, `agent` for one in the second."""
    found = set(_WORD.findall(question.lower()))
    first, second = bool(found & _FIRST), bool(found & _SECOND)
    if first == second:
        return None
    return "person" if first else "agent"


_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        "january february march april may june july august september october november "
        "december".split()
    )
}
_MONTHS = {m[:3]: n for m, n in _MONTHS.items()}
_M = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_NTH = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"\b{_NTH}\s+(?:of\s+)?{_M},?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_M}\s+{_NTH},?\s+(\d{{4}})\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_YEAR = re.compile(rf"\b{_M},?\s+(?:of\s+)?(\d{{4}})\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during|since|early|late|mid|last)\s+{_M}(?!\s*\d)\b", re.I)
_IN_YEAR = re.compile(r"\b(?:in|during|of|since)\s+((?:19|20)\d\d)\b", re.I)
_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b", re.I
)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class Period:
    """The days a question names; `month` alone (no year) means that month in any year."""

    start: date | None = None
    end: date | None = None
    month: int | None = None

    def holds(self, day: date) -> bool:
        if self.month is not None:
            return day.month == self.month or (day - TOLD_WITHIN).month == self.month
        assert self.start is not None and self.end is not None
        return self.start <= day <= self.end + TOLD_WITHIN


_MAYBE_PERIOD = re.compile(rf"\d|{_M}|yesterday|today|last|this|past|ago", re.I)


def period(question: str, now: datetime | None) -> Period | None:
    """The date or period a question names, if any (relative ones against `now`)."""
    q = question.lower()
    if not _MAYBE_PERIOD.search(q):
        return None
    m = _DAY_MONTH_YEAR.search(q)
    day = m and _date(int(m.group(3)), _month(m.group(2)), int(m.group(1)))
    if not day:
        m = _MONTH_DAY_YEAR.search(q)
        day = m and _date(int(m.group(3)), _month(m.group(1)), int(m.group(2)))
    if not day:
        m = _ISO.search(q)
        day = m and _date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if day:
        return Period(day, day)
    m = _MONTH_YEAR.search(q)
    if m:
        start = date(int(m.group(2)), _month(m.group(1)), 1)
        return Period(start, _month_end(start))
    m = _IN_MONTH.search(q)
    if m:
        return Period(month=_month(m.group(1)))
    m = _IN_YEAR.search(q)
    if m:
        year = int(m.group(1))
        return Period(date(year, 1, 1), date(year, 12, 31))
    return _relative_period(q, now.date()) if now else None


def _relative_period(q: str, today: date) -> Period | None:
    if re.search(r"\byesterday\b", q):
        return Period(today - timedelta(days=1), today - timedelta(days=1))
    if re.search(r"\btoday\b", q):
        return Period(today, today)
    m = re.search(r"\b(last|this|past)\s+(week|weekend|month|year)\b", q)
    if m:
        return _relative(m.group(1), m.group(2), today)
    m = _AGO.search(q)
    if m:
        n = _COUNTS.get(m.group(1)) or int(m.group(1))
        days = {"day": 1, "week": 7, "month": 30, "year": 365}[m.group(2)] * n
        around = today - timedelta(days=days)
        slack = timedelta(days=max(1, days // 7))
        return Period(around - slack, around + slack)
    return None


def _month(name: str) -> int:
    return _MONTHS[name.lower().rstrip(".")[:3]]


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_end(start: date) -> date:
    nxt = date(start.year + start.month // 12, start.month % 12 + 1, 1)
    return nxt - timedelta(days=1)


def _relative(which: str, unit: str, today: date) -> Period:
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday())
        start = monday if which == "this" else monday - timedelta(days=7)
        return Period(start, start + timedelta(days=6))
    if unit == "month":
        first = today.replace(day=1)
        if which != "this":
            first = (first - timedelta(days=1)).replace(day=1)
        return Period(first, _month_end(first))
    year = today.year if which == "this" else today.year - 1
    return Period(date(year, 1, 1), date(year, 12, 31))


# -- what a search knows of the index's sessions ------------------------------------------------


@dataclass
class _Room:
    members: frozenset[int]  # session numbers
    docs: int  # documents (N)
    norm: dict[int, float]  # place -> BM25's saturation over length norm, (k1+1)/(1+k1(..))
    mark: int = 0  # the index's mark when a member session last changed
    # What the index gave for each word in this room, read once: a room is dropped whole
    # (and these with it) whenever the index or the projects change, so they never go stale.
    postings: dict[str, _Posting | None] = field(default_factory=dict)
    held: int = 0  # the places `postings` hold
    rows: dict[int, tuple] = field(default_factory=dict)  # place -> (session, seq, ...)
    timed: dict[int, bool] = field(default_factory=dict)  # place -> whether it tells a time


@dataclass(frozen=True, slots=True)
class _Posting:
    """One word's documents in a room, as the ranking reads them."""

    places: tuple[tuple[int, float], ...]  # (place, its BM25 length norm), newest first
    flags: dict[int, int]  # place -> who said it, whether it asks (the rowid's low bits)
    counts: dict[int, int]  # session number -> how many of its documents have the word
    df: float  # how many of the room's documents have it


POSTINGS_HELD = 200_000  # places a room keeps the postings of (about 20 MB at most)
ROWS_HELD = 20_000  # turns a room keeps for the passages it returns


@dataclass
class _Known:
    """What ranking needs of each indexed session, by its number: its id, day, rooms and its
    documents' lengths. Kept per ledger and refreshed from the sessions that changed."""

    seen: tuple = ()  # `seen(ledger)` when last checked: unchanged, all holds
    mark: int = -1
    projects: str = ""
    project_list: list[dict] = field(default_factory=list)
    scopes: dict[str, Scope] = field(default_factory=dict)
    ids: dict[int, str] = field(default_factory=dict)
    days: dict[int, date] = field(default_factory=dict)
    flags: dict[int, bytes] = field(default_factory=dict)  # each document's low rowid bits
    changed: dict[int, int] = field(default_factory=dict)  # the index's mark at its last change
    lengths: dict[int, array] = field(default_factory=dict)
    rooms_of: dict[int, frozenset[str]] = field(default_factory=dict)
    rooms: dict[str, _Room] = field(default_factory=dict)

    def room(self, name: str) -> _Room:
        if name not in self.rooms:
            if name == MAIN:
                members = frozenset(self.ids)
            else:
                members = frozenset(n for n, held in self.rooms_of.items() if name in held)
            docs = sum(len(self.lengths[n]) for n in members)
            mean = sum(sum(self.lengths[n]) for n in members) / docs if docs else 1.0
            # a word counts once in a turn (turns are short): BM25 at tf = 1 for each length
            base, slope = 1 + K1 * (1 - B), K1 * B / mean
            norm = {
                (n << _PLACE_BITS) | at: (K1 + 1) / (base + slope * words)
                for n in members
                for at, words in enumerate(self.lengths[n])
            }
            mark = max((self.changed.get(n, 0) for n in members), default=0)
            self.rooms[name] = _Room(members, docs, norm, mark)
        return self.rooms[name]


_known: dict[str, _Known] = {}


def _state(ledger: Ledger) -> _Known:
    """What search knows of this ledger, brought up to date when anything was written to it
    (by this connection or another) since it last looked; otherwise as it was, at no cost."""
    known = _known.setdefault(str(ledger.path), _Known())
    if known.seen == seen(ledger):
        return known
    ledger.catch_up_search()
    projects = ledger.projects()
    _refresh(ledger, known, projects)
    known.seen = seen(ledger)
    return known


def seen(ledger: Ledger) -> tuple[int, int, int]:
    """A mark that changes whenever anything is written to the ledger, by this connection or
    another: what was read from it still holds while the mark is the same (marks of two
    connections are never compared: SQLite counts each connection's on its own)."""
    version = ledger.db.execute("PRAGMA data_version").fetchone()[0]
    return id(ledger.db), version, ledger.db.total_changes


def view(ledger: Ledger) -> _Known:
    """What search knows of this ledger, up to date: its projects (`project_list`) and the
    scope of each room (`scope_in`), to be passed to `search` in the same call."""
    return _state(ledger)


def scope_in(known: _Known, room: str) -> Scope:
    """`scope_for(room, projects)` of a view, kept until the projects change."""
    if room not in known.scopes:
        known.scopes[room] = scope_for(room, known.project_list)
    return known.scopes[room]


def projects(ledger: Ledger) -> list[dict]:
    """The ledger's projects, as recall last read them (read again after any write)."""
    return _state(ledger).project_list


def marks(ledger: Ledger, room: str) -> tuple[int, int, str]:
    """What a room's search reads, named: the index's mark when one of its sessions last
    changed (a turn stored, rewritten or gone), its documents, and the projects that place
    sessions in it."""
    known = _state(ledger)
    room_of = known.room(room)
    return room_of.mark, room_of.docs, known.projects


def scope_of(ledger: Ledger, room: str) -> Scope:
    """`scope_for(room, projects)`, kept until the projects change."""
    return scope_in(_state(ledger), room)


def _refresh(ledger: Ledger, known: _Known, projects: list[dict]) -> None:
    mark = int(index.generation(ledger.db))
    shape = repr(projects)
    if mark == known.mark and shape == known.projects:
        return
    rows = ledger.db.execute(
        "SELECT r.no, r.session, s.cwd, s.first_ts, r.changed FROM recall_sessions r "
        "LEFT JOIN sessions s ON s.id = r.session WHERE r.changed > ?",
        (known.mark,),
    ).fetchall()
    for no, session, _, first, changed in rows:
        known.ids[no] = session
        known.changed[no] = changed
        if first:
            known.days[no] = date.fromisoformat(first[:10])
        lo, hi = no << index.SESSION_SHIFT, ((no + 1) << index.SESSION_SHIFT) - 1
        docs = ledger.db.execute(
            "SELECT id, words FROM recall_docs WHERE id BETWEEN ? AND ? ORDER BY id", (lo, hi)
        ).fetchall()
        known.lengths[no] = array("I", (w for _, w in docs))
        known.flags[no] = bytes(rowid & 3 for rowid, _ in docs)
    if shape != known.projects:  # rooms follow projects: place every session again
        rows = ledger.db.execute(
            "SELECT r.no, r.session, s.cwd, s.first_ts, r.changed FROM recall_sessions r "
            "LEFT JOIN sessions s ON s.id = r.session"
        ).fetchall()
    placed = session_rooms(
        [{"id": session, "cwd": cwd, "parent": None} for _, session, cwd, *_ in rows], projects
    )
    for no, session, *_ in rows:
        known.rooms_of[no] = placed[session]
    if shape != known.projects:
        known.scopes.clear()
    known.mark, known.projects, known.project_list = mark, shape, projects
    known.rooms.clear()


# -- searching ---------------------------------------------------------------------------------

_SQL = "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid DESC LIMIT ?"


def search(
    ledger: Ledger,
    question: str,
    scope: Scope,
    *,
    limit: int = 10,
    now: datetime | None = None,
    ranking: Ranking = RANKING,
    known: _Known | None = None,
) -> list[Passage]:
    """The turns of `scope` that best answer `question`, best first (at most `limit`).
    `known`: what `view(ledger)` gave a moment ago for the same call (one look at the
    ledger per search, not one per step)."""
    known = known or _state(ledger)
    room = known.room(scope.room)
    wanted = words(question, stop=ranking.stop_words)
    if not wanted or not room.docs:
        return []
    clause = f" AND ({scope.expression})" if scope.expression else ""
    lengths = known.lengths
    # 2. BM25 per word (a word counts once in a turn: turns are short): place -> score
    own: dict[int, float] = defaultdict(float)
    flags: dict[int, int] = {}
    per_session: list[dict[int, int]] = []
    for word, times in _terms(wanted):
        posting = _posting(ledger, room, word, clause, lengths)
        if posting is None:
            continue
        idf = times * _idf(room.docs, posting.df)
        for place, weight in posting.places:
            own[place] += idf * weight
        flags.update(posting.flags)
        per_session += [posting.counts] * times
    if not own:
        return []
    # 3-4. neighbours and answers
    near = ranking.neighbour
    far = near * near  # two turns away: half of half
    asking = ranking.asking
    turn: dict[int, float] = defaultdict(float)
    floor = max(own.values()) * LENDS
    for place, score in own.items():
        if score < floor:  # a weak match lends nothing: what it would lend is noise
            turn[place] += score * (ASKED if asking and flags[place] & 1 else 1.0)
            continue
        if asking and flags[place] & 1:  # it asks: the next turn answers
            turn[place] += score * ASKED
            turn[place + 1] += score * ANSWER
        else:
            turn[place] += score
            turn[place + 1] += score * near
        turn[place - 1] += score * near
        turn[place + 2] += score * far
        turn[place - 2] += score * far
    # 6-7. the session, as one document, and the dates: a bonus per session, given to the
    # turns that matched a word themselves (not to one here only for its neighbours' words)
    session_score = _session_scores(per_session, len(room.members))
    best_session = max(session_score.values())
    bonus = {no: ranking.session * v / best_session for no, v in session_score.items()}
    when = period(question, now) if ranking.dated else None
    if when:
        for no in room.members:
            day = known.days.get(no)
            if day and when.holds(day):
                bonus[no] = bonus.get(no, 0.0) + ranking.dated
    # 8. fusion
    inv = 1.0 / max(turn.values())
    fused = {place: score * inv for place, score in turn.items()}
    take = bonus.get
    for place in own:  # only turns that matched a word themselves gain it
        extra = take(place >> _PLACE_BITS)
        if extra:
            fused[place] += extra
    best = _top(fused, limit * WINDOW * 2)
    # the room once more (no turn outside it is ever returned), and no neighbour past either
    # end of its session
    window = [
        place
        for place in best
        if (place >> _PLACE_BITS) in room.members
        and (place & _AT) < len(lengths.get(place >> _PLACE_BITS, ()))
    ]
    # 5. who said it: the other speaker's turns count half
    side = speaker(question)
    if side is not None and ranking.other_side < 1:
        _other_side(window, fused, _Flags(known.flags, flags), side, ranking.other_side)
        window.sort(key=lambda p: (fused[p], p), reverse=True)
    window = window[: limit * WINDOW]
    rows = _rows(ledger, room, window, _Flags(known.flags, flags))
    # 9. the kind of answer: a question asking when is answered by a turn that tells a time
    if ranking.timed and asks_when(question):
        timed = room.timed
        for place in window:
            if place not in rows:
                continue
            if place not in timed:
                timed[place] = tells_time(rows[place][4])
            if timed[place]:
                fused[place] += ranking.timed
        window.sort(key=lambda p: (fused[p], p), reverse=True)
    return _passages(window[:limit], rows, fused, wanted)


def _top(scores: dict[int, float], n: int) -> list[int]:
    """`heapq.nlargest(n, scores, key=scores.__getitem__)`, the same list (ties in insertion
    order), found faster: the n-th best score is found among the bare values, and only the
    places at or above it are sorted."""
    if len(scores) <= n:
        return sorted(scores, key=scores.__getitem__, reverse=True)
    least = sorted(scores.values(), reverse=True)[n - 1]
    chosen = [place for place, score in scores.items() if score >= least]
    return sorted(chosen, key=scores.__getitem__, reverse=True)[:n]


MATCHED_MOST = 5000  # turns a count reads for one event (its newest in the room)


def turns_matching(ledger: Ledger, terms: str, scope: Scope) -> list[tuple]:
    """(session, seq, role, by, text, ts) of the room's searched turns that match `terms`,
    an index expression ('"deploy" OR "deployed"'), newest first: what a count reads."""
    clause = f" AND ({scope.expression})" if scope.expression else ""
    try:
        ids = [
            rowid for (rowid,) in ledger.db.execute(_SQL, (f"text:({terms}){clause}", MATCHED_MOST))
        ]
    except sqlite3.OperationalError:  # a word the index cannot parse: nothing matches
        return []
    out: list[tuple] = []
    for at in range(0, len(ids), 500):
        chunk = ids[at : at + 500]
        out += ledger.db.execute(
            "SELECT t.session, t.seq, t.role, t.by, t.text, t.ts FROM recall_docs d "
            f"JOIN turns t ON t.id = d.turn WHERE d.id IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
    return out


def _posting(
    ledger: Ledger, room: _Room, word: str, clause: str, lengths: dict[int, array]
) -> _Posting | None:
    """The room's documents that have `word` (its newest PER_WORD), read from the index once
    and kept with the room."""
    if word in room.postings:
        return room.postings[word]
    hits = ledger.db.execute(_SQL, (f'text:"{word}"{clause}', PER_WORD)).fetchall()
    if not hits:
        room.postings[word] = None  # a word the room never says: no second look either
        return None
    norm = room.norm
    counts: dict[int, int] = defaultdict(int)
    places = []
    for (rowid,) in hits:
        counts[rowid >> index.SESSION_SHIFT] += 1
        place = rowid >> index.PLACE_SHIFT
        places.append((place, norm[place]))
    flags = {rowid >> index.PLACE_SHIFT: rowid & 3 for (rowid,) in hits}
    found = _Posting(tuple(places), flags, dict(counts), _df(hits, room, lengths))
    if room.held + len(places) > POSTINGS_HELD:
        room.postings.clear()
        room.held = 0
    room.postings[word] = found
    room.held += len(places)
    return found


class _Flags:
    """A document's flags by its place (who said it, whether it asks): those the search read,
    else what the index said of its session's documents when they were read."""

    __slots__ = ("by_session", "read")

    def __init__(self, by_session: dict[int, bytes], read: dict[int, int]) -> None:
        self.by_session, self.read = by_session, read

    def __getitem__(self, place: int) -> int:
        got = self.read.get(place)
        return got if got is not None else self.by_session[place >> _PLACE_BITS][place & _AT]

    def get(self, place: int, default: int = 0) -> int:
        if place not in self:
            return default
        return self[place]

    def __contains__(self, place: int) -> bool:
        if place in self.read:
            return True
        got = self.by_session.get(place >> _PLACE_BITS)
        return got is not None and (place & _AT) < len(got)


def _terms(wanted: list[str]) -> list[tuple[str, int]]:
    """Each of the index's terms the words stand for, read once, with how many of the words
    stand for it: "launch", "launches" and "launched" find the same turns (the index stems
    with Porter's algorithm, as `_PORTER` does for the words it stems: plain ASCII words of
    three letters or more), so they are one query, counted three times as before."""
    out: dict[str, list] = {}
    for w in wanted:
        term = _PORTER.stemWord(w) if 2 < len(w) <= 20 and w.isascii() and w.isalpha() else w
        if term in out:
            out[term][1] += 1
        else:
            out[term] = [w, 1]
    return [(w, n) for w, n in out.values()]


def _idf(docs: int, df: float) -> float:
    return math.log(1 + (docs - df + 0.5) / (df + 0.5))


def _df(rows: list[tuple[int]], room: _Room, lengths: dict[int, array]) -> float:
    """How many of the room's documents have the word: all of them were read, or only the
    newest PER_WORD, and the share of the room they span says how many there are."""
    if len(rows) < PER_WORD:
        return len(rows)
    oldest = rows[-1][0] >> index.SESSION_SHIFT
    spanned = sum(len(lengths[n]) for n in room.members if n >= oldest)
    return min(room.docs, len(rows) * room.docs / max(spanned, 1))


def _other_side(
    window: list[int], fused: dict[int, float], flags: _Flags, side: str, weight: float
) -> None:
    """Lower the scores of the turns the other speaker said."""
    person = side == "person"
    for place in window:
        if bool(flags.get(place, 0) & 2) != person:
            fused[place] *= weight


def _session_scores(per_session: list[dict[int, int]], sessions: int) -> dict[int, float]:
    """BM25 over sessions: a word's count in a session is how many of its turns have it."""
    out: dict[int, float] = defaultdict(float)
    for counts in per_session:
        df = len(counts)
        idf = math.log(1 + (sessions - df + 0.5) / (df + 0.5))
        for no, c in counts.items():
            out[no] += idf * c * (K1 + 1) / (c + K1)
    return out


def _rows(ledger: Ledger, room: _Room, places: list[int], flags: _Flags) -> dict[int, tuple]:
    """(session, seq, role, by, text, ts) of the documents at these places (kept with the
    room once read)."""
    kept = room.rows
    missing = [p for p in places if p not in kept and p in flags]
    if len(kept) + len(missing) > ROWS_HELD:
        kept.clear()
        room.timed.clear()
        missing = [p for p in places if p in flags]
    if missing:
        ids = [(p << index.PLACE_SHIFT) | flags[p] for p in missing]
        for rowid, session, seq, role, by, text, ts in ledger.db.execute(
            "SELECT d.id, t.session, t.seq, t.role, t.by, t.text, t.ts FROM recall_docs d "
            f"JOIN turns t ON t.id = d.turn WHERE d.id IN ({','.join('?' * len(ids))})",
            ids,
        ):
            kept[rowid >> index.PLACE_SHIFT] = (session, seq, role, by, text, ts)
    return {p: kept[p] for p in places if p in kept}


def _passages(
    ranked: list[int], rows: dict[int, tuple], fused: dict[int, float], wanted: list[str]
) -> list[Passage]:
    out = []
    for place in ranked:
        if place not in rows:
            continue
        session, seq, role, by, text, ts = rows[place]
        out.append(
            Passage.model_construct(  # the values are ours and of the right types
                session=session,
                seq=seq,
                role=role,
                by=by,
                quote=quote(text, wanted),
                ts=datetime.fromisoformat(ts) if ts else None,
                score=round(fused[place], 4),
            )
        )
    return out


_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")


def quote(text: str, wanted: list[str], size: int = QUOTE_CHARS) -> str:
    """The piece of `text` from its sentence with the most question words on, in at most
    `size` characters, cut at a word boundary with an ellipsis (`vyre.wording.clip`)."""
    if len(text) <= size:
        return text
    stems = [w[:5] for w in wanted]
    best, best_hits = 0, -1
    for m in _SENTENCE.finditer(text):
        low = m.group(0).lower()
        hits = sum(1 for s in stems if s in low)
        if hits > best_hits:
            best, best_hits = m.start(), hits
    return clip(text[best : best + 2 * size], size)
