"""The learning loop's values, as every surface sees them."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from vyre.vocabulary import LEVELS as LEVELS
from vyre.vocabulary import EffectVerdict, JobStatus, LessonLevel, LessonStatus


class Lesson(BaseModel):
    id: int
    sentence: str
    check: dict
    key: str
    level: LessonLevel
    max_level: LessonLevel = "block"
    pinned: bool = False
    scope: str = "all"  # all | project:SLUG | agent:ID
    status: LessonStatus = "proposed"
    source: str = "cli"
    session: str | None = None
    created: datetime
    accepted: datetime | None = None
    retired: datetime | None = None
    first_signal: datetime | None = None
    demotion: str | None = None
    note: str | None = None  # why it has this scope or origin ("seen in 2 projects, ...")
    enforced: str = ""


class Effect(BaseModel):
    """Does a lesson work? Computed when read (ADR 0007 §9)."""

    lesson: int
    verdict: EffectVerdict
    before: float | None = None  # repeats per 100 turns, first signal to acceptance
    after: float | None = None  # escapes (broken + repeats) per 100 turns since
    turns_before: int = 0
    turns_after: int = 0
    applied: int = 0
    caught: int = 0
    broken: int = 0
    repeats: int = 0


class Signal(BaseModel):
    id: int
    ts: datetime
    kind: str
    session: str | None = None
    seq: int | None = None
    project: str | None = None
    agent: str | None = None
    key: str
    lesson: int | None = None
    meta: dict = Field(default_factory=dict)


class Job(BaseModel):
    id: int
    ts: datetime
    key: str
    text: str
    session: str | None = None
    project: str | None = None
    status: JobStatus = "waiting"
