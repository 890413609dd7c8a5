"""A picture of a room: people ↔ orgs ↔ repos, drawn as SVG on the server.

Three columns (people, orgs, repos) and a line for each open `works_at` and `repo_for`: a
room's shape at a glance, which a list does not give. Deterministic (sorted by name), no
script, no layout engine; a room with more than `MOST` of either kind draws its most
connected ones and says how many it left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from html import escape

from vyre.models import Fact
from vyre.wording import clip, count

MOST = 14
ROW = 28
COLUMNS = {"person": 20, "org": 300, "repo": 580}
BOX_W = 220
NAME_CHARS = 30  # what a box holds


@dataclass
class Picture:
    svg: str
    caption: str


def room_svg(facts: list[Fact]) -> Picture | None:
    edges = [
        (f.subject, f.subject_kind, f.object, f.object_kind)
        for f in facts
        if f.rel in ("works_at", "repo_for") and f.status != "closed"
    ]
    if not edges:
        return None
    degree: Counter = Counter()
    for s, sk, o, ok in edges:
        degree[(s, sk)] += 1
        degree[(o, ok)] += 1
    shown: dict[str, list[str]] = {}
    left_out = 0
    for kind in COLUMNS:
        names = sorted((n for n, k in degree if k == kind), key=lambda n: (-degree[(n, kind)], n))
        left_out += max(0, len(names) - MOST)
        shown[kind] = sorted(names[:MOST], key=str.casefold)
    place = {
        (name, kind): (COLUMNS[kind], 30 + i * ROW)
        for kind, names in shown.items()
        for i, name in enumerate(names)
    }
    height = 40 + ROW * max(len(v) for v in shown.values())
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 820 {height}" width="820" '
        f'height="{height}" role="img" aria-labelledby="room-title">',
        '<title id="room-title">Who works where, and which repo is whose</title>',
    ]
    for label, x in (("People", 20), ("Orgs", 300), ("Repos", 580)):
        parts.append(f'<text x="{x}" y="16" font-weight="700">{label}</text>')
    for s, sk, o, ok in sorted(set(edges)):
        a, b = place.get((s, sk)), place.get((o, ok))
        if a and b:
            left, right = (a, b) if a[0] < b[0] else (b, a)
            parts.append(
                f'<line x1="{left[0] + BOX_W}" y1="{left[1] + 9}" x2="{right[0]}" '
                f'y2="{right[1] + 9}"/>'
            )
    for (name, _), (x, y) in sorted(place.items()):
        parts.append(f'<rect x="{x}" y="{y - 4}" width="{BOX_W}" height="22" rx="3"/>')
        parts.append(f'<text x="{x + 6}" y="{y + 12}">{escape(clip(name, NAME_CHARS))}</text>')
    parts.append("</svg>")
    caption = count(len(edges), "link") + (
        f"; {count(left_out, 'less-linked name')} not drawn" if left_out else ""
    )
    return Picture("".join(parts), caption)
