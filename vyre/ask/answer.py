"""`memory.ask`: one question, answered from the person's own memory with its sources, or
"Not sure yet." with what memory does know. No model is needed.

The path, in order (each step can answer; the first that does, wins):
1. The person's corrections of answers to this question (`via: corrected`).
2. Personal facts, from the person's own words only (`via: fact`, "from what you have said").
3. Graph facts that answer exactly the relation asked (`via: fact`).
4. Passages: the best-supported sentences of the room's turns (`via: retrieval`): extractive,
   dates given absolutely, counts counted.
5. An optional model reader (off by default), held to the same check.
Then the grounding check: every name, number, date and path in the answer appears in what it
cites; otherwise the reply abstains.

What must stay true:
- One room: the question's room (its folders plus picked sessions, `unfiled` outside every
  project). Nothing cited comes from outside it.
- Deterministic: the same question over the same memory gives the same answer, confidence
  and sources (every ranking breaks ties on session and seq), and the reply is kept by the
  question's hash until the memory it read changes (`vyre.ask.kept`).
- Abstaining is better than a confident wrong answer: a passage answers only when it holds
  every name the question gives and the kind of thing asked for (a person for "who", a date
  for "when", a number for "how many").
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from vyre.ask import count, kept, personal, recall
from vyre.ask.grounding import DATES, has_date, ungrounded
from vyre.ask.question import (
    STOP,
    WHY_WORDS,
    Question,
    content,
    content_set,
    expansions,
    parse,
    stem,
    words,
)
from vyre.ask.reply import ABSTAIN, KNOWN_HEAD, AskReply, AskSource
from vyre.errors import VyreError
from vyre.extract.dates import resolve
from vyre.extract.gazetteer import is_given_name
from vyre.ledger import search as search_index
from vyre.ledger.store import ts_text, ts_value
from vyre.memory.text import phrase
from vyre.models import Fact
from vyre.resolve import fold
from vyre.wording import clip

if TYPE_CHECKING:
    from vyre.api import Memory
    from vyre.ask.readers import Reader

DEBUG = False
ANSWER_FLOOR = 0.5  # under this, a candidate answer is not given
AGREEING = 5  # passages from this many sessions can add to one answer's confidence
AGREE_BONUS = 0.03  # what each agreeing session adds
# A passage scoring under this can never be given, however many sessions agree with it.
REACHABLE = ANSWER_FLOOR - AGREE_BONUS * (AGREEING - 1)
PASSAGES = 12  # turns read per question
MAX_KNOWN = 3

Events = Callable[[dict], None] | None
Turns = frozenset[tuple[str, int]]  # (session, seq) of turns
Sessions = frozenset[str]


@dataclass
class Candidate:
    text: str
    confidence: float
    via: str
    sources: list[AskSource]
    claims_from: list[tuple[str, datetime | None]] = field(default_factory=list)
    counted: tuple[int, int] | None = None  # a count: (events, sessions), one source each


# -- the path ---------------------------------------------------------------------------------


def ask(
    memory: Memory,
    question: str,
    *,
    room: str,
    now: datetime,
    id: str | None = None,
    events: Events = None,
    reader: Reader | None = None,
) -> AskReply:
    started = time.perf_counter()

    def stage(name: str) -> None:
        if events:
            events({"event": "memory.thinking", "id": id, "stage": name})

    stage("understanding")
    q = parse(question)
    personal.index(memory.ledger)  # turns another process stored since (usually none)
    at = kept.key(memory, question, room, now, reader.name if reader else "")
    reply_kept = kept.get(memory, at)
    if reply_kept is not None:  # the same question over the same memory: the same reply
        return _sent(reply_kept, id, started, events)
    db = memory.ledger.db
    sessions = room_sessions(memory, room)
    fixes = active_fixes(db, q.key, room)
    forgotten = forgotten_turns(db)
    wrong = {fold(f["wrong"]) for f in fixes if f["action"] == "wrong" and f["wrong"]}

    reply: Candidate | None = None
    replaced = [f for f in fixes if f["action"] == "replace"]
    if replaced:
        fix = replaced[-1]
        reply = Candidate(
            fix["object"],
            1.0,
            "corrected",
            [
                AskSource(
                    session=None,
                    seq=None,
                    role="you",
                    name="your correction",
                    quote=fix["object"],
                    ts=ts_value(fix["created"]),
                )
            ],
        )
    candidates: list[Candidate] = []
    counted_known: list[str] = []
    if reply is None:
        stage("searching")
        candidates += _personal(memory, q, sessions, forgotten)
        candidates += _facts(memory, q, room, now, forgotten)
        wanted = count.tally(question, now) if not q.personal else None
        said = False  # the count found the event said: no passage's own number answers it
        if wanted is not None:
            tallied, counted_known, said = _tally(memory, wanted, room, sessions, forgotten)
            candidates += tallied
        if not said and not any(c.confidence >= 0.85 for c in candidates):
            stage("reading")
            candidates += _passages(memory, q, room, sessions, forgotten, now)
            if reader is not None:
                found = _reader_passages(memory, q, room, forgotten, now)
                candidates += reader.read(q, found)
        stage("checking")
        candidates = [c for c in candidates if fold(c.text) not in wrong]
        candidates.sort(key=lambda c: (-c.confidence, c.via, c.text))
        for c in candidates:
            if c.confidence < ANSWER_FLOOR:
                break
            quotes = c.claims_from or [(s.quote, s.ts) for s in c.sources]
            if not ungrounded(c.text, quotes, counted=c.counted):
                reply = c
                break
    if reply is not None:
        out = _answered(q, room, reply)
    else:
        known = _known(memory, q, room, now, sessions, forgotten)
        said_wrong = [f"You said {f['wrong']!r} is wrong." for f in fixes if f["action"] == "wrong"]
        out = _abstained(q, room, said_wrong[-1:] + counted_known + known)
    _keep(memory, q, room, out, now)
    kept.put(memory, at, out)
    return _sent(out, id, started, events)


def _sent(reply: AskReply, id: str | None, started: float, events: Events) -> AskReply:
    """The reply with the caller's id and this call's latency; `memory.answered` sent."""
    out = reply.model_copy(
        update={"id": id, "latency_ms": round((time.perf_counter() - started) * 1000, 3)}
    )
    if events:
        events(
            {
                "event": "memory.answered",
                "id": id,
                "abstained": out.abstained,
                "limited": bool(out.limited),
            }
        )
    return out


def _answer_id(q: Question, room: str, answer: str) -> str:
    text = f"{q.key}\x00{room}\x00{fold(answer)}"
    return "a" + hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _answered(q: Question, room: str, c: Candidate) -> AskReply:
    return AskReply(
        answer=c.text,
        answer_id=_answer_id(q, room, c.text),
        confidence=round(min(c.confidence, 1.0), 2),
        abstained=False,
        known=[],
        sources=c.sources,
        via=c.via,
        kind=q.kind,
    )


def _abstained(q: Question, room: str, known: list[str]) -> AskReply:
    text = "\n".join([ABSTAIN, KNOWN_HEAD, *(f"- {k}" for k in known)]) if known else ABSTAIN
    return AskReply(
        answer=text,
        answer_id=_answer_id(q, room, ABSTAIN),
        confidence=0.0,
        abstained=True,
        known=known,
        sources=[],
        via=None,
        kind=q.kind,
    )


def _keep(memory: Memory, q: Question, room: str, reply: AskReply, now: datetime) -> None:
    """Keep the answer by its id, so a correction can name it."""
    sources = json.dumps([[s.session, s.seq] for s in reply.sources if s.session])
    with memory.ledger.transaction() as db:
        db.execute(
            "INSERT INTO answers (id, question, qkey, room, kind, answer, via, sources, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            (
                reply.answer_id,
                q.text,
                q.key,
                room,
                q.kind,
                reply.answer,
                reply.via,
                sources,
                ts_text(now),
            ),
        )


# -- scope and the person's fixes -------------------------------------------------------------


def room_sessions(memory: Memory, room: str) -> frozenset[str]:
    """The sessions a room reads: its folders' sessions, picked sessions, their subagents."""
    from vyre.rooms.membership import session_rooms

    cache = memory.__dict__.setdefault("_ask_rooms", {})
    seen = recall.seen(memory.ledger)  # nothing written since: the rooms are as they were
    if cache.get("seen") == seen:
        return cache["rooms"].get(room, frozenset())
    key = memory.ledger.db.execute(
        "SELECT (SELECT count(*) FROM sessions), (SELECT max(version) FROM sessions), "
        "(SELECT count(*) FROM picks), (SELECT count(*) FROM project_folders)"
    ).fetchone()
    if cache.get("key") != key:
        cache.clear()
        cache["key"] = key
        rooms = session_rooms(memory.ledger.sessions(), recall.projects(memory.ledger))
        by_room: dict[str, set[str]] = {}
        for sid, names in rooms.items():
            for name in names:
                by_room.setdefault(name, set()).add(sid)
        cache["rooms"] = {k: frozenset(v) for k, v in by_room.items()}
    cache["seen"] = seen
    return cache["rooms"].get(room, frozenset())


def active_fixes(db: sqlite3.Connection, qkey: str, room: str) -> list[dict]:
    cols = ("id", "action", "object", "wrong", "created", "remembered")
    rows = db.execute(
        f"SELECT {', '.join(cols)} FROM answer_fixes WHERE qkey = ? AND room = ? "
        "AND undone IS NULL ORDER BY id",
        (qkey, room),
    ).fetchall()
    return [dict(zip(cols, r, strict=True)) for r in rows]


def forgotten_turns(db: sqlite3.Connection) -> Turns:
    out = set()
    for (sources,) in db.execute(
        "SELECT sources FROM answer_fixes WHERE action = 'forget' AND undone IS NULL"
    ):
        out |= {(s, q) for s, q in json.loads(sources)}
    return frozenset(out)


# -- 2. personal facts ------------------------------------------------------------------------


def personal_fact(memory: Memory, text: str, room: str) -> str | None:
    """The personal fact a prompt asks, as a sentence ("Your wife is Juno"), or None: for the
    prompt hook, with no model and no passage search (the person's own words only)."""
    if not _MAYBE_PERSONAL.search(text):
        return None  # most prompts: one regex and nothing else
    q = parse(text[:500])
    if not q.personal:
        return None
    found = _personal(memory, q, room_sessions(memory, room), forgotten_turns(memory.ledger.db))
    best = max(found, key=lambda c: c.confidence, default=None)
    if best is None or best.confidence < 0.5:
        return None
    return best.text.rstrip(".")


_MAYBE_PERSONAL = re.compile(r"\b(?:my|i|we)\b", re.I)


def _personal(memory: Memory, q: Question, sessions: Sessions, forgotten: Turns) -> list[Candidate]:
    asked = q.personal or _asked_by_name(memory, q, sessions, forgotten)
    if not asked:
        return []
    who, attr = asked
    said = personal.from_turns(memory.ledger, sessions, who=who, attr=attr, forgotten=forgotten)
    told = [f for f in personal.remembered(memory.ledger.db) if (f.who, f.attr) == (who, attr)]
    ranked = personal.best(said + told).get((who, attr), [])
    if not ranked:
        return []
    top = ranked[0]
    agree = sum(1 for f in ranked if fold(f.value) == fold(top.value))
    differ = len(ranked) - agree
    confidence = (
        1.0 if top.remembered else min(0.95, 0.85 + 0.05 * (agree - 1)) - 0.1 * (differ > 0)
    )
    titles = _titles(memory, {f.session for f in ranked if f.session})
    sources = [
        _source(f.session, f.seq, "user", f.quote, f.ts, titles)
        for f in ranked[:3]
        if fold(f.value) == fold(top.value)
    ]
    text = top.sentence() + "."
    return [Candidate(text, confidence, "fact", sources, [(f.quote, f.ts) for f in ranked[:3]])]


def _asked_by_name(
    memory: Memory, q: Question, sessions: Sessions, forgotten: Turns
) -> tuple[str, str] | None:
    """ "When is Mateo's birthday?": a name the person gave someone in their life."""
    if not q.names or "birthday" not in q.terms:
        return None
    names = personal.from_turns(memory.ledger, sessions, attr="name", forgotten=forgotten)
    wanted = {fold(n) for n in q.names}
    for f in names:
        if fold(f.value) in wanted or fold(f.value.split()[0]) in wanted:
            return f.who, "birthday"
    return None


# -- counts across sessions (vyre/ask/count.py) ------------------------------------------------

COUNTED_CONFIDENCE = 0.75  # every event counted is a turn that says it happened
DAYS_LISTED = 6  # past this many days, the answer gives the first and the last


def _tally(
    memory: Memory, t: count.Tally, room: str, sessions: Sessions, forgotten: Turns
) -> tuple[list[Candidate], list[str], bool]:
    """The count a question asks for, as a candidate whose sources are the events counted;
    or none, with what memory knows, when the thing is not clearly countable. The flag says
    whether the room's turns say the event at all."""
    found = count.count(memory.ledger, t, recall.scope_of(memory.ledger, room), sessions)
    events = [e for e in found.events if (e.session, e.seq) not in forgotten]
    said = bool(events or found.mentioned or found.outside)
    if not events:
        return [], _uncounted(t, found), said
    if t.unit == "sessions" or t.topic:
        first: dict[str, count.Mention] = {}
        for e in events:
            first.setdefault(e.session, e)
        events = list(first.values())
    n, in_sessions = len(events), len({e.session for e in events})
    titles = _titles(memory, {e.session for e in events})
    sources = [
        _source(e.session, e.seq, e.role, clip(e.sentence, 300), e.ts, titles) for e in events
    ]
    text = _count_sentence(t, n, in_sessions, [e.day for e in events])
    confidence = COUNTED_CONFIDENCE - 0.05 * bool(found.inferred)
    quotes = [(s.quote, s.ts) for s in sources]
    return [Candidate(text, confidence, "retrieval", sources, quotes, (n, in_sessions))], [], True


def _count_sentence(t: count.Tally, n: int, sessions: int, days: list) -> str:
    """ "3 times, in 2 sessions: on 2026-09-02 (twice) and 2026-09-28." """
    times = f"{n} time{'s' * (n != 1)}"
    if t.unit == "sessions" or (t.topic and not t.asked):
        head = f"In {n} session{'s' * (n != 1)}"
    elif sessions != n:
        head = f"{times}, in {sessions} session{'s' * (sessions != 1)}"
    else:
        head = times
    per_day: dict = {}
    for d in days:
        if d is not None:
            per_day[d] = per_day.get(d, 0) + 1
    if not per_day:
        return head[0].upper() + head[1:] + "."
    listed = sorted(per_day)
    if len(listed) > DAYS_LISTED:
        return f"{head}, from {listed[0].isoformat()} to {listed[-1].isoformat()}."
    said = [d.isoformat() + _MORE.get(per_day[d], "") for d in listed]
    joined = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    return f"{head}: on {joined}."


_MORE = {2: " (twice)", 3: " (three times)", 4: " (four times)", 5: " (five times)"}


def _uncounted(t: count.Tally, found: count.Counted) -> list[str]:
    """What memory knows when it cannot count: what was said, and when."""
    out = []
    if found.outside:
        last = max(e.day for e in found.outside if e.day)
        n = len(found.outside)
        out.append(f"Outside that period: {n} time{'s' * (n != 1)}, the last on {last}.")
    for m in found.mentioned[: MAX_KNOWN - len(out)]:
        day = f"{m.day.isoformat()}: " if m.day else ""
        out.append(f"{day}“{clip(m.sentence, 160)}” (not said to have happened)")
    if not out:
        out.append(f"No session here says “{' '.join(t.words_said)}” happened.")
    return out


# -- 3. graph facts ---------------------------------------------------------------------------

# What each relation answers, by the question's words (stems) and its wh-word.
_REL_WORDS = {
    "has_title": {stem(w) for w in "title role job position".split()},
    "works_at": {stem(w) for w in "work works employer company firm org".split()},
    "has_address": {stem(w) for w in "email address mail contact".split()},
    "repo_for": {stem(w) for w in "repo repository github".split()},
    "deadline": {stem(w) for w in "due deadline launch ship ships go-live live".split()},
    "client_of": {stem(w) for w in "client clients customer".split()},
}


def _facts(
    memory: Memory, q: Question, room: str, now: datetime, forgotten: Turns
) -> list[Candidate]:
    if q.personal:
        return []
    try:
        view = memory.reader.room(memory.check_room(room))
    except Exception:
        return []
    rows = [r for r in view.rows if r.rel not in ("is", "mentioned_in") and r.status != "closed"]
    terms = set(q.terms)
    # "which cache did we pick for <this project>?": the room's own name need not be said
    implied = (
        {stem(w) for w in _room_words(recall.projects(memory.ledger), room)}
        if q.kind == "decision"
        else set()
    )
    employer: dict[str, set[str]] = {}
    for r in rows:
        if r.rel == "works_at":  # "the office manager at Harlow Legal": title and employer
            employer.setdefault(r.subject, set()).update(content(r.object_label))
    out = []
    for r in rows:  # the fit is read from labels; only a fitting row becomes a Fact
        score = _fact_fit(
            r.subject_label,
            r.rel,
            r.object_label,
            q,
            terms,
            employer.get(r.subject, set()),
            implied=implied,
        )
        if score <= 0:
            continue
        f = memory.reader.fact(r, view, now)
        if f.status == "closed":
            continue
        sources = [s for s in f.sources if (s.session, s.seq) not in forgotten]
        if not sources:
            continue
        titles = _titles(memory, {s.session for s in sources})
        srcs = [
            _source(s.session, s.seq, "", s.quote, s.ts, titles, memory)
            for s in reversed(sources[-3:])
        ]
        # a decision holds until another replaces it: its age discounts it less
        floor = 0.8 if r.rel == "decided" else 0.6
        confidence = score * min(1.0, 0.6 + 0.4 * f.confidence) * max(f.fresh, floor)
        # a fact stands on its turns: its quote may be a clause of a longer turn
        turns = [
            memory.ledger.turn(x.session, x.seq) for x in srcs if x.session and x.seq is not None
        ]
        said = [(t["text"], ts_value(t["ts"])) for t in turns if t]
        out.append(Candidate(_fact_sentence(f) + ".", confidence, "fact", srcs, said))
    return out


def _fact_fit(
    subject_label: str,
    rel: str,
    object_label: str,
    q: Question,
    terms: set[str],
    employer: set[str],
    *,
    implied: frozenset[str] | set[str] = frozenset(),
) -> float:
    """How exactly a fact answers the question: every content word of the question must be
    a word of the fact (or the relation's own words), and the fact must hold the kind of
    thing asked for. 0 when it does not answer it."""
    subject = set(content(subject_label))
    obj = set(content(object_label))
    if rel == "decided":
        # "did we go with the rust decoder or the C one?": a decision the room recorded answers
        # a decision question that names at least half of what it asks about
        if q.kind != "decision":
            return 0.0
        about = terms - _DECIDED - (implied - subject - obj)
        shared = about & (subject | obj)
        return 0.85 if shared and 2 * len(shared) >= len(about) else 0.0
    rel_words = _REL_WORDS.get(rel, set())
    fact_words = subject | obj | rel_words
    if rel in ("has_title", "has_address"):
        fact_words |= employer
    if rel == "has_address" and q.wh == "who" and fold(object_label) in {fold(n) for n in q.names}:
        return 0.9  # "who uses jonas@keelash.com?": the address says whose it is
    missing = terms - fact_words
    if missing:
        return 0.0
    if rel == "has_title":
        # "who is the office manager at Harlow Legal?": the title is named, a person is asked
        if q.wh == "who" and obj and obj <= terms:
            return 0.95
        if q.wh in ("what", "which") and subject & terms and terms & rel_words:
            return 0.9
        return 0.0
    if rel == "works_at":
        if q.wh in ("where", "who", "which", "what") and subject & terms and terms & rel_words:
            return 0.9
        return 0.0
    if rel == "has_address" and subject & terms and terms & rel_words:
        return 0.9
    if rel == "deadline" and q.wh == "when" and subject & terms:
        return 0.9 if subject <= terms | rel_words else 0.8
    if rel == "repo_for" and terms & rel_words:
        return 0.85
    if rel == "client_of" and q.wh in ("who", "which", "what") and terms & rel_words:
        return 0.85
    return 0.0


def _fact_sentence(f: Fact) -> str:
    if f.rel == "deadline":
        return f"The {f.subject} is due on {f.object}"
    return phrase(f)


# -- 4. passages --------------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`*]?\w)|\n+")
_NUMBER = re.compile(r"(?<![\w.-])(\d+(?:[.,]\d+)?%?)(?![\w])")
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve twenty dozen".split()
)
_DECIDED = {
    stem(w)
    for w in "decided decide chose chosen picked pick settled agreed going went opted "
    "use using".split()
}
_UNDECIDED = re.compile(
    r"\b(?:(?:have|has|need|needs|got)\s+to|still\s+(?:to|need\s+to)|yet\s+to|not\s+yet)\s+"
    r"(?:pick|choose|decide|settle|agree)|\b(?:tbd|undecided|not\s+decided)\b",
    re.I,
)
_HEADER = re.compile(r"\s*(?:subject|from|to|cc|bcc|date|sent|re|fwd?)\s*:", re.I)
_CAUSE = {stem(w) for w in "because caus due so root turned meant reason therefore".split()}
# How a cause is told, in words a stop list drops ("because", ", so ...") and in the ways a
# fix is reported ("Found it: ...", "Fixed in `x.py`: ...", "the bug was ...").
_CAUSAL = re.compile(
    r"\b(?:because|since\s+the|due\s+to|caused\s+by|root\s+cause|the\s+reason|turn(?:s|ed)\s+out"
    r"|which\s+meant|that\s+meant|meant\s+that|therefore|thus|hence|found\s+it"
    r"|the\s+(?:bug|problem|issue|culprit|fault|cause)\s+(?:was|is)|fixed\s+in|the\s+fix\s+(?:was|is))\b"
    r"|,\s*so\s",
    re.I,
)
_CODE = re.compile(r"`[^`]+`|\b\w+(?:[_./:]\w+)+\b|\b[A-Z][A-Z0-9_]{2,}\b")
# Things a which/what question asks for that are named in code: the answer names one.
_CODE_HEADS = {
    stem(w)
    for w in "model file table column function script path folder host schema variable key "
    "branch repo repository module class endpoint field url".split()
}


@dataclass
class _Turn:
    session: str
    seq: int
    role: str
    ts: datetime | None
    text: str
    score: float
    by: str = "agent"


def _hits(
    memory: Memory, query: str, room: str, limit: int, now: datetime, projects: list[dict]
) -> list[_Turn]:
    """Recall's passages for the question (issue 10's one retrieval), as whole turns."""
    scope = recall.scope_for(room, projects)
    found = recall.search(memory.ledger, query, scope, limit=limit, now=now)
    out = []
    for p in found:
        turn = memory.ledger.turn(p.session, p.seq)
        if turn is not None:
            out.append(_Turn(p.session, p.seq, p.role, p.ts, turn["text"], p.score, p.by))
    return out


def _passages(
    memory: Memory, q: Question, room: str, sessions: Sessions, forgotten: Turns, now: datetime
) -> list[Candidate]:
    if not q.terms or not sessions:
        return []
    query = " ".join([q.text, *expansions(q.text)])
    projects = recall.projects(memory.ledger)
    turns = [
        t
        for t in _hits(memory, query, room, PASSAGES, now, projects)
        if (t.session, t.seq) not in forgotten and (t.by == "person" or not q.personal)
    ]  # a question about the person's own life reads only their own words (source trust)
    if not turns:
        return []
    people = _people(memory, room)
    own = _room_words(projects, room)
    idf = _idf(memory, q)
    # a name of the room itself goes without saying: every turn of the room says it
    implied = {stem(o) for o in own} & set(idf)
    # the kinds of token (an address, a path, a date) whose words the question uses: only
    # they can change a score, and looking for the others took most of the time
    kinds = _kinds_of({*idf, *q.terms, *(stem(n) for n in q.names), *map(stem, q.head[-1:])})
    total = sum(idf.values()) or 1.0
    best: list[tuple[float, str, _Turn, str]] = []
    asked = set(q.terms)
    named = {s for n in q.names for s in content(n)}
    seen: set[tuple[str, int]] = set()
    hit_rank: dict[tuple[str, int], int] = {}
    for i, t in enumerate(turns):
        hit_rank.setdefault((t.session, t.seq), i)
    top = 0.0  # the best score so far: a sentence that cannot reach 0.8 of it is not read
    weight = 0.3 if q.wh == "why" else 0.15  # a reason is the answer to why
    for rank, hit in enumerate(turns):
        around = _around(memory, hit, later=WHY_LATER if q.wh == "why" else LATER)
        window_stems = frozenset().union(*(_stems(t.text, kinds) for t in around)) | implied
        # a name of the room itself ("Larkspur" asked in Larkspur's project) goes without saying
        folded: str | None = None
        names_ok = True
        for n in q.names:
            if _generic(n) or fold(n) in own or stem(n) in window_stems:
                continue
            if n.islower() and "-" in n and all(stem(p) in window_stems for p in n.split("-")):
                continue  # "double-booking" is said as "double book" too
            folded = folded if folded is not None else fold("\n".join(t.text for t in around))
            if fold(n) not in folded:
                names_ok = False
                break
        if not names_ok:
            continue
        if q.head and stem(q.head[-1]) not in window_stems:
            continue  # "which Snowflake region": no region said here
        prompt_cover = 0.0  # how well the person's prompt before a reply asks this question
        prompt: frozenset[str] = frozenset()  # that prompt's own words: a symptom, reported
        for t in around:
            if t.role == "user":
                prompt = content_set(t.text)
                prompt_cover = sum(w for s, w in idf.items() if s in prompt) / total
            if (t.session, t.seq) in seen or (q.personal and t.by != "person"):
                continue  # about the person's own life: their own words only
            seen.add((t.session, t.seq))
            # a turn search found itself is read at its own rank; a neighbour, a little lower
            own_rank = hit_rank.get((t.session, t.seq))
            near, at = (0.0, own_rank) if own_rank is not None else (0.05, rank)
            for sentence in _split(t.text):
                if sentence.rstrip().endswith("?") or _HEADER.match(sentence):
                    continue  # a question is not an answer, nor an email's header line
                stems = _stems(sentence, kinds) | implied
                if (
                    q.wh not in ("yesno", "other")
                    and not (stems - asked - {"name"})
                    and not (_pattern_words(sentence, ALL_KINDS) - asked - {"name"})
                ):
                    continue  # says nothing the question does not already say
                if q.wh == "who" and not all(s in stems for s in q.terms if s not in named):
                    continue  # "who is the chief data officer": the title said of someone
                cover = sum(w for s, w in idf.items() if s in stems) / total
                wide = sum(w for s, w in idf.items() if s in stems or s in window_stems) / total
                base = (0.7 - weight) * cover + 0.3 * wide - 0.02 * at - near
                if q.wh == "why" and t.role == "assistant":
                    base += 0.15 * prompt_cover  # the reply to the prompt that asked it
                    # a cause is told in the words of the symptom it explains, which the
                    # question need not use ("straddle clip boundaries" -> "a call crossing
                    # a clip boundary was detected twice")
                    base += ECHO * min(len(stems & prompt - asked), ECHOED)
                if wide < 0.99 and len(q.terms) > 1:
                    base -= 0.25 * (1 - wide)
                if base + weight < max(REACHABLE, 0.8 * top):
                    continue  # even the right kind of thing would not make it an answer
                typed = _typed(q, sentence, people)
                if q.wh == "why" and t.role == "user" and typed < 1.0:
                    continue  # the person telling the symptom is not the cause
                if typed == 0.0:
                    continue
                if q.kind == "decision":
                    if _UNDECIDED.search(sentence):
                        continue  # "we still have to pick one": nothing chosen yet
                    typed *= 1.0 if stems & _DECIDED else 0.5  # what was chosen, said so
                score = base + weight * typed
                top = max(top, score)
                best.append((score, f"{t.session}:{t.seq:06d}", t, sentence))
    if not best:
        return []
    best.sort(key=lambda b: (-b[0], b[1], b[3]))
    if DEBUG:
        for b in best[:6]:
            print(round(b[0], 3), b[1][:12], b[3][:90])
    score, _, t, sentence = best[0]
    chosen = [sentence]
    if q.wh in ("why", "how_much") or len(q.head) > 1 or " and " in q.text:
        # a cause, or a two-part question, often takes the next sentence of the same turn
        second = next(
            (b for b in best[1:4] if b[2] is t and b[3] != sentence and b[0] >= 0.8 * score),
            None,
        )
        if second is not None:
            chosen = sorted([sentence, second[3]], key=t.text.find)
    if q.wh == "why":
        chosen = _explained(t.text, chosen)
    titles = _titles(memory, {t.session})
    text = " ".join(_absolute(c.strip(" -*#>\t"), t.ts, dates=q.wh == "when") for c in chosen)
    role = "user" if t.role == "user" else "assistant"
    src = _source(t.session, t.seq, role, " ".join(c.strip() for c in chosen), t.ts, titles)
    if len(chosen) > 1 and src.quote not in t.text:
        src = src.model_copy(update={"quote": t.text.strip()})
    agree = {b[2].session for b in best[:AGREEING] if b[0] >= score - 0.05}
    confidence = min(0.9, score + AGREE_BONUS * (len(agree) - 1))
    return [Candidate(text, confidence, "retrieval", [src], [(c, t.ts) for c in chosen])]


# How an explanation is written: a consequence refers back to its cause in the sentence before
# ("X is in local time. The join therefore double-counts"); a cause can follow what it
# explains ("... duplicate events. The event fires twice because ...").
_CONSEQUENCE = re.compile(
    r"\b(?:therefore|thus|hence|so|that's why|which is why|this means|as a result|that means)\b",
    re.I,
)
_BECAUSE = re.compile(r"\b(?:because|caused by|due to|root cause|the reason)\b", re.I)
EXPLAINED_MOST = 3  # sentences in a why-answer


def _explained(text: str, chosen: list[str]) -> list[str]:
    """A why-answer with the rest of its explanation from the same turn: the sentence before
    a consequence, the sentence after that gives the cause (in the turn's order)."""
    parts = _split(text)
    at = [parts.index(c) for c in chosen if c in parts]
    if len(at) != len(chosen):
        return chosen
    more = set(at)
    if not any(_BECAUSE.search(parts[i]) for i in at):
        more |= {i + 1 for i in at if i + 1 < len(parts) and _BECAUSE.search(parts[i + 1])}
    more |= {
        i - 1
        for i in at
        if i > 0 and _CONSEQUENCE.search(parts[i]) and not parts[i - 1].rstrip().endswith("?")
    }
    if len(more) > EXPLAINED_MOST:
        return chosen
    return [parts[i] for i in sorted(more)]


def _reader_passages(
    memory: Memory, q: Question, room: str, forgotten: Turns, now: datetime
) -> list[dict]:
    return [
        {"session": t.session, "seq": t.seq, "role": t.role, "text": t.text, "ts": t.ts}
        for t in _hits(memory, q.text, room, 8, now, recall.projects(memory.ledger))
        if (t.session, t.seq) not in forgotten
    ]


_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Prof|St|Mt|Jr|Sr|vs|etc|approx|e\.g|i\.e|cf|No|Co|Inc|Ltd)\.|"
    r"\b[A-Z]\.)$"
)


@functools.lru_cache(maxsize=8192)
def _stems(text: str, kinds: int) -> frozenset[str]:
    """The content stems of a text and the question words its tokens of these kinds answer
    (a sentence, or a whole turn for the window around a hit)."""
    return content_set(text) | _pattern_words(text, kinds)


@functools.lru_cache(maxsize=4096)
def _split(text: str) -> tuple[str, ...]:
    """Sentences as written: an address or a file name's dots do not end one, nor "Dr."."""
    out: list[str] = []
    for part in _SENTENCE_END.split(text):
        if out and _ABBREVIATION.search(out[-1]) and not out[-1].endswith("\n"):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return tuple(p for p in out if len(p.strip()) > 3)


LATER = 4  # turns read after a hit, the hit included
# A cause is often told only once the work is done: the reply after several short notes
# ("Let me look at the decoder.") between tool calls.
WHY_LATER = 8
ECHO, ECHOED = 0.05, 3  # what each word a reply shares with its prompt adds, and how many


def _around(memory: Memory, t: _Turn, *, later: int = LATER) -> list[_Turn]:
    """The turn with its neighbours in its session: the prompt a reply answers, the replies
    to a prompt (what was said by the person or the assistant, outside sidechains; tool
    lines in between do not count)."""
    said = "by IN ('person', 'agent') AND kind = 'text' AND sidechain = 0"
    db = memory.ledger.db
    before = db.execute(
        f"SELECT seq, role, ts, text FROM turns WHERE session = ? AND seq < ? AND {said} "
        "ORDER BY seq DESC LIMIT 3",
        (t.session, t.seq),
    ).fetchall()
    after = db.execute(
        f"SELECT seq, role, ts, text FROM turns WHERE session = ? AND seq >= ? AND {said} "
        "ORDER BY seq LIMIT ?",
        (t.session, t.seq, later),
    ).fetchall()
    rows = [*reversed(before), *after]
    out = [
        _Turn(
            t.session,
            seq,
            role,
            ts_value(ts),
            text,
            t.score,
            "person" if role == "user" else "agent",
        )
        for seq, role, ts, text in rows
    ]
    return out or [t]


# Words of a question that a kind of token answers: an address answers "email", a file
# path answers "file", an UPPER_CASE name answers "variable".
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_FILEPATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:[a-z]{1,5})\b")
_CONSTANT = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")
_TYPE_WORDS = (
    (_EMAIL, "email address mail contact"),
    (_FILEPATH, "file path folder script module"),
    (_CONSTANT, "variable env environment setting config key"),
    (DATES, "date day deadline due"),
)
_PATTERN_STEMS = [(rx, frozenset(stem(w) for w in ws.split())) for rx, ws in _TYPE_WORDS]
ALL_KINDS = (1 << len(_PATTERN_STEMS)) - 1  # a bit per kind of token, in that order


def _kinds_of(stems: set[str]) -> int:
    """The kinds of token whose question words are among these stems."""
    return sum(1 << i for i, (_, words) in enumerate(_PATTERN_STEMS) if words & stems)


@functools.lru_cache(maxsize=8192)
def _pattern_words(text: str, kinds: int) -> frozenset[str]:
    out: set[str] = set()
    for i, (rx, stems) in enumerate(_PATTERN_STEMS):
        if kinds >> i & 1 and (has_date(text) if rx is DATES else rx.search(text)):
            out |= stems
    return frozenset(out)


def _room_words(projects: list[dict], room: str) -> set[str]:
    """The words a project is called by: its slug, name and org ("Larkspur", "Foundation")."""
    project = next((p for p in projects if p["slug"] == room), None)
    if project is None:
        return set()
    text = " ".join([project["slug"].replace("-", " "), project["name"], project["org"] or ""])
    return {fold(w) for w in words(text) if fold(w) not in STOP}


def _generic(name: str) -> bool:
    return fold(name) in STOP


DF_CAP = 2000  # past this many turns a word is common: its weight barely changes
# (ledger, index mark) -> how many turns the index holds, and each word's count
_DF: dict[tuple[str, str], tuple[int, dict[str, int]]] = {}


def _idf(memory: Memory, q: Question) -> dict[str, float]:
    """Rarer words weigh more: log inverse document frequency over the searched turns (recall's
    index, which stems as it indexes). Counts stop at DF_CAP and are kept until the index
    changes."""
    db = memory.ledger.db
    key = (str(memory.ledger.path), search_index.generation(db))
    if key not in _DF:
        if len(_DF) > 8:
            _DF.clear()
        total = db.execute("SELECT total(places) FROM recall_sessions").fetchone()[0]
        _DF[key] = (int(total) or 1, {})
    total, counts = _DF[key]
    out = {}
    for w in words(q.text):
        s = stem(w)
        if fold(w) in STOP or s in out or (q.wh == "why" and s in WHY_WORDS):
            continue
        term = fold(w).replace('"', "")
        if term not in counts:
            try:
                counts[term] = db.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM recall_fts WHERE recall_fts MATCH ? "
                    "LIMIT ?)",
                    (f'text:"{term}"', DF_CAP),
                ).fetchone()[0]
            except sqlite3.OperationalError:  # a token the index cannot parse weighs as rare
                counts[term] = 0
        out[s] = math.log(1 + max(total, DF_CAP) / (1 + counts[term]))
    return out


def _typed(q: Question, sentence: str, people: Names) -> float:
    """1 when the sentence holds the kind of thing asked for, 0 when it cannot answer."""
    asked = {fold(n) for n in q.names}
    if q.wh == "who":
        return (
            1.0
            if _person_in(sentence, people, asked, orgs=bool(set(q.terms) & _ORG_ASKED))
            else 0.0
        )
    if q.wh == "when":
        return 1.0 if has_date(sentence) else 0.0
    if q.wh in ("how_many", "how_much"):
        numbers = [n for n in _NUMBER.findall(sentence) if fold(n) not in asked]
        spelled = [w for w in words(sentence) if fold(w) in _NUMBER_WORDS]
        if not (numbers or spelled):
            return 0.0
        if q.wh == "how_many" and q.head:
            return 1.0 if _counted(sentence, q.head[0]) else 0.0
        return 1.0
    if q.wh == "why":
        return 1.0 if set(content(sentence)) & _CAUSE or _CAUSAL.search(sentence) else 0.3
    if q.wh == "where":
        # a place or an org answers where; a month or a weekday does not ("launches October 9"),
        # nor a person's given name
        dated = {fold(x) for m in DATES.finditer(sentence) for x in m.group(0).split()}
        ws = words(sentence)
        # the place or org follows a word that places it ("based in Lyon", "works at Acme"):
        # a name elsewhere in the sentence ("a Cargo workspace for ...") is no answer
        placed = any(
            w[:1].isupper()
            and ws[i - 1].casefold() in _PLACE_WORDS
            and fold(w) not in asked
            and fold(w) not in dated
            and not (is_given_name(w) and ws[i - 1].casefold() not in _IN_A_PLACE)
            and not any(k == "person" for _, k in people.get(fold(w), ()))
            for i, w in enumerate(ws[1:], 1)
        )
        if not set(q.terms) & _WHERE_OF_PEOPLE:
            return 1.0 if placed else 0.3
        # "where does Ana work?" asks for an employer or a town: only a placed name answers
        # it, and only one said of her, not of someone else the sentence names instead
        if not placed:
            return 0.0
        said_of = any(fold(n) in fold(sentence) for n in q.names)
        return 1.0 if said_of or not _person_in(sentence, people, asked, orgs=False) else 0.0
    if q.wh in ("which", "what"):
        dated = {fold(x) for m in DATES.finditer(sentence) for x in m.group(0).split()}
        specific = [
            w
            for w in words(sentence)[1:]
            if (w[:1].isupper() or _CODE.fullmatch(w) or _NUMBER.fullmatch(w))
            and fold(w) not in asked
            and fold(w) not in STOP
            and fold(w) not in dated
        ]
        coded = [c for c in _CODE.findall(sentence) if fold(c.strip("`")) not in asked]
        if q.head and stem(q.head[-1]) in _CODE_HEADS:
            return 1.0 if coded else 0.2  # "which staging model": one is named
        if specific or coded:
            return 1.0
        return 0.2 if q.wh == "which" and q.head else 0.5  # "which queue": one is named
    return 0.7


# What a where-question asks of a person: where they work, live or are based.
_WHERE_OF_PEOPLE = {stem(w) for w in "work works working live lives living based".split()}
# "who is our new client?": an organisation answers a who-question about these.
_ORG_ASKED = {stem(w) for w in "client customer company firm agency supplier vendor org".split()}


def _counted(sentence: str, noun: str) -> bool:
    """A number said of the thing counted: "14 depots", "three GA4 properties", "depots: 14"."""
    ws = words(sentence)
    for i, w in enumerate(ws):
        nxt = fold(ws[i + 1]) if i + 1 < len(ws) else ""
        same = fold(w) == noun or (stem(w) == stem(noun) and (not nxt or nxt in STOP))
        if not same:
            continue  # "two depot managers" counts managers, not depots
        before = ws[max(0, i - 3) : i]
        after = ws[i + 1 : i + 3]
        if any(x[:1].isdigit() or fold(x) in _NUMBER_WORDS for x in before + after):
            return True
    return False


# The gazetteer knows Berlin, Paris and Florence as given names too: after these, a place.
_PLACE_WORDS = frozenset({"in", "near", "around", "outside", "from", "to", "at"})
# What a where-answer's place follows ("in Florence"); "to" and "from" come before people too.
_IN_A_PLACE = frozenset({"in", "near", "around", "outside", "at"})


def _person_in(sentence: str, people: Names, asked: set[str], *, orgs: bool) -> bool:
    """Whether the sentence names a person (or, for a question about a client, an org) that
    the question does not: one the room's graph knows, or a given name and a surname."""
    ws = words(sentence)
    low = " ".join(fold(w) for w in ws)
    in_orgs: set[str] = set()  # the words of orgs it names: "Ash" in "Keel & Ash" is no person
    for w in {fold(w) for w in ws}:
        for name, kind in people.get(w, ()):
            if f" {name} " not in f" {low} ":
                continue
            if kind == "org":
                in_orgs.update(name.split())
                if not orgs:
                    continue
            if name not in asked and not any(name in a for a in asked):
                return True
    for i, w in enumerate(ws):
        if (
            w[:1].isupper()
            and is_given_name(w)
            and fold(w) not in asked
            and fold(w) not in in_orgs
            and i + 1 < len(ws)
            and ws[i + 1][:1].isupper()
            and (i == 0 or ws[i - 1].casefold() not in _PLACE_WORDS)  # "a startup in Berlin"
        ):
            return True
    return False


Names = dict[str, list[tuple[str, str]]]  # first word -> (whole name, kind), all folded
_NAMES: dict[tuple[str, str], Names] = {}
ROOMS_KEPT = 64  # rooms whose names are kept (a heavy home has a few dozen)


def _people(memory: Memory, room: str) -> Names:
    """The people and organisations of the room's graph, by their first word (kept per
    derived state of the room: the graph changes only when the room is derived again)."""
    try:
        view = memory.reader.room(room)
    except Exception:
        return {}
    key = (room, view.digest)
    if key not in _NAMES:
        names: Names = {}
        for label, kind in sorted(view.labels.values()):
            if kind not in ("person", "org") or label == "owner":
                continue
            folded = " ".join(fold(w) for w in words(label))
            if folded:
                names.setdefault(folded.split()[0], []).append((folded, kind))
        if len(_NAMES) >= ROOMS_KEPT:
            del _NAMES[next(iter(_NAMES))]  # the room read longest ago
        _NAMES[key] = names
    return _NAMES[key]


def _absolute(text: str, said: datetime | None, *, dates: bool = False) -> str:
    """Relative dates made absolute: "due Friday" said on 2026-09-29 -> "due Friday
    (2026-10-02)". ISO dates and dates with a year stay as written; a month and day gets its
    year only when the question asks when (elsewhere "since 1 March" may lie in the past)."""
    if said is None:
        return text

    def repl(m: re.Match) -> str:
        if m["iso"] or re.search(r"\d{4}", m.group(0)) or ((m["md"] or m["dm"]) and not dates):
            return m.group(0)
        d = resolve(m, said)
        return f"{m.group(0)} ({d.isoformat()})" if d else m.group(0)

    return DATES.sub(repl, text)


# -- what memory does know ------------------------------------------------------------------


def _known(
    memory: Memory,
    q: Question,
    room: str,
    now: datetime,
    sessions: Sessions,
    forgotten: Turns,
) -> list[str]:
    out: list[str] = []
    for name in q.names:
        try:
            found = memory.about(name, room, now=now)
        except VyreError:  # a room that is gone: nothing known there
            continue
        for entity in found:
            for f in sorted(entity.facts, key=lambda f: (-f.confidence * f.fresh, f.id)):
                if f.rel == "is" or f.status == "closed":
                    continue
                line = phrase(f)
                if line not in out:
                    out.append(line)
    if q.personal:
        who, _ = q.personal
        for said in personal.from_turns(memory.ledger, sessions, who=who, forgotten=forgotten):
            line = said.sentence()
            if line not in out:
                out.append(line)
    return out[:MAX_KNOWN]


# -- sources ------------------------------------------------------------------------------------


def _titles(memory: Memory, sessions: set) -> dict[str, str]:
    ids = sorted(s for s in sessions if s)
    if not ids:
        return {}
    rows = memory.ledger.db.execute(
        f"SELECT id, title FROM sessions WHERE id IN ({', '.join('?' * len(ids))})", ids
    ).fetchall()
    return {sid: t for sid, t in rows if t}


def _source(
    session: str | None,
    seq: int | None,
    role: str,
    quote: str,
    ts: datetime | None,
    titles: dict[str, str],
    memory: Memory | None = None,
) -> AskSource:
    if session is None:  # what the person told memory themselves
        return AskSource(
            session=None, seq=None, role="you", name="what you told memory", quote=quote, ts=ts
        )
    if not role and memory is not None and seq is not None:
        turn = memory.ledger.turn(session, seq)
        role = turn["role"] if turn else "assistant"
    return AskSource(
        session=session,
        seq=seq,
        role=role or "assistant",
        name=titles.get(session) or f"session {session[:8]}",
        quote=quote,
        ts=ts,
    )


__all__ = ["ask", "room_sessions"]
