"""The reply of `memory.ask`, the same on every surface (the seed's contract).

{id, answer, answer_id, confidence, abstained, known[], sources[{session, seq, role, name,
quote, ts}], via: fact|retrieval|corrected|null, latency_ms, limited?, message?}
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from vyre.ask import text

ABSTAIN = "Not sure yet."
KNOWN_HEAD = "What memory does know:"
STAGES = ("understanding", "searching", "reading", "checking")


class AskSource(BaseModel):
    # Built at first use, as vyre.models' Value: `vyre ingest` loads this module and never
    # asks (0.04 s of schema and pydantic's plugin lookup at import otherwise).
    model_config = ConfigDict(frozen=True, defer_build=True)

    session: str | None  # None: the person's own correction or what they told memory
    seq: int | None
    role: str  # user | assistant | you (a correction or a remembered fact)
    name: str  # the session's title, or "your correction"
    quote: str
    ts: datetime | None


class AskReply(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str | None = None
    answer: str
    answer_id: str
    confidence: float
    abstained: bool
    known: list[str] = []
    sources: list[AskSource] = []
    via: Literal["fact", "retrieval", "corrected"] | None = None
    latency_ms: float = 0.0
    kind: str = ""
    limited: bool | None = None
    message: str | None = None

    def meta_line(self) -> str:
        """'confidence 0.8 · from 2 sessions' (or 'from what you have said')."""
        return text.meta_line(self.model_dump(mode="json"))


__all__ = ["ABSTAIN", "KNOWN_HEAD", "STAGES", "AskReply", "AskSource"]
