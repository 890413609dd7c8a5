"""The user edits memory: find the fact or entity they mean, and record their decision.

Facts are addressed by their stable id (`f` and ten hex digits, printed by `vyre memory facts`
and `vyre why`) or by SUBJECT REL OBJECT as memory spells them. Entities by name. Nothing here
changes the graph: decisions are ledger rows, and derive applies them.
"""

from __future__ import annotations

import re
from datetime import datetime

from vyre.callers import require_owner
from vyre.errors import CorrectionError
from vyre.graph import FactRow
from vyre.ledger import Ledger
from vyre.ledger import corrections as store
from vyre.memory.read import Reader
from vyre.models import (
    ACTIONS,
    RELATION_KINDS,
    Conflict,
    ConflictSide,
    Correction,
    FactTarget,
)
from vyre.resolve import entity_id, fold
from vyre.rooms.names import MAIN

FACT_ID = re.compile(r"^f[0-9a-f]{10}$")


class Editor:
    def __init__(self, ledger: Ledger, reader: Reader):
        self.ledger, self.reader = ledger, reader

    # -- finding what the user means ------------------------------------------------------

    def locate(self, target: str | tuple[str, str, str], rooms: list[str]) -> FactRow | None:
        """The fact a target names: an id anywhere, or subject-rel-object in these rooms."""
        if isinstance(target, str):
            if not FACT_ID.match(target):
                raise CorrectionError(f"{target!r} is not a fact id (like f14aa9c7949)")
            for room in self.reader.rooms():
                for row in self.reader.room(room).rows:
                    if row.id == target:
                        return row
            raise CorrectionError(f"no fact {target} (see `vyre memory facts`)")
        subject, rel, obj = target
        for room in rooms:
            view = self.reader.room(room)
            for eid in self.reader.find(subject, room):
                for row in view.by_subject.get(eid, []):
                    if row.rel == rel and _same(row, obj):
                        return row
        return None

    def entity(self, name: str, rooms: list[str]) -> tuple[str, str, str]:
        """(id, label, kind) of a named entity, looked for in these rooms in order."""
        for room in rooms:
            view = self.reader.room(room)
            for eid in self.reader.find(name, room):
                label, kind = view.labels[eid]
                return eid, label, kind
        raise CorrectionError(f"memory knows no {name!r}")

    # -- decisions ------------------------------------------------------------------------

    def correct(
        self,
        target: FactTarget,
        action: str,
        *,
        scope: str,
        caller: str,
        when: datetime,
        value: str | None = None,
        at: datetime | None = None,
        note: str | None = None,
    ) -> Correction:
        require_owner(caller)
        if action not in ACTIONS:
            raise CorrectionError(f"--action must be one of {', '.join(ACTIONS)}")
        rooms = [scope] if scope != MAIN else [MAIN, *self._rooms()]
        row = self.locate(target, rooms)
        if row is None and action != "add":
            raise CorrectionError(f"memory holds no fact {' '.join(target)} here")
        if action == "replace" and not value:
            raise CorrectionError("replace needs the new value: --object X")
        if isinstance(target, str) and scope != MAIN and row is not None and row.room != scope:
            raise CorrectionError(f"fact {target} is not in {scope!r}")
        if row is not None:
            fields = {
                **_names(row),
                "prior_source": row.source,
                "prior_rule": row.rules.split(",")[0] or None,
                "prior_confidence": row.confidence,
            }
        elif isinstance(target, str):
            raise CorrectionError(f"no fact {target} to correct")
        else:
            fields = self._new_fact(*target, rooms=rooms)
        return store.record(
            self.ledger,
            {
                "kind": "correct",
                "action": action,
                "scope": scope,
                "value": value,
                "at": at,
                "note": (note or "")[:160] or None,
                **fields,
            },
            caller=caller,
            created=when,
        )

    def mark(self, kind: str, target: FactTarget, *, caller: str, when: datetime) -> Correction:
        """Pin or mute a fact; mute also takes a name (the whole entity)."""
        require_owner(caller)
        rooms = [MAIN, *self._rooms()]
        if kind == "mute" and isinstance(target, str) and not FACT_ID.match(target):
            eid, label, ekind = self.entity(target, rooms)
            fields = {"subject": eid, "subject_label": label, "subject_kind": ekind}
        else:
            row = self.locate(target, rooms)
            if row is None:
                raise CorrectionError(f"memory holds no fact {' '.join(target)}")
            fields = _names(row)
        return store.record(
            self.ledger, {"kind": kind, "scope": MAIN, **fields}, caller=caller, created=when
        )

    def merge(self, keep: str, other: str, *, caller: str, when: datetime) -> Correction:
        require_owner(caller)
        rooms = [MAIN, *self._rooms()]
        a, a_label, a_kind = self.entity(keep, rooms)
        b, b_label, b_kind = self.entity(other, rooms)
        if a == b:
            raise CorrectionError(f"{keep!r} and {other!r} are already one identity")
        if a_kind != b_kind:
            raise CorrectionError(f"cannot merge a {a_kind} with a {b_kind}")
        return store.record(
            self.ledger,
            {
                "kind": "merge",
                "scope": MAIN,
                "subject": a,
                "subject_label": a_label,
                "subject_kind": a_kind,
                "object": b,
                "object_label": b_label,
                "object_kind": b_kind,
            },
            caller=caller,
            created=when,
        )

    def split(self, name: str, room: str | None, *, caller: str, when: datetime) -> Correction:
        require_owner(caller)
        rooms = [room] if room else [MAIN, *self._rooms()]
        eid, label, kind = self.entity(name, rooms)
        return store.record(
            self.ledger,
            {
                "kind": "split",
                "scope": room or MAIN,
                "subject": eid,
                "subject_label": label,
                "subject_kind": kind,
            },
            caller=caller,
            created=when,
        )

    # -- conflicts -------------------------------------------------------------------------

    def conflicts(self, now: datetime) -> list[Conflict]:
        view = self.reader.room(MAIN)  # only conflict rows become facts: the graph may be large
        facts = [self.reader.fact(r, view, now) for r in view.rows if r.status == "conflict"]
        facts = [f for f in facts if f.status == "conflict"]
        groups: dict[tuple[str, str], list] = {}
        for f in facts:
            groups.setdefault((f.subject, f.rel), []).append(f)
        main = view
        rooms = {r: self.reader.room(r) for r in self.reader.rooms() if r != MAIN} if groups else {}
        out = []
        for (subject, rel), rows in sorted(groups.items()):
            sides: list[ConflictSide] = []
            eid = next(r.subject for r in main.rows if r.id == rows[0].id)
            user = [
                r
                for r in main.by_subject.get(eid, [])
                if r.rel == rel and r.source in ("user", "confirmed") and r.valid_to is None
            ]
            for f in rows:
                holders = sorted(
                    room
                    for room, other in rooms.items()
                    for r in other.by_subject.get(_base(eid), [])
                    + other.by_subject.get(f"{_base(eid)}@{room}", [])
                    if r.rel == rel and r.object_label == f.object and r.valid_to is None
                )
                sides.append(
                    ConflictSide(object=f.object, rooms=tuple(holders), seen=f.seen, fact=f.id)
                )
            if user:
                said = user[0]
                question = (
                    f"You said {subject} {_verb(rel)} {said.object_label}; newer "
                    f"sessions say {', '.join(s.object for s in sides)}. Still true?"
                )
                commands = [
                    f"vyre memory correct {said.id} --action confirm",
                    f'vyre memory correct {said.id} --action replace --object "{sides[0].object}"',
                ]
                sides.insert(
                    0,
                    ConflictSide(
                        object=said.object_label,
                        rooms=("your correction",),
                        seen=said.seen,
                        fact=said.id,
                    ),
                )
            else:
                question = f"Same {subject}?"
                newest = max(sides, key=lambda s: s.seen or datetime.min)
                oldest = min(sides, key=lambda s: s.seen or datetime.min)
                commands = []
                if newest.rooms:
                    commands.append(
                        f'no, two people: vyre memory split "{subject}" --room {newest.rooms[0]}'
                    )
                commands.append(
                    f'yes, and they moved: vyre memory correct "{subject}" {rel} '
                    f'"{oldest.object}" --action ended'
                )
                commands.append(
                    f"yes, both are true: vyre memory correct {oldest.fact} "
                    "--action confirm (and the other)"
                )
            out.append(
                Conflict(
                    subject=subject,
                    rel=rel,
                    question=question,
                    sides=tuple(sides),
                    commands=tuple(commands),
                )
            )
        return out

    # -- helpers ----------------------------------------------------------------------------

    def _rooms(self) -> list[str]:
        return [r for r in self.reader.rooms() if r != MAIN]

    def _new_fact(self, subject: str, rel: str, obj: str, rooms: list[str]) -> dict:
        if rel not in RELATION_KINDS:
            raise CorrectionError(
                f"cannot add a {rel!r} fact; relations: {', '.join(RELATION_KINDS)}"
            )
        skind, okind = RELATION_KINDS[rel]
        try:
            sid, slabel, _ = self.entity(subject, rooms)
        except CorrectionError:
            sid, slabel = entity_id(skind, subject), subject
        return {
            "subject": sid,
            "subject_label": slabel,
            "subject_kind": skind,
            "rel": rel,
            "object": entity_id(okind, obj),
            "object_label": obj,
            "object_kind": okind,
        }


def _names(row: FactRow) -> dict:
    """The fact a decision is about, as a correction row names it."""
    return {
        "subject": row.subject,
        "subject_label": row.subject_label,
        "subject_kind": row.subject_kind,
        "rel": row.rel,
        "object": row.object,
        "object_label": row.object_label,
        "object_kind": row.object_kind,
    }


def _same(row: FactRow, obj: str) -> bool:
    label = row.object_label
    if row.object_kind == "repo":
        return fold(obj) in (fold(label), fold(label.rsplit("/", 1)[-1]))
    return fold(label) == fold(obj)


def _base(eid: str) -> str:
    return eid.split("@", 1)[0] if eid.startswith("person:") else eid


def _verb(rel: str) -> str:
    return {"works_at": "works at", "has_title": "is"}.get(rel, rel)
