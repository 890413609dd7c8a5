"""`memory.suggest`: the people and things memory knows, completing what the person types.

"my wi" offers "wife" with "Juno" beside it; "Jun" offers "Juno"; "Pri" offers "Priya Anand".
Personal names come from the person's own words in that room (and what they told memory);
other names from the room's graph. Answers are never suggestions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from vyre.ask import personal
from vyre.resolve import fold

if TYPE_CHECKING:
    from vyre.api import Memory


def suggestions(memory: Memory, prefix: str, *, room: str, limit: int = 8) -> list[dict]:
    from vyre.ask.answer import room_sessions

    text = fold(prefix)
    if not text.strip():
        return []
    m = re.search(r"\bmy\s+([\w-]*)$", text)
    last = text.split()[-1] if text.split() else ""
    sessions = room_sessions(memory, room)
    facts = personal.from_turns(memory.ledger, sessions, attr="name")
    facts += [f for f in personal.remembered(memory.ledger.db) if f.attr == "name"]
    ranked = personal.best(facts)
    out: list[dict] = []
    for (who, _), items in sorted(ranked.items()):
        if not who:
            continue
        value = items[0].value
        if (m and who.startswith(m.group(1))) or (not m and fold(value).startswith(last)):
            out.append(
                {"text": who if m else value, "detail": value if m else who, "kind": "personal"}
            )
    if not m and len(last) >= 2:
        labels = sorted(
            {f.subject for f in memory.facts(room) if f.rel == "is"}
            if memory.reader.rooms()
            else set()
        )
        for label in labels:
            if any(fold(w).startswith(last) for w in label.split()):
                out.append({"text": label, "detail": "", "kind": "entity"})
    seen, unique = set(), []
    for item in out:
        if item["text"] not in seen:
            seen.add(item["text"])
            unique.append(item)
    return unique[:limit]
