"""Who wrote a turn (ARCHITECTURE.md "Who wrote a turn").

A turn is the person's own words (`by: person`) only when it is a user message they typed.
Never the person: tool results, `isMeta`, `isCompactSummary`, sidechain lines, slash-command
expansions, skill and hook text, system reminders, `!` shell output, `<local-command-stdout>`,
text pasted as a document. When in doubt, it is not the person.

Every record type Claude Code writes is either turned into turns here or skipped on purpose
(`IGNORED`); anything else is an unknown type, skipped and counted by the reader.
A value of an unexpected type (a number where text should be, a block that is not an object)
is read as absent: only `str` text ever reaches a turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Record types we read nothing from, on purpose, with why.
IGNORED = {
    "progress": "hook, bash and agent progress ticks",
    "file-history-snapshot": "file backups for undo",
    "queue-operation": "prompts queued while busy; they arrive again as user records",
    "system": "hook runs, durations, compaction markers: program text",
    "attachment": "hook context, skill listings, reminders: injected, not typed",
    "permission-mode": "mode switches",
    "last-prompt": "a pointer to the last prompt",
    "custom-title": "a title the user set; summary records carry titles we use",
    "agent-name": "a subagent's display name",
}

# Typed text that starts with one of these was written by Claude Code, not the person.
_PROGRAM_PREFIXES = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-prompt-submit-hook>",
    "<task-notification>",
    "Caveat: The messages below were generated",
    "[Request interrupted",
    "This session is being continued from a previous conversation",
)

# Blocks Claude Code or an IDE injects into what the person typed; removed before we judge.
_INJECTED = re.compile(
    r"<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-prompt-submit-hook)>"
    r".*?</\1>",
    re.S,
)

# A typed prompt this long is a pasted document, not the person's own sentence.
PASTED_CHARS = 4000
TOOL_TEXT_CHARS = 1000  # tool output is stored clipped; extraction sees it whole


@dataclass(slots=True)
class Draft:
    seq: int
    ts: str | None
    role: str
    by: str
    kind: str
    text: str
    sidechain: bool
    msg: str | None = None
    full_text: str | None = None  # unclipped text for extraction (tool output)
    uuids: str | None = None  # the records it was read from, space-separated


def user_text(text: str, *, meta: bool, sidechain: bool) -> tuple[str, str, str]:
    """(by, kind, text) for text in a user record."""
    if sidechain:
        return "agent", "prompt", text
    if meta:
        return "program", "meta", text
    stripped = text.lstrip()
    if stripped.startswith(_PROGRAM_PREFIXES):
        return "program", "command", text
    own = _INJECTED.sub("", text).strip()
    if not own:
        return "program", "injected", text
    if own.startswith(_PROGRAM_PREFIXES):
        return "program", "command", text
    if len(own) > PASTED_CHARS:
        return "program", "pasted", own
    return "person", "text", own


def tool_result_text(block: dict) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_texts(content))
    return ""


def _texts(blocks: list, kind: str | None = None) -> list[str]:
    """The `text` of each block (of that type, when given) that has text."""
    return [
        b["text"]
        for b in blocks
        if isinstance(b, dict)
        and (kind is None or b.get("type") == kind)
        and isinstance(b.get("text"), str)
    ]


def drafts(record: dict, seq: int, ts: str | None) -> list[Draft]:
    """The turns in one user or assistant record (empty when it holds no text)."""
    kind = record.get("type")
    sidechain = bool(record.get("isSidechain"))
    message = record.get("message")
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if kind == "assistant":
        return _assistant(message, content, seq, ts, sidechain)
    meta = bool(record.get("isMeta") or record.get("isCompactSummary"))
    if isinstance(content, str):
        by, what, text = user_text(content, meta=meta, sidechain=sidechain)
        return [Draft(seq, ts, "user", by, what, text, sidechain)] if text.strip() else []
    if not isinstance(content, list):
        return []
    blocks = [b for b in content if isinstance(b, dict)]
    results = [b for b in blocks if b.get("type") == "tool_result"]
    if results:
        full = "\n".join(tool_result_text(b) for b in results)
        return [
            Draft(
                seq,
                ts,
                "user",
                "tool",
                "tool_result",
                full[:TOOL_TEXT_CHARS],
                sidechain,
                full_text=full,
            )
        ]
    if any(b.get("type") == "document" for b in blocks):
        text = "\n".join(_texts(blocks, "text"))
        return [Draft(seq, ts, "user", "program", "document", text, sidechain)]
    text = "\n\n".join(_texts(blocks, "text"))
    if not text.strip():
        return []
    by, what, text = user_text(text, meta=meta, sidechain=sidechain)
    return [Draft(seq, ts, "user", by, what, text, sidechain)]


def _assistant(
    message: dict, content: object, seq: int, ts: str | None, sidechain: bool
) -> list[Draft]:
    msg = message.get("id")
    msg = msg if isinstance(msg, str) and msg else None
    if isinstance(content, str):
        return [Draft(seq, ts, "assistant", "agent", "text", content, sidechain, msg)]
    if not isinstance(content, list):
        return []
    texts = _texts(content, "text")
    if texts:
        text = "\n\n".join(t for t in texts if t.strip())
        return [Draft(seq, ts, "assistant", "agent", "text", text, sidechain, msg)] if text else []
    uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
    if uses:
        text = "\n".join(_tool_use_line(b) for b in uses)
        return [Draft(seq, ts, "assistant", "agent", "tool_use", text, sidechain)]
    return []  # thinking blocks stay private


def _tool_use_line(block: dict) -> str:
    name = block.get("name")
    name = name if isinstance(name, str) and name else "tool"
    data = block.get("input")
    if not isinstance(data, dict):
        data = {}
    details = (data.get(k) for k in ("command", "file_path", "pattern"))
    detail = next((d for d in details if isinstance(d, str) and d), "")
    return f"{name}: {detail[:300]}".rstrip(": ")
