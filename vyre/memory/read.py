"""The read API: facts, about, why, relevant and the overview, with decay applied at read time.

A `Reader` keeps each room's rows in memory, keyed by the digest the room was derived from,
so repeated reads (the prompt hook, the daemon) cost a dictionary lookup and a scan of one
room. A room only ever reads its own rows: `relevant` for a folder outside every project reads
`unfiled`, never the main graph.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from vyre.extract.lexicon import ORG_NOISE
from vyre.graph import EvidenceRow, FactRow, GraphStore
from vyre.memory.decay import fresh, stale
from vyre.models import Fact, Source
from vyre.resolve import fold

ENTITY_KINDS = ("person", "org", "address", "domain", "repo")

# What a named entity brings into a prompt, and how much each relation is worth there.
RELEVANT_WEIGHT = {
    "works_at": 1.0,
    "has_title": 0.95,
    "deadline": 1.0,
    "repo_for": 0.8,
    "client_of": 0.6,
    "has_address": 0.5,
    "prefers": 0.6,
    "decided": 0.6,
}
EMPLOYER_WEIGHT = 0.9  # a named person's employer is a client (outside that client's room)
RELEVANT_FLOOR = 0.35
_DEADLINE_WORDS = frozenset({"deadline", "due"})
_WRITING_WORDS = frozenset({"email", "e-mail", "mail", "address", "send", "cc", "reply", "write"})
_THING_STOP = frozenset({"the", "a", "an", "new", "our", "my", "first", "next", "final"})
_ORG_NOISE = frozenset(fold(w) for w in ORG_NOISE)
_TOKENS = re.compile(r"[\w@./+-]*\w|&")


@dataclass
class RoomView:
    name: str
    digest: str
    rows: list[FactRow]
    evidence: dict[str, list[EvidenceRow]]
    phrases: dict[tuple[str, ...], list[tuple[str, float, bool]]] = field(default_factory=dict)
    by_subject: dict[str, list[FactRow]] = field(default_factory=dict)
    by_object: dict[str, list[FactRow]] = field(default_factory=dict)
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (label, kind)
    things: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)  # what is due
    own_orgs: set[str] = field(default_factory=set)  # the project's org, taught by Projects


class Reader:
    """`check_digests=False` is for an owner that knows when rows change (the daemon): it
    then calls `invalidate()` after each derive, and cached rooms cost no query at all."""

    def __init__(self, store: GraphStore, controls=None, *, check_digests: bool = True):
        self.store = store
        self._cache: dict[str, RoomView] = {}
        # () -> (key, active pin and mute rows): read-time choices that change no rows
        self._controls = controls or (lambda: ("", []))
        self._check = check_digests

    # -- rooms --------------------------------------------------------------------------

    def invalidate(self) -> None:
        self._cache = {}

    def room(self, name: str) -> RoomView:
        if not self._check and name in self._cache:
            return self._cache[name]
        digest = self.store.digests().get(name, "")
        view = self._cache.get(name)
        if view is None or view.digest != digest:
            view = self._load(name, digest)
            self._cache[name] = view
        return view

    def rooms(self) -> list[str]:
        return sorted(self.store.digests())

    def _load(self, name: str, digest: str) -> RoomView:
        rows = self.store.facts(name)
        evidence: dict[str, list[EvidenceRow]] = defaultdict(list)
        for e in self.store.evidence(name):
            evidence[e.fact].append(e)
        for items in evidence.values():
            items.sort(key=lambda e: (e.ts or datetime.min, e.session, e.seq))
        view = RoomView(name, digest, sorted(rows, key=lambda f: f.id), dict(evidence))
        subj, obj = defaultdict(list), defaultdict(list)
        for f in view.rows:
            subj[f.subject].append(f)
            obj[f.object].append(f)
            view.labels.setdefault(f.subject, (f.subject_label, f.subject_kind))
        view.by_subject, view.by_object = dict(subj), dict(obj)
        view.own_orgs = {
            r.subject for r in view.rows if r.rel == "client_of" and r.source == "taught"
        }
        view.phrases = _phrases(view)
        return view

    # -- facts ----------------------------------------------------------------------------

    def fact(self, row: FactRow, view: RoomView, now: datetime) -> Fact:
        sources = tuple(
            Source(session=e.session, seq=e.seq, quote=e.quote, ts=e.ts, rule=e.rule)
            for e in view.evidence.get(row.id, ())
        )
        return Fact(
            id=row.id,
            room=row.room,
            subject=row.subject_label,
            subject_kind=row.subject_kind,
            rel=row.rel,
            object=row.object_label,
            object_kind=row.object_kind,
            confidence=row.confidence,
            fresh=fresh(row.rel, row.seen, now, row.source),
            stale=stale(row.rel, row.seen, now, row.source),
            seen=row.seen,
            valid_from=row.valid_from,
            valid_to=row.valid_to,
            status="closed" if _closed(row, now) else row.status,
            source=row.source,
            sessions=row.sessions,
            rules=tuple(r for r in row.rules.split(",") if r),
            sources=sources,
        )

    def facts(
        self, room: str, now: datetime, *, closed: bool = False, mentions: bool = False
    ) -> list[Fact]:
        view = self.room(room)
        out = []
        for row in view.rows:
            if row.rel == "mentioned_in" and not mentions:
                continue
            if not closed and _closed(row, now):
                continue
            out.append(self.fact(row, view, now))
        return sorted(out, key=lambda f: (f.subject.casefold(), f.rel, f.object.casefold(), f.id))

    def find(self, name: str, room: str) -> list[str]:
        """Entity ids in a room that a name (full, short form, address, repo) points at."""
        view = self.room(room)
        words = tuple(_tokens(name))
        hits = [eid for eid, _, _ in view.phrases.get(words, ()) if eid in view.labels]
        if not hits:
            target = fold(name)
            hits = [eid for eid, (label, _) in view.labels.items() if fold(label) == target]
        return sorted(set(hits))

    def about(self, name: str, room: str, now: datetime) -> list[tuple[str, str, list[Fact]]]:
        """(label, kind, facts) for each entity the name points at in the room."""
        view = self.room(room)
        out = []
        for eid in self.find(name, room):
            label, kind = view.labels[eid]
            rows = [
                r
                for r in view.by_subject.get(eid, []) + view.by_object.get(eid, [])
                if r.rel != "mentioned_in"
            ]
            facts = [self.fact(r, view, now) for r in rows]
            facts.sort(key=lambda f: (f.rel != "is", f.status == "closed", f.rel, f.object))
            out.append((label, kind, facts))
        return out

    def why(
        self, name: str, rel: str | None, obj: str | None, rooms: list[str], now: datetime
    ) -> list[Fact]:
        out = []
        for room in rooms:
            view = self.room(room)
            for eid in self.find(name, room):
                for row in view.by_subject.get(eid, []) + view.by_object.get(eid, []):
                    if row.rel == "mentioned_in" or (rel and row.rel != rel):
                        continue
                    if obj and fold(obj) not in (fold(row.object_label), fold(row.subject_label)):
                        continue
                    out.append(self.fact(row, view, now))
        return out

    # -- relevant: what the prompt hook adds --------------------------------------------

    def relevant(self, prompt: str, room: str, now: datetime, limit: int = 5) -> list[Fact]:
        view = self.room(room)
        if not view.rows:
            return []
        named = _named(prompt, view)
        employers = {
            row.object: eid
            for eid in named
            if view.labels.get(eid, ("", ""))[1] == "person"
            for row in view.by_subject.get(eid, [])
            if row.rel == "works_at" and not _closed(row, now)
        }
        pins, muted = _choices(self._controls()[1])
        scored: dict[str, tuple[float, FactRow]] = {}

        writing = bool(_WRITING_WORDS & set(_tokens(prompt)))

        def offer(row: FactRow, strength: float) -> None:
            key = (row.subject, row.rel, row.object)
            if row.rel == "has_address" and not writing:
                return  # an address matters when the prompt writes to someone
            if key in muted or row.subject in muted or row.object in muted:
                return  # muted: never reaches a prompt
            _offer(scored, row, strength, now, pinned=key in pins)

        for eid, strength in named.items():
            if eid in employers or eid in muted:
                continue  # "Lena at Summit": Summit only says who Lena is
            for row in view.by_subject.get(eid, []):
                offer(row, strength)
        for org, person in employers.items():
            if org in view.own_orgs:
                continue  # in a client's own room, that the client is a client goes unsaid
            for row in view.by_subject.get(org, []):
                if row.rel == "client_of":
                    offer(row, named[person] * EMPLOYER_WEIGHT)
        ranked = sorted(scored.values(), key=lambda sr: (-sr[0], sr[1].id))
        return [self.fact(row, view, now) for _, row in ranked[:limit]]

    # -- overview -------------------------------------------------------------------------

    def overview(self, room: str, now: datetime) -> dict:
        facts = self.facts(room, now, mentions=True)
        kinds: dict[str, int] = defaultdict(int)
        mentions: dict[str, int] = defaultdict(int)
        for f in facts:
            if f.rel == "is":
                kinds[f.object] += 1
                mentions[f.subject] = max(mentions[f.subject], f.sessions)
        entities = [f for f in facts if f.rel == "is" and f.status != "hub"]
        titles = {f.subject: f.object for f in facts if f.rel == "has_title"}
        top = sorted(entities, key=lambda f: (-mentions[f.subject], -f.fresh, f.subject))
        people = [f for f in top if f.object == "person"][:8]
        orgs = [f for f in top if f.object == "org"][:6]
        deadlines = sorted(
            (f for f in facts if f.rel == "deadline"), key=lambda f: (f.object, f.subject)
        )
        return {
            "room": room,
            "counts": dict(sorted(kinds.items())),
            "facts": sum(1 for f in facts if f.rel not in ("is", "mentioned_in")),
            "people": people,
            "orgs": orgs,
            "deadlines": deadlines,
            "conflicts": [f for f in facts if f.status == "conflict"],
            "stale": sum(1 for f in facts if f.stale and f.rel != "mentioned_in"),
            "mentions": dict(mentions),
            "titles": titles,
        }


def _closed(row: FactRow, now: datetime) -> bool:
    return row.status == "closed" or (row.valid_to is not None and row.valid_to <= now)


def _choices(rows) -> tuple[set, set]:
    """(pinned fact keys, muted fact keys and entity ids) from the user's pin and mute rows."""
    pins, muted = set(), set()
    for c in rows:
        key = (c.subject, c.rel, c.object) if c.rel else c.subject
        (pins if c.kind == "pin" else muted).add(key)
    return pins, muted


def _offer(scored: dict, row: FactRow, strength: float, now: datetime, *, pinned=False) -> None:
    weight = RELEVANT_WEIGHT.get(row.rel)
    if weight is None or _closed(row, now):
        return
    # The ADR's score: how surely the prompt names it, times the relation's worth, times
    # freshness; confidence breaks ties. Confidence is not multiplied in again: a fact said
    # once, plainly, eight months ago should still reach a prompt that names its subject.
    score = strength * weight * fresh(row.rel, row.seen, now, row.source)
    if pinned:
        score = max(score, 1.0)  # pinned: never dropped, and first among equals
    if score < RELEVANT_FLOOR:
        return
    score += row.confidence / 1000
    if row.id not in scored or scored[row.id][0] < score:
        scored[row.id] = (score, row)


def _tokens(text: str) -> list[str]:
    text = re.sub(r"['’]s\b", "", fold(text))
    return [t.rstrip(".") for t in _TOKENS.findall(text) if t.rstrip(".")]


def _phrases(view: RoomView) -> dict[tuple[str, ...], list[tuple[str, float, bool]]]:
    """Word sequences that name an entity here: (entity id, strength, needs a capital)."""
    noise = _ORG_NOISE
    phrases: dict[tuple[str, ...], list[tuple[str, float, bool]]] = defaultdict(list)
    view_things: list[tuple[str, tuple[str, ...]]] = []
    shorts: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for eid, (label, kind) in view.labels.items():
        if kind not in ENTITY_KINDS and kind != "thing":
            continue
        words = tuple(_tokens(label))
        if not words:
            continue
        phrases[words].append((eid, 1.0, False))
        if kind == "person" and len(words) >= 2:
            shorts[words[:1]].add(eid)
        elif kind == "org":
            core = tuple(w for w in words if w not in noise)
            if core and core != words:
                shorts[core].add(eid)
            if len(words) > 1:
                shorts[words[:1]].add(eid)
        elif kind == "repo" and "/" in label:
            phrases[tuple(_tokens(label.rsplit("/", 1)[1]))].append((eid, 1.0, False))
        elif kind == "thing":
            view_things.append((eid, words))
    for words, ids in shorts.items():
        if len(ids) == 1 and words not in phrases:  # one claimant here: as good as the name
            phrases[words].append((next(iter(ids)), 1.0, True))
    view.things = view_things
    return dict(phrases)


def _named(prompt: str, view: RoomView) -> dict[str, float]:
    """Entities the prompt names, with how surely (full names 1.0, short forms 0.9)."""
    raw = [t for t in re.findall(r"[\w@./+&'’-]+", prompt)]
    capitals = {fold(re.sub(r"['’]s$", "", t)).rstrip(".") for t in raw if t[:1].isupper()}
    lowercase_prompt = prompt == prompt.lower()
    words = _tokens(prompt)
    found: dict[str, float] = {}
    for n in range(min(5, len(words)), 0, -1):
        for i in range(len(words) - n + 1):
            for eid, strength, needs_capital in view.phrases.get(tuple(words[i : i + n]), ()):
                if needs_capital and not (lowercase_prompt or words[i] in capitals):
                    continue
                found[eid] = max(found.get(eid, 0.0), strength)
    stems = {_stem(w) for w in words}
    for eid, label_words in view.things:
        content = {_stem(w) for w in label_words if w not in _THING_STOP}
        shared = content & stems
        launch = "launch" in content and "launch" in stems
        if content and (
            shared == content or launch or (len(content) >= 3 and len(shared) >= len(content) - 1)
        ):
            found[eid] = max(found.get(eid, 0.0), 1.0 if shared == content else 0.9)
        elif _DEADLINE_WORDS & stems:
            found.setdefault(eid, 0.8)
    return found


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


__all__ = ["Reader", "RoomView"]
