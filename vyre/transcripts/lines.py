"""What one transcript line becomes: a record's turns, or a counted reason it was skipped.

The path from bytes to turns is total. `parse` turns any bytes into a record, a type we never
read, or the reason the line cannot be read; `read` turns any record into a `Read` (its turns
and what it says about its session) or a reason. Nothing on this path raises for any input:
that is what lets one bad line be skipped and counted while the next line, and the next file,
are read.

What must stay true:
- A line is skipped only when nothing can be taken from it; the reason names why, and every
  reason is counted per line (`IngestReport.skipped`).
- A line with one unusable value is read without it and counted as repaired
  (`IngestReport.repaired`): a lone UTF-16 surrogate (an emoji cut in half) becomes U+FFFD; a
  timestamp that is no time (`9999-12-31T23:00:00-05:00` overflows UTC, `2026-13-45`, a number)
  leaves the turn without a time. Dropping the person's words for one bad field would lose more
  than it protects.
- Everything a `Read` carries is of the type the ledger stores (text is `str`, a time is ISO
  text within `datetime`'s range, a message id is `str` or None), so storing it cannot fail.
- Fields of the wrong type are read as absent (`classify` takes only the types it expects);
  `read` also turns any error a record's shape raises into the skip "malformed record", the net
  under the cases the mutation campaign (`bench/mutations.py`) has not met yet.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import NamedTuple

import orjson

from vyre.transcripts.classify import IGNORED, Draft, drafts
from vyre.wording import clip

# Errors a record of an unexpected shape can raise while being read. Anything else is a bug.
SHAPE_ERRORS = (
    TypeError,
    ValueError,
    AttributeError,
    KeyError,
    IndexError,
    OverflowError,
    RecursionError,
    UnicodeError,
)

# Claude Code writes compact JSON, so a record's own type appears as these bytes. Lines of
# types we never read are recognised without parsing them (half of all lines are progress).
_PROGRESS = b'"type":"progress"'
_SNAPSHOT = b'"type":"file-history-snapshot"'
_USER, _ASSISTANT, _SUMMARY = b'"type":"user"', b'"type":"assistant"', b'"type":"summary"'
# any of the three, found in one pass over the line (three `in` tests read it three times)
_READ_TYPE = re.compile(b"|".join(re.escape(t) for t in (_USER, _ASSISTANT, _SUMMARY)))


class Unread(NamedTuple):
    """A line of a type we never read, recognised by its bytes without parsing it."""

    kind: str


class Repaired(NamedTuple):
    """A record read after one repair (the reason is counted)."""

    record: dict
    reason: str


_UNREAD_PROGRESS = Unread("progress")
_UNREAD_SNAPSHOT = Unread("file-history-snapshot")

Parsed = dict | Unread | Repaired | str  # str: why the line is skipped ("empty" is not counted)


def parse(chunk: bytes, *, whole: bool = True) -> Parsed:
    """One line's bytes as a record, an `Unread` type, a `Repaired` record, or a reason.

    `whole=False` is for a last line that has no newline yet: it is parsed in full (never
    recognised by its bytes), since a half-written progress line would otherwise be taken.
    """
    if not chunk or chunk.isspace():
        return "empty"
    # a line naming a type we read is parsed: one pass finds the first such name (a user
    # record's type comes before its message, its big part), then the types we never read are
    # looked for only in lines that name none
    if whole and chunk[:1] == b"{" and _READ_TYPE.search(chunk) is None:
        if _PROGRESS in chunk:
            return _UNREAD_PROGRESS
        if _SNAPSHOT in chunk:
            return _UNREAD_SNAPSHOT
    try:
        value = orjson.loads(chunk)
    except orjson.JSONDecodeError:
        return _parse_lenient(chunk)
    return value if isinstance(value, dict) else "not a JSON object"


def _parse_lenient(chunk: bytes) -> Parsed:
    """The stdlib's reading of a line orjson refused: it accepts lone surrogates and numbers
    past 64 bits, and says plainly when the line is nested too deep or is not UTF-8."""
    try:
        value = json.loads(chunk)
    except UnicodeDecodeError:
        return "not UTF-8"
    except RecursionError:
        return "nested too deep"
    except ValueError:
        return "corrupt JSON"
    if not isinstance(value, dict):
        return "not a JSON object"
    try:
        chunk.decode()
    except UnicodeDecodeError:  # json.loads guesses UTF-16/32 from NUL bytes
        return "not UTF-8"
    if _ESCAPED_SURROGATE.search(chunk) is None:
        return value
    fixed, changed = _without_surrogates(value)
    return Repaired(fixed, "lone surrogate") if changed else value


# Only an escape can carry a lone surrogate into a line that is valid UTF-8.
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    """Lone surrogates (halves of a pair) as U+FFFD; whole pairs were joined by the parser."""
    return _SURROGATE.sub("\ufffd", text)


def _without_surrogates(value: dict) -> tuple[dict, bool]:
    """The record with every lone surrogate replaced, and whether there was one. Walked
    without recursion: the record may be nested up to the parser's limit."""
    changed = False
    root: list = [value]
    stack: list = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            if _SURROGATE.search(item):
                holder[key], changed = _clean(item), True
        elif isinstance(item, dict):
            if any(_SURROGATE.search(k) for k in item):
                item, changed = {_clean(k): v for k, v in item.items()}, True
                holder[key] = item
            stack.extend((item, k) for k in item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
    return root[0], changed


# -- records -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Read:
    """What one record gives: its turns and what it says about its session."""

    kind: str
    drafts: list[Draft] = field(default_factory=list)
    ts: str | None = None
    cwd: str | None = None
    title: str | None = None
    sidechain: bool = False
    parent: str | None = None  # the session a sidechain record says it belongs to
    uuid: str | None = None
    repaired: str | None = None  # why a value was dropped or replaced


def read(record: dict, seq: int) -> Read | str:
    """A record as a `Read`, or the reason it is skipped. Never raises."""
    try:
        return _read(record, seq)
    except SHAPE_ERRORS:
        return "malformed record"


def _read(record: dict, seq: int) -> Read | str:
    kind = record.get("type")
    if not isinstance(kind, str):
        return "unknown record type"
    uuid = _text(record.get("uuid"))
    if uuid and len(uuid.split()) != 1:  # stored space-separated: a uuid is one word
        uuid = None
    if kind in ("user", "assistant"):
        if not isinstance(record.get("message"), dict):
            return "malformed record"
        raw = record.get("timestamp")
        ts = timestamp(raw)
        out = Read(kind, ts=ts, cwd=_text(record.get("cwd")), uuid=uuid)
        if ts is None and raw is not None:
            out.repaired = "unreadable timestamp"
        if record.get("isSidechain"):
            out.sidechain = True
            out.parent = _text(record.get("sessionId"))
        out.drafts = drafts(record, seq, ts)
        return out
    if kind == "summary":
        summary = record.get("summary")
        return Read(kind, title=clip(summary, 200) if isinstance(summary, str) else None)
    if kind in IGNORED:
        return Read(kind, cwd=_text(record.get("cwd")))
    return "unknown record type"


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


# Times a transcript line can carry. Outside them a "timestamp" is noise, and later arithmetic
# (a deadline's grace, a conflict window) would overflow `datetime`.
EARLIEST = datetime(1970, 1, 1)
LATEST = datetime(9000, 1, 1)


def timestamp(value: object) -> str | None:
    """A record's timestamp as naive-UTC ISO text, or None when it is not a time."""
    if not isinstance(value, str):
        return None
    try:
        if len(value) == 24 and value[23] == "Z" and value[19] == ".":  # Claude Code's own form
            fast = datetime.fromisoformat(value[:23])  # checks it is a real time, in C
            return value[:23] + "000" if EARLIEST <= fast < LATEST else None
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None
    if not EARLIEST <= parsed < LATEST:
        return None
    return parsed.isoformat(timespec="microseconds")
