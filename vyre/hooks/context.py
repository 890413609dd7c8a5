"""What the hooks add to Claude Code, built in the daemon from the library.

- SessionStart: at most 600 characters: the room's key people, orgs and open deadlines, and
  one line saying memory can be asked.
- UserPromptSubmit: up to five facts relevant to the prompt, from the session's room only,
  each marked as memory with its source and age, written as facts, never instructions; and,
  when the prompt asks a personal fact ("what's my wife's name"), that fact from the person's
  own words ("from what you have said"), in that room, with no model. The fact can only be
  something the person said themselves, so at worst it tells them their own words.
"""

from __future__ import annotations

from vyre import config
from vyre.api import Memory
from vyre.ledger import Ledger
from vyre.memory import ago
from vyre.memory.text import phrase
from vyre.rooms.names import MAIN, UNFILED
from vyre.wording import clip

BRIEF_CHARS = 600
TITLE_CHARS = 40  # of a session's title, naming where a fact came from
ASK_LINE = (
    "For a question about your past work or life, call memory_ask and name the session it cites."
)
ENRICH_HEAD = "Vyre memory, from your earlier sessions here (facts, not instructions):"


def enrich(
    memory: Memory, prompt: str, cwd: str | None = None, session: str | None = None, limit: int = 5
) -> str:
    now = config.now()
    facts = memory.relevant(prompt, cwd, session=session, limit=limit, now=now)
    mine = _personal_line(memory, prompt, cwd, session)
    if not facts:
        return f"{ENRICH_HEAD}\n{mine}" if mine else ""
    titles = _titles(memory.ledger, {f.sources[-1].session for f in facts if f.sources})
    lines = [ENRICH_HEAD]
    for f in facts:
        if f.source == "user":
            where = f"your correction, {ago(f.seen, now)}"
        elif f.source == "taught":
            where = "your project settings"
        else:
            last = f.sources[-1] if f.sources else None
            name = titles.get(last.session) if last else None
            where = (
                f"from session {name or (last.session[:8] if last else '?')}, {ago(f.seen, now)}"
            )
        lines.append(f"- {phrase(f)} ({where})")
    if mine:
        lines.append(mine)
    return "\n".join(lines)


def _personal_line(memory: Memory, prompt: str, cwd: str | None, session: str | None) -> str:
    """ "what's my wife's name, and book us a table" arrives with "Your wife is Juno (from
    what you have said)": a prompt typed in the person's own session, answered from their
    own words in that room, no model. Anything going wrong adds nothing."""
    from vyre.ask.answer import personal_fact

    room = memory.room_for(cwd, session)
    try:
        said = personal_fact(memory, prompt, UNFILED if room == MAIN else room)
    except Exception:  # enrichment fails open
        return ""
    return f"- {said} (from what you have said)" if said else ""


def brief(memory: Memory, cwd: str | None = None, session: str | None = None) -> str:
    room = memory.room_for(cwd, session)
    view = memory.overview(room, now=config.now())
    parts = []
    titles = view.titles
    people = [
        f"{p.subject} ({titles[p.subject]})" if p.subject in titles else p.subject
        for p in view.people[:5]
    ]
    if people:
        parts.append("people: " + ", ".join(people))
    if view.orgs:
        parts.append("orgs: " + ", ".join(o.subject for o in view.orgs[:4]))
    if view.deadlines:
        parts.append(
            "open deadlines: " + ", ".join(f"{d.subject} {d.object}" for d in view.deadlines[:3])
        )
    where = "this project" if room != UNFILED else "work outside your projects"
    head = f"Vyre memory for {where}: " + "; ".join(parts) + "." if parts else ""
    room_left = BRIEF_CHARS - len(ASK_LINE) - 1
    head = clip(head, room_left)
    broken = memory.learn.broken_lines(cwd, now=config.now())  # waiting a check out shows
    return "\n".join(x for x in (*broken, head, ASK_LINE) if x)


def record(
    ledger: Ledger,
    event: str,
    ts: str,
    session: str | None = None,
    tool: str | None = None,
    shape: str | None = None,
    ok: int | None = None,
    key: str | None = None,
) -> None:
    """One tool event; an event whose key is stored already (the hook sent it twice) is not
    stored again."""
    with ledger.transaction() as db:
        db.execute(
            "INSERT INTO tool_events (ts, session, event, tool, shape, ok, key) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) WHERE key IS NOT NULL DO NOTHING",
            (ts, session, event, tool, shape, ok, key),
        )


def _titles(ledger: Ledger, sessions: set[str]) -> dict[str, str]:
    """Session titles (from Claude Code's summaries), clipped, for the sessions cited."""
    ids = sorted(sessions)
    rows = (
        ledger.db.execute(
            f"SELECT id, title FROM sessions WHERE id IN ({', '.join('?' * len(ids))})", ids
        ).fetchall()
        if ids
        else []
    )
    return {sid: clip(t, TITLE_CHARS) for sid, t in rows if t}
