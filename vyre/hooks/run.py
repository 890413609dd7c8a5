"""The hook fast path: read Claude Code's JSON on stdin, ask the daemon, answer on stdout.

Standard library only, and nothing here may break the user's session: any error, a missing
daemon or a slow one means enrichment adds nothing and the hook exits 0 at once. Tool events
are recorded for the learning loop (tool, command-shape fingerprint, success, session, time;
never file contents or command output). Enforcement (`vyre.learn.hook`) fails closed instead:
PreToolUse judges guards and lessons in this process and denies when it cannot judge; Stop
sends the assistant back for an owed `after` command.
"""

from __future__ import annotations

import os
import sys

from vyre.daemon.protocol import call
from vyre.errors import DaemonUnavailable, VyreError
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
        lessons = _learn_prompt(prompt, cwd, session)
        facts = _context(event, "enrich", {"prompt": prompt, "cwd": cwd, "session": session})
        return _joined(event, lessons, facts)
    from vyre.learn import hook as learn

    # one round trip (or one spooled write) carries the tool event and the loop's own rows
    answer = None
    words = _words(event, payload)  # the command is parsed once for both rows
    tool_event = event_row(event, payload, session, words)
    key = tool_event["key"]  # the loop's rows and the tool event are one event, one key
    if event == "PreToolUse":
        answer, row = learn.pre_tool(payload, session)
        learn.record([_keyed(row, tool_event, words)], tool_event=tool_event)
    elif event in ("PostToolUse", "PostToolUseFailure"):
        row = learn.post_tool(payload, session, 1 if event == "PostToolUse" else 0)
        learn.record([_keyed(row, tool_event, words)], tool_event=tool_event)
    elif event == "Stop":
        answer, rows = learn.stop(payload, session)
        for n, row in enumerate(rows):
            row["event_key"] = f"{key}:{n}"
        learn.record(rows, tool_event=tool_event, direct=True)
    else:
        record(event, payload, session)
    return answer  # no decision means Claude Code asks as it always does


def _keyed(row: dict, tool_event: dict, words: str | None) -> dict:
    """The call's shape (its fingerprint, so repeats of one kind of call are counted, and its
    words, so a shape turned down again and again can become a check) and the event's key."""
    row["event_key"] = tool_event["key"]
    row["key"], row["shape"] = tool_event["shape"], words
    return row


def _words(event: str, payload: dict) -> str | None:
    tool = _text(payload.get("tool_name")) if event in TOOL_EVENTS else None
    try:
        return shape_words(tool, payload.get("tool_input")) if tool else None
    except Exception:  # a row without a shape is still a row
        return None


def _learn_prompt(prompt: str, cwd: str | None, session: str | None) -> str:
    """The learning loop's part of a prompt: a reply to a proposal, a rule heard, a lesson
    broken last turn. Through the daemon, else in this process (only when the prompt could
    matter: cue words, or a proposal waiting for a reply)."""
    try:
        return (
            call(
                "learn_prompt",
                {"prompt": prompt, "cwd": cwd, "session": session},
                caller="hook",
                timeout=ENRICH_TIMEOUT_S,
            )
            or ""
        )
    except DaemonUnavailable:
        from vyre.learn.prompt import here

        try:
            return here(prompt, cwd or "", session or "")
        except Exception:  # the prompt goes on without the loop's note
            return ""
    except VyreError:
        return ""


def _joined(event: str, lessons: str, facts: dict | None) -> dict | None:
    text = facts["hookSpecificOutput"]["additionalContext"] if facts else ""
    both = "\n\n".join(t for t in (lessons, text) if t)
    if not both:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": both}}


def _context(event: str, op: str, args: dict) -> dict | None:
    try:
        text = call(op, args, caller="hook", timeout=ENRICH_TIMEOUT_S)
    except VyreError:
        return None
    if not text:
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def event_row(event: str, payload: dict, session: str | None, words: str | None = None) -> dict:
    """The `tool_events` row for one hook event: tool, shape fingerprint, success, time."""
    from vyre.learn.hook import now_text  # `time`, not `datetime`: this is the tool hooks' path

    tool = _text(payload.get("tool_name")) if event in TOOL_EVENTS else None
    if words is None:
        words = _words(event, payload)
    return {
        "event": event,
        "session": session,
        "tool": tool,
        "shape": _fingerprint(tool, words) if tool and words is not None else None,
        "ok": {"PostToolUse": 1, "PostToolUseFailure": 0}.get(event),
        "ts": now_text(),
        "key": event_key(event, session, payload),
    }


def event_key(event: str, session: str | None, payload: dict) -> str:
    """One key per event, whichever way it is stored: a hook that gave up on a slow daemon
    and spooled the event leaves one row, not two. A tool call's own id makes the same call's
    event one row however many times it is sent (Vyre's hooks installed in two settings
    files); an event without one gets a key of its own. Ids only, no content."""
    use = payload.get("tool_use_id")
    if isinstance(use, str) and use:
        return f"{event}:{session or ''}:{use}"
    return f"{event}:{os.urandom(12).hex()}"


def record(event: str, payload: dict, session: str | None) -> None:
    row = event_row(event, payload, session)
    try:
        call("record", row, caller="hook", timeout=RECORD_TIMEOUT_S)
    except DaemonUnavailable:
        from vyre.learn.hook import spool

        spool("tool", [row])  # no daemon: the spool, drained into the ledger before it is read
    except VyreError:
        pass


def shape(tool: str, tool_input: object) -> str:
    """A fingerprint of what kind of call this was (see `shape_words`), hashed."""
    return _fingerprint(tool, shape_words(tool, tool_input))


def shape_words(tool: str, tool_input: object) -> str:
    """What kind of call this was, in words: program and subcommand for a shell command
    ("git push"), the file kind for file tools (".py"), nothing for other tools. No paths,
    no arguments. Read by the learning loop's shell parser (no `shlex`, so no `re`)."""
    data = tool_input if isinstance(tool_input, dict) else {}
    if tool == "Bash":
        from vyre.learn.shell import parse

        commands = parse(str(data.get("command", "")), "/", {}).commands
        words = [w.text for w in commands[0].argv] if commands else []  # VAR=x already gone
        program = os.path.basename(words[0]) if words else ""
        sub = words[1] if len(words) > 1 and words[1].isalpha() else ""
        return f"{program} {sub}".strip()
    path = str(data.get("file_path") or data.get("path") or "")
    return os.path.splitext(path)[1].lower()


def _fingerprint(tool: str, words: str) -> str:
    import _blake2

    return _blake2.blake2b(f"{tool}:{words}".encode(), digest_size=6).hexdigest()


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
