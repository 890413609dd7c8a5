"""The words memory is written in: every relation, kind, status, source and correction
action a fact or a decision can carry, as `Literal` types.

Standard library only (no pydantic): the MCP server and the CLI build their schemas and
choices from these before any model is loaded. `vyre.models` uses them for its fields.
"""

from __future__ import annotations

from typing import Literal

Relation = Literal[
    "is",
    "works_at",
    "has_title",
    "client_of",
    "repo_for",
    "deadline",
    "prefers",
    "decided",
    "mentioned_in",
    "has_address",
    "domain_of",
]
EntityKind = Literal["person", "org", "address", "domain", "repo"]
# What the other end of a fact can be besides an entity: a thing with a deadline, a date, a
# free value (a title), the memory's owner, an entity's kind (`is`), a session.
Kind = EntityKind | Literal["thing", "date", "value", "title", "owner", "kind", "session"]
FactStatus = Literal["", "conflict", "closed", "hub"]
FactSource = Literal["extracted", "user", "confirmed", "taught"]
CorrectionKind = Literal["correct", "pin", "mute", "merge", "split"]
CorrectionAction = Literal["wrong", "ended", "replace", "confirm", "add"]

# A fact as the user names it: its id, or (subject, relation, object) as memory spells them.
FactTarget = str | tuple[str, str, str]

ACTIONS: tuple[CorrectionAction, ...] = ("wrong", "ended", "replace", "confirm", "add")

# The kinds a relation joins, for facts the user adds that memory never saw.
RELATION_KINDS: dict[str, tuple[Kind, Kind]] = {
    "works_at": ("person", "org"),
    "has_title": ("person", "value"),
    "client_of": ("org", "owner"),
    "repo_for": ("repo", "org"),
    "deadline": ("thing", "date"),
    "prefers": ("owner", "value"),
    "decided": ("owner", "value"),
    "has_address": ("person", "address"),
    "domain_of": ("domain", "org"),
}

# How firmly a lesson is enforced, weakest first (`vyre learn`).
LessonLevel = Literal["remind", "ask", "block"]
LEVELS: tuple[LessonLevel, ...] = ("remind", "ask", "block")
# A lesson's life (ADR 0007): proposed, then active (or declined); dormant when unused;
# retired by the owner. A job waits for a distiller, which proposes a lesson or drops it.
LessonStatus = Literal["proposed", "active", "dormant", "retired", "declined"]
JobStatus = Literal["waiting", "proposed", "dropped"]
EffectVerdict = Literal["working", "not working", "measuring"]
