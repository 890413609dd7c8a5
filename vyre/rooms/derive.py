"""One room's beliefs, computed from that room's sessions only.

What must stay true (ADR 0007 §1-§3):
- A room's rows are a function of its own sessions, its project and the settings. Nothing
  measured in another room (a short form, a hub role, a close) reaches it.
- Anchor rule: a session that is in several rooms is evidence in this room only for entities
  this room also has from a session of its own (or its project's org). Facts about things
  that are not entities (deadlines, preferences) from such a session are not filed here.
- The vote for one-at-a-time relations (works_at, has_title): when a newer value appears after
  every mention of the old one, the winner moved and the old row is closed at the move;
  otherwise the value with the most sessions wins (ties: the most recent). Silence never closes.
- Derive never reads the clock: the same inputs give the same rows.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from rapidfuzz import fuzz

from vyre.graph import EvidenceRow, FactRow, RoomRows
from vyre.resolve import (
    ENTITY_KINDS,
    Identities,
    domain_cores,
    fold,
    local_part_forms,
    org_core,
    org_forms,
    org_key,
    org_leads,
)
from vyre.rooms.corrections import apply as apply_corrections
from vyre.rooms.corrections import identity_changes, wrong_keys

EVIDENCE_KEEP_FIRST = 2
EVIDENCE_KEEP_LAST = 6
DEADLINE_GRACE = timedelta(days=2)  # a deadline closes two days after its date

# How much one session's mention by a rule is worth; sessions combine as independent votes.
RULE_CONFIDENCE = {
    "person.name": 0.9,
    "person.context": 0.8,
    "person.short": 0.6,
    "person.first": 0.75,
    "org.suffix": 0.9,
    "org.legal": 0.95,
    "org.context": 0.7,
    "org.appositive": 0.8,
    "org.project": 1.0,
    "address.email": 0.95,
    "domain.email": 0.9,
    "domain.bare": 0.8,
    "repo.url": 0.9,
    "repo.slug": 0.75,
    "repo.bare": 0.5,
    "repo.name": 0.7,
    "repo.git_remote": 0.95,
    "works_at.appositive": 0.9,
    "works_at.verb": 0.85,
    "works_at.joined": 0.85,
    "works_at.from": 0.75,
    "works_at.at": 0.7,
    "works_at.over": 0.8,
    "works_at.parenthetical": 0.75,
    "works_at.possessive": 0.85,
    "works_at.signature": 0.9,
    "works_at.address": 0.7,
    "works_at.pronoun": 0.75,
    "works_at.their": 0.7,
    "has_title.appositive": 0.85,
    "has_title.parenthetical": 0.85,
    "has_title.is": 0.85,
    "has_title.preceding": 0.75,
    "has_title.possessive": 0.85,
    "has_title.signature": 0.9,
    "has_title.pronoun": 0.75,
    "has_title.named": 0.8,
    "has_address.adjacent": 0.9,
    "has_address.local_part": 0.75,
    "client_of.words": 0.85,
    "client_of.list": 0.8,
    "repo_for.git_remote": 0.9,
    "repo_for.name": 0.7,
    "domain_of.name": 0.8,
    "deadline.due": 0.9,
    "deadline.deadline": 0.9,
    "deadline.launch": 0.9,
    "deadline.ship": 0.85,
    "deadline.by": 0.85,
    "prefers.words": 0.8,
    "decided.words": 0.8,
}
FUNCTIONAL = ("works_at", "has_title")

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Correction


class Ev(NamedTuple):
    ts: datetime | None  # None: the turn had no readable time
    session: str
    seq: int
    rule: str
    quote: str


_ev = tuple.__new__  # `Ev(...)` without the Python frame NamedTuple adds: a room makes thousands


_turn_order = attrgetter("session", "seq", "rule")  # a fact's evidence rows, in the room's file


def _merged(a: list[Ev], b: list[Ev]) -> list[Ev]:
    """Two lists of distinct turns, each in `_ev_order`, as one (the sort merges the runs)."""
    try:
        return sorted(a + b)
    except TypeError:
        return sorted(a + b, key=_ev_order)


def _ev_order(e: Ev) -> tuple:
    """Oldest first; a turn with no time sorts before every dated one (never a TypeError)."""
    return (e.ts or datetime.min, e.session, e.seq, e.rule, e.quote)


def _oldest_first(evidence: list[Ev]) -> list[Ev]:
    """Each turn once, in `_ev_order`. When every turn has a time (or none has), that order
    is the tuples' own, compared in C; a sort of dated and undated turns together must
    compare one of each at some point, which raises, and then the key sorts them."""
    if len(evidence) < 2:
        return evidence
    unique = set(evidence)
    try:
        return sorted(unique)
    except TypeError:
        return sorted(unique, key=_ev_order)


@dataclass
class Claim:
    subject: str
    subject_kind: str
    rel: str
    object: str
    object_kind: str
    evidence: list[Ev] = field(default_factory=list)

    _span: tuple[datetime | None, datetime | None] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    # its evidence is what it was at the room's last derive (`RoomMemo`): its row may be too
    clean: bool = field(default=False, init=False, repr=False, compare=False)
    # what its evidence is, when it is every turn of its sessions that says it ("own", or
    # the rule that copies another claim's turns): a changed session's turns then replace
    # that session's in its ordered turns of the last derive ("": they are ordered anew)
    whole: str = field(default="", repr=False, compare=False)

    @property
    def sessions(self) -> set[str]:
        return {e.session for e in self.evidence}

    @property
    def first(self) -> datetime | None:
        return (self._span or self._spanned())[0]

    @property
    def last(self) -> datetime | None:
        return (self._span or self._spanned())[1]

    def _spanned(self) -> tuple[datetime | None, datetime | None]:
        """First and last time said, worked out once: read only when the evidence is whole
        (after `_claims`)."""
        times = [e.ts for e in self.evidence if e.ts]
        self._span = (min(times), max(times)) if times else (None, None)
        return self._span


@dataclass
class RoomInput:
    room: str
    digest: str
    mentions: list[
        tuple
    ]  # ledger rows: session, seq, rule, subject, kind, rel, object, kind, quote, ts
    single: set[str]  # sessions that are in this room only
    org: str | None = None  # the project's org, taught by Projects
    settings: dict = field(default_factory=dict)
    corrections: list[Correction] = field(default_factory=list)  # those in this room's scope
    # filled in by derive_room: every entity id the mentions resolve to (after the room's merges
    # and splits) and the project's org, before any correction; `reach` reads it
    named: set[str] = field(default_factory=set)


def fact_id(room: str, subject: str, rel: str, obj: str) -> str:
    digest = hashlib.blake2b(f"{room}\x1f{subject}\x1f{rel}\x1f{obj}".encode(), digest_size=5)
    return "f" + digest.hexdigest()


def derive_room(inp: RoomInput, memo: RoomMemo | None = None) -> RoomRows:
    """The room's rows. With the `memo` of this room's last derive (the daemon keeps one),
    only the sessions whose mentions changed, and the rows their change reaches, are worked
    out again; the rows are those of a derive from nothing (tested)."""
    if memo is None:
        return _derive(inp, RoomMemo())
    try:
        return _derive(inp, memo)
    except BaseException:
        memo.forget()  # half updated: the next derive is from nothing
        raise


def _derive(inp: RoomInput, memo: RoomMemo) -> RoomRows:
    taught = [inp.org] if inp.org else []
    merges, splits = identity_changes(inp.corrections)
    sessions = _by_session(inp.mentions)
    sayings, runs = memo.begin(inp, merges, splits, sessions)
    ident = Identities(
        [], taught, merges=merges, splits=splits, room=inp.room, sayings=sayings, runs=runs
    )
    wrong = wrong_keys(inp.corrections, ident.canon)
    memo.settle((sorted(wrong[0], key=repr), sorted(wrong[1])))
    claims = _claims(inp, ident, wrong, sayings, sessions, memo)
    rows = RoomRows(room=inp.room, digest=inp.digest)
    out = _Writer(inp.room, ident, rows, memo)
    org_id = ident.resolve(inp.org, "org") if inp.org else None
    if org_id:
        inp.named.add(org_id)
    if org_id in wrong[1]:
        org_id = None
    by_rel: dict[str, list[Claim]] = defaultdict(list)
    for claim in claims.values():
        by_rel[claim.rel].append(claim)
    for claim in by_rel.pop("is", []):
        out.fact(claim)
    if org_id and inp.org:  # the project teaches its org and that the org is the owner's client
        out.taught(org_id, "org", "is", "kind:org", "kind", inp.org, "org", "org.project")
        out.taught(
            org_id, "org", "client_of", "owner", "owner", inp.org, "owner", "client_of.project"
        )
    works_at = _vote(by_rel.pop("works_at", []), out)
    _vote(by_rel.pop("has_title", []), out)
    _deadlines(by_rel.pop("deadline", []), out)
    remotes = by_rel.pop("git_remote", [])
    for rel in sorted(by_rel):
        for claim in by_rel[rel]:
            out.fact(claim)
    _repo_for(claims, remotes, org_id, out)
    domain_orgs = _domain_of(claims, out)
    _local_parts(claims, works_at, domain_orgs, out)
    _mentioned_in(claims, memo, out)
    out.close()
    rows.facts = apply_corrections(
        rows.facts, inp.corrections, ident.canon, inp.room, fact_id, out.said_after
    )
    rows.evidence = out.evidence(rows.facts)  # sorted by fact and `_turn_order`
    return rows


def _by_session(mentions: list[tuple]) -> dict[str, list[tuple]]:
    """A room's mentions by session, in the order the sessions come (the ledger gives them
    session by session: a session met again further on is only appended to its list)."""
    out: dict[str, list[tuple]] = {}
    rows: list[tuple] = []
    current = None
    for m in mentions:
        if m[0] != current:
            current = m[0]
            rows = out.setdefault(current, [])
        rows.append(m)
    return out


# -- claims: mentions resolved and anchored, session by session ------------------------------


Meant = tuple[str, str, str] | None  # (subject id, object id, object kind) of a saying, or None


# a fact's row as made: (what it was made from, the row, its evidence rows, its turns in order)
_Made = tuple[tuple, FactRow, list[EvidenceRow], list[Ev] | None]
_NONE: frozenset[str] = frozenset()  # one empty set for every session's share that has none
_NO_CHOICES: tuple = ()


@dataclass(eq=False, slots=True)
class _Part:
    """One session's share of its room's claims, and what about the room it read: kept by
    `RoomMemo` while the session's mentions, its place (in this room only or not) and what
    it read stay as they were."""

    mentions: list[tuple]
    alone: bool
    runs: list[tuple[str, int]]  # capitalised runs said in passing, for `Identities`
    anchors: set[str]  # ids it anchors (a session here only)
    strong: AbstractSet[str]  # repos it names by more than owner/name
    repos: AbstractSet[str]  # repos it names at all
    choices: Sequence[tuple]  # (index, resolved) of its preferences and decisions
    # what its share read of the room
    tested: AbstractSet[str] = frozenset()  # ids whose anchoring decided it
    passed: AbstractSet[str] = frozenset()  # those anchored then
    strong_seen: AbstractSet[str] = frozenset()  # its repos strong in the room then
    folded: tuple = ()  # its choices as the room's fold named them then
    # its share
    claims: dict[tuple, tuple[str, str, list[Ev]]] = field(default_factory=dict)
    spellings: dict[tuple[str, str, str], int] = field(default_factory=dict)
    firsts: dict[str, Ev] = field(default_factory=dict)  # entity -> first turn naming it


class RoomMemo:
    """What one room's last derive worked out, for the next derive of the same room (the
    daemon's, `vyre.rooms.pipeline.HeldMentions`): each session's share of the claims and
    every row, so a new line costs its session's share, a combine of the shares, and the
    rows its change reaches.

    Kept only while what it was worked out from holds: the room, its org, settings and
    corrections (any change starts from nothing); a session's share while its mentions,
    its place and what it read of the room are as they were (a name that resolves anew,
    an anchor or a strong repo gained or lost, a preference folded anew); a row while its
    claim's evidence, labels, kinds and vote are. Rows are handed out again, not copied:
    a row whose kinds the pipeline unified since (`one_kind_per_entity`) is copied with the
    kinds its claim says before it is handed out."""

    def __init__(self) -> None:
        self.forget()

    def forget(self) -> None:
        """Keep nothing: the next derive is from nothing."""
        self._context: tuple | None = None
        self._context_in: tuple = ()
        self.parts: dict[str, _Part] = {}
        self.said: Counter = Counter()  # what the room says, as `Identities` counts it
        self.meant: dict[tuple, Meant] = {}
        self.keys: set[tuple] = set()  # the claims' and spellings' keys, shared by the shares
        self.facts: dict[str, _Made] = {}
        # entity -> (kind, label, session -> (first turn, its row, its evidence row))
        self.entities: dict[str, tuple[str, str, dict[str, tuple]]] = {}
        self.dirty_claims: set[tuple] = set()  # claims a changed session said, before or now
        self.dirty_entities: set[str] = set()
        self.changed: set[str] = set()  # sessions whose share is worked out again
        self.fresh: dict[str, list[tuple]] = {}  # those sessions, with their mentions

    def mentions_held(self) -> int:
        return sum(len(p.mentions) for p in self.parts.values())

    def begin(
        self, inp: RoomInput, merges: dict, splits: set, sessions: dict[str, list[tuple]]
    ) -> tuple[Counter, Counter | None]:
        """Start a derive: forget every share whose session left or whose mentions or place
        changed. What the room says, counted; and its runs in the order it first says them
        when the count is not in that order (else None: `Identities` reads them from it)."""
        self._context_in = (
            inp.room,
            inp.org,
            sorted((k, bool(v)) for k, v in inp.settings.items() if k.startswith("relations.")),
            sorted(merges.items()),
            sorted(splits),
        )
        self.dirty_claims, self.dirty_entities, self.changed, self.fresh = set(), set(), set(), {}
        if not self.parts:  # from nothing: counted in one pass, in the order said
            self.said = Counter(m[2:8] for m in inp.mentions)
            self.fresh = dict(sessions)
            self.changed = set(sessions)
            return self.said, None
        said = self.said
        for sid in [s for s in self.parts if s not in sessions]:
            _count(said, self.parts[sid].mentions, -1)
            self.drop(sid)
        single = inp.single
        runs: Counter = Counter()
        for sid, rows in sessions.items():
            held = self.parts.get(sid)
            if held is not None and (held.alone != (sid in single) or held.mentions != rows):
                _count(said, held.mentions, -1)
                self.drop(sid)
                held = None
            if held is None:
                _count(said, rows, 1)
                self.fresh[sid] = rows
                for subj, n in _runs(rows):
                    runs[subj] += n
            else:
                for subj, n in held.runs:
                    runs[subj] += n
        return said, runs

    def settle(self, wrong: tuple) -> None:
        """The room's context is whole (the wrong keys need its identities): a new one keeps
        nothing."""
        context = (*self._context_in, wrong)
        if context != self._context:
            self._context = context
            for sid in list(self.parts):
                self.again(sid)
            self.meant, self.facts, self.entities, self.keys = {}, {}, {}, set()

    def again(self, sid: str) -> None:
        """The session's share is to be worked out again."""
        self.fresh[sid] = self.parts[sid].mentions
        self.drop(sid)

    def drop(self, sid: str) -> None:
        part = self.parts.pop(sid, None)
        self.changed.add(sid)
        if part is not None:
            self.dirty_claims.update(part.claims)
            self.dirty_entities.update(part.firsts)

    def keep(self, sid: str, part: _Part) -> None:
        self.parts[sid] = part
        self.dirty_claims.update(part.claims)
        self.dirty_entities.update(part.firsts)


def _count(said: Counter, rows: list[tuple], sign: int) -> None:
    """Add (or take away) what these mentions say to the room's count."""
    for key, n in Counter(m[2:8] for m in rows).items():
        left = said[key] + sign * n
        if left:
            said[key] = left
        else:
            del said[key]


def _runs(rows: list[tuple]) -> list[tuple[str, int]]:
    """The capitalised runs a session says in passing, in the order it first says them."""
    runs: dict[str, int] = {}
    for m in rows:
        if m[5] == "alias" and m[4] == "run":
            runs[m[3]] = runs.get(m[3], 0) + 1
    return list(runs.items())


def _claims(
    inp: RoomInput,
    ident: Identities,
    wrong: tuple[set, set],
    sayings: Counter,
    sessions: dict[str, list[tuple]],
    memo: RoomMemo,
) -> dict[tuple, Claim]:
    wrong_facts, wrong_entities = wrong
    skipped = {"alias"}  # a nickname only tells resolution who a short name is
    skipped.update(r for r in ("prefers", "decided") if not inp.settings.get(f"relations.{r}"))
    single = inp.single
    named = inp.named
    # what a mention resolves to is a function of what it says (subject, kind, rel, object,
    # kind), and a room says the same few things thousands of times: each resolved once,
    # and a session whose sayings resolve anew is worked out again
    meant: dict[tuple, Meant] = {}
    for what in dict.fromkeys(k[1:] for k in sayings):
        meant[what] = _resolve_mention(ident, what, skipped, named, wrong_facts, wrong_entities)
    before = memo.meant
    changed = {w for w, hit in meant.items() if w in before and before[w] != hit}
    memo.meant = meant
    if changed:
        for sid in [
            s for s, p in memo.parts.items() if not changed.isdisjoint(m[3:8] for m in p.mentions)
        ]:
            memo.again(sid)
    resolved: dict[str, list[tuple]] = {}
    for sid, rows in memo.fresh.items():
        part, resolved[sid] = _resolve_session(rows, sid in single, meant)
        memo.parts[sid] = part
    anchored: set[str | None] = {ident.resolve(inp.org, "org")} if inp.org else set()
    strong_repos: set[str] = set()
    for sid in sessions:
        part = memo.parts[sid]
        anchored |= part.anchors
        if part.strong:
            strong_repos |= part.strong
    # a bare `owner/name` is a repo only when the room also names it as one (URL, "repo")
    folds = _fold_choices(
        [
            (sid, i, r)
            for sid in sessions
            for i, r in memo.parts[sid].choices
            if r[0][4] != "repo" or r[1] in strong_repos
        ]
    )
    times: dict[str, datetime] = {}  # a turn's mentions share its time
    keys: dict[tuple, tuple] = {k: k for k in memo.keys}
    claims: dict[tuple, Claim] = {}
    spellings: dict[tuple[str, str, str], int] = {}  # (id, label, kind) -> times said
    for sid in sessions:
        part = memo.parts[sid]
        folded = folds.get(sid, ())
        if sid not in resolved and (
            (part.repos and part.strong_seen != part.repos & strong_repos)
            or part.folded != folded
            or (part.tested and part.passed != part.tested & anchored)
        ):
            memo.drop(sid)
            part, resolved[sid] = _resolve_session(part.mentions, part.alone, meant)
        if sid in resolved:
            _share(part, resolved.pop(sid), anchored, strong_repos, dict(folded), times, keys)
            memo.keep(sid, part)
        for key, (skind, okind, evidence) in part.claims.items():
            claim = claims.get(key)
            if claim is None:
                claim = claims[key] = Claim(key[0], skind, key[1], key[2], okind)
            claim.evidence += evidence
        for said, n in part.spellings.items():
            spellings[said] = spellings.get(said, 0) + n
    memo.keys = set(claims) | set(spellings)
    dirty = memo.dirty_claims
    for key, claim in claims.items():
        claim.clean = key not in dirty
        claim.whole = "own"
    for (eid, label, kind), n in spellings.items():
        ident.note_label(eid, label, kind, n)
    return claims


def _resolve_session(
    rows: list[tuple], alone: bool, meant: dict[tuple, Meant]
) -> tuple[_Part, list[tuple]]:
    """A session's part before its share: what it anchors, its repos and choices; and its
    mentions resolved, (mention, subject id, object id, object kind) each."""
    anchors: set[str] = set()
    strong: set[str] = set()
    repos: set[str] = set()
    choices: list[tuple] = []  # most sessions name no repo and state no choice: kept empty
    resolved: list[tuple] = []
    for m in rows:
        hit = meant[m[3:8]]
        if hit is None:
            continue
        sid, oid, okind = hit
        if alone:
            anchors.add(sid)
            anchors.add(oid)
        if m[4] == "repo":
            repos.add(sid)
            if m[2] != "repo.bare":
                strong.add(sid)
        if m[5] in ("prefers", "decided"):
            choices.append((len(resolved), (m, sid, oid, okind)))
        resolved.append((m, sid, oid, okind))
    part = _Part(
        rows, alone, _runs(rows), anchors, strong or _NONE, repos or _NONE, choices or _NO_CHOICES
    )
    return part, resolved


def _share(
    part: _Part,
    resolved: list[tuple],
    anchored: set[str | None],
    strong_repos: set[str],
    folded: dict[int, tuple],
    times: dict[str, datetime],
    keys: dict[tuple, tuple],
) -> None:
    """The session's share of the claims: its mentions kept (repos named strongly in the
    room; in a shared session, only what the room anchors), as evidence by claim."""
    alone = part.alone
    claims, spellings, firsts = part.claims, part.spellings, part.firsts
    tested: set[str] = set()
    for i, r in enumerate(resolved):
        m, sid, oid, okind = folded.get(i, r)
        session, seq, rule, subj, skind, rel, obj, _, quote, ts = m
        if skind == "repo" and sid not in strong_repos:
            continue
        if not alone:
            if skind not in ENTITY_KINDS or rel == "git_remote":
                continue
            tested.add(sid)
            if okind in ENTITY_KINDS:
                tested.add(oid)
            if (sid not in anchored) or (okind in ENTITY_KINDS and oid not in anchored):
                continue
        # keys are the room's, one tuple for every session that says it (a memo holds them)
        said = (sid, subj, skind)
        said = keys.setdefault(said, said)
        spellings[said] = spellings.get(said, 0) + 1
        if rel != "is" and rel != "git_remote":
            said = (oid, obj, okind)
            said = keys.setdefault(said, said)
            spellings[said] = spellings.get(said, 0) + 1
        key = (sid, rel, oid)
        share = claims.get(key)
        if share is None:
            key = keys.setdefault(key, key)
            share = claims[key] = (skind, okind, [])
        when = times.get(ts) if ts else None
        if ts and when is None:
            when = times[ts] = datetime.fromisoformat(ts)
        ev = _ev(Ev, (when, session, seq, rule, quote))
        share[2].append(ev)
        if rel == "is" and skind in ENTITY_KINDS:
            first = firsts.get(sid)
            if first is None or _ev_order(ev) < _ev_order(first):
                firsts[sid] = ev
    if tested:
        part.tested, part.passed = tested, tested & anchored
    if part.repos:
        part.strong_seen = part.repos & strong_repos
    part.folded = tuple(sorted(folded.items(), key=lambda kv: kv[0]))


def _resolve_mention(
    ident: Identities,
    what: tuple,
    skipped: set[str],
    named: set[str],
    wrong_facts: set[tuple],
    wrong_entities: set[str],
) -> tuple[str, str, str] | None:
    """(subject id, object id, object kind) of what a mention says, or None when it leaves
    the votes; every id it resolves to is `named` in the room, even one the user said is
    wrong."""
    subj, skind, rel, obj, okind = what
    if rel in skipped:
        return None
    sid = ident.resolve(subj, skind)
    oid: str | None
    if rel == "is":
        oid, okind = f"kind:{skind}", "kind"
    elif rel == "git_remote":
        oid = "workspace"
    else:
        oid = ident.resolve(obj, okind)
    if sid is None or oid is None:
        return None
    named.add(sid)
    named.add(oid)
    if sid in wrong_entities or oid in wrong_entities or (sid, rel, oid) in wrong_facts:
        return None  # the user said it is wrong: it leaves every vote
    return sid, oid, okind


CHOICE_SAME = 90  # rapidfuzz token_set_ratio at which two stated choices are one


def _fold_choices(choices: list[tuple]) -> dict[str, tuple]:
    """Near-duplicates of one preference or decision ("I prefer uv over poetry" and "I prefer
    uv over poetry for anything new") are one fact, named by the first way it was said.
    `choices`: (session, index, resolved) in the room's order; returns, per session, the
    (index, resolved) pairs the fold names anew."""
    out: dict[str, list[tuple]] = defaultdict(list)
    if len(choices) < 2:
        return {}
    firsts: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # rel -> said, id, label
    for session, i, (m, sid, oid, okind) in sorted(
        choices, key=lambda c: (c[2][0][9] or "", c[2][0][:2])
    ):
        said = fold(m[6])
        same = next(
            (f for f in firsts[m[5]] if fuzz.token_set_ratio(f[0], said) >= CHOICE_SAME), None
        )
        if same is None:
            firsts[m[5]].append((said, oid, m[6]))
        else:
            out[session].append((i, ((*m[:6], same[2], *m[7:]), sid, same[1], okind)))
    return {session: tuple(sorted(pairs, key=lambda p: p[0])) for session, pairs in out.items()}


# -- votes ---------------------------------------------------------------------------------------


def _vote(claims: list[Claim], out: _Writer) -> dict[str, str]:
    """One value at a time per subject. Returns subject -> the open winner's object."""
    per_subject: dict[str, list[Claim]] = defaultdict(list)
    for c in claims:
        per_subject[c.subject].append(c)
    winners = {}
    for subject, cands in sorted(per_subject.items()):
        newest = max(cands, key=lambda c: (c.last or datetime.min, c.object))
        moved = all(
            c is newest or (c.last and newest.first and c.last < newest.first) for c in cands
        )
        if moved:
            winner = newest
        else:
            winner = max(cands, key=lambda c: (len(c.sessions), c.last or datetime.min, c.object))
        winners[subject] = winner.object
        out.fact(winner)
        for c in cands:
            if c is winner:
                continue
            if c.last and winner.first and c.last < winner.first:
                out.fact(c, valid_to=winner.first, status="closed")
    return winners


def _deadlines(claims: list[Claim], out: _Writer) -> None:
    """Each date said for a subject is a row; a later, different date closes the earlier one."""
    per_subject: dict[str, list[Claim]] = defaultdict(list)
    for c in claims:
        per_subject[c.subject].append(c)
    for _, cands in sorted(per_subject.items()):
        cands.sort(key=lambda c: (c.first or datetime.min, c.object))
        starts = [c.first or datetime.min for c in cands]
        for i, c in enumerate(cands):
            due = date.fromisoformat(c.object.removeprefix("date:"))
            closes = datetime.combine(due, datetime.min.time()) + DEADLINE_GRACE
            if c.last:  # the first later date said after this one's last mention closes it
                later = bisect_right(starts, c.last, lo=i + 1)
                if later < len(cands):
                    closes = min(closes, starts[later])
            out.fact(c, valid_to=closes, status="")


def _repo_for(claims: dict, remotes: list[Claim], org_id: str | None, out: _Writer) -> None:
    if org_id:
        for c in remotes:
            out.fact(
                Claim(
                    c.subject,
                    "repo",
                    "repo_for",
                    org_id,
                    "org",
                    [_as(e, "repo_for.git_remote") for e in c.evidence],
                    whole="repo_for.git_remote",
                )
            )
    repos = [c for c in claims.values() if c.rel == "is" and c.subject_kind == "repo"]
    orgs: dict[str, set[str]] = {
        c.subject: c.sessions for c in claims.values() if c.rel == "is" and c.subject_kind == "org"
    }
    if org_id:
        orgs.setdefault(org_id, set())
    for repo in repos:
        name = "".join(ch for ch in repo.subject.removeprefix("repo:") if ch.isalnum())
        own = "".join(
            ch for ch in repo.subject.removeprefix("repo:").rsplit("/", 1)[-1] if ch.isalnum()
        )
        for org, sessions in sorted(orgs.items()):
            label = out.ident.label(org, org.removeprefix("org:"))
            core = org_core(label)
            named = len(core) >= 4 and core in name
            # the project's own repo is often named by the org's first words and what it is:
            # "ternwick-gateway" for Ternwick Instruments, "blueheron-tiles" for Blue Heron Maps
            if not named and org == org_id:
                named = any(own.startswith(lead) for lead in org_leads(label) if len(lead) >= 5)
            if not named:
                continue
            together = repo.sessions & sessions
            # In a project's own room, a repo named after the project's org is the org's.
            if org == org_id or len(together) >= 2:
                together = together or repo.sessions
                evidence = [_as(e, "repo_for.name") for e in repo.evidence if e.session in together]
                out.fact(Claim(repo.subject, "repo", "repo_for", org, "org", evidence))


def _domain_of(claims: dict, out: _Writer) -> dict[str, str]:
    """A domain is an org's when its name spells the org's name (harlow.law is Harlow Law,
    keelash.com is Keel & Ash Architects), or, failing that, the first word of exactly one
    org in the room (fennel.bike is Fennel Cycles)."""
    orgs = [c for c in claims.values() if c.rel == "is" and c.subject_kind == "org"]
    found = {}
    labels = {o.subject: out.ident.label(o.subject, o.subject.removeprefix("org:")) for o in orgs}
    forms = {o.subject: org_forms(labels[o.subject]) for o in orgs}
    firsts = {o.subject: _first_word(labels[o.subject]) for o in orgs}
    for dom in sorted(
        (c for c in claims.values() if c.rel == "is" and c.subject_kind == "domain"),
        key=lambda c: c.subject,
    ):
        cores = domain_cores(dom.subject.removeprefix("domain:"))
        hits = [o for o in orgs if forms[o.subject] & cores]
        if not hits:
            hits = [o for o in orgs if firsts[o.subject] in cores]
        if len(hits) == 1:
            found[dom.subject] = hits[0].subject
            out.fact(
                Claim(
                    dom.subject,
                    "domain",
                    "domain_of",
                    hits[0].subject,
                    "org",
                    [_as(e, "domain_of.name") for e in dom.evidence],
                    whole="domain_of.name",
                )
            )
    return found


def _first_word(label: str) -> str:
    words = org_key(label).split()
    return words[0] if words and len(words[0]) >= 4 else ""


def _local_parts(claims: dict, works_at: dict, domain_orgs: dict, out: _Writer) -> None:
    """An address's local part names a person when exactly one person here has that form and
    works at the org of the address's domain (0.75); failing that, when exactly one person
    here with no known employer has that form: then that person also works at the domain's
    org (works_at.address, 0.7)."""
    linked = {c.object for c in claims.values() if c.rel == "has_address"}
    persons = [c for c in claims.values() if c.rel == "is" and c.subject_kind == "person"]
    addresses = sorted(
        (c for c in claims.values() if c.rel == "is" and c.subject_kind == "address"),
        key=lambda c: c.subject,
    )
    forms: dict[str, set[str]] = {}  # computed once per person, only if an address needs it
    holders: dict[str, list[Claim]] = defaultdict(list)
    for c in claims.values():
        if c.rel == "has_address":
            holders[c.object].append(c)
    for addr in addresses:
        local, _, domain = addr.subject.removeprefix("address:").partition("@")
        org = domain_orgs.get(f"domain:{domain}")
        if not org:
            continue
        if addr.subject in linked:
            for c in holders[addr.subject][:1]:
                if c.subject not in works_at and c.subject_kind == "person":
                    _works_at_address(c.subject, org, addr, works_at, out)
            continue
        if not forms:
            forms = {
                p.subject: local_part_forms(out.ident.label(p.subject, p.subject)) for p in persons
            }
        hits = [p for p in persons if works_at.get(p.subject) == org and local in forms[p.subject]]
        if not hits:
            hits = [p for p in persons if p.subject not in works_at and local in forms[p.subject]]
            if len(hits) == 1:
                _works_at_address(hits[0].subject, org, addr, works_at, out)
        if len(hits) == 1:
            out.fact(
                Claim(
                    hits[0].subject,
                    "person",
                    "has_address",
                    addr.subject,
                    "address",
                    [_as(e, "has_address.local_part") for e in addr.evidence],
                    whole="has_address.local_part",
                )
            )


def _works_at_address(person: str, org: str, addr: Claim, works_at: dict, out: _Writer) -> None:
    works_at[person] = org
    out.fact(
        Claim(
            person,
            "person",
            "works_at",
            org,
            "org",
            [_as(e, "works_at.address") for e in addr.evidence],
            whole="works_at.address",
        )
    )


def _mentioned_in(claims: dict, memo: RoomMemo, out: _Writer) -> None:
    """One row per entity and session that names it, from the first turn there that did.
    An entity no changed session names keeps its rows as the memo has them."""
    kinds: dict[str, str] = {}
    for c in claims.values():
        if c.rel == "is" and c.subject_kind in ENTITY_KINDS:
            kinds[c.subject] = c.subject_kind
    dirty, held = memo.dirty_entities, memo.entities
    firsts: dict[str, dict[str, Ev]] = {}  # entity -> session -> first turn, where needed
    for eid, kind in kinds.items():
        kept = held.get(eid)
        if eid in dirty or kept is None or kept[:2] != (kind, out.label(eid, kind)):
            firsts[eid] = {}
    if firsts:
        for sid, part in memo.parts.items():
            for eid, ev in part.firsts.items():
                if eid in firsts:
                    firsts[eid][sid] = ev
    for eid in sorted(kinds):
        out.mentioned(eid, kinds[eid], firsts.get(eid))


def _as(e: Ev, rule: str) -> Ev:
    return Ev(e.ts, e.session, e.seq, rule, e.quote)


# -- rows -----------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, room: str, ident: Identities, rows: RoomRows, memo: RoomMemo):
        self.room, self.ident, self.rows, self.memo = room, ident, rows, memo
        self._done: set[str] = set()
        self._evidence: dict[str, list[Ev]] = {}  # fact id -> what said it
        self._facts: dict[str, _Made] = {}  # the new memo
        self._entities: dict[str, tuple[str, str, dict[str, tuple]]] = {}
        self._clash = False  # a fact not of mentioned_in written with that relation
        self._firsts: dict[str, list[Ev]] | None = None  # mentioned_in fact id -> its turn
        # fact id -> its evidence rows (a mentioned_in fact's one row), in `_turn_order`
        self._kept: dict[str, list[EvidenceRow] | EvidenceRow] = {}

    def close(self) -> None:
        """Every row is written: the memo keeps this derive's rows for the next."""
        self.memo.facts, self.memo.entities = self._facts, self._entities

    def evidence(self, facts: list[FactRow]) -> list[EvidenceRow]:
        """Every fact's evidence rows, sorted by fact id and then `_turn_order`: each fact's
        rows are sorted already, so with `facts` sorted by id they are laid end to end."""
        kept = self._kept
        out: list[EvidenceRow] = []
        for f in facts:
            rows = kept.get(f.id)
            if rows is None:
                continue
            if type(rows) is list:
                out += rows
            else:
                out.append(rows)  # type: ignore[arg-type]
        return out

    def said_after(self, fid: str, at: datetime) -> datetime | None:
        """The first time a fact was said after `at` (a correction's end), if ever."""
        said = self._evidence.get(fid)
        if said is None:
            if self._firsts is None:
                self._firsts = {
                    row.id: [ev]
                    for _, _, held in self._entities.values()
                    for ev, row, _ in held.values()
                }
            said = self._firsts.get(fid, [])
        later = [e.ts for e in said if e.ts and e.ts > at]
        return min(later) if later else None

    def mentioned(self, eid: str, kind: str, firsts: dict[str, Ev] | None) -> None:
        """`eid mentioned_in session` for each session and the first turn there that named
        it: what `fact` writes for each, without the votes and sorts a fact of many turns
        needs (a room has one per entity and session, most of its rows). `firsts` None: no
        changed session names it and its label and kind are as they were, so its rows are
        the memo's."""
        room = self.room
        label = self.label(eid, kind)
        held = self.memo.entities.get(eid)
        if firsts is None and held is not None:
            made = held[2]
        else:
            before = held[2] if held is not None and held[:2] == (kind, label) else {}
            made = {}
            firsts = firsts or {}
            for session in sorted(firsts):
                ev = firsts[session]
                old = before.get(session)
                if old is not None and old[0] == ev:
                    made[session] = old
                    continue
                fid = fact_id(room, eid, "mentioned_in", f"session:{session}")
                made[session] = (
                    ev,
                    FactRow(
                        id=fid,
                        room=room,
                        subject=eid,
                        subject_kind=kind,
                        subject_label=label,
                        rel="mentioned_in",
                        object=f"session:{session}",
                        object_kind="session",
                        object_label=session,
                        confidence=_one_session(ev.rule),
                        source="extracted",
                        valid_from=ev.ts,
                        valid_to=None,
                        seen=ev.ts,
                        sessions=1,
                        rules=ev.rule,
                        status="",
                    ),
                    EvidenceRow(fid, room, eid, session, ev.seq, ev.ts, ev.rule, ev.quote),
                )
        self._entities[eid] = (kind, label, made)
        facts, kept, done = self.rows.facts, self._kept, self._done
        for session, (ev, row, said) in made.items():
            if row.subject_kind != kind or row.object_kind != "session":
                row = FactRow(**{**vars(row), "subject_kind": kind, "object_kind": "session"})
                made[session] = (ev, row, said)
            if self._clash and row.id in done:
                continue
            facts.append(row)
            kept[row.id] = said

    def fact(
        self,
        c: Claim,
        *,
        valid_to: datetime | None = None,
        status: str = "",
        object_label: str | None = None,
    ) -> None:
        fid = fact_id(self.room, c.subject, c.rel, c.object)
        if fid in self._done:
            return
        self._done.add(fid)
        self._clash = self._clash or c.rel == "mentioned_in"
        self._evidence[fid] = c.evidence
        said = (
            c.whole,
            c.subject_kind,
            c.object_kind,
            self.label(c.subject, c.subject_kind),
            object_label or self.label(c.object, c.object_kind),
            valid_to,
            status,
        )
        held = self.memo.facts.get(fid)
        if held is not None and c.clean and held[0] == said:
            _, row, kept, ordered = held
            if row.subject_kind != c.subject_kind or row.object_kind != c.object_kind:
                row = FactRow(
                    **{**vars(row), "subject_kind": c.subject_kind, "object_kind": c.object_kind}
                )
        else:
            ordered = None
            if held is not None and held[3] is not None and c.whole:
                ordered = held[3] if c.clean else self._reordered(c, held[3])
            if ordered is None:
                ordered = _oldest_first(c.evidence)
            row, kept = self._row(fid, c, said, ordered)
        self._facts[fid] = (said, row, kept, ordered if c.whole else None)
        self.rows.facts.append(row)
        self._kept[fid] = kept

    def _reordered(self, c: Claim, before: list[Ev]) -> list[Ev] | None:
        """A claim's turns in order, from its order at the last derive: the changed
        sessions' turns taken out and their turns now merged in (None: order them anew)."""
        changed = self.memo.changed
        if len(changed) * 4 > len(before):
            return None
        new = [e for e in c.evidence if e[1] in changed]
        kept = [e for e in before if e[1] not in changed]
        if len(kept) + len(new) != len(c.evidence):
            return None  # a session's turn said twice: the set in `_oldest_first` takes it once
        return _oldest_first(kept + new) if not kept else _merged(kept, _oldest_first(new))

    def _row(
        self, fid: str, c: Claim, said: tuple, evidence: list[Ev]
    ) -> tuple[FactRow, list[EvidenceRow]]:
        _, _, _, subject_label, object_label, valid_to, status = said
        # each session's best rule, sessions in the order they first said it (the product
        # below is taken in that order); a session says a fact by few rules, often many times
        pairs = dict.fromkeys((e.session, e.rule) for e in evidence)
        best: dict[str, float] = {}
        confidence = RULE_CONFIDENCE.get
        for session, rule in pairs:
            value, held = confidence(rule, 0.6), best.get(session)
            if held is None or value > held:
                best[session] = value
        doubt = 1.0
        for value in best.values():
            doubt *= 1.0 - value
        row = FactRow(
            id=fid,
            room=self.room,
            subject=c.subject,
            subject_kind=c.subject_kind,
            subject_label=subject_label,
            rel=c.rel,
            object=c.object,
            object_kind=c.object_kind,
            object_label=object_label,
            confidence=round(min(0.99, 1.0 - doubt), 4),
            source="extracted",
            valid_from=c.first,
            valid_to=valid_to,
            seen=c.last,
            sessions=len(best),
            rules=",".join(sorted({rule for _, rule in pairs})),
            status=status,
        )
        kept = [
            EvidenceRow(fid, self.room, c.subject, e.session, e.seq, e.ts, e.rule, e.quote)
            for e in _keep(evidence)
        ]
        kept.sort(key=_turn_order)  # a fact's rows in the order `evidence` is sorted
        return row, kept

    def taught(
        self,
        sid: str,
        skind: str,
        rel: str,
        oid: str,
        okind: str,
        slabel: str,
        olabel: str,
        rule: str,
    ) -> None:
        fid = fact_id(self.room, sid, rel, oid)
        if fid in self._done:
            return
        self._done.add(fid)
        self._clash = self._clash or rel == "mentioned_in"
        self.rows.facts.append(
            FactRow(
                id=fid,
                room=self.room,
                subject=sid,
                subject_kind=skind,
                subject_label=slabel,
                rel=rel,
                object=oid,
                object_kind=okind,
                object_label=olabel,
                confidence=1.0,
                source="taught",
                rules=rule,
            )
        )

    def label(self, eid: str, kind: str) -> str:
        if kind == "kind":
            return eid.removeprefix("kind:")
        if kind == "owner":
            return "owner"
        fallback = eid.split(":", 1)[-1]
        return self.ident.label(eid, fallback)


@cache
def _one_session(rule: str) -> float:
    """A fact's confidence when one session said it, by one rule (as `_Writer.fact` adds it)."""
    doubt = 1.0
    doubt *= 1.0 - RULE_CONFIDENCE.get(rule, 0.6)
    return round(min(0.99, 1.0 - doubt), 4)


def _keep(evidence: list[Ev]) -> list[Ev]:
    """The earliest two and the latest six: enough to trace, small enough to store."""
    if len(evidence) <= EVIDENCE_KEEP_FIRST + EVIDENCE_KEEP_LAST:
        return evidence
    return evidence[:EVIDENCE_KEEP_FIRST] + evidence[-EVIDENCE_KEEP_LAST:]
