"""The loop end to end: a rule in a prompt, a yes, a denied push; weakening needs presence;
the snapshot, the ledger fallback and Stop's send-backs; the same answer with the daemon."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.hook_calls import hook_here, run_hook
from vyre.api import Memory
from vyre.errors import LearnError, OwnerOnly, WeakeningRefused
from vyre.learn.model import parse_answer
from vyre.learn.service import JOBS_CAP, Learn, reply
from vyre.ledger import Ledger


@pytest.fixture
def learn(vyre_home):
    vyre_home.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(vyre_home / "vyre.db")
    yield Learn(ledger, vyre_home)
    ledger.close()


def repo(tmp_path, branch="main"):
    path = tmp_path / "repo"
    (path / ".git").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
    return str(path)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("yes", "accept"),
        ("Yes, keep it. Now write the intro.", "accept"),
        ("yes, keep lesson 7", "accept"),
        ("keep it", "accept"),
        ("no", "decline"),
        ("nope.", "decline"),
        ("Yes we should add a test for that", None),
        ("no idea, what do you think?", None),
        ("Draft a note to Priya", None),
    ],
)
def test_a_reply_is_a_plain_yes_or_no_in_its_first_sentence(text, expected):
    assert reply(text) == expected


def test_never_push_to_main_from_prompt_to_denial_through_the_real_hook(tmp_path, vyre_home):
    Memory(vyre_home).close()  # a home with a ledger, as after `vyre ingest`
    cwd = repo(tmp_path)
    said = run_hook(
        "UserPromptSubmit", {"session_id": "s1", "cwd": cwd, "prompt": "never push to main"}
    )
    told = said["hookSpecificOutput"]["additionalContext"]
    assert "proposes lesson 1" in told and "yes" in told
    # before the yes, nothing is enforced
    assert (
        run_hook(
            "PreToolUse",
            {
                "session_id": "s1",
                "cwd": cwd,
                "tool_name": "Bash",
                "tool_input": {"command": "git push origin main"},
            },
        )
        is None
    )
    kept = run_hook("UserPromptSubmit", {"session_id": "s1", "cwd": cwd, "prompt": "yes"})
    assert "lesson 1 is on" in kept["hookSpecificOutput"]["additionalContext"]
    denied = run_hook(
        "PreToolUse",
        {
            "session_id": "s1",
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_use_id": "t1",
            "tool_input": {"command": "git push origin main"},
        },
    )
    out = denied["hookSpecificOutput"]
    assert (
        out["permissionDecision"] == "deny"
        and "never push to main" in out["permissionDecisionReason"]
    )
    assert (
        run_hook(
            "PreToolUse",
            {
                "session_id": "s1",
                "cwd": cwd,
                "tool_name": "Bash",
                "tool_input": {"command": "git push origin feature"},
            },
        )
        is None
    )
    with Memory(vyre_home) as memory:
        ((lesson, effect),) = memory.learn.stats()
    assert lesson.status == "active" and effect.caught == 1 and effect.verdict == "measuring"


def test_the_answer_is_the_same_with_the_daemon_running(tmp_path, vyre_home, learn):
    from vyre.daemon import process

    learn.add("don't use sed -i", caller="local")
    payload = {
        "session_id": "s2",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "sed -i s/a/b/ f"},
    }
    down = run_hook("PreToolUse", payload)
    process.start(vyre_home)
    try:
        up = run_hook("PreToolUse", payload)
    finally:
        process.stop(vyre_home)
    assert down == up and up["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_missing_or_broken_snapshot_falls_back_to_the_ledger(tmp_path, vyre_home, learn):
    learn.add("never use `rm -rf`", caller="local")
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "rm -fr build"},
    }
    (vyre_home / "lessons.json").unlink()
    assert hook_here("PreToolUse", payload)["hookSpecificOutput"]["permissionDecision"] == "deny"
    (vyre_home / "lessons.json").write_text("{not json")
    assert hook_here("PreToolUse", payload)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert learn.check_snapshot() is False  # tampered: signalled and rewritten
    assert [s.kind for s in learn.signals()] == ["tampered"]
    assert learn.check_snapshot() is True


def test_an_unreadable_lesson_store_denies(tmp_path, vyre_home, learn):
    learn.add("never use `rm -rf`", caller="local")
    (vyre_home / "lessons.json").unlink()
    (vyre_home / "vyre.db").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        (vyre_home / f"vyre.db{suffix}").unlink(missing_ok=True)
    out = run_hook(
        "PreToolUse",
        {
            "session_id": "s",
            "cwd": str(tmp_path),
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        },
    )
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "could not check" in out["hookSpecificOutput"]["permissionDecisionReason"]


def test_weakening_needs_presence_and_tightening_is_free(learn):
    lesson = learn.add("don't touch migrations/", level="ask", caller="local")
    assert learn.edit(lesson.id, caller="agent:x", level="block").level == "block"
    with pytest.raises(WeakeningRefused, match="vyre learn relax"):
        learn.edit(lesson.id, caller="cli", level="remind")
    with pytest.raises(OwnerOnly):
        learn.relax(lesson.id, caller="mcp", level="remind")
    with pytest.raises(OwnerOnly):
        learn.retire(lesson.id, caller="hook")
    assert learn.relax(lesson.id, caller="local", level="remind").level == "remind"
    assert learn.retire(lesson.id, caller="local").status == "retired"
    assert json.loads((learn.home / "lessons.json").read_text())["lessons"] == []


def test_inside_claude_code_the_library_refuses_owner_actions(learn, monkeypatch):
    """The hole a new user found: CLAUDECODE=1, no terminal, one line of Python."""
    lesson = learn.add("never push to main", caller="local")
    monkeypatch.setenv("CLAUDECODE", "1")
    with pytest.raises(OwnerOnly, match="inside Claude Code"):
        learn.retire(lesson.id, caller="local")
    with Memory(learn.home) as memory, pytest.raises(OwnerOnly, match="inside Claude Code"):
        memory.correct("Priya Anand", "wrong", caller="local")
    code = (
        "from vyre.api import Memory; from vyre.learn.service import Learn; "
        "m = Memory(); m.learn.retire(1, caller='local')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "CLAUDECODE": "1"},
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode != 0 and "inside Claude Code" in out.stderr
    # a child that drops the variable is still inside: its parent carries it
    import shlex

    shell = f"env -u CLAUDECODE {sys.executable} -c {shlex.quote(code)}; echo rc=$?"
    out = subprocess.run(
        ["sh", "-c", shell], capture_output=True, text=True, env={**os.environ, "CLAUDECODE": "1"}
    )
    assert "rc=1" in out.stdout and "inside Claude Code" in out.stderr
    monkeypatch.delenv("CLAUDECODE")
    assert learn.get(lesson.id).status == "active"


def test_a_sentence_no_shape_fits_waits_as_a_job(learn):
    assert learn.propose("Never be rude to the client, please.") is not None
    assert learn.propose("Draft a note to Priya") is None  # not a rule at all
    assert [j.text for j in learn.jobs()] == ["Never be rude to the client, please."]
    with pytest.raises(LearnError, match="no check shape fits"):
        learn.add("never be rude to the client", caller="local")
    for i in range(JOBS_CAP + 5):
        learn.propose(f"always be kind to teammate number {i}")
    assert len(learn.jobs()) == JOBS_CAP


def test_a_model_distiller_only_ever_proposes_valid_checks(learn):
    class Fake:
        def __init__(self, answers):
            self.answers = answers

        def distill(self, text):
            return self.answers.pop(0)

    learn.propose("always be careful with the prod database")
    learn.propose("never be harsh with the staging cluster")
    made = learn.run_jobs(Fake([{"kind": "path", "paths": ["prod/"]}, {"kind": "tool"}]))
    assert [(x.status, x.level, x.source) for x in made] == [("proposed", "ask", "model")]
    assert {j.status for j in learn.jobs("dropped")} == {"dropped"}
    assert parse_answer('```json\n{"kind": "path", "paths": ["x/"]}\n```') == {
        "kind": "path",
        "paths": ["x/"],
    }
    assert parse_answer("sure! here you go") is None


def test_stop_sends_back_twice_then_the_lesson_is_broken_and_escalates(tmp_path, vyre_home, learn):
    lesson = learn.add("always run lint after editing ts", level="ask", caller="local")
    assert lesson.check["kind"] == "after"
    cwd = str(tmp_path)
    base = {"session_id": "s3", "cwd": cwd}
    hook_here("UserPromptSubmit", {**base, "prompt": "Fix the header"})
    hook_here(
        "PostToolUse",
        {
            **base,
            "tool_name": "Edit",
            "tool_use_id": "e1",
            "tool_input": {"file_path": f"{cwd}/src/a.ts", "old_string": "a", "new_string": "b"},
        },
    )
    first = hook_here("Stop", {**base, "stop_hook_active": False})
    assert first["decision"] == "block" and "lint" in first["reason"]
    second = hook_here("Stop", {**base, "stop_hook_active": True})
    assert second["decision"] == "block"
    assert hook_here("Stop", {**base, "stop_hook_active": True}) is None  # the cap
    assert learn.get(lesson.id).level == "block"  # broken, so it escalated
    opened = hook_here("UserPromptSubmit", {**base, "prompt": "Now the footer"})
    assert "broken" in opened["hookSpecificOutput"]["additionalContext"]
    # a turn that runs the linter after its edit owes nothing
    hook_here(
        "PostToolUse",
        {
            **base,
            "tool_name": "Edit",
            "tool_use_id": "e2",
            "tool_input": {"file_path": f"{cwd}/src/b.ts", "old_string": "a", "new_string": "b"},
        },
    )
    hook_here(
        "PostToolUse",
        {
            **base,
            "tool_name": "Bash",
            "tool_use_id": "b1",
            "tool_input": {"command": "npm run lint"},
        },
    )
    assert hook_here("Stop", base) is None


def test_run_x_before_y_is_enforced_when_y_is_attempted(tmp_path, learn):
    learn.add("run the tests before pushing", caller="local")
    cwd = str(tmp_path)
    base = {"session_id": "s4", "cwd": cwd}
    push = {**base, "tool_name": "Bash", "tool_input": {"command": "git push origin feature"}}
    assert hook_here("PreToolUse", push)["hookSpecificOutput"]["permissionDecision"] == "deny"
    hook_here(
        "PostToolUse",
        {**base, "tool_name": "Bash", "tool_use_id": "t", "tool_input": {"command": "pytest -q"}},
    )
    assert hook_here("PreToolUse", push) is None
    both = {**base, "tool_name": "Bash", "tool_input": {"command": "npm test && git push"}}
    assert hook_here("PreToolUse", both) is None
    hook_here(
        "PostToolUse",
        {
            **base,
            "tool_name": "Write",
            "tool_use_id": "w",
            "tool_input": {"file_path": f"{cwd}/x.py", "content": "x"},
        },
    )
    assert hook_here("PreToolUse", push)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_declined_call_and_a_reverted_file_become_signals(tmp_path, learn):
    cwd = str(tmp_path)
    target = tmp_path / "a.txt"
    target.write_text("old")
    base = {"session_id": "s5", "cwd": cwd}
    hook_here(
        "PreToolUse",
        {
            **base,
            "tool_name": "Bash",
            "tool_use_id": "d1",
            "tool_input": {"command": "make deploy"},
        },
    )
    edit = {
        "tool_name": "Write",
        "tool_use_id": "w1",
        "tool_input": {"file_path": str(target), "content": "new"},
    }
    hook_here("PreToolUse", {**base, **edit})
    target.write_text("new")
    hook_here("PostToolUse", {**base, **edit})
    target.write_text("old")  # the user put it back
    hook_here("UserPromptSubmit", {**base, "prompt": "never mind, stop using make deploy"})
    kinds = sorted(s.kind for s in learn.signals())
    assert "declined" in kinds and "reverted" in kinds


def test_a_sentence_that_names_a_project_is_scoped_to_it(tmp_path, vyre_home):
    """ "never push to main on kiln" holds in kiln only, however the project is named: its
    slug or one of its folders; the sentence's own scope words still win."""
    memory = Memory(vyre_home)
    kiln = tmp_path / "code" / "kiln"
    memory.project_add(
        "acme-kiln", "Acme Kiln", [str(kiln), str(tmp_path / "kiln-infra")], caller="local"
    )
    memory.project_add("garden", "garden", [str(tmp_path / "garden")], caller="local")
    learn = memory.learn
    said_in = str(tmp_path / "garden")
    assert learn.add("never push to main on kiln, PRs only", caller="local", cwd=said_in).scope == (
        "project:acme-kiln"
    )
    assert learn.add("don't run make deploy for acme-kiln.", caller="local").scope == (
        "project:acme-kiln"
    )
    assert learn.add("no sed -i in kiln, anywhere", caller="local").scope == "all"
    # a project word that is only part of a phrase names no project
    assert learn.add("in garden beds never use rm -rf", caller="local").scope == "all"


@pytest.mark.parametrize(
    "column,value,said",
    [
        ("status", "archived", "a status 'archived' this version of Vyre does not read"),
        ("level", "shout", "a level 'shout' this version of Vyre does not read"),
        ("check_json", "{not json", "cannot be read (JSONDecodeError)"),
        ("created", "the ninth of May", "cannot be read (ValueError)"),
        ("check_json", '{"kind": "tool"}', "cannot be read (KeyError)"),
    ],
)
def test_a_lesson_row_this_version_cannot_read_is_one_line_naming_it(learn, column, value, said):
    """A row a newer Vyre (or a hand) wrote: `vyre learn show` says which lesson and why in one
    line and exits 1, where it printed pydantic's traceback; the other rows stay as they were."""
    from click.testing import CliRunner

    from vyre.cli.main import cli

    kept = learn.add("never use `rm -rf`", caller="local")
    odd = learn.add("never push to main", caller="local")
    learn.db.execute(f"UPDATE lessons SET {column} = ? WHERE id = ?", (value, odd.id))
    learn.db.commit()
    with pytest.raises(LearnError, match=f"lesson {odd.id} in the ledger"):
        learn.lessons()
    result = CliRunner().invoke(cli, ["learn", "show"])
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"lesson {odd.id} in the ledger" in lines[0], result.output
    assert said in lines[0]
    assert learn.get(kept.id).sentence == "never use `rm -rf`"
