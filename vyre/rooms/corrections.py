"""The user's corrections, applied in derive (ADR 0007 §4). Every user decision outranks every
extracted vote; each is a ledger row, so undoing it gives back the rows from before.

| action  | effect here                                                                      |
|---------|----------------------------------------------------------------------------------|
| wrong   | the claim leaves every vote in scope (an `is` takes the whole entity with it)     |
| ended   | valid_to = at; older evidence never reopens it, newer evidence reopens the row   |
| replace | ended, plus a user row (confidence 1, no decay) for the new object               |
| confirm | confidence 1, no decay, never closed by derive                                   |
| add     | a user row                                                                        |

Merges and splits change identity (see `Identities.canon`); pins and mutes are read-time only.
A correction scoped to everything (`'*'`) applies in each room that has its subject, so it
never brings a person into a room that never named them.

Which rooms a correction can change (`reach`): every effect of a `correct` scoped to
everything needs its subject (after the room's merges and splits) to be an entity the room's
mentions resolve to, its project's org, or one an earlier correction added there. So a room
whose mentions never name the subject keeps its rows, and its digest leaves the correction
out: a correction re-derives the rooms that name its subject (and the main graph), not every
room. Merges, splits, a room's own corrections and those about non-entities count in every
room they are scoped to.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from vyre.graph import FactRow
from vyre.resolve import Identities, entity_id

USER_SOURCES = ("user", "confirmed")
ENTITY_KINDS = ("person", "org", "address", "domain", "repo")

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Correction


def in_scope(corrections: list[Correction], room: str) -> list[Correction]:
    """Corrections that change this room's rows (pins and mutes change only reads)."""
    return [
        c for c in corrections if c.kind in ("correct", "merge", "split") and c.scope in ("*", room)
    ]


def reach(
    corrections: list[Correction], room: str, names: frozenset[str] | None
) -> list[Correction]:
    """Of the corrections in this room's scope, those that can change its rows, given `names`:
    every entity id the room's mentions resolve to (after its merges and splits) and its
    project's org, as derive found them (None: not known, so every one counts)."""
    if names is None:
        return corrections
    merges, splits = identity_changes(corrections)
    canon = Identities([], merges=merges, splits=splits, room=room).canon
    known = set(names)
    out = []
    for c in sorted(corrections, key=lambda c: c.id):
        if not _needs_its_subject(c):
            out.append(c)
            continue
        if canon(c.subject) not in known:
            continue  # the room never names it: nothing here changes
        out.append(c)
        if c.action in ("replace", "add") and (c.object_kind or "value") in ENTITY_KINDS:
            label = (c.value if c.action == "replace" else c.object_label) or ""
            known.add(canon(entity_id(c.object_kind or "value", label)))
    return out


def needs_names(corrections: list[Correction]) -> bool:
    """Whether `reach` needs the rooms' names to judge these (else they count everywhere)."""
    return any(_needs_its_subject(c) for c in corrections)


def _needs_its_subject(c: Correction) -> bool:
    return c.kind == "correct" and c.scope == "*" and c.subject_kind in ENTITY_KINDS


def identity_changes(corrections: list[Correction]) -> tuple[dict[str, str], set[str]]:
    """(merged id -> kept id, ids split apart) for one room's corrections, oldest first."""
    merges: dict[str, str] = {}
    splits: set[str] = set()
    for c in sorted(corrections, key=lambda c: c.id):
        if c.kind == "merge" and c.object and c.object != c.subject:
            merges[c.object] = c.subject
        elif c.kind == "split":
            splits.add(c.subject)
    return merges, splits


Canon = Callable[[str], str]  # an entity id -> the id this room keeps for it


def wrong_keys(corrections: list[Correction], canon: Canon) -> tuple[set[tuple], set[str]]:
    """(facts, entities) the user said are wrong, as this room names them."""
    facts: set[tuple] = set()
    entities: set[str] = set()
    for c in corrections:
        if c.kind != "correct" or c.action != "wrong":
            continue
        if c.rel == "is":
            entities.add(canon(c.subject))
        else:
            facts.add((canon(c.subject), c.rel, canon(c.object) if c.object else None))
    return facts, entities


def apply(
    rows: list[FactRow],
    corrections: list[Correction],
    canon: Canon,
    room: str,
    fact_id: Callable[[str, str, str, str], str],
    later_evidence: Callable[[str, datetime], datetime | None],
    *,
    bring_new: bool = False,
) -> list[FactRow]:
    """The room's rows after the user's ended, replace, confirm and add.

    `later_evidence(fid, at)` gives the first time a fact was said after `at` (or None).
    `bring_new` (the main graph only) lets an everywhere-scoped add name someone new.
    """
    if not any(c.kind == "correct" and c.action != "wrong" and c.rel for c in corrections):
        return sorted(rows, key=attrgetter("id"))  # what the loop below leaves: a room's rows
    by_key: dict[tuple[str, str, str | None], FactRow] = {
        (r.subject, r.rel, r.object): r for r in rows
    }
    present = {r.subject for r in rows if r.rel == "is"} | {"owner"}
    out = {r.id: r for r in rows}
    for c in sorted(corrections, key=lambda c: c.id):
        if c.kind != "correct" or c.action == "wrong" or c.rel is None:
            continue
        subject = canon(c.subject)
        if (
            c.scope == "*"
            and not bring_new
            and subject not in present
            and c.subject_kind in ENTITY_KINDS
        ):
            continue  # never bring someone into a room that never named them
        key = (subject, c.rel, canon(c.object) if c.object else None)
        row = by_key.get(key)
        if c.action in ("ended", "replace") and row is not None:
            at = c.at or c.created
            reopened = later_evidence(row.id, at)
            if reopened is not None:  # newer evidence opens the row again
                status = "" if row.status == "closed" else row.status
                row = _with(row, valid_from=reopened, valid_to=None, status=status)
            else:
                row = _with(row, valid_to=at, status="closed")
            out[row.id] = by_key[key] = _with(row, rules=_rules(row.rules, f"user.{c.action}"))
        if c.action == "confirm" and row is not None:
            out[row.id] = by_key[key] = _with(
                row,
                confidence=1.0,
                source="confirmed",
                valid_to=None,
                status="",
                rules=_rules(row.rules, "user.confirm"),
            )
        if c.action in ("replace", "add"):
            label = (c.value if c.action == "replace" else c.object_label) or ""
            kind = c.object_kind or "value"
            obj = canon(entity_id(kind, label)) if kind != "owner" else "owner"
            new = FactRow(
                id=fact_id(room, subject, c.rel, obj),
                room=room,
                subject=subject,
                subject_kind=c.subject_kind,
                subject_label=_label(rows, subject, c.subject_label),
                rel=c.rel,
                object=obj,
                object_kind=kind,
                object_label=label,
                confidence=1.0,
                source="user",
                valid_from=c.at or c.created,
                valid_to=None,
                seen=c.created,
                sessions=0,
                rules=f"user.{c.action}",
                status="",
            )
            out[new.id] = by_key[(subject, c.rel, obj)] = new
            for eid, ekind, elabel in (
                (subject, c.subject_kind, new.subject_label),
                (obj, kind, label),
            ):
                if ekind in ENTITY_KINDS and eid not in present:
                    row_is = FactRow(
                        id=fact_id(room, eid, "is", f"kind:{ekind}"),
                        room=room,
                        subject=eid,
                        subject_kind=ekind,
                        subject_label=elabel,
                        rel="is",
                        object=f"kind:{ekind}",
                        object_kind="kind",
                        object_label=ekind,
                        confidence=1.0,
                        source="user",
                        valid_from=c.created,
                        seen=c.created,
                        rules=f"user.{c.action}",
                    )
                    out[row_is.id] = row_is
                    present.add(eid)
    return sorted(out.values(), key=attrgetter("id"))


def _label(rows: list[FactRow], eid: str, fallback: str) -> str:
    return next((r.subject_label for r in rows if r.subject == eid), fallback)


def _rules(rules: str, extra: str) -> str:
    return ",".join(sorted({*rules.split(","), extra} - {""}))


def _with(row: FactRow, **changes: Any) -> FactRow:
    return FactRow(**{**vars(row), **changes})
