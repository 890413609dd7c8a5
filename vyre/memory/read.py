"""The read API: facts, about, why, relevant and the overview, with decay applied at read time.

A `Reader` keeps each room's rows in memory, keyed by the digest the room was derived from,
so repeated reads (the prompt hook, the daemon) cost a dictionary lookup and a scan of one
room. A room only ever reads its own rows: `relevant` for a folder outside every project reads
`unfiled`, never the main graph.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import Protocol

from vyre.graph import EvidenceRow, FactRow, RoomRows
from vyre.memory import relevant as enrich
from vyre.memory.decay import fresh, stale
from vyre.models import Correction, Entity, EntityFacts, EntityPage, Fact, Overview, Source
from vyre.resolve import ENTITY_KINDS, fold
from vyre.rooms.names import MAIN

# () -> (a key that changes with them, the active pin and mute rows)
Controls = Callable[[], tuple[str, list[Correction]]]


@dataclass
class RoomView:
    name: str
    digest: str
    rows: list[FactRow]
    evidence: dict[str, list[EvidenceRow]]
    index: enrich.RoomIndex = field(default_factory=enrich.RoomIndex)  # what prompts reach
    by_subject: dict[str, list[FactRow]] = field(default_factory=dict)
    by_object: dict[str, list[FactRow]] = field(default_factory=dict)
    labels: dict[str, tuple[str, str]] = field(default_factory=dict)  # id -> (label, kind)
    order: list[str] | None = None  # entity ids by kind, then name (built on first page)


class RoomSource(Protocol):
    """Where a reader gets a room's rows from (`vyre.api.Memory`: the graph, checked against
    the ledger)."""

    def rows(self, room: str) -> RoomRows | None: ...

    def digest(self, room: str) -> str:
        """The digest of the room's rows now: a held view of another digest is read again."""
        ...

    def rooms(self) -> list[str]: ...


class Reader:
    """Each room's rows in memory, as a `RoomView`, keyed by the digest they were derived from.

    Views are never changed once built: a derive builds a new one (`publish`, straight from
    the rows it wrote) and swaps it in, so a read holding a view never sees it change, and a
    reader in another thread never waits for a derive. `check_digests=False` is for the
    owner that publishes every derive itself (the daemon): a held view costs no query.
    `before_main` runs before each look at the main graph's view (a one-off process derives
    there a main graph its last ingest left behind the rooms)."""

    def __init__(
        self,
        source: RoomSource,
        controls: Controls | None = None,
        *,
        check_digests: bool = True,
        before_main: Callable[[], None] | None = None,
    ) -> None:
        self.source = source
        self._shelf = _Shelf()  # the views, shared with `sharing` readers
        # () -> (key, active pin and mute rows): read-time choices that change no rows
        self._controls: Controls = controls or (lambda: ("", []))
        self._check = check_digests
        self._before_main = before_main

    @property
    def _views(self) -> dict[str, RoomView]:
        return self._shelf.views

    @_views.setter
    def _views(self, views: dict[str, RoomView]) -> None:
        self._shelf.views = views  # one assignment: a reader sees the old dict or the new

    def sharing(
        self, controls: Controls | None, before_main: Callable[[], None] | None = None
    ) -> Reader:
        """A reader of the same views with its own read-time choices (another thread's
        ledger connection): what one publishes, the other serves. `before_main` runs before
        each look at the main graph's view (the daemon's readers wait there for a main graph
        a reply promised)."""
        other = Reader(self.source, controls, check_digests=self._check)
        other._shelf = self._shelf
        other._before_main = before_main
        return other

    # -- rooms --------------------------------------------------------------------------

    def publish(self, rows: RoomRows) -> None:
        """Serve these rows for their room from now on (a room with no digest is gone)."""
        views = dict(self._views)
        if rows.digest:
            views[rows.room] = view_of(rows)
        else:
            views.pop(rows.room, None)
        self._views = views

    def room(self, name: str) -> RoomView:
        if name == MAIN and self._before_main is not None:
            self._before_main()
        view = self._views.get(name)
        if view is not None and not self._check:
            return view
        digest = self.source.digest(name)
        if view is None or view.digest != digest:
            view = view_of(self.source.rows(name) or RoomRows(name, ""))
            self._views = {**self._views, name: view}
        return view

    def rooms(self) -> list[str]:
        if not self._check:  # the owner publishes every room: its views are the rooms
            return sorted(self._views)
        return self.source.rooms()

    def holds(self, name: str, digest: str) -> bool:
        view = self._views.get(name)
        return view is not None and view.digest == digest

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
        words = tuple(enrich.words_of(name))
        hits = [eid for eid, _, _ in view.index.phrases.get(words, ()) if eid in view.labels]
        if not hits:
            target = fold(name)
            hits = [eid for eid, (label, _) in view.labels.items() if fold(label) == target]
        return sorted(set(hits))

    def about(self, name: str, room: str, now: datetime) -> list[Entity]:
        """Each entity the name points at in the room, with its facts."""
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
            out.append(Entity(name=label, kind=kind, facts=tuple(facts)))
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

    def entities(self, room: str, now: datetime, *, offset: int = 0, limit: int = 40) -> EntityPage:
        """One page of a room's entities, each with its open facts, and the room's open
        deadlines: only the page's rows become `Fact`s, so a large room costs one page."""

        view = self.room(room)
        if view.order is None:
            kinds = {k: i for i, k in enumerate(ENTITY_KINDS)}
            view.order = [
                eid
                for _, _, eid in sorted(
                    (
                        kinds[view.labels[r.subject][1]],
                        view.labels[r.subject][0].casefold(),
                        r.subject,
                    )
                    for r in view.rows
                    if r.rel == "is" and view.labels.get(r.subject, ("", ""))[1] in kinds
                )
            ]
        page = []
        for eid in view.order[offset : offset + limit]:
            label, kind = view.labels[eid]
            rows = [
                r
                for r in view.by_subject.get(eid, [])
                if r.rel not in ("is", "mentioned_in") and not _closed(r, now)
            ]
            facts = tuple(
                self.fact(r, view, now) for r in sorted(rows, key=lambda r: (r.rel, r.id))
            )
            page.append(EntityFacts(id=eid, label=label, kind=kind, facts=facts))
        deadlines = sorted(
            (
                self.fact(r, view, now)
                for r in view.rows
                if r.rel == "deadline" and not _closed(r, now)
            ),
            key=lambda f: (f.object, f.subject),
        )
        return EntityPage(
            room=room,
            total=len(view.order),
            offset=offset,
            entities=tuple(page),
            deadlines=tuple(deadlines),
        )

    def learned(self, room: str, since: datetime, now: datetime, limit: int = 50) -> list[Fact]:
        """Open facts first said at or after `since`, newest first (the Deck's Now)."""
        view = self.room(room)
        rows = [
            r
            for r in view.rows
            if r.valid_from
            and r.valid_from >= since
            and r.rel not in ("mentioned_in",)
            and not _closed(r, now)
        ]
        rows.sort(key=lambda r: (r.valid_from, r.id), reverse=True)
        return [self.fact(r, view, now) for r in rows[:limit]]

    # -- relevant: what the prompt hook adds --------------------------------------------

    def relevant(self, prompt: str, room: str, now: datetime, limit: int = 5) -> list[Fact]:
        """The few facts of the room the prompt needs (`vyre.memory.relevant` says how)."""
        view = self.room(room)
        if not view.rows:
            return []
        pins, muted = _choices(self._controls()[1])
        ranked = enrich.rank(
            view.index,
            view.labels,
            view.by_subject,
            prompt,
            now,
            closed=lambda row: _closed(row, now),
            pins=pins,
            muted=muted,
        )
        return [self.fact(row, view, now) for _, row in ranked[:limit]]

    # -- overview -------------------------------------------------------------------------

    def overview(self, room: str, now: datetime) -> Overview:
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
        return Overview(
            room=room,
            counts=dict(sorted(kinds.items())),
            facts=sum(1 for f in facts if f.rel not in ("is", "mentioned_in")),
            people=tuple(people),
            orgs=tuple(orgs),
            deadlines=tuple(deadlines),
            conflicts=tuple(f for f in facts if f.status == "conflict"),
            stale=sum(1 for f in facts if f.stale and f.rel not in ("is", "mentioned_in")),
            mentions=dict(mentions),
            titles=titles,
        )


class _Shelf:
    def __init__(self) -> None:
        self.views: dict[str, RoomView] = {}  # replaced whole, never changed in place


_by_id = attrgetter("id")


def _oldest_first(e: EvidenceRow) -> tuple:
    return (e.ts or datetime.min, e.session, e.seq, e.rule, e.quote)


def view_of(rows: RoomRows) -> RoomView:
    """A room's rows arranged for reading. The same rows give the same view, whether they
    come from a derive or are read back from the room's file."""
    evidence: dict[str, list[EvidenceRow]] = defaultdict(list)
    for e in rows.evidence:
        evidence[e.fact].append(e)
    for items in evidence.values():
        if len(items) > 1:  # most facts (a mention in one session) have one row
            items.sort(key=_oldest_first)
    view = RoomView(rows.room, rows.digest, sorted(rows.facts, key=_by_id), dict(evidence))
    subj, obj = defaultdict(list), defaultdict(list)
    for f in view.rows:
        subj[f.subject].append(f)
        obj[f.object].append(f)
        view.labels.setdefault(f.subject, (f.subject_label, f.subject_kind))
    view.by_subject, view.by_object = dict(subj), dict(obj)
    own_orgs = {r.subject for r in view.rows if r.rel == "client_of" and r.source == "taught"}
    view.index = enrich.build(view.labels, view.rows, view.evidence, own_orgs)
    return view


def _closed(row: FactRow, now: datetime) -> bool:
    return row.status == "closed" or (row.valid_to is not None and row.valid_to <= now)


def _choices(rows: Iterable[Correction]) -> tuple[set[object], set[object]]:
    """(pinned fact keys, muted fact keys and entity ids) from the user's pin and mute rows."""
    pins: set[object] = set()
    muted: set[object] = set()
    for c in rows:
        key = (c.subject, c.rel, c.object) if c.rel else c.subject
        (pins if c.kind == "pin" else muted).add(key)
    return pins, muted


__all__ = ["Reader", "RoomView"]
