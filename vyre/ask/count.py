"""Counting across sessions: "how many times did we deploy to staging?", "how often did the
build break this month?", "how many sessions did we spend on the billing bug?", "how many
times have I asked about the API key?".

A count is made from the room's turns, never guessed: each event counted is a turn that says
it happened, and those turns are the answer's sources (the grounding check accepts the
number because it is the number of its sources). What a count needs, in order:

1. The question (`tally`). The ways people ask for a count of events ("how many times",
   "how often", "how frequently", "the number of times", "how many sessions", "in how many
   sessions"), the event (its verb, lemmatised with LemmInflect so "broke" and "broken" are
   "break", and the words that must be said with it: "to staging", "the build"), the period
   it names ("this month", "in September", "last week", "since June") and the unit: events
   ("times") or sessions. A question with a count of things ("how many depots") is no tally.
2. Mentions. Every turn of the room (the person's and the assistant's, main sessions only:
   recall's index) that says the event's word in any of its forms, with the words that must
   go with it in the sentence, the turn or the prompt the turn answers.
3. What each mention says. It reports the event (past tense, a state: "the build is
   failing", or the noun with what became of it: "the deploy went out"), asks for it (a
   request, counted once a reply says it was done), or does not count: a question, a
   negation ("didn't deploy"), an intention ("I'll deploy", "ready to deploy", "before
   deploying"), a habit ("we deploy on Fridays"), the thing named as a noun ("a deploy
   script"), or a reference to another day ("yesterday's deploy"), which counts only on a day
   no session of its own reports.
4. Distinct events. In one session, mentions of the event are one event (it is told as it
   happens, then confirmed) unless a mention says it happened again ("again", "another",
   "redeployed", "a second time") or the person asks for it anew after it happened.
5. Unclear is "not sure yet": no mention at all, or mentions of which none says it happened,
   or nothing in the period asked, abstains, with what memory does know.

Sessions are counted for "how many sessions" and for a topic ("spend on", "work on", "talk
about", "come up"): a session counts when one of its turns says every word of the topic.
"How many times have I asked about X" counts the sessions in which the person asked about X
(one per session: asking again in the same conversation is the same time).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from types import ModuleType

from vyre.ask import recall
from vyre.ask.question import STOP, stem, words
from vyre.ledger import Ledger

# -- what a question asks -------------------------------------------------------------------

_TALLY = re.compile(
    r"\b(?:how\s+many\s+(?:more\s+|separate\s+|different\s+)?(?P<unit>times|sessions|conversations|"
    r"chats|occasions|instances)\b|(?P<often>how\s+(?:often|frequently))\b"
    r"|(?:the\s+)?number\s+of\s+(?P<unit2>times|sessions)\b)",
    re.I,
)
_SESSIONS = {"sessions", "conversations", "chats"}
_AUX = frozenset(
    "did do does have has had was were is are been be being will would can could ve 've d".split()
)
_PRONOUNS = frozenset("we i you they it he she us".split())
_DETERMINERS = frozenset("the a an our my your their this that these those its".split())
# Verbs that carry no event of their own: the event is the thing done ("have a staging
# deploy", "run the migrations", "do a release").
_LIGHT = frozenset("have had has do did done make made get got".split())
# Verbs of working on or talking about something: the count is of sessions with the topic.
_TOPIC = frozenset(
    "spend spent work worked talk talked discuss discussed mention mentioned come came deal "
    "dealt look looked touch touched".split()
)
_ASK = frozenset("ask asked asking query queried".split())
_PARTICLES = frozenset("up back out down over off".split())
# Words of a period or of counting itself, never part of the event.
_PERIOD_WORDS = frozenset(
    "this last past week weeks month months year years today yesterday so far ever in total "
    "altogether since during ago days day recently lately overall until now before".split()
)
_MONTH_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)

# Ordinary English for the same event, so either word finds the other: a build that "broke"
# also "failed"; a rollback is also "rolled back".
_SAME_EVENT = [
    "break fail crash",
    "deploy redeploy",
    "roll-back rollback",
]


@dataclass(frozen=True)
class Tally:
    unit: str  # "times" | "sessions"
    action: str  # the event's key ("deploy", "break"), "" for a topic
    keys: frozenset[str]  # the action's keys and those of the same event
    args: tuple[str, ...]  # stems that must be said with it ("staging", "build")
    topic: bool  # sessions that talk of `args`
    asked: bool  # the person asking about `args`
    start: date | None = None
    end: date | None = None
    words_said: tuple[str, ...] = ()  # the question's words for the event, for known lines


@functools.lru_cache(maxsize=1)
def _lemmas() -> ModuleType:
    import lemminflect  # type: ignore[import-untyped]  # loaded on the first count question: its tables take a second

    return lemminflect


@functools.lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """The verb a word is a form of ("broke" -> "break", "deployed" -> "deploy"), else the
    word; a noun made of a verb ("deployment", "failure", "breakage") is that verb."""
    w = word.casefold().strip("'’.-")
    if not w.isalpha():
        return w
    lm = _lemmas()
    for suffix in ("ments", "ment", "ures", "ure", "ages", "age"):
        root = w[: -len(suffix)]
        if w.endswith(suffix) and len(root) > 2 and lm.getAllInflections(root, upos="VERB"):
            return root
    found = lm.getAllLemmas(w, upos="VERB").get("VERB")
    return found[0] if found else w


@functools.lru_cache(maxsize=8192)
def _key(word: str) -> str:
    return stem(lemma(word))


@functools.lru_cache(maxsize=256)
def _forms(key_word: str) -> frozenset[str]:
    """Every surface form of a verb and its nouns: break, breaks, broke, broken, breaking..."""
    lm = _lemmas()
    out = {key_word}
    for forms in lm.getAllInflections(key_word, upos="VERB").values():
        out.update(forms)
    for forms in lm.getAllInflections(key_word, upos="NOUN").values():
        out.update(forms)
    out.update({key_word + "s", key_word + "ment", key_word + "ments"})
    return frozenset(f.casefold() for f in out)


def _same(key_word: str) -> list[str]:
    for group in _SAME_EVENT:
        ws = group.split()
        if key_word in ws:
            return ws
    return [key_word]


def tally(text: str, now: datetime | None = None) -> Tally | None:
    """The count a question asks for, or None when it asks no count of events or sessions."""
    m = _TALLY.search(text)
    if not m:
        return None
    unit_word = (m["unit"] or m["unit2"] or "times").casefold()
    unit = "sessions" if unit_word in _SESSIONS else "times"
    start, end = _period(text, now)
    rest = [w.casefold() for w in words(text[m.end() :])]
    rest = _drop_periods(rest)
    i = 0
    while i < len(rest) and rest[i] in _AUX:
        i += 1
    subject: list[str] = []
    if i < len(rest) and rest[i] in _PRONOUNS:
        i += 1
    elif i < len(rest) and rest[i] in _DETERMINERS | {"about", "on"}:
        pass
    else:
        # "did CI break", "did Priya send ...": a name before the verb
        run = _run(rest, i)
        if len(run) >= 2:
            subject, i = run[:-1], i + len(run) - 1
    if i < len(rest) and rest[i] in _DETERMINERS:
        run = _run(rest, i + 1)
        if len(run) >= 2:  # "did the build break": the noun, then its verb
            subject, i = run[:-1], i + len(run)
        else:
            subject, i = run, i + 1 + len(run)
    # "has been deployed": helpers before the verb; "did we have a deploy": the verb itself
    while i + 1 < len(rest) and rest[i] in _AUX | _PRONOUNS and rest[i + 1] not in _DETERMINERS:
        i += 1
    if i >= len(rest):
        return None
    verb = rest[i]
    after = rest[i + 1 :]
    topic = asked = False
    if verb in _ASK or lemma(verb) in _ASK:
        asked = True
    elif verb in _TOPIC or lemma(verb) in _TOPIC or verb in ("about", "on"):
        topic = True
    elif verb in _LIGHT or lemma(verb) in _LIGHT:
        objects = [w for w in after if w not in STOP]
        if not objects:
            return None
        verb, after = objects[-1], [w for w in after if w != objects[-1]]
    particle = after[0] if after and after[0] in _PARTICLES else ""
    if particle:
        after = after[1:]
        if particle == "up" and lemma(verb) == "come":
            topic = True
    args = [w for w in subject + after if w not in STOP and w not in _PRONOUNS]
    if asked or topic or verb in ("about", "on"):
        if not args:
            return None
        stems = tuple(dict.fromkeys(stem(w) for w in args))
        return Tally(unit, "", frozenset(), stems, True, asked, start, end, tuple(args))
    action = lemma(verb)
    if particle:
        action = f"{action}-{particle}"  # "roll back", "back out": a verb with its particle
    if action in STOP or not action.replace("-", "").isalpha():
        return None
    keys = frozenset(stem(k) if "-" not in k else k for k in _same(action))
    stems = tuple(dict.fromkeys(stem(w) for w in args if _key(w) not in keys))
    key = action if "-" in action else stem(action)
    return Tally(unit, key, keys, stems, False, False, start, end, (verb, *args))


def _run(rest: list[str], i: int) -> list[str]:
    """The content words from `i` up to the first function word: "build break"."""
    out = []
    while i < len(rest) and rest[i] not in STOP | _AUX | _PARTICLES:
        out.append(rest[i])
        i += 1
    return out


def _drop_periods(rest: list[str]) -> list[str]:
    """The question's words without its period ("this month", "in September 2026")."""
    out: list[str] = []
    for w in rest:
        if w in _PERIOD_WORDS or w in _MONTH_NAMES or w.isdigit():
            while out and out[-1] in ("in", "on", "during", "since", "for", "the", "of"):
                out.pop()
            continue
        out.append(w)
    return out


_SINCE = re.compile(
    r"\bsince\s+(?:the\s+(?:start|beginning)\s+of\s+)?(?P<m>" + "|".join(_MONTH_NAMES) + r")\b",
    re.I,
)
_LAST_N = re.compile(
    r"\b(?:in\s+)?the\s+(?:last|past)\s+(\d+|two|three|four|six)\s+(day|week|month)s?\b"
)
_N = {"two": 2, "three": 3, "four": 4, "six": 6}


def _period(text: str, now: datetime | None) -> tuple[date | None, date | None]:
    """The days a question's period covers, inclusive; (None, None) for all time."""
    low = text.casefold()
    today = now.date() if now else None
    m = _SINCE.search(low)
    if m and today:
        month = recall._month(m["m"])
        year = today.year if month <= today.month else today.year - 1
        return date(year, month, 1), today
    m = _LAST_N.search(low)
    if m and today:
        n = _N.get(m.group(1)) or int(m.group(1))
        days = {"day": 1, "week": 7, "month": 30}[m.group(2)] * n
        return today - timedelta(days=days), today
    found = recall.period(text, now)
    if found is None:
        return None, None
    if found.month is not None:  # "in June": the latest June up to now
        if today is None:
            return None, None
        year = today.year if found.month <= today.month else today.year - 1
        first = date(year, found.month, 1)
        return first, recall._month_end(first)
    return found.start, found.end


# -- what the turns say -------------------------------------------------------------------------


@dataclass
class Mention:
    session: str
    seq: int
    role: str
    ts: datetime | None
    sentence: str
    kind: str  # report | request | elsewhere | none
    again: bool = False
    day: date | None = None  # the day it happened (elsewhere: the day it names)


@dataclass
class Counted:
    """What a count found: the events (each its first report), and what memory knows."""

    tally: Tally
    events: list[Mention] = field(default_factory=list)
    sessions: int = 0
    mentioned: list[Mention] = field(default_factory=list)  # said, not as having happened
    outside: list[Mention] = field(default_factory=list)  # events outside the period
    inferred: int = 0  # events counted from a request and the reply that did it


_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+|;\s+")
_NEGATION = frozenset("not never no without nothing nobody none cannot".split())
# Words before the event's word that make it something not done (yet): a plan, a wish, a
# condition, a time relative to something else ("before deploying").
_INTENT = frozenset(
    "will shall going gonna plan planning planned want wants wanted need needs needed "
    "should must let lets can could would please ready try trying tried before after once "
    "when whenever if unless until how remember forget forgot able".split()
)
_AGAIN = frozenset("again another more second third fourth fifth".split())
_STATUS = frozenset(
    "done finished succeeded success successful went live passed completed complete worked "
    "failed broke broken green red ok okay out landed shipped up".split()
)
_FAILED = re.compile(
    r"\b(?:fail(?:s|ed|ing)?|error|couldn't|could\s+not|can't|cannot|unable|refused|blocked|"
    r"not\s+yet|didn't|did\s+not)\b",
    re.I,
)
_DONE = re.compile(
    r"\b(?:done|finished|complete[d]?|succeeded|live|is\s+up|went\s+out|landed|pushed|shipped|"
    r"deployed|released|merged|ran|now\s+(?:on|at|in))\b|✓|✅",
    re.I,
)
_REQUEST = re.compile(r"\W*(?:(?:can|could|would|will)\s+you\b|please\b)", re.I)
_WHY = re.compile(r"^\W*(?:why|how\s+come|what(?:'s|\s+is)\s+wrong)\b", re.I)
_ELSEWHERE = re.compile(
    r"\b(?:yesterday|last\s+(?:night|week|time|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|(?:on|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|\d+\s+days\s+ago|"
    r"(?:a|one|two|three)\s+days\s+ago|earlier\s+today|this\s+morning)\b",
    re.I,
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AGO_N = {"a": 1, "one": 1, "two": 2, "three": 3}


def _elsewhere_day(phrase: str, said: datetime | None) -> date | None:
    """The day a past reference names, said at `said`: "yesterday", "on Monday" (the latest
    Monday before), "3 days ago"; None for a day not named ("last week")."""
    if said is None:
        return None
    low, today = phrase.casefold(), said.date()
    if "yesterday" in low or "last night" in low:
        return today - timedelta(days=1)
    if "today" in low or "this morning" in low:
        return today
    m = re.search(r"(\d+|a|one|two|three)\s+days\s+ago", low)
    if m:
        return today - timedelta(days=_AGO_N.get(m.group(1)) or int(m.group(1)))
    for n, name in enumerate(_WEEKDAYS):
        if name in low:
            back = (today.weekday() - n) % 7 or 7
            return today - timedelta(days=back)
    return None


def _classify(sentence: str, t: Tally, role: str, *, acts: bool = False) -> tuple[str, bool]:
    """(kind, again) of a sentence: "absent" when it does not say the event's word. `acts`:
    the assistant's last sentence before a tool call ("Let me run the tests:" is running
    them)."""
    low = [w.casefold() for w in words(sentence)]
    at = [
        i for i, w in enumerate(low) if _key(w) in t.keys or _prefixed(w, t) or _phrasal(low, i, t)
    ]
    if not at:
        return "absent", False
    i = at[0]
    # "deployed again", "another deploy", "a second time", "redeployed": it happened again
    again = _prefixed(low[i], t) or any(w in _AGAIN for w in low[max(0, i - 3) : i + 5])
    if sentence.lstrip().startswith((">", "#", "|")):
        return "none", again  # a quoted line, a heading, a table: not something done
    if (
        role == "user"
        and _REQUEST.match(sentence)
        and not any(w in _NEGATION or w.endswith("n't") for w in low[:i])
    ):
        return "request", again  # "can you deploy it to staging?": asked for
    if sentence.rstrip().endswith("?") and not (_WHY.search(sentence) and t.action):
        return "none", again  # a question, but "why is the build failing?" says it is
    before = low[max(0, i - 3) : i]
    if any(w in _NEGATION or w.endswith("n't") for w in before):
        return "none", again
    planned = before[-1:] == ["to"] or any(w in _INTENT or w.endswith("'ll") for w in before)
    planned = planned or any(w in _WILL or w.endswith("'ll") for w in low[:i])
    if planned:
        return ("report" if acts and role == "assistant" else "none"), again
    form = low[i]
    if _ELSEWHERE.search(sentence):
        return "elsewhere", again
    starts = i == 0 or (i == 1 and low[0] in _OPENERS)
    if starts and role == "user" and form == lemma(form) and form not in _past_forms(t):
        return "request", again  # "deploy it to staging": asked, not yet done
    if form in _past_forms(t) or form in _STATUS:
        return "report", again
    if form.endswith("ing") and (starts or (i > 0 and low[i - 1] in _BE)):
        return "report", again  # "Deploying to staging now.", "the build is failing"
    if form.endswith("ing") and acts and role == "assistant":
        return "report", again
    if i > 0 and low[i - 1] in _PRONOUNS and form == lemma(form):
        return "none", again  # "we deploy on Fridays": a habit, not an event
    subject = {stem(w) for w in low[max(0, i - 2) : i]}
    if form != lemma(form) and form.endswith("s") and subject & set(t.args):
        return "report", again  # "the build fails on lint": a state said of it
    # the noun ("the staging deploy went out"): an event when what became of it is said
    if set(low[i + 1 : i + 5]) & _STATUS and form == lemma(form):
        return "report", again
    return "none", again


_OPENERS = frozenset("please pls then now and ok okay so".split())
_BE = frozenset("is are was were am been be keeps kept still 's".split())
# Words anywhere before the event's word in its sentence that make it a plan.
_WILL = frozenset("will shall let lets going gonna want need plan try".split())


def _phrasal(low: list[str], i: int, t: Tally) -> bool:
    """ "rolled back" for the action "roll-back": the verb in any form, then its particle."""
    if "-" not in t.action:
        return False
    verb, particle = t.action.split("-", 1)
    return _key(low[i]) == verb and low[i + 1 : i + 2] == [particle]


def _prefixed(word: str, t: Tally) -> bool:
    """ "redeployed", "re-deploy": the event again."""
    w = word.casefold()
    if not t.action or not w.startswith("re") or len(w) < 5:
        return False
    return _key(w[2:].lstrip("-")) in t.keys


@functools.lru_cache(maxsize=256)
def _past_forms_of(keys: frozenset[str]) -> frozenset[str]:
    lm = _lemmas()
    out: set[str] = set()
    for k in keys:
        for tag in ("VBD", "VBN"):
            for base in (k, k + "e"):
                out.update(lm.getAllInflections(base, upos="VERB").get(tag, ()))
    out.update({"red", "broken", "down"})
    return frozenset(f.casefold() for f in out)


def _past_forms(t: Tally) -> frozenset[str]:
    return _past_forms_of(t.keys)


def _forms_to_find(t: Tally) -> list[str]:
    out: set[str] = set()
    for group in [*_SAME_EVENT, t.action]:
        members = group.split()
        if not {stem(m) for m in members} & t.keys:
            continue
        for m in members:
            if "-" in m:  # a verb and its particle: "rolled back", "roll back"
                verb, particle = m.split("-", 1)
                out |= {f"{f} {particle}" for f in _forms(verb)}
            else:
                out |= _forms(m)
    return sorted(out)


def _has_args(t: Tally, sentence: str, turn: str, prompt: str) -> bool:
    """The words asked with the event are said with it: in its sentence, or, for a bare
    report ("Deployed.", "Done, redeployed it."), in its turn or the prompt it answers; a
    sentence that says more says which ("Deployed to staging" is no deploy to production)."""
    if not t.args:
        return True
    said = {stem(w) for w in words(sentence) if w.casefold() not in STOP}
    if all(a in said for a in t.args):
        return True
    if any(
        _key(w) not in t.keys and not _prefixed(w, t)
        for w in words(sentence)
        if w.casefold() not in STOP and w.casefold() not in _BARE
    ):
        return False
    return any(all(a in {stem(w) for w in words(x)} for a in t.args) for x in (turn, prompt))


_BARE = frozenset("done ok okay it that this now again all good".split())


def count(ledger: Ledger, t: Tally, scope: recall.Scope, sessions: frozenset[str]) -> Counted:
    """Count the tally's events (or sessions) in the room's turns."""
    out = Counted(t)
    if t.topic:
        terms = " AND ".join(f'"{a}"' for a in t.args)
    else:
        terms = " OR ".join(f'"{f}"' for f in _forms_to_find(t))
    rows = recall.turns_matching(ledger, terms, scope)
    by_session: dict[str, list[tuple]] = {}
    for row in rows:
        if row[0] in sessions:
            by_session.setdefault(row[0], []).append(row)
    for session in sorted(by_session, key=lambda s: min(r[5] or "" for r in by_session[s])):
        found = sorted(by_session[session], key=lambda r: r[1])
        if t.topic:
            _topic(out, t, session, found)
        else:
            _events(out, t, ledger, session, found)
    _within(out, t)
    return out


def _topic(out: Counted, t: Tally, session: str, found: list[tuple]) -> None:
    for _, seq, role, by, text, ts in found:
        if t.asked and (by != "person" or not _asks(text)):
            continue
        for sentence in _SPLIT.split(text):
            if all(a in {stem(w) for w in words(sentence)} for a in t.args):
                when = _ts(ts)
                day = when.date() if when else None
                out.events.append(
                    Mention(session, seq, role, when, sentence.strip(), "report", day=day)
                )
                return  # one per session


_ASKING = re.compile(
    r"\?|^\W*(?:can|could|would|will)\s+you\b|^\W*(?:remind\s+me|tell\s+me|show\s+me|explain)\b"
    r"|^\W*(?:what|how|where|which|why|when|who)\b",
    re.I | re.M,
)


def _asks(text: str) -> bool:
    return bool(_ASKING.search(text))


def _events(out: Counted, t: Tally, ledger: Ledger, session: str, found: list[tuple]) -> None:
    turns = _session_turns(ledger, session)
    events: list[Mention] = []
    pending: Mention | None = None
    for _, seq, role, _by, text, ts in found:
        prompt = _prompt_before(turns, seq) if role != "user" else ""
        sentences = [x for x in _SPLIT.split(text) if x.strip()]
        acting = role == "assistant" and _tool_next(turns, seq)
        for n, sentence in enumerate(sentences):
            if not _has_args(t, sentence, text, prompt):
                continue
            last = acting and n == len(sentences) - 1
            kind, again = _classify(sentence, t, role, acts=last)
            if kind == "absent":
                continue
            m = Mention(session, seq, role, _ts(ts), sentence.strip(), kind, again)
            m.day = m.ts.date() if m.ts else None
            if kind == "none":
                out.mentioned.append(m)
            elif kind == "elsewhere":
                named = _ELSEWHERE.search(sentence)
                m.day = _elsewhere_day(named.group(0), m.ts) if named else None
                if m.day is not None:
                    out.outside.append(m)  # placed on its day below
                else:
                    out.mentioned.append(m)  # "last week": no day to place it on
            elif kind == "request":
                if pending is None or events:
                    pending = m
            else:
                if pending is not None:
                    events.append(m)
                    pending = None
                elif not events or again:
                    events.append(m)
    if pending is not None and _done_after(turns, pending.seq):
        pending.kind = "report"
        events.append(pending)
        out.inferred += 1
    out.events += events


def _session_turns(ledger: Ledger, session: str) -> list[tuple]:
    """(seq, role, kind, text) of what was said and the tools called, in order."""
    return ledger.db.execute(
        "SELECT seq, role, kind, text FROM turns WHERE session = ? AND sidechain = 0 AND "
        "((by IN ('person', 'agent') AND kind = 'text') OR kind = 'tool_use') ORDER BY seq",
        (session,),
    ).fetchall()


def _tool_next(turns: list[tuple], seq: int) -> bool:
    """Whether the assistant's turn at `seq` is followed by a tool call (it is doing it)."""
    later = [k for s, _, k, _ in turns if s > seq][:1]
    return later == ["tool_use"]


def _prompt_before(turns: list[tuple], seq: int) -> str:
    for s, role, kind, text in reversed(turns):
        if s < seq and role == "user" and kind == "text":
            return text
    return ""


def _done_after(turns: list[tuple], seq: int) -> str | None:
    """The assistant's reply to a request, when it says the thing was done."""
    for s, role, kind, text in turns:
        if s <= seq or kind != "text":
            continue
        if role == "user":
            return None
        if text.rstrip().endswith("?") or _FAILED.search(text):
            return None
        if _DONE.search(text):
            return text
    return None


def _ts(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _within(out: Counted, t: Tally) -> None:
    """Events told of another day join the count on a day no session reports; then the
    period asked keeps its own."""
    days = {e.day for e in out.events}
    for m in sorted(out.outside, key=lambda m: (m.day or date.min, m.session, m.seq)):
        if m.day not in days:
            days.add(m.day)
            m.kind = "report"
            out.events.append(m)
    out.outside = []
    out.events.sort(key=lambda e: (e.day or date.min, e.ts.isoformat() if e.ts else "", e.seq))
    if t.start or t.end:
        inside = [e for e in out.events if _in(e.day, t)]
        out.outside = [e for e in out.events if not _in(e.day, t)]
        out.events = inside
    out.sessions = len({e.session for e in out.events})


def _in(day: date | None, t: Tally) -> bool:
    return day is not None and (not t.start or day >= t.start) and (not t.end or day <= t.end)


__all__ = ["Counted", "Mention", "Tally", "count", "tally"]
