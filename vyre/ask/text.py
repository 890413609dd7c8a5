"""An ask reply as people read it. Standard library only: the CLI's fast path prints a reply
straight from the daemon's JSON with it, without loading pydantic or click."""

from __future__ import annotations

from vyre.wording import clip

SHOWN_SOURCES = 3
QUOTE_SHOWN = 140  # characters of a source's quote on one line


def meta_line(reply: dict) -> str:
    """'confidence 0.8 · from 2 sessions' (or 'from what you have said')."""
    if reply.get("abstained"):
        return ""
    if reply.get("via") == "corrected":
        return "you corrected this"
    sessions = {s["session"] for s in reply.get("sources", []) if s.get("session")}
    if (reply.get("via") == "fact" and reply.get("kind") == "personal") or not sessions:
        where = "from what you have said"
    else:
        where = f"from {len(sessions)} session{'s' if len(sessions) != 1 else ''}"
    return f"confidence {reply.get('confidence', 0):.2g} · {where}"


def lines(reply: dict, *, all_sources: bool = False) -> list[str]:
    """The answer; how sure and where from; up to three sources (or all); or "Not sure
    yet." with what memory does know."""
    out = [reply["answer"]]
    if reply.get("abstained"):
        return out
    out.append(f"{meta_line(reply)} · answer {reply['answer_id']}")
    sources = reply.get("sources", [])
    shown = sources if all_sources else sources[:SHOWN_SOURCES]
    for s in shown:
        when = (s.get("ts") or "")[:10]
        where = f"{s['name']} #{s['seq']}" if s.get("session") else s["name"]
        out.append(f'  - {where}  {when}  "{clip(s.get("quote", ""), QUOTE_SHOWN)}"')
    if len(sources) > len(shown):
        out.append(f"  ({len(sources) - len(shown)} more: --sources)")
    return out
