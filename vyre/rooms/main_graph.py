"""The main graph (`'*'`): the rooms' winners, put together for the owner's own surfaces.

What must stay true (ADR 0007 §1):
- It is built from the rooms' own rows (read with Cypher), never from sessions directly, and
  holds identity, works_at and addresses only: every other relation is project-private.
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

from vyre.graph import EvidenceRow, FactRow, GraphStore, MainQueries, RoomRows
from vyre.models import Correction
from vyre.rooms.corrections import USER_SOURCES
from vyre.rooms.corrections import apply as apply_corrections
from vyre.rooms.derive import EVIDENCE_KEEP_FIRST, EVIDENCE_KEEP_LAST, fact_id
from vyre.rooms.names import MAIN

MAIN_RELS = ("is", "works_at", "has_address")
CONFLICT_WINDOW = timedelta(days=90)
HUB_SESSION_SHARE = 0.12


def derive_main(store: GraphStore, digest: str, corrections: Sequence[Correction] = ()) -> RoomRows:
    q = MainQueries(store)
    canon = _identities(q.shared_addresses())
    hubs = _hubs(q)
    rows = [f for f in store.facts() if f.room != MAIN and f.rel in MAIN_RELS]
    wanted = {f.id for f in rows}
    evidence: dict[str, list[EvidenceRow]] = defaultdict(list)
    for e in store.evidence():
        if e.fact in wanted:
            evidence[e.fact].append(e)
    groups: dict[tuple, list[FactRow]] = defaultdict(list)
    for f in rows:
        groups[(canon(f.subject), f.rel, canon(f.object))].append(f)
    verdicts = _works_at_verdicts(q, canon)
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


def _hubs(q: MainQueries) -> set[str]:
    rooms = q.room_count()
    taught = q.taught_orgs()
    share, total = q.org_session_share()
    hubs = {o for o, n in q.org_rooms().items() if n >= max(3, rooms / 2)}
    if total:
        hubs |= {o for o, n in share.items() if n / total >= HUB_SESSION_SHARE}
    return hubs - taught


def _works_at_verdicts(q: MainQueries, canon: Callable[[str], str]) -> dict[tuple[str, str], tuple]:
    """(person, org) -> (status, closes) where rooms' winners disagree."""
    verdicts: dict[tuple[str, str], tuple] = {}
    for person, x, x_from, x_seen, y, y_from, y_seen in sorted(
        q.works_at_disagreements(), key=repr
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
