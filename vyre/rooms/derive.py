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
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cache
from operator import attrgetter
from typing import NamedTuple

from rapidfuzz import fuzz

from vyre.graph import EvidenceRow, FactRow, RoomRows
from vyre.models import Correction
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


class Ev(NamedTuple):
    ts: datetime | None  # None: the turn had no readable time
    session: str
    seq: int
    rule: str
    quote: str


_ev = tuple.__new__  # `Ev(...)` without the Python frame NamedTuple adds: a room makes thousands


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


def derive_room(inp: RoomInput) -> RoomRows:
    taught = [inp.org] if inp.org else []
    merges, splits = identity_changes(inp.corrections)
    ident = Identities(inp.mentions, taught, merges=merges, splits=splits, room=inp.room)
    wrong = wrong_keys(inp.corrections, ident.canon)
    claims = _claims(inp, ident, wrong)
    rows = RoomRows(room=inp.room, digest=inp.digest)
    out = _Writer(inp.room, ident, rows)
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
    _mentioned_in(claims, out)
    rows.facts = apply_corrections(
        rows.facts, inp.corrections, ident.canon, inp.room, fact_id, out.said_after
    )
    rows.evidence.sort(key=attrgetter("fact", "session", "seq", "rule"))
    return rows


# -- claims: mentions resolved and anchored ------------------------------------------------------


def _claims(inp: RoomInput, ident: Identities, wrong: tuple[set, set]) -> dict[tuple, Claim]:
    wrong_facts, wrong_entities = wrong
    skipped = {"alias"}  # a nickname only tells resolution who a short name is
    skipped.update(r for r in ("prefers", "decided") if not inp.settings.get(f"relations.{r}"))
    single = inp.single
    named = inp.named
    resolved = []
    anchored = {ident.resolve(inp.org, "org")} if inp.org else set()
    # a bare `owner/name` is a repo only when the room also names it as one (URL, "repo")
    strong_repos, repos = set(), False
    # what a mention resolves to is a function of what it says (subject, kind, rel, object,
    # kind), and a room says the same few things thousands of times: each resolved once
    meant: dict[tuple, tuple[str, str, str] | None] = {}
    for m in inp.mentions:
        what = m[3:8]
        hit = meant.get(what)
        if hit is None and what not in meant:
            hit = meant[what] = _resolve_mention(
                ident, what, skipped, named, wrong_facts, wrong_entities
            )
        if hit is None:
            continue
        sid, oid, okind = hit
        resolved.append((m, sid, oid, okind))
        if m[0] in single:
            anchored.add(sid)
            anchored.add(oid)
        if m[4] == "repo":
            repos = True
            if m[2] != "repo.bare":
                strong_repos.add(sid)
    if repos:
        resolved = [r for r in resolved if r[0][4] != "repo" or r[1] in strong_repos]
    resolved = _fold_choices(resolved)
    claims: dict[tuple, Claim] = {}
    spellings: dict[tuple[str, str, str], int] = {}  # (id, label, kind) -> times said
    times: dict[str, datetime] = {}  # a turn's mentions share its time
    for m, sid, oid, okind in resolved:
        session, seq, rule, subj, skind, rel, obj, _, quote, ts = m
        if session not in single:
            if skind not in ENTITY_KINDS or rel == "git_remote":
                continue
            if (sid not in anchored) or (okind in ENTITY_KINDS and oid not in anchored):
                continue
        said = (sid, subj, skind)
        spellings[said] = spellings.get(said, 0) + 1
        if rel != "is" and rel != "git_remote":
            said = (oid, obj, okind)
            spellings[said] = spellings.get(said, 0) + 1
        key = (sid, rel, oid)
        claim = claims.get(key)
        if claim is None:
            claim = claims[key] = Claim(sid, skind, rel, oid, okind)
        when = times.get(ts) if ts else None
        if ts and when is None:
            when = times[ts] = datetime.fromisoformat(ts)
        claim.evidence.append(_ev(Ev, (when, session, seq, rule, quote)))
    for (eid, label, kind), n in spellings.items():
        ident.note_label(eid, label, kind, n)
    return claims


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


def _fold_choices(resolved: list[tuple]) -> list[tuple]:
    """Near-duplicates of one preference or decision ("I prefer uv over poetry" and "I prefer
    uv over poetry for anything new") are one fact, named by the first way it was said."""
    choices = [i for i, r in enumerate(resolved) if r[0][5] in ("prefers", "decided")]
    if len(choices) < 2:
        return resolved
    out = list(resolved)
    firsts: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # rel -> said, id, label
    for i in sorted(choices, key=lambda i: (resolved[i][0][9] or "", resolved[i][0][:2])):
        m, sid, oid, okind = resolved[i]
        said = fold(m[6])
        same = next(
            (f for f in firsts[m[5]] if fuzz.token_set_ratio(f[0], said) >= CHOICE_SAME), None
        )
        if same is None:
            firsts[m[5]].append((said, oid, m[6]))
        else:
            out[i] = ((*m[:6], same[2], *m[7:]), sid, same[1], okind)
    return out


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
        )
    )


def _mentioned_in(claims: dict, out: _Writer) -> None:
    """One row per entity and session that names it, from the first turn there that did."""
    firsts: dict[str, dict[str, Ev]] = {}  # entity -> session -> first turn
    kinds: dict[str, str] = {}
    for c in claims.values():
        if c.rel != "is" or c.subject_kind not in ENTITY_KINDS:
            continue
        kinds[c.subject] = c.subject_kind
        held = firsts.setdefault(c.subject, {})
        for e in c.evidence:
            first = held.get(e.session)
            if first is None or _ev_order(e) < _ev_order(first):
                held[e.session] = e
    for eid in sorted(firsts):
        out.mentioned(eid, kinds[eid], firsts[eid])


def _as(e: Ev, rule: str) -> Ev:
    return Ev(e.ts, e.session, e.seq, rule, e.quote)


# -- rows -----------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, room: str, ident: Identities, rows: RoomRows):
        self.room, self.ident, self.rows = room, ident, rows
        self._done: set[str] = set()
        self._evidence: dict[str, list[Ev]] = {}  # fact id -> what said it

    def said_after(self, fid: str, at: datetime) -> datetime | None:
        """The first time a fact was said after `at` (a correction's end), if ever."""
        later = [e.ts for e in self._evidence.get(fid, ()) if e.ts and e.ts > at]
        return min(later) if later else None

    def mentioned(self, eid: str, kind: str, firsts: dict[str, Ev]) -> None:
        """`eid mentioned_in session` for each session and the first turn there that named
        it, in session order: what `fact` writes for each, without the votes and sorts a fact
        of many turns needs (a room has one per entity and session, most of its rows)."""
        room, done, said = self.room, self._done, self._evidence
        facts, evidence = self.rows.facts, self.rows.evidence
        label = self._label(eid, kind)
        for session in sorted(firsts):
            ev = firsts[session]
            obj = f"session:{session}"
            fid = fact_id(room, eid, "mentioned_in", obj)
            if fid in done:
                continue
            done.add(fid)
            said[fid] = [ev]
            facts.append(
                FactRow(
                    id=fid,
                    room=room,
                    subject=eid,
                    subject_kind=kind,
                    subject_label=label,
                    rel="mentioned_in",
                    object=obj,
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
                )
            )
            evidence.append(EvidenceRow(fid, room, eid, session, ev.seq, ev.ts, ev.rule, ev.quote))

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
        self._evidence[fid] = c.evidence
        evidence = _oldest_first(c.evidence)
        # each session's best rule, sessions in the order they first said it (the product
        # below is taken in that order); a session says a fact by few rules, often many times
        said = dict.fromkeys((e.session, e.rule) for e in evidence)
        best: dict[str, float] = {}
        confidence = RULE_CONFIDENCE.get
        for session, rule in said:
            value, held = confidence(rule, 0.6), best.get(session)
            if held is None or value > held:
                best[session] = value
        doubt = 1.0
        for value in best.values():
            doubt *= 1.0 - value
        kept = _keep(evidence)
        self.rows.facts.append(
            FactRow(
                id=fid,
                room=self.room,
                subject=c.subject,
                subject_kind=c.subject_kind,
                subject_label=self._label(c.subject, c.subject_kind),
                rel=c.rel,
                object=c.object,
                object_kind=c.object_kind,
                object_label=object_label or self._label(c.object, c.object_kind),
                confidence=round(min(0.99, 1.0 - doubt), 4),
                source="extracted",
                valid_from=c.first,
                valid_to=valid_to,
                seen=c.last,
                sessions=len(best),
                rules=",".join(sorted({rule for _, rule in said})),
                status=status,
            )
        )
        for e in kept:
            self.rows.evidence.append(
                EvidenceRow(fid, self.room, c.subject, e.session, e.seq, e.ts, e.rule, e.quote)
            )

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

    def _label(self, eid: str, kind: str) -> str:
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
