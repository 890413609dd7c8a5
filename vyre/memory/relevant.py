"""What the prompt hook adds: the few facts of the prompt's own room that the prompt needs.

A room's `RoomIndex` is built once, when its rows load; a prompt then costs one pass over
its words and a few dictionary lookups. A prompt reaches facts four ways:

1. **Names.** An entity's full name; a form exactly one entity in the room has (a first
   name, an org's short form, a surname after an honorific or written capitalised mid-
   sentence, the name in one of a person's own addresses, a shortening of a first name the
   room has seen written, a nickname the room stated, a surname with a Japanese honorific
   after it, "mori-san"); an email address or domain, which brings its person or org (an
   address memory holds no owner for is read by its local part and its domain).
   A prompt with no word Capitalised mid-sentence (acronyms and sentence starts aside) is
   typed in lowercase, so a lowercase first name may be a name there.
2. **Topics.** The prompt's words against the words of the room's facts (what is due, what
   was decided or preferred, a repo's name, a person's title), weighed as BM25 weighs terms:
   a word many of the room's facts share counts for little. A fact is reached when the
   prompt says most of its words, or some of them with a cue of its kind ("when", "due",
   "ready" for a deadline; "agree", "decide" for a decision; "repo", "push" for a repo).
3. **Deixis.** "this repo", "our client", "the deadline", "when does this need to ship?"
   read the room's `repo_for`, `client_of` and deadlines; "our client contact" adds the
   client's people, the one the room called a contact first.
4. Nothing else: a prompt that needs nothing gets nothing. Words inside code (snake_case,
   dotted.names, CamelCase, paths, `backticks`) never match, and a prompt with code in it
   reaches facts only by a name or a topic it says whole.

Scores are how surely the prompt points at a fact × the relation's worth × freshness
(ADR 0007 §3); anything under 0.35 is dropped, pins are never dropped, mutes never shown. A
person's role (`works_at`, `has_title`) is as fresh as the last time the room named them: a
job said once a year ago is still who they are while they keep coming up.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from vyre.extract.lexicon import ORG_NOISE
from vyre.graph import EvidenceRow, FactRow
from vyre.memory.decay import fresh
from vyre.resolve import ENTITY_KINDS, fold

Hit = Callable[..., None]  # hit(entity id, strength, span=()): the prompt names it

# What a fact is worth in a prompt, by relation.
WEIGHT = {
    "works_at": 1.0,
    "has_title": 0.95,
    "deadline": 1.0,
    "repo_for": 0.8,
    "client_of": 0.6,
    "has_address": 0.5,
    "prefers": 0.6,
    "decided": 0.6,
}
FLOOR = 0.35
_ROLES = ("works_at", "has_title")  # functional: one value at a time, closed when it changes
EMPLOYER = 0.9  # a named person's employer is a client (outside that client's room)
SHORT_FORM = 1.0  # a form only one entity here has is as good as the full name
SURNAME = 0.95
BY_DOMAIN = 0.9  # an address at an org's domain whose name is nobody's here
BY_TITLE = 0.85  # "the CFO", "our bookkeeper": the one person here with that title
DEIXIS = 0.9  # "this repo", "our client"
ALL_DEADLINES = 0.8  # "what's due?": every open deadline of the room

# Relations a topic can reach, and the words that say a prompt is about that kind of fact.
_CUES = {
    "deadline": "when due deadline date launch live ship ready finish done time soon by before "
    "until schedule late deliver",
    "decided": "decide decision agree settle chose choose pick plan go why reason call",
    "prefers": "prefer like want style usual always never rather favourite favorite",
    "repo_for": "repo repository codebase clone push pull pr mr commit branch merge remote git",
    "has_title": "",
}
_DUE_BEFORE = frozenset({"what", "when", "is", "it", "the", "anything", "everything"})
_HUMAN = frozenset(
    "who want wants wanted ask asks asked say says said need needs needed like likes liked "
    "prefer prefers approve approved sign signed email emailed call called meet met expect "
    "expects think thinks agree agreed pay paid invoice invoiced tell told heard reply "
    "replied feedback happy unhappy budget meeting name contact".split()
)
_SOFTWARE = frozenset(
    "request requests response context timeout query socket grpc http https api "
    "fetch async thread worker retry retries test tests function method class module column "
    "table field schema endpoint server library sdk exception error errors stack payload "
    "webhook json parameter argument variable env config component".split()
)
_REPO_NOUNS = frozenset({"repo", "repository", "codebase"})
_CONTACT_NOUNS = frozenset({"contact", "contacts", "person", "people", "lead"})
# "when does this need to ship?": a question about when, of the room's own work
_WHEN_VERBS = frozenset({"ship", "due", "live", "launch", "ready", "done", "finished", "land"})
_CLIENT_NOUNS = frozenset({"client", "customer"})
_DEICTIC = frozenset({"this", "the", "our", "my", "that", "which", "what"})
# "the client library", "the client times out": software, not the user's client.
_SOFTWARE_AFTER = frozenset(
    "side library lib code id secret key config certificate cert request requests response sdk "
    "app instance object class timeout times retries retry connection socket session cache pool "
    "call calls error errors test tests module package version".split()
)
_HONORIFICS = frozenset({"dr", "mr", "mrs", "ms", "mx", "prof", "sir", "dame"})
# Japanese honorifics written after a name: "mori-san", "kenji-kun"
_SUFFIXES = ("-san", "-sama", "-sensei", "-kun", "-chan", "-senpai")
# a nickname stated in a person's own quotes: "(goes by Ada)", "everyone calls him Sol"
_NICK_IN_QUOTE = re.compile(
    r"(?:goes\s+by|aka|a\.k\.a\.|known\s+as|calls?\s+(?:him|her|them))\s+['\"“]?"
    r"([^\W\d_][\w'’-]+)"
)
_WRITING = frozenset({"email", "e-mail", "mail", "address", "send", "cc", "reply", "write"})
# English function words and the verbs of a request: never what a prompt is about.
_STOP = frozenset(
    """a an the and or but if then so of to in on at by for from with about into onto over
    under up down out off as is are was were be been being am do does did done have has had
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    this that these those there here what which who whom whose when where why how all any
    each every some no not nor only own same too very just also again still yet already
    can could will would shall should may might must let lets please thanks thank ok okay
    get got make made need needs want wants ask asked tell told say says said see look find
    use using new one two quick draft write send email check update help give put go going
    know think again more most less much many other such than now today tomorrow yesterday
    re fine hi hey""".split()
)
_ORG_NOISE = frozenset(fold(w) for w in ORG_NOISE)
_WORD = re.compile(r"`[^`]*`|[\w@.+&'’/-]*[\w&]")
_EMAIL = re.compile(r"^[\w.+-]+@([\w-]+\.)+[\w-]+$")
_DOMAIN = re.compile(r"^([a-z0-9-]+\.)+[a-z]{2,}$")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_SPLIT = re.compile(r"[^\w]+|_")


@dataclass
class Doc:
    """A fact a prompt can reach by its words."""

    row: FactRow
    terms: frozenset[str]
    head: str = ""  # its last word: "launch" of "site launch"
    sessions: frozenset[str] = frozenset()  # where it was said
    weight: float = 0.0  # the sum of its terms' idf


@dataclass
class RoomIndex:
    phrases: dict[tuple[str, ...], list[tuple[str, float, bool]]] = field(default_factory=dict)
    surnames: dict[str, str] = field(default_factory=dict)  # folded surname -> person
    first_names: dict[str, set[str]] = field(default_factory=dict)
    addresses: dict[str, str] = field(default_factory=dict)  # folded address -> entity
    domains: dict[str, str] = field(default_factory=dict)  # folded domain -> entity
    own_orgs: set[str] = field(default_factory=set)  # the project's org, taught by Projects
    sessions: dict[str, set[str]] = field(default_factory=dict)  # entity -> where it was said
    owner: dict[str, str] = field(default_factory=dict)  # address or domain -> person or org
    org_cores: dict[str, str] = field(default_factory=dict)  # "harlowlegal" -> org
    docs: list[Doc] = field(default_factory=list)
    postings: dict[str, list[int]] = field(default_factory=dict)
    idf: dict[str, float] = field(default_factory=dict)
    titled: dict[str, str] = field(default_factory=dict)  # has_title fact id -> person
    repos: list[FactRow] = field(default_factory=list)
    clients: list[FactRow] = field(default_factory=list)
    staff: dict[str, list[FactRow]] = field(default_factory=dict)  # org -> its works_at rows
    deadlines: list[FactRow] = field(default_factory=list)
    # when each person was last named here (their `is` fact): a role said once, long ago, is
    # still who they are while the room keeps naming them and nobody said it changed
    last_named: dict[str, datetime] = field(default_factory=dict)


# -- building an index, once per room ---------------------------------------------------------


def build(
    labels: dict[str, tuple[str, str]],
    rows: list[FactRow],
    evidence: dict[str, list[EvidenceRow]],
    own_orgs: set[str],
) -> RoomIndex:
    """`evidence`: each fact's sources, where the room's own words about it are."""
    index = RoomIndex(own_orgs=set(own_orgs))
    quotes: dict[str, list[str]] = defaultdict(list)
    sessions = index.sessions
    for row in rows:
        said = evidence.get(row.id, ())
        where = sessions.get(row.subject)
        if where is None:
            where = sessions[row.subject] = set()
        if len(said) == 1:  # most rows: an entity named in one session
            quotes[row.subject].append(said[0].quote)
            where.add(said[0].session)
        elif said:
            quotes[row.subject] += [e.quote for e in said]
            where.update(e.session for e in said)
    phrases: dict[tuple[str, ...], list[tuple[str, float, bool]]] = defaultdict(list)
    shorts: dict[tuple[str, ...], set[str]] = defaultdict(set)
    surnames: dict[str, set[str]] = defaultdict(set)
    firsts: dict[str, set[str]] = defaultdict(set)
    for eid, (label, kind) in labels.items():
        if kind not in ENTITY_KINDS:
            continue
        words = tuple(words_of(label))
        if not words:
            continue
        phrases[words].append((eid, 1.0, False))
        if kind == "person" and len(words) >= 2:
            shorts[words[:1]].add(eid)
            firsts[words[0]].add(eid)
            surnames[words[-1]].add(eid)
        elif kind == "org":
            core = tuple(w for w in words if w not in _ORG_NOISE)
            if core and core != words:
                shorts[core].add(eid)
            if len(words) > 1:
                shorts[words[:1]].add(eid)
            index.org_cores.setdefault("".join(re.findall(r"\w", " ".join(core or words))), eid)
        elif kind == "repo" and "/" in label:
            phrases[tuple(words_of(label.rsplit("/", 1)[1]))].append((eid, 1.0, False))
        elif kind == "address":
            index.addresses[fold(label)] = eid
        elif kind == "domain":
            index.domains[fold(label)] = eid
    for row in rows:
        if row.rel == "is" and row.seen and labels.get(row.subject, ("", ""))[1] == "person":
            index.last_named[row.subject] = row.seen
        if row.rel == "has_address":
            index.owner[row.object] = row.subject
            # the name in a person's own address is a name of theirs: ada.nwosu@ -> Ada
            local = fold(row.object_label).split("@")[0]
            for part in _SPLIT.split(local):
                if len(part) >= 3 and part.isalpha() and (part,) not in phrases:
                    shorts[(part,)].add(row.subject)
        elif row.rel == "domain_of":
            index.owner[row.subject] = row.object
    # a shortening of a first name that the room wrote capitalised near the person: Ada for
    # Adaeze, Alex for Alexandra (both ends; three letters at least)
    for first, people in firsts.items():
        if len(people) != 1 or len(first) < 5:
            continue
        (person,) = people
        # each quote once: a person named in many sessions is often named in the same words
        once = dict.fromkeys(quotes.get(person, ()))
        seen = {fold(w) for q in once for w in re.findall(r"\b[A-Z]\w+", q)}
        for form in seen:
            if 3 <= len(form) < len(first) and (first.startswith(form) or first.endswith(form)):
                shorts[(form,)].add(person)
    for person, lines in quotes.items():
        name, kind = labels.get(person, ("", ""))
        if kind != "person" or len(name.split()) < 2:
            continue
        for q in dict.fromkeys(lines):  # each quote once
            at = q.find(name)
            for m in _NICK_IN_QUOTE.finditer(q, max(at, 0)) if at >= 0 else ():
                shorts[(fold(m.group(1)),)].add(person)
    for words, ids in shorts.items():
        if len(ids) == 1 and words not in phrases:  # one claimant here: as good as the name
            phrases[words].append((next(iter(ids)), SHORT_FORM, True))
    index.phrases = dict(phrases)
    index.surnames = {
        s: next(iter(ids)) for s, ids in surnames.items() if len(ids) == 1 and (s,) not in shorts
    }
    index.first_names = dict(firsts)
    _index_topics(index, rows, evidence)
    return index


def _index_topics(
    index: RoomIndex, rows: list[FactRow], evidence: dict[str, list[EvidenceRow]]
) -> None:
    for row in rows:
        if row.rel == "deadline":
            index.deadlines.append(row)
            text = row.subject_label
        elif row.rel in ("decided", "prefers", "has_title"):
            text = row.object_label
        elif row.rel == "repo_for":
            index.repos.append(row)
            text = row.subject_label.rsplit("/", 1)[-1]
        elif row.rel == "client_of":
            index.clients.append(row)
            continue
        elif row.rel == "works_at":
            index.staff.setdefault(row.object, []).append(row)
            continue
        else:
            continue
        kept = [stem(w) for w in _SPLIT.split(fold(text)) if w and w not in _STOP]
        if not kept:
            continue
        if row.rel == "has_title":
            index.titled[row.id] = row.subject
        head = kept[-1] if row.rel == "deadline" else ""
        sessions = frozenset(e.session for e in evidence.get(row.id, ()))
        index.docs.append(Doc(row, frozenset(kept), head, sessions))
    # the project's own org first: "our client" in its room is that org
    index.clients.sort(key=lambda r: (r.subject not in index.own_orgs, r.id))
    # an org's people, the ones the room calls a contact first, then the latest said
    for staff in index.staff.values():
        staff.sort(
            key=lambda r: (
                not any("contact" in e.quote.lower() for e in evidence.get(r.id, ())),
                -(r.seen.timestamp() if r.seen else 0.0),
                r.id,
            )
        )
    df: dict[str, int] = defaultdict(int)
    postings: dict[str, list[int]] = defaultdict(list)
    for i, doc in enumerate(index.docs):
        for t in doc.terms:
            df[t] += 1
            postings[t].append(i)
    n = len(index.docs)
    index.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    for doc in index.docs:
        doc.weight = sum(index.idf[t] for t in doc.terms)
    index.postings = dict(postings)


# -- reading a prompt ------------------------------------------------------------------------


@dataclass
class Prompt:
    words: list[str]  # folded words outside code, in order
    capital: list[bool]  # written with a capital
    suffixed: set[int]  # written with an honorific after it ("mori-san")
    first: list[bool]  # first word of a sentence
    emails: list[str]
    dotted: list[str]  # example.co.uk or models.py: a domain only when the room knows it
    code: bool  # the prompt has code in it (dotted words aside)
    lowercase: bool  # no word Capitalised mid-sentence (acronyms and sentence starts aside)

    @property
    def terms(self) -> set[str]:
        return {stem(w) for w in self.words if w not in _STOP}


def read(text: str) -> Prompt:
    """A prompt's words, as cheaply as a prompt on every keystroke of the day needs."""
    words: list[str] = []
    capital: list[bool] = []
    first: list[bool] = []
    emails: list[str] = []
    dotted: list[str] = []
    suffixed: set[int] = set()
    code = False
    titled = False  # a word written Capitalised mid-sentence: this writer capitalises names
    end, previous = 0, ""
    for m in _WORD.finditer(text):
        token = m.group()
        gap = text[end : m.start()]
        starts = end == 0 or (any(c in gap for c in ".!?:\n") and previous not in _HONORIFICS)
        end = m.end()
        raw = token[:-2] if token.endswith(("'s", "’s")) else token
        raw = raw.rstrip(".")
        low = raw.casefold() if raw.isascii() else fold(raw)
        previous = low
        if "@" in low and _EMAIL.match(low):
            emails.append(low)
            continue
        if _is_code(token, raw):
            if _DOMAIN.match(low):
                dotted.append(low)
            else:
                code = True
            continue
        upper = raw[:1].isupper()
        titled |= upper and not starts and not raw.isupper()
        if low.endswith(_SUFFIXES) and "/" not in low:
            low = low.rsplit("-", 1)[0]
            suffixed.add(len(words))
        for i, part in enumerate(low.split("/") if "/" in low else (low,)):
            if part:
                words.append(part)
                capital.append(upper and i == 0)
                first.append(starts and i == 0)
    # "did eero send the FX rates?": acronyms and a capital that starts a sentence aside, the
    # writer types names in lowercase, so a lowercase first name may be one
    return Prompt(words, capital, suffixed, first, emails, dotted, code, not titled)


def _is_code(token: str, raw: str) -> bool:
    if token.startswith("`"):
        return True
    if "_" in raw.strip("_") or _CAMEL.search(raw) or raw.startswith("--"):
        return True
    return "." in raw or raw.count("/") > 1 or "()" in token


def words_of(label: str) -> list[str]:
    """A label's words as a prompt's words are read (for names and phrases)."""
    text = re.sub(r"['’]s\b", "", fold(label))
    return [t.rstrip(".") for t in re.findall(r"[\w@./+-]*\w|&", text) if t.rstrip(".")]


def stem(word: str) -> str:
    """A light English stemmer, enough to meet "launching" with "launch" and "dashboards"
    with "dashboard": cheap, and the same on both sides."""
    w = word
    if len(w) > 4:
        for suffix, repl in (
            ("ies", "y"),
            ("ied", "y"),
            ("ing", ""),
            ("ed", ""),
            ("ly", ""),
            ("es", ""),
            ("s", ""),
        ):
            if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                if suffix == "s" and w.endswith(("ss", "us", "is")):
                    break
                w = w[: -len(suffix)] + repl
                break
        if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
            w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


# -- ranking ----------------------------------------------------------------------------------


def rank(
    index: RoomIndex,
    labels: dict[str, tuple[str, str]],
    by_subject: dict[str, list[FactRow]],
    prompt_text: str,
    now: datetime,
    *,
    closed: Callable[[FactRow], bool],
    pins: set,
    muted: set,
) -> list[tuple[float, FactRow]]:
    """(score, row) for every fact the prompt reaches, best first."""
    prompt = read(prompt_text)
    named, used = _named(index, prompt)
    scored: dict[str, tuple[float, FactRow]] = {}
    writing = bool(_WRITING & set(prompt.words)) or bool(prompt.emails)
    said_addresses = set(prompt.emails)

    def offer(row: FactRow, strength: float) -> None:
        key = (row.subject, row.rel, row.object)
        if key in muted or row.subject in muted or row.object in muted:
            return  # muted: never reaches a prompt
        if row.rel == "has_address" and (not writing or fold(row.object_label) in said_addresses):
            return  # an address matters when the prompt writes to someone who has not it
        weight = WEIGHT.get(row.rel)
        if weight is None or closed(row):
            return
        # how surely the prompt points at it × freshness, × the relation's worth to rank;
        # confidence only breaks ties (a fact said once, plainly, months ago still counts)
        seen = row.seen
        if row.rel in _ROLES and seen:  # a role is as fresh as its person's last naming
            seen = max(seen, index.last_named.get(row.subject, seen))
        sure = strength * fresh(row.rel, seen, now, row.source)
        score = sure * weight
        if key in pins:
            score = max(score, 1.0)  # pinned: never dropped, and first among equals
        elif sure < FLOOR:
            return  # the floor is on how sure and how fresh; the relation's worth only ranks
        score += row.confidence / 1000
        if row.id not in scored or scored[row.id][0] < score:
            scored[row.id] = (score, row)

    topics = _topics(index, prompt, used, named)
    for row, strength in topics:
        if row.rel == "has_title":
            person = index.titled[row.id]
            sure = BY_TITLE * strength
            if any(r.rel == "works_at" and r.object in named for r in by_subject.get(person, [])):
                sure = SHORT_FORM  # "the head of sales at Acme": the title and its employer
            named[person] = max(named.get(person, 0.0), sure)
        else:
            offer(row, strength)

    employers = {
        row.object: eid
        for eid in named
        if labels.get(eid, ("", ""))[1] == "person"
        for row in by_subject.get(eid, [])
        if row.rel == "works_at" and not closed(row)
    }
    for eid, strength in named.items():
        if eid in employers or eid in muted:
            continue  # "Lena at Summit": Summit only says who Lena is
        for row in by_subject.get(eid, []):
            offer(row, strength)
    for org, person in employers.items():
        if org in index.own_orgs:
            continue  # in a client's own room, that the client is a client goes unsaid
        for row in by_subject.get(org, []):
            if row.rel == "client_of":
                offer(row, named[person] * EMPLOYER)

    if not prompt.code:
        for row, strength in _deixis(index, prompt, topics):
            offer(row, strength)
    return sorted(scored.values(), key=lambda sr: (-sr[0], sr[1].id))


def _named(index: RoomIndex, prompt: Prompt) -> tuple[dict[str, float], set[int]]:
    """Entities the prompt names, with how surely, and the word positions their names use."""
    found: dict[str, float] = {}
    used: set[int] = set()
    words = prompt.words

    def hit(eid: str, strength: float, span: Iterable[int] = ()) -> None:
        found[eid] = max(found.get(eid, 0.0), strength)
        used.update(span)

    for n in range(min(5, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            if n == 1 and words[i] in _STOP and prompt.lowercase:
                continue  # "will" in a prompt with no capitals is not Will
            for eid, strength, needs_capital in index.phrases.get(tuple(words[i : i + n]), ()):
                if needs_capital and not (
                    prompt.lowercase or prompt.capital[i] or i in prompt.suffixed
                ):
                    continue
                hit(eid, strength, range(i, i + n))
    for i, w in enumerate(words):
        person = index.surnames.get(w)
        if person is None or i in used:
            continue
        honorific = i > 0 and words[i - 1] in _HONORIFICS
        if i in prompt.suffixed:
            hit(person, SURNAME, (i,))
        elif honorific or (prompt.capital[i] and not prompt.first[i]):
            hit(person, SURNAME, (i - 1, i) if honorific else (i,))
    for address in prompt.emails:
        _address(index, address, hit)
    for domain in prompt.dotted:
        held = index.domains.get(domain)
        if held:  # a domain the room holds, for its org (or itself)
            hit(index.owner.get(held, held), 1.0)
        else:
            prompt.code = True  # models.py, asyncio.timeout: code, not a domain of this room
    return found, used


def _org_of(index: RoomIndex, domain: str) -> str:
    """The org a domain memory holds no owner for names: marlowhaulage.co.uk and
    "Marlow Haulage" share their letters."""
    return index.org_cores.get(re.sub(r"\W", "", domain.split(".")[0]), "")


def _address(index: RoomIndex, address: str, hit: Hit) -> None:
    """An address brings its person; one memory holds no owner for is read by its parts."""
    eid = index.addresses.get(address)
    if eid and eid in index.owner:
        hit(index.owner[eid], 1.0)
        return
    local, _, domain = address.partition("@")
    parts = [p for p in _SPLIT.split(local) if len(p) >= 2]
    people = set()
    for p in parts:
        if p in index.surnames:
            people.add(index.surnames[p])
        elif len(index.first_names.get(p, ())) == 1:
            people |= index.first_names[p]
        for e, _, _ in index.phrases.get((p,), ()):
            people.add(e)
    if len(people) == 1:
        hit(next(iter(people)), SHORT_FORM)  # its name is one person's here
        return
    org = index.owner.get(index.domains.get(domain, ""), "") or _org_of(index, domain)
    if org:
        hit(org, BY_DOMAIN)


def _topics(
    index: RoomIndex, prompt: Prompt, used: set[int], named: dict[str, float]
) -> list[tuple[FactRow, float]]:
    """Facts whose words the prompt says, with how surely: the share of the fact's own words
    (each weighed by its idf over the room's facts) the prompt has, raised by a cue. One word
    of a fact also counts when someone the prompt names was there when it was said ("send
    Dr. Achterberg the impact numbers": the impact report she was told is due)."""
    if not index.docs:
        return []
    terms = {
        stem(part)
        for i, w in enumerate(prompt.words)
        if i not in used
        for part in _SPLIT.split(w)
        if part and part not in _STOP
    }
    all_terms = {stem(w) for w in prompt.words}  # cues may be function words: "when", "by"
    software = bool(_SOFTWARE & set(prompt.words))
    matched: dict[int, set[str]] = defaultdict(set)
    for t in terms:
        for i in index.postings.get(t, ()):
            matched[i].add(t)
    heads = _heads(prompt, used)
    beside = set().union(*(index.sessions.get(e, ()) for e in named)) if named else set()
    out = []
    top = max(index.idf.values())
    asked = sum(index.idf.get(t, top) for t in terms)  # words the room never says weigh most
    for i, got in matched.items():
        doc = index.docs[i]
        said = sum(index.idf[t] for t in got)
        coverage = said / doc.weight if doc.weight else 0.0
        explains = said / asked if asked else 0.0  # how much of the prompt this fact is
        rel = doc.row.rel
        cue = bool((_cue_terms(rel) & all_terms) - got)  # "launch" is not its own cue
        if software and not coverage >= 0.99:
            cue = False  # "rename the Launch class": beside software nouns, no half topics
        if rel == "has_title":
            ok = coverage >= 0.99  # a title, said whole, points at its one person
        elif prompt.code:
            ok = coverage >= 0.99 and len(doc.terms) >= 2  # in code talk, only a topic said whole
        elif rel == "repo_for":
            ok = cue and coverage >= 0.5  # a repo by its words needs the prompt to be about repos
        else:
            # one word of a longer topic needs a cue: "the report ... ready in time"
            ok = (
                (len(got) >= 2 and (coverage >= 0.3 or explains >= 0.6))
                or len(doc.terms) == 1
                or (cue and coverage >= 0.2)
                or doc.head in heads
            )
            if not ok and not software and doc.sessions & beside:
                ok, coverage = True, max(coverage, 0.3)
        if ok:
            strength = min(1.0, coverage + (0.3 if cue else 0.0) + 0.1 * (len(got) - 1))
            out.append((doc.row, max(strength, 0.6)))
    return out


def _heads(prompt: Prompt, used: set[int]) -> set[str]:
    """Nouns the prompt names as a thing: "about the launch", "before our launch"."""
    words = prompt.words
    return {
        stem(words[i])
        for i in range(1, len(words))
        if i not in used
        and words[i - 1] in ("the", "our", "this", "that")
        and (i == 1 or words[i - 2] in _PREPOSITIONS or i - 2 in used)  # "send Ana the launch"
    }


_PREPOSITIONS = frozenset(
    "about for before after on with of to until till regarding re around ahead".split()
)


def _cue_terms(rel: str) -> frozenset[str]:
    return _CUE_STEMS.get(rel, frozenset())


_CUE_STEMS = {rel: frozenset(stem(w) for w in words.split()) for rel, words in _CUES.items()}


def _deixis(
    index: RoomIndex, prompt: Prompt, topics: list[tuple[FactRow, float]]
) -> list[tuple[FactRow, float]]:
    """ "this repo", "our client", "what's due": the room's own repo, client and deadlines.

    "the client" and "the deadline" are software words too ("the client should retry", "set
    a deadline on the call"): "the client" needs a person's doing in the prompt (wants,
    asked, who...), and neither counts beside software nouns; "our client" always does."""
    out: list[tuple[FactRow, float]] = []
    words = prompt.words
    present = set(words)
    human = bool(_HUMAN & present)
    software = bool(_SOFTWARE & present)
    deadlines = False
    for i, w in enumerate(words):
        before = words[i - 1] if i else ""
        after = words[i + 1] if i + 1 < len(words) else ""
        if w in _REPO_NOUNS and before in _DEICTIC:
            out += [(r, DEIXIS) for r in index.repos[:2]]
        elif w in _CLIENT_NOUNS and index.clients and after not in _SOFTWARE_AFTER:
            if before in ("our", "my") or (before in _DEICTIC and human and not software):
                client = index.clients[0]
                out.append((client, DEIXIS))
                if after in _CONTACT_NOUNS or "who" in present:  # "our client contact"
                    out += [(r, DEIXIS) for r in index.staff.get(client.subject, [])[:2]]
        elif w in ("deadline", "deadlines") and not software:
            deadlines |= before in _DEICTIC | {"any", "next"} or after in ("for", "is")
        elif w == "due" and not software:
            deadlines |= before in _DUE_BEFORE or after in ("on", "by", "soon")
    if (
        not software
        and "when" in present
        and present & {"this", "it"}
        and present & _WHEN_VERBS
        and not _REPO_NOUNS & present
    ):
        deadlines = True  # "when does this need to ship?", "when is it due?"
    if deadlines and not any(r.rel == "deadline" for r, _ in topics):
        out += [(r, ALL_DEADLINES) for r in index.deadlines]
    return out


__all__ = ["RoomIndex", "build", "rank", "read", "stem", "words_of"]
