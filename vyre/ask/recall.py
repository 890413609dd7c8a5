"""Recall: the turns of a room that answer a question, ranked, with no model.

`search(ledger, question, scope)` reads the ledger's search index (vyre/ledger/search.py) and
returns `Passage`s. How a question is ranked, each step measured (README "Recall"):

1. Words. The question is split as the index splits text; stop words and question words are
   dropped and the rest are OR-ed: any word counts and none is required (implicit AND and
   phrase matching are what users of other memory tools complain about). Stemming is the
   index's own (Porter), so "painted" finds "painting".
2. BM25 per word (FTS5's `bm25`), each word read on its own so the steps below can see which
   turn and which session matched which word.
3. Neighbours. A turn is read beside the turns before and after it in its session: each lends
   them half its score (the neighbouring-turns field), so a short reply ("yes, last Friday")
   is found through the turn it answers.
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
   and the date's, weighted as below; ties go to the newer turn.

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
from array import array
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from vyre.ledger import Ledger
from vyre.ledger import search as index
from vyre.models import Passage
from vyre.rooms.membership import session_rooms
from vyre.rooms.names import MAIN, UNFILED


@dataclass(frozen=True)
class Ranking:
    """The weights of steps 3 to 8 (0 turns a step off; the eval measures each that way)."""

    stop_words: bool = True  # step 1: drop stop and question words
    neighbour: float = 0.5  # what a turn lends the turns beside it
    asking: bool = True  # a turn that asks keeps ASKED of its score, lends ANSWER to the next
    other_side: float = 0.5  # a first- or second-person question: the other speaker's turns
    session: float = 0.4  # the session's score, fused with the turn's
    dated: float = 0.5  # a session held in the period the question names


RANKING = Ranking()
ASKED = 0.5  # what a turn that asks keeps: it holds the question's words, not the answer
ANSWER = 1.0  # what it lends the turn after it, the answer
TOLD_WITHIN = timedelta(days=7)  # how long after a period its events are still told
PER_WORD = 500  # the most turns read for one word (its newest in the room)
K1, B = 1.2, 0.75  # BM25's usual saturation and length norm
QUOTE_CHARS = 300

_WORD = re.compile(r"[^\W_]+")

# Question words and the words every sentence has (English function words). Dropping them
# leaves what the question is about.
STOP = frozenset(
    """
    what whats when where which who whom whose why how
    a an the and or but nor not no yes so than too very also just only even ever
    of to in on at by for with from about into onto over under up down out off than
    again further then once here there all any both each few more most other some such
    own same can could would should will shall may might must do does did doing done
    is are was were be been being am has have had having isn wasn weren aren don doesn didn
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    this that these those s t d ll m re ve let lets get got
    tell said say says
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


def period(question: str, now: datetime | None) -> Period | None:
    """The date or period a question names, if any (relative ones against `now`)."""
    q = question.lower()
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
    words: float  # their mean length in words


@dataclass
class _Known:
    """What ranking needs of each indexed session, by its number: its id, day, rooms and its
    documents' lengths. Kept per ledger and refreshed from the sessions that changed."""

    mark: int = -1
    projects: str = ""
    ids: dict[int, str] = field(default_factory=dict)
    days: dict[int, date] = field(default_factory=dict)
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
            words = sum(sum(self.lengths[n]) for n in members)
            self.rooms[name] = _Room(members, docs, words / docs if docs else 1.0)
        return self.rooms[name]


_known: dict[str, _Known] = {}


def _refresh(ledger: Ledger, projects: list[dict]) -> _Known:
    known = _known.setdefault(str(ledger.path), _Known())
    mark = int(index.generation(ledger.db))
    shape = repr(projects)
    if mark == known.mark and shape == known.projects:
        return known
    rows = ledger.db.execute(
        "SELECT r.no, r.session, s.cwd, s.first_ts FROM recall_sessions r "
        "LEFT JOIN sessions s ON s.id = r.session WHERE r.changed > ?",
        (known.mark,),
    ).fetchall()
    for no, session, _, first in rows:
        known.ids[no] = session
        if first:
            known.days[no] = date.fromisoformat(first[:10])
        lo, hi = no << index.SESSION_SHIFT, ((no + 1) << index.SESSION_SHIFT) - 1
        known.lengths[no] = array(
            "I",
            (
                w
                for (w,) in ledger.db.execute(
                    "SELECT words FROM recall_docs WHERE id BETWEEN ? AND ? ORDER BY id", (lo, hi)
                )
            ),
        )
    if shape != known.projects:  # rooms follow projects: place every session again
        rows = ledger.db.execute(
            "SELECT r.no, r.session, s.cwd, s.first_ts FROM recall_sessions r "
            "LEFT JOIN sessions s ON s.id = r.session"
        ).fetchall()
    placed = session_rooms(
        [{"id": session, "cwd": cwd, "parent": None} for _, session, cwd, _ in rows], projects
    )
    for no, session, _, _ in rows:
        known.rooms_of[no] = placed[session]
    known.mark, known.projects = mark, shape
    known.rooms.clear()
    return known


# -- searching ---------------------------------------------------------------------------------

_SQL = "SELECT rowid FROM recall_fts WHERE recall_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
_PLACE_BITS = index.SESSION_SHIFT - index.PLACE_SHIFT
_AT = (1 << _PLACE_BITS) - 1


def search(
    ledger: Ledger,
    question: str,
    scope: Scope,
    *,
    limit: int = 10,
    now: datetime | None = None,
    ranking: Ranking = RANKING,
) -> list[Passage]:
    """The turns of `scope` that best answer `question`, best first (at most `limit`)."""
    ledger.catch_up_search()
    known = _refresh(ledger, ledger.projects())
    room = known.room(scope.room)
    wanted = words(question, stop=ranking.stop_words)
    if not wanted or not room.docs:
        return []
    clause = f" AND ({scope.expression})" if scope.expression else ""
    lengths = known.lengths
    norm = K1 * B / room.words
    base = K1 * (1 - B)
    # 2. BM25 per word (a word counts once in a turn: turns are short): place -> score
    own: dict[int, float] = defaultdict(float)
    flags: dict[int, int] = {}
    per_session: list[dict[int, int]] = []
    for word in wanted:
        rows = ledger.db.execute(_SQL, (f'text:"{word}"{clause}', PER_WORD)).fetchall()
        if not rows:
            continue
        idf = _idf(room.docs, _df(rows, room, lengths)) * (K1 + 1)
        counts: dict[int, int] = defaultdict(int)
        for (rowid,) in rows:
            no = rowid >> index.SESSION_SHIFT
            place = rowid >> index.PLACE_SHIFT
            own[place] += idf / (1 + base + norm * lengths[no][place & _AT])
            flags[place] = rowid & 3
            counts[no] += 1
        per_session.append(counts)
    if not own:
        return []
    # 3-4. neighbours and answers
    turn: dict[int, float] = defaultdict(float)
    for place, score in own.items():
        if ranking.asking and flags[place] & 1:  # it asks: the next turn answers
            turn[place] += score * ASKED
            turn[place + 1] += score * ANSWER
        else:
            turn[place] += score
            turn[place + 1] += score * ranking.neighbour
        turn[place - 1] += score * ranking.neighbour
    for place in [p for p in turn if p not in own]:  # past either end of its session
        if (place & _AT) >= len(lengths.get(place >> _PLACE_BITS, ())):
            del turn[place]
    # 5. who said it
    side = speaker(question)
    if side is not None and ranking.other_side < 1:
        _other_side(ledger, turn, flags, side, ranking.other_side)
    # 6. the session, as one document
    session_score = _session_scores(per_session, len(room.members))
    # 7. dates
    when = period(question, now) if ranking.dated else None
    days = known.days
    dated = {n for n in room.members if n in days and when.holds(days[n])} if when else set()
    # 8. fusion
    best_turn = max(turn.values())
    best_session = max(session_score.values())
    fused = {
        place: score / best_turn
        + ranking.session * session_score.get(place >> _PLACE_BITS, 0.0) / best_session
        + (ranking.dated if (place >> _PLACE_BITS) in dated else 0.0)
        for place, score in turn.items()
    }
    ranked = sorted(fused, key=lambda p: (-fused[p], -p))
    # the room once more: no turn outside it is ever returned
    ranked = [p for p in ranked[: limit * 2] if (p >> _PLACE_BITS) in room.members][:limit]
    return _passages(ledger, ranked, fused, wanted)


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
    ledger: Ledger, turn: dict[int, float], flags: dict[int, int], side: str, weight: float
) -> None:
    """Halve the scores of turns the other speaker said (neighbours' flags looked up)."""
    unknown = [p for p in turn if p not in flags]
    for lo in range(0, len(unknown), 200):
        ids = _rowids(unknown[lo : lo + 200])
        marks = ",".join("?" * len(ids))
        for (rowid,) in ledger.db.execute(f"SELECT id FROM recall_docs WHERE id IN ({marks})", ids):
            flags[rowid >> index.PLACE_SHIFT] = rowid & 3
    person = side == "person"
    for place in turn:
        if bool(flags.get(place, 0) & 2) != person:
            turn[place] *= weight


def _rowids(places: list[int]) -> list[int]:
    """Every rowid a document at these places can have (the low bits are its flags)."""
    return [(p << index.PLACE_SHIFT) | low for p in places for low in range(4)]


def _session_scores(per_session: list[dict[int, int]], sessions: int) -> dict[int, float]:
    """BM25 over sessions: a word's count in a session is how many of its turns have it."""
    out: dict[int, float] = defaultdict(float)
    for counts in per_session:
        df = len(counts)
        idf = math.log(1 + (sessions - df + 0.5) / (df + 0.5))
        for no, c in counts.items():
            out[no] += idf * c * (K1 + 1) / (c + K1)
    return out


def _passages(
    ledger: Ledger, ranked: list[int], fused: dict[int, float], wanted: list[str]
) -> list[Passage]:
    if not ranked:
        return []
    ids = _rowids(ranked)
    marks = ",".join("?" * len(ids))
    rows = {
        rowid >> index.PLACE_SHIFT: (session, seq, role, by, text, ts)
        for rowid, session, seq, role, by, text, ts in ledger.db.execute(
            "SELECT d.id, t.session, t.seq, t.role, t.by, t.text, t.ts FROM recall_docs d "
            f"JOIN turns t ON t.id = d.turn WHERE d.id IN ({marks})",
            ids,
        )
    }
    out = []
    for place in ranked:
        if place not in rows:
            continue
        session, seq, role, by, text, ts = rows[place]
        out.append(
            Passage(
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
    """The piece of `text` (as written) around its sentence with the most question words."""
    if len(text) <= size:
        return text
    stems = [w[:5] for w in wanted]
    best, best_hits = 0, -1
    for m in _SENTENCE.finditer(text):
        low = m.group(0).lower()
        hits = sum(1 for s in stems if s in low)
        if hits > best_hits:
            best, best_hits = m.start(), hits
    start = best
    while start < len(text) and text[start].isspace():
        start += 1
    piece = text[start : start + size]
    if start + size < len(text) and " " in piece[size // 2 :]:
        piece = piece[: piece.rindex(" ")]
    return piece.rstrip()
