"""The hooks as Claude Code runs them: a new process, JSON on stdin, never a broken session."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.conftest import ROOT
from vyre.daemon import process
from vyre.hooks.commands import EVENTS, SCRIPT

PAYLOADS = ROOT / "tests" / "payloads"


def hook(event: str, stdin: bytes | str, env: dict | None = None) -> subprocess.CompletedProcess:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-I", str(SCRIPT), event],
        input=data,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=30,
    )


def payload(event: str) -> bytes:
    return (PAYLOADS / f"{event}.json").read_bytes()


@pytest.fixture
def home(world_home):
    """The eval world's memory in this test's home, no daemon, read at the world's clock."""
    return world_home


@pytest.fixture
def daemon(world_daemon, monkeypatch):
    """The module's one daemon over the world; hooks run here reach it."""
    monkeypatch.setenv("VYRE_HOME", str(world_daemon))
    return world_daemon


def own_session(event: str, session: str) -> bytes:
    """The recorded payload of `event`, as sent by a session of this test's own."""
    body = json.loads(payload(event))
    body["session_id"] = session
    return json.dumps(body).encode()


@pytest.mark.parametrize("stdin", [b"", b"{not json", b"[1, 2]", b"\xff\xfe", b'"text"'])
@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart", "PreToolUse"])
def test_malformed_input_exits_0_and_adds_nothing(daemon, event, stdin):
    run = hook(event, stdin)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")


def test_unknown_event_and_missing_fields_add_nothing(daemon):
    for event, body in (
        ("NotAnEvent", payload("UserPromptSubmit")),
        ("UserPromptSubmit", b'{"session_id": "s", "cwd": "/w"}'),
        ("UserPromptSubmit", b'{"prompt": 42}'),
    ):
        run = hook(event, body)
        assert (run.returncode, run.stdout) == (0, b"")


def test_prompt_hook_adds_the_rooms_facts_in_claude_codes_format(daemon):
    body = json.loads(payload("UserPromptSubmit"))
    body["prompt"] = "Draft a note to Priya about the launch date, and cc Dana Reyes"
    run = hook("UserPromptSubmit", json.dumps(body))
    assert run.returncode == 0 and run.stderr == b""
    answer = json.loads(run.stdout)
    assert set(answer) == {"hookSpecificOutput"}
    out = answer["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    text = out["additionalContext"]
    lines = text.splitlines()
    assert lines[0].startswith("Vyre memory") and "not instructions" in lines[0]
    assert "- Priya Anand works at Keel & Ash Architects (from session" in text
    assert "- site launch is due 2026-10-09" in text
    assert 2 <= len(lines) - 1 <= 5
    # Dana Reyes is named, but she is another client's person: keel-ash never heard of her
    assert "Dana" not in text and "Harlow" not in text and "Bramble" not in text


def test_prompt_hook_outside_every_project_never_sees_a_clients_facts(daemon):
    body = json.loads(payload("UserPromptSubmit"))
    body["cwd"] = "/home/sam"
    run = hook("UserPromptSubmit", json.dumps(body))
    assert (run.returncode, run.stdout) == (0, b"")


def test_session_start_brief_fits_600_characters_and_says_memory_can_be_asked(daemon):
    run = hook("SessionStart", payload("SessionStart"))
    out = json.loads(run.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    text = out["additionalContext"]
    assert len(text) <= 600
    assert "Priya Anand (project architect)" in text and "site launch 2026-10-09" in text
    assert text.endswith("call memory_ask and name the session it cites.")


def test_with_the_daemon_down_hooks_add_nothing_and_exit_0(home):
    # how fast they are is bench/hook.py's business (daemon down: p95 < 30 ms)
    assert process.status(home) is None
    for event in EVENTS:
        run = hook(event, payload(event))
        assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")


def test_tool_events_are_recorded_without_content_through_the_daemon(daemon):
    session = f"tool-events-{uuid.uuid4()}"
    for event in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"):
        run = hook(event, own_session(event, session))
        assert (run.returncode, run.stdout) == (0, b"")  # allow by default: no decision
    rows = events(daemon, session)
    assert [(r[0], r[1], r[3]) for r in rows] == [
        ("PreToolUse", "Bash", None),
        ("PostToolUse", "Edit", 1),
        ("PostToolUseFailure", "Bash", 0),
        ("Stop", None, None),
        ("SessionEnd", None, None),
    ]
    assert all(r[4] == session for r in rows)
    dump = "\n".join(str(r) for r in rows)
    for secret in ("push", "secret_key", "priya", "contact", "npm", "failing"):
        assert secret not in dump
    # one command shape, one fingerprint: a push is a push whatever the branch
    same = json.loads(own_session("PreToolUse", session))
    same["tool_input"]["command"] = "git push origin main"
    same["tool_use_id"] = "toolu_another_call"
    hook("PreToolUse", json.dumps(same))
    assert events(daemon, session)[-1][2] == rows[0][2]


def test_tool_events_are_spooled_when_no_daemon_runs_and_land_before_anything_reads(home):
    from vyre.learn.service import Learn
    from vyre.ledger import Ledger

    run = hook("PostToolUse", payload("PostToolUse"))
    assert run.returncode == 0
    assert events(home) == []  # no SQLite on the tool hook's path: one appended line
    ledger = Ledger(home / "vyre.db")
    try:
        assert Learn(ledger, home).drain() == 2  # the tool event and the loop's own row
    finally:
        ledger.close()
    assert [(r[0], r[1], r[3]) for r in events(home)] == [("PostToolUse", "Edit", 1)]
    assert not (home / "hook-spool.jsonl").exists()


def test_vyre_hook_cli_is_the_same_code(daemon):
    vyre = shutil.which("vyre", path=str(Path(sys.executable).parent))
    run = subprocess.run(
        [vyre, "hook", "UserPromptSubmit"],
        input=payload("UserPromptSubmit"),
        capture_output=True,
        timeout=30,
    )
    fast = hook("UserPromptSubmit", payload("UserPromptSubmit"))
    assert run.returncode == 0 and run.stdout == fast.stdout


@pytest.mark.parametrize("event", EVENTS)
def test_the_fast_path_imports_only_the_standard_library(daemon, event):
    code = (
        "import sys, io; before = set(sys.modules); "
        f"sys.argv = ['x', {event!r}]; "
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({payload(event)!r})); "
        "from vyre.hooks.run import main; out = io.StringIO(); sys.stdout = out; "
        "main(sys.argv); sys.stdout = sys.__stdout__; "
        "loaded = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "print(sorted(loaded - sys.stdlib_module_names - {'vyre'})); print(out.getvalue())"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=30
    )
    outside, answer = [*run.stdout.splitlines(), "", ""][:2]
    assert (run.returncode, outside) == (0, "[]"), run.stderr
    if event == "UserPromptSubmit":  # it did the real work, through the daemon
        assert "Priya Anand" in answer


def test_pretooluse_loads_no_typing_or_collections(daemon):
    """PreToolUse runs before every tool call: its path keeps clear of the two stdlib
    modules that cost most to load (typing ~1.5 ms, collections ~1.4 ms: a bare interpreter
    starts in ~9 ms here, and bench/learn.py holds the hook within 1.7x of it)."""
    code = (
        "import sys, io; before = set(sys.modules); "
        "sys.argv = ['x', 'PreToolUse']; "
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({payload('PreToolUse')!r})); "
        "from vyre.hooks.run import main; out = io.StringIO(); sys.stdout = out; "
        "main(sys.argv); sys.stdout = sys.__stdout__; "
        "print(sorted({'typing', 'collections'} & (set(sys.modules) - before)))"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=30
    )
    assert (run.returncode, run.stdout.strip()) == (0, "[]"), run.stderr


def events(home: Path, session: str | None = None) -> list[tuple]:
    db = sqlite3.connect(home / "vyre.db")
    try:
        return db.execute(
            "SELECT event, tool, shape, ok, session FROM tool_events "
            "WHERE ? IS NULL OR session = ? ORDER BY id",
            (session, session),
        ).fetchall()
    finally:
        db.close()
