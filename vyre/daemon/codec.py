"""Results across the socket: library values to JSON and back, so a CLI talking to the
daemon gets the same objects as one that opened the stores itself."""

from __future__ import annotations

import dataclasses
from collections import Counter
from datetime import datetime

from pydantic import BaseModel

from vyre.ask.reply import AskReply
from vyre.memory.editing import Conflict
from vyre.models import Correction, Fact, Passage
from vyre.rooms import DeriveReport
from vyre.transcripts import IngestReport

TYPES = {
    cls.__name__: cls
    for cls in (Fact, Correction, Conflict, DeriveReport, IngestReport, AskReply, Passage)
}


def encode(value):
    if isinstance(value, BaseModel):
        return {"__t": type(value).__name__, **value.model_dump(mode="json")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__t": type(value).__name__, **fields}
    if isinstance(value, datetime):
        return {"__dt": value.isoformat()}
    if isinstance(value, Counter):
        return {"__t": "Counter", "items": dict(value)}
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else value
        return [encode(v) for v in items]
    return value


def decode(value):
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__dt" in value:
        return datetime.fromisoformat(value["__dt"])
    kind = value.get("__t")
    if kind == "Counter":
        return Counter(value["items"])
    fields = {k: decode(v) for k, v in value.items() if k != "__t"}
    if kind in TYPES:
        cls = TYPES[kind]
        if issubclass(cls, BaseModel):
            return cls.model_validate(fields)
        if kind == "IngestReport":
            fields["sessions"] = set(fields.get("sessions", []))
        return cls(**fields)
    return fields
