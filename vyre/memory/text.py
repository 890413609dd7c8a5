"""Facts as short sentences, for people and for prompts."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from vyre.memory.decay import ago

if TYPE_CHECKING:
    from vyre.models import Fact


def phrase(f: Fact) -> str:
    """A fact as a short sentence: "Priya Anand works at Keel & Ash Architects"."""
    rel = {
        "is": "is a",
        "works_at": "works at",
        "has_title": "is",
        "client_of": "is a client of",
        "repo_for": "is the repo for",
        "deadline": "is due",
        "prefers": "prefers",
        "decided": "decided",
        "has_address": "has the address",
        "domain_of": "is the domain of",
        "mentioned_in": "was mentioned in",
    }.get(f.rel, f.rel)
    subject = "you" if f.subject == "owner" else f.subject
    obj = "you" if f.object == "owner" else f.object
    if f.rel == "has_title":
        obj = f"the {obj}"
    elif f.rel == "is":
        rel = "is an" if obj[:1] in "aeiou" else "is a"
    elif f.rel == "client_of" and f.object == "owner":
        return f"{subject} is your client"
    elif f.subject == "owner":
        rel = {"prefers": "prefer", "decided": "decided"}.get(f.rel, rel)
    return f"{subject} {rel} {obj}"


def age_note(f: Fact, at: datetime) -> str:
    if f.source == "taught":
        return "from your project settings"
    if f.source == "user":
        return f"your correction, {ago(f.seen, at)}"
    if f.source == "confirmed":
        return f"confirmed by you; last said {ago(f.seen, at)}"
    if f.rel == "deadline":
        return f"said {ago(f.seen, at)}"
    note = f"last said {ago(f.seen, at)}"
    return f"stale: {note}" if f.stale else note
