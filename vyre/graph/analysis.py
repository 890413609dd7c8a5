"""Offline analysis: candidates for the user to merge (a networkx graph of names and what they
share), and hubs. Suggestions only: nothing here changes memory until the user runs
`vyre memory merge` or `split`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidfuzz import fuzz

from vyre.graph.store import FactRow
from vyre.wording import count

if TYPE_CHECKING:  # pydantic: a one-off `vyre ingest` loads none (vyre.reports)
    from vyre.models import Hub, MergeCandidate

NEAR = 85  # rapidfuzz token_sort_ratio for names that may be one person
LINKS = ("has_address", "works_at")


def merge_candidates(rows: list[FactRow]) -> list[MergeCandidate]:
    """Pairs of near-identical names that share an address or an org, with that evidence."""
    import networkx as nx  # 0.2 s to import: only here, never for a derive (which reads hubs)

    from vyre.models import MergeCandidate

    graph = nx.Graph()
    labels: dict[str, str] = {}
    for r in rows:
        if r.rel == "is" and r.subject_kind in ("person", "org"):
            labels[r.subject] = r.subject_label
            graph.add_node(r.subject, kind=r.subject_kind)
        elif r.rel in LINKS and r.valid_to is None:
            graph.add_edge(r.subject, r.object, rel=r.rel, label=r.object_label)
    out = []
    for kind in ("person", "org"):
        ids = sorted(n for n in labels if graph.nodes[n].get("kind") == kind)
        # compare only names that start alike (first letters of first and last word)
        blocks: dict[str, list[str]] = {}
        for eid in ids:
            parts = labels[eid].split()
            blocks.setdefault((parts[0][:1] + parts[-1][:1]).casefold(), []).append(eid)
        for block in blocks.values():
            for i, a in enumerate(block):
                for b in block[i + 1 :]:
                    score = fuzz.token_sort_ratio(labels[a], labels[b])
                    shared = sorted(set(graph[a]) & set(graph[b]))
                    if score < NEAR or not shared:
                        continue
                    out.append(
                        MergeCandidate(
                            keep=labels[a],
                            other=labels[b],
                            kind=kind,
                            similarity=round(float(score), 1),
                            shared=tuple(graph.edges[a, s]["label"] for s in shared),
                            command=f'vyre memory merge "{labels[a]}" "{labels[b]}"',
                        )
                    )
    return sorted(out, key=lambda c: (-c.similarity, c.keep, c.other))


@dataclass(frozen=True)
class HubFigures:
    """What the hub rule weighs (built by `vyre.rooms.main_graph.hub_figures`)."""

    rooms: int  # rooms feeding the main graph
    org_rooms: dict[str, int]  # org key -> rooms naming it
    labels: dict[str, str]  # org key -> its label
    taught: set[str]  # orgs a project names (never hubs)
    sessions: dict[str, int]  # org key -> sessions naming it
    total: int  # sessions in all


def hub_candidates(figures: HubFigures) -> list[Hub]:
    """Orgs by how many rooms and sessions name them, with whether the hub rule holds.

    `figures`: the rooms, the rooms and sessions naming each org, the orgs a project names."""
    from vyre.models import Hub

    rooms, taught, total = figures.rooms, figures.taught, figures.total
    threshold = max(3, rooms / 2)
    out = []
    for org, degree in figures.org_rooms.items():
        sessions = figures.sessions.get(org, 0)
        by_rooms = degree >= threshold
        by_share = bool(total) and sessions / total >= 0.12
        hub = (by_rooms or by_share) and org not in taught
        why = (
            "a project names it: never a hub"
            if org in taught and (by_rooms or by_share)
            else f"in {degree} of {rooms} rooms"
            if by_rooms
            else f"in {sessions} of {count(total, 'session')}"
            if by_share
            else ""
        )
        out.append(
            Hub(
                org=figures.labels[org],
                rooms=degree,
                sessions=sessions,
                share=round(sessions / total, 3) if total else 0.0,
                hub=hub,
                why=why,
            )
        )
    return sorted(out, key=lambda h: (not h.hub, -h.rooms, -h.sessions, h.org))
