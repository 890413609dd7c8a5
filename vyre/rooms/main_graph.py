"""The main graph (`'*'`): the rooms' winners, put together for the owner's own surfaces.

What must stay true (ADR 0007 §1):
- It is built from the rooms' own rows, never from sessions directly, and holds identity,
  works_at and addresses only: every other relation is project-private. What it reads from
  each room (`MainInput`: those rows, the project's org, how many sessions name each org) is
  taken from the room's rows as they are derived and kept beside the room's file, so
  deriving it again after one room changed reads no other room's file.
- Two names with one address in any room are one identity here.
- When two rooms' works_at winners for one person differ and were seen within 90 days of each
  other, both rows are kept and marked `conflict` ("Same Dana Reyes?"); otherwise the older is
  closed here (it stays open in its own room).
- An org is a hub when it is in at least max(3, rooms/2) rooms, or is in 12% or more of all
  sessions and no project names it. A project's org is never a hub. Hubs are marked, not
  dropped; the overview and enrichment leave them out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from vyre.graph import EvidenceRow, FactRow, MainInput, RoomRows
from vyre.graph.analysis import HubFigures
from vyre.rooms.corrections import USER_SOURCES
from vyre.rooms.corrections import apply as apply_corrections
from vyre.rooms.derive import EVIDENCE_KEEP_FIRST, EVIDENCE_KEEP_LAST, fact_id
from vyre.rooms.names import MAIN

MAIN_RELS = ("is", "works_at", "has_address")
CONFLICT_WINDOW = timedelta(days=90)
HUB_SESSION_SHARE = 0.12

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Correction


def main_input(rows: RoomRows, single: set[str]) -> MainInput:
    """What the main graph reads from one room's rows (`single`: the sessions in that room
    only; sessions shared with other rooms are kept by id, so none is counted twice)."""
    keep = [
        f
        for f in rows.facts
        if f.rel in MAIN_RELS or (f.rel == "client_of" and f.source == "taught")
    ]
    wanted = {f.id for f in keep if f.rel in MAIN_RELS}
    named: dict[str, set[str]] = defaultdict(set)  # org ('' for any entity) -> sessions
    for f in rows.facts:
        if f.rel == "mentioned_in":
            session = f.object.removeprefix("session:")
            named[""].add(session)
            if f.subject_kind == "org":
                named[f.subject].add(session)
    return MainInput(
        room=rows.room,
        digest=rows.digest,
        facts=keep,
        evidence=[e for e in rows.evidence if e.fact in wanted],
        shares={
            org: (len(sessions & single), frozenset(sessions - single))
            for org, sessions in named.items()
        },
    )


def derive_main(
    inputs: dict[str, MainInput], digest: str, corrections: Sequence[Correction] = ()
) -> RoomRows:
    rooms = [inputs[r] for r in sorted(inputs)]
    rows = [f for i in rooms for f in i.facts if f.rel in MAIN_RELS]
    canon = _identities(_shared_addresses(rows))
    hubs = _hubs(rooms)
    evidence: dict[str, list[EvidenceRow]] = defaultdict(list)
    for i in rooms:
        for e in i.evidence:
            evidence[e.fact].append(e)
    groups: dict[tuple, list[FactRow]] = defaultdict(list)
    for f in rows:
        groups[(canon(f.subject), f.rel, canon(f.object))].append(f)
    verdicts = _works_at_verdicts(rows, canon)
    out = RoomRows(room=MAIN, digest=digest)
    for (subject, rel, obj), members in sorted(groups.items()):
        fid = fact_id(MAIN, subject, rel, obj)
        first = members[0]
        open_rows = [m for m in members if m.valid_to is None]
        status, valid_to = "", None
        if not open_rows:
            status, valid_to = "closed", max(m.valid_to for m in members if m.valid_to)
        if rel == "works_at" and (subject, obj) in verdicts:
            status, closes = verdicts[(subject, obj)]
            valid_to = closes if status == "closed" else valid_to
        if rel == "is" and subject in hubs:
            status = "hub"
        out.facts.append(
            FactRow(
                id=fid,
                room=MAIN,
                subject=subject,
                subject_kind=first.subject_kind,
                subject_label=_label([(m.subject_label, m.sessions) for m in members]),
                rel=rel,
                object=obj,
                object_kind=first.object_kind,
                object_label=_label([(m.object_label, m.sessions) for m in members]),
                confidence=max(m.confidence for m in members),
                source=_source(members),
                valid_from=min((m.valid_from for m in members if m.valid_from), default=None),
                valid_to=valid_to,
                seen=max((m.seen for m in members if m.seen), default=None),
                sessions=sum(m.sessions for m in members),
                rules=",".join(sorted({r for m in members for r in m.rules.split(",") if r})),
                status=status,
            )
        )
        merged = {(e.session, e.seq, e.rule): e for m in members for e in evidence[m.id]}
        kept = sorted(merged.values(), key=_evidence_order)
        if len(kept) > EVIDENCE_KEEP_FIRST + EVIDENCE_KEEP_LAST:
            kept = kept[:EVIDENCE_KEEP_FIRST] + kept[-EVIDENCE_KEEP_LAST:]
        for e in kept:
            out.evidence.append(
                EvidenceRow(fid, MAIN, subject, e.session, e.seq, e.ts, e.rule, e.quote)
            )
    facts = _user_outranks(out.facts)

    def said_after(fid: str, at: datetime) -> datetime | None:
        later = [e.ts for e in out.evidence if e.fact == fid and e.ts and e.ts > at]
        return min(later) if later else None

    mine = [c for c in corrections if c.rel in MAIN_RELS or c.kind != "correct"]
    out.facts = apply_corrections(
        facts,
        mine,
        lambda eid: canon(eid) if eid else eid,
        MAIN,
        fact_id,
        said_after,
        bring_new=True,
    )
    out.evidence.sort(key=lambda e: (e.fact, e.session, e.seq, e.rule))
    return out


def _source(members: list[FactRow]) -> str:
    sources = {m.source for m in members}
    for source in ("user", "confirmed"):
        if source in sources:
            return source
    return "taught" if sources == {"taught"} else "extracted"


def _user_outranks(rows: list[FactRow]) -> list[FactRow]:
    """Where the user said where someone works, an extracted row that disagrees is closed in
    the main graph, or, when newer transcripts say it, a conflict to settle. Never the reverse."""
    held: dict[str, FactRow] = {}
    for r in rows:
        if r.rel == "works_at" and r.source in USER_SOURCES and r.valid_to is None:
            held.setdefault(r.subject, r)
    out = []
    for r in rows:
        user = held.get(r.subject)
        if r.rel == "works_at" and user and r.source not in USER_SOURCES and r.valid_to is None:
            if r.seen and user.seen and r.seen > user.seen:
                r = FactRow(**{**vars(r), "status": "conflict"})
            else:
                r = FactRow(
                    **{**vars(r), "status": "closed", "valid_to": user.valid_from or user.seen}
                )
        out.append(r)
    return out


def _evidence_order(e: EvidenceRow) -> tuple:
    return (e.ts is not None, e.ts or 0, e.session, e.seq, e.rule)


def _identities(pairs: list[tuple[str, str]]) -> Callable[[str], str]:
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in sorted(pairs):
        ra, rb = find(a), find(b)
        if ra != rb:
            lo, hi = sorted((ra, rb))
            parent[hi] = lo
    return find


def _shared_addresses(rows: list[FactRow]) -> list[tuple[str, str]]:
    """Pairs of people who share an address in some room: one identity in the main graph."""
    holders: dict[str, set[str]] = defaultdict(set)
    for f in rows:
        if f.rel == "has_address":
            holders[f.object].add(f.subject)
    pairs: set[tuple[str, str]] = set()
    for people in holders.values():
        ordered = sorted(people)
        pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    return sorted(pairs)


def hub_figures(inputs: dict[str, MainInput]) -> HubFigures:
    """What the hub rule weighs: rooms, the rooms and sessions naming each org, the orgs a
    project names."""
    org_rooms: dict[str, set[str]] = defaultdict(set)
    labels: dict[str, str] = {}
    taught: set[str] = set()
    alone: dict[str, int] = defaultdict(int)
    shared: dict[str, set[str]] = defaultdict(set)
    for i in inputs.values():
        for f in i.facts:
            if f.rel == "is" and f.subject_kind == "org":
                org_rooms[f.subject].add(i.room)
                labels.setdefault(f.subject, f.subject_label)
            elif f.rel == "client_of" and f.source == "taught":
                taught.add(f.subject)
        for org, (n, ids) in i.shares.items():
            alone[org] += n
            shared[org] |= ids
    sessions = {org: alone[org] + len(shared[org]) for org in alone}
    return HubFigures(
        rooms=len(inputs),
        org_rooms={org: len(rooms) for org, rooms in org_rooms.items()},
        labels=labels,
        taught=taught,
        sessions={org: n for org, n in sessions.items() if org},
        total=sessions.get("", 0),
    )


def _hubs(rooms: list[MainInput]) -> set[str]:
    figures = hub_figures({i.room: i for i in rooms})
    total = figures.total
    hubs = {o for o, n in figures.org_rooms.items() if n >= max(3, figures.rooms / 2)}
    if total:
        hubs |= {o for o, n in figures.sessions.items() if n / total >= HUB_SESSION_SHARE}
    return hubs - figures.taught


def _works_at_disagreements(rows: list[FactRow]) -> list[tuple]:
    """Open works_at winners of one person that differ between two rooms."""
    open_rows: dict[str, list[FactRow]] = defaultdict(list)
    for f in rows:
        if f.rel == "works_at" and f.valid_to is None:
            open_rows[f.subject].append(f)
    return [
        (person, a.object, a.valid_from, a.seen, b.object, b.valid_from, b.seen)
        for person, held in open_rows.items()
        for a in held
        for b in held
        if a.room < b.room and a.object != b.object
    ]


def _works_at_verdicts(
    rows: list[FactRow], canon: Callable[[str], str]
) -> dict[tuple[str, str], tuple]:
    """(person, org) -> (status, closes) where rooms' winners disagree."""
    verdicts: dict[tuple[str, str], tuple] = {}
    for person, x, x_from, x_seen, y, y_from, y_seen in sorted(
        _works_at_disagreements(rows), key=repr
    ):
        p, x, y = canon(person), canon(x), canon(y)
        if x == y or x_seen is None or y_seen is None:
            continue
        if abs(x_seen - y_seen) <= CONFLICT_WINDOW:
            for org in (x, y):
                if verdicts.get((p, org), ("",))[0] != "closed":
                    verdicts[(p, org)] = ("conflict", None)
        else:
            older, moved = (x, y_from or y_seen) if x_seen < y_seen else (y, x_from or x_seen)
            verdicts[(p, older)] = ("closed", moved)
    return verdicts


def _label(options: list[tuple[str, int]]) -> str:
    weight: dict[str, int] = defaultdict(int)
    for label, n in options:
        weight[label] += max(1, n)
    return min(weight, key=lambda s: (-weight[s], s.count("."), s))
