"""The hook fast path: read Claude Code's JSON on stdin, ask the daemon, answer on stdout.

Standard library only, and nothing here may break the user's session: any error, a missing
daemon or a slow one means enrichment adds nothing and the hook exits 0 at once. Tool events
are recorded for the learning loop (tool, command-shape fingerprint, success, session, time;
never file contents or command output) and always allowed: enforcement comes later.
"""

from __future__ import annotations

import os
import sys

from vyre.daemon.protocol import DaemonError, DaemonUnavailable, call, home_path
from vyre.hooks import fastjson as json

# The Claude Code hook events Vyre answers, in the order they happen in a session. They live
# here, on the fast path, and `vyre.hooks.commands` (install) takes them from here.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")  # take a tool matcher

MAX_INPUT = 4 << 20
ENRICH_TIMEOUT_S = 0.8  # the daemon answers in milliseconds; this bounds a stuck one
RECORD_TIMEOUT_S = 0.3


def main(argv: list[str]) -> int:
    try:
        event = argv[1] if len(argv) > 1 else ""
        payload = json.loads(sys.stdin.buffer.read(MAX_INPUT))
        if isinstance(payload, dict):
            answer = handle(event or str(payload.get("hook_event_name", "")), payload)
            if answer:
                sys.stdout.write(json.dumps(answer))
    except Exception:  # fail open: the session goes on without memory
        pass
    return 0


def handle(event: str, payload: dict) -> dict | None:
    if event not in EVENTS:
        return None
    session = _text(payload.get("session_id"))
    cwd = _text(payload.get("cwd"))
    if event in ("SessionStart", "UserPromptSubmit") and not (cwd and session):
        return None  # without its folder and session a prompt's room is unknown: add nothing
    if event == "SessionStart":
        return _context(event, "brief", {"cwd": cwd, "session": session})
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return None
        return _context(event, "enrich", {"prompt": prompt, "cwd": cwd, "session": session})
    record(event, payload, session)
    return None  # allow by default: no decision means Claude Code asks as it always does


def _context(event: str, op: str, args: dict) -> dict | None:
    try:
        text = call(op, args, caller="hook", timeout=ENRICH_TIMEOUT_S)
    except (DaemonUnavailable, DaemonError):
        return None
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def record(event: str, payload: dict, session: str | None) -> None:
    from datetime import UTC, datetime  # only tool events pay for these imports

    tool = _text(payload.get("tool_name")) if event in TOOL_EVENTS else None
    row = {
        "event": event,
        "session": session,
        "tool": tool,
        "shape": shape(tool, payload.get("tool_input")) if tool else None,
        "ok": {"PostToolUse": 1, "PostToolUseFailure": 0}.get(event),
        "ts": datetime.now(UTC).replace(tzinfo=None).isoformat(timespec="microseconds"),
    }
    try:
        call("record", row, caller="hook", timeout=RECORD_TIMEOUT_S)
    except DaemonUnavailable:
        _record_directly(row)  # no daemon: the ledger takes it (SQLite allows this)
    except DaemonError:
        pass


def shape(tool: str, tool_input) -> str:
    """A fingerprint of what kind of call this was: program and subcommand for a shell
    command ("git push"), the file kind for file tools. Hashed: no paths, no arguments."""
    import hashlib
    import shlex

    data = tool_input if isinstance(tool_input, dict) else {}
    if tool == "Bash":
        command = str(data.get("command", ""))
        try:
            words = shlex.split(command)
        except ValueError:  # unbalanced quotes: the plain words will do
            words = command.split()
        # leading FOO=bar assignments are not the program
        while words and "=" in words[0] and words[0].split("=")[0].isidentifier():
            words.pop(0)
        program = os.path.basename(words[0]) if words else ""
        sub = words[1] if len(words) > 1 and words[1].isalpha() else ""
        kind = f"{program} {sub}".strip()
    else:
        path = str(data.get("file_path") or data.get("path") or "")
        kind = os.path.splitext(path)[1].lower()
    return hashlib.blake2b(f"{tool}:{kind}".encode(), digest_size=6).hexdigest()


def _record_directly(row: dict) -> None:
    import sqlite3

    path = os.path.join(home_path(), "vyre.db")
    if not os.path.exists(path):
        return
    try:
        db = sqlite3.connect(path, timeout=0.1)
        with db:
            db.execute(
                "INSERT INTO tool_events (ts, session, event, tool, shape, ok) "
                "VALUES (:ts, :session, :event, :tool, :shape, :ok)",
                row,
            )
        db.close()
    except sqlite3.Error:
        pass


def _text(value) -> str | None:
    return value if isinstance(value, str) and value else None
