"""Behaviour becomes a proposal without anyone saying it (ADR 0007 §7), scope widens across
projects (§8), and one hook event is one row however often it is sent."""

from __future__ import annotations

import pytest

from tests.hook_calls import hook_here, run_hook
from vyre.api import Memory
from vyre.learn.service import Learn
from vyre.ledger import Ledger


@pytest.fixture
def learn(vyre_home):
    vyre_home.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(vyre_home / "vyre.db")
    yield Learn(ledger, vyre_home)
    ledger.close()


def turned_down(cwd: str, session: str, command: str, n: int) -> dict | None:
    """A turn in which Claude Code's own prompt said no to `command` (Pre, no Post)."""
    hook_here("UserPromptSubmit", {"session_id": session, "cwd": cwd, "prompt": "go on"})
    hook_here(
        "PreToolUse",
        {
            "session_id": session,
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_use_id": f"{session}-{n}",
            "tool_input": {"command": command},
        },
    )
    return hook_here("UserPromptSubmit", {"session_id": session, "cwd": cwd, "prompt": "ok next"})


def told(answer: dict | None) -> str:
    return ((answer or {}).get("hookSpecificOutput") or {}).get("additionalContext", "")


def test_a_shape_declined_three_times_proposes_a_tool_check_at_ask(tmp_path, learn):
    cwd = str(tmp_path)
    for n, command in enumerate(["make deploy", "make deploy --prod", "/usr/bin/make deploy"]):
        answer = turned_down(cwd, f"s{n}", command, n)
        if n < 2:
            assert learn.lessons() == [] and "proposes" not in told(answer)
    (lesson,) = learn.lessons()
    assert lesson.check == {"kind": "tool", "command": {"program": "make", "sub": ["deploy"]}}
    assert (lesson.status, lesson.level, lesson.source) == ("proposed", "ask", "inferred")
    assert "proposes lesson" in told(answer) and "`make deploy`" in told(answer)
    # told in that thread: a plain yes keeps it, and the next deploy is asked
    hook_here("UserPromptSubmit", {"session_id": "s2", "cwd": cwd, "prompt": "yes"})
    assert learn.get(lesson.id).status == "active"
    asked = hook_here(
        "PreToolUse",
        {
            "session_id": "s9",
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_input": {"command": "make deploy"},
        },
    )
    assert asked["hookSpecificOutput"]["permissionDecision"] == "ask"
    declined = [s for s in learn.signals() if s.kind == "declined"]
    assert declined and all(s.meta == {"tool": "Bash", "shape": "make deploy"} for s in declined)


def test_a_shape_that_also_ran_is_not_proposed(tmp_path, learn):
    cwd = str(tmp_path)
    hook_here(
        "PostToolUse",
        {
            "session_id": "r",
            "cwd": cwd,
            "tool_name": "Bash",
            "tool_use_id": "ran",
            "tool_input": {"command": "make deploy"},
        },
    )
    for n in range(4):
        turned_down(cwd, f"s{n}", "make deploy", n)
    assert learn.lessons() == []  # the person let it run: declining is not a rule


def test_file_tools_turned_down_propose_nothing(tmp_path, learn):
    cwd = str(tmp_path)
    for n in range(3):
        hook_here("UserPromptSubmit", {"session_id": f"f{n}", "cwd": cwd, "prompt": "go"})
        hook_here(
            "PreToolUse",
            {
                "session_id": f"f{n}",
                "cwd": cwd,
                "tool_name": "Write",
                "tool_use_id": f"w{n}",
                "tool_input": {"file_path": f"{cwd}/a.py", "content": "x"},
            },
        )
        hook_here("UserPromptSubmit", {"session_id": f"f{n}", "cwd": cwd, "prompt": "next"})
    assert learn.lessons() == []


def fix_turn(cwd: str, session: str, *, rerun: bool) -> dict | None:
    base = {"session_id": session, "cwd": cwd}
    hook_here("UserPromptSubmit", {**base, "prompt": "fix the failing test"})
    hook_here(
        "PostToolUseFailure",
        {**base, "tool_name": "Bash", "tool_use_id": "t1", "tool_input": {"command": "pytest -q"}},
    )
    hook_here(
        "PostToolUse",
        {
            **base,
            "tool_name": "Edit",
            "tool_use_id": "e1",
            "tool_input": {"file_path": f"{cwd}/app.py", "old_string": "a", "new_string": "b"},
        },
    )
    if rerun:
        hook_here(
            "PostToolUse",
            {
                **base,
                "tool_name": "Bash",
                "tool_use_id": "t2",
                "tool_input": {"command": "python -m pytest -q"},
            },
        )
    hook_here("Stop", base)
    return hook_here("UserPromptSubmit", {**base, "prompt": "thanks"})


def test_a_fix_that_stopped_without_rerunning_the_tests_proposes_an_after_check(tmp_path, learn):
    answer = fix_turn(str(tmp_path), "tf", rerun=False)
    (lesson,) = learn.lessons()
    assert lesson.check == {"kind": "after", "run": {"class": "test"}}
    assert (lesson.level, lesson.source, lesson.status) == ("remind", "inferred", "proposed")
    assert "proposes lesson" in told(answer)
    assert "untested" in {s.kind for s in learn.signals()}


def test_a_fix_that_reran_the_tests_is_a_test_fix_run_and_proposes_nothing(tmp_path, learn):
    fix_turn(str(tmp_path), "ok", rerun=True)
    assert learn.lessons() == []
    assert "test-fix" in {s.kind for s in learn.signals()}


def test_a_proposal_seen_in_another_project_widens_to_all_and_says_so(tmp_path, vyre_home):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    with Memory(vyre_home) as memory:
        memory.project_add("alpha", folders=[str(a)], caller="local")
        memory.project_add("beta", folders=[str(b)], caller="local")
        learn = memory.learn
        first = learn.propose("don't touch migrations/", session="x", cwd=str(a))
        assert first.scope == "project:alpha" and first.note is None
        learn.decline(first.id, caller="local")
        again = learn.propose("don't touch migrations/", session="y", cwd=str(b))
        assert again.scope == "all" and "2 projects" in again.note
        # the user's own scope word stands
        said = learn.propose("in this repo, never edit fixtures/", session="z", cwd=str(a))
        learn.decline(said.id, caller="local")
        kept = learn.propose("in this repo, never edit fixtures/", session="w", cwd=str(b))
        assert kept.scope == "project:beta" and kept.note is None


def test_declines_in_two_projects_propose_for_every_project(tmp_path, vyre_home):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    with Memory(vyre_home) as memory:
        memory.project_add("alpha", folders=[str(a)], caller="local")
        memory.project_add("beta", folders=[str(b)], caller="local")
    turned_down(str(a), "p1", "terraform apply", 1)
    turned_down(str(a), "p2", "terraform apply", 2)
    turned_down(str(b), "p3", "terraform apply -auto-approve", 3)
    with Memory(vyre_home) as memory:
        (lesson,) = memory.learn.lessons()
    assert lesson.scope == "all" and "2 projects" in (lesson.note or "")


def test_one_tool_event_sent_twice_is_one_row_and_one_count(tmp_path, learn):
    lesson = learn.add("never push to main", caller="local")
    call = {
        "session_id": "dup",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_use_id": "toolu_same",
        "tool_input": {"command": "git push origin main"},
    }
    for _ in range(2):  # Vyre's hooks in two settings files: one call, two hook runs
        hook_here("PreToolUse", call)
    learn.drain()
    rows = learn.db.execute(
        "SELECT count(*) FROM learn_commands WHERE call = 'toolu_same'"
    ).fetchone()[0]
    caught = learn.db.execute(
        "SELECT sum(caught) FROM learn_lesson_days WHERE lesson = ?", (lesson.id,)
    ).fetchone()[0]
    assert (rows, caught) == (1, 1)


def emptied(vyre_home) -> bytes:
    """What a model would do to dodge its lessons: rewrite the snapshot with none."""
    path = vyre_home / "lessons.json"
    kept = path.read_bytes()
    path.write_text('{"v": 1, "lessons": []}')
    return kept


def test_a_snapshot_changed_while_the_daemon_runs_is_tampered_and_rewritten(
    tmp_path, vyre_home, learn
):
    from vyre.daemon import process
    from vyre.daemon.protocol import call

    learn.add("never push to main", caller="local")
    process.start(vyre_home)
    try:
        kept = emptied(vyre_home)  # after the daemon started: its start-up check has passed
        call("status", {}, caller="cli", home=vyre_home)  # any request the daemon answers
        assert (vyre_home / "lessons.json").read_bytes() == kept
        emptied(vyre_home)
        run_hook(  # a tool hook's record through the daemon notices it too
            "PostToolUse",
            {
                "session_id": "t",
                "cwd": str(tmp_path),
                "tool_name": "Bash",
                "tool_use_id": "x",
                "tool_input": {"command": "ls"},
            },
        )
        assert (vyre_home / "lessons.json").read_bytes() == kept
    finally:
        process.stop(vyre_home)
    assert [s.kind for s in learn.signals()].count("tampered") == 2


def test_a_snapshot_changed_with_no_daemon_is_caught_at_the_next_prompt(tmp_path, vyre_home, learn):
    learn.add("never push to main", caller="local")
    kept = emptied(vyre_home)
    hook_here("UserPromptSubmit", {"session_id": "p", "cwd": str(tmp_path), "prompt": "hello"})
    assert (vyre_home / "lessons.json").read_bytes() == kept
    assert [s.kind for s in learn.signals()] == ["tampered"]
    # an untouched snapshot costs the prompt nothing more
    hook_here("UserPromptSubmit", {"session_id": "p", "cwd": str(tmp_path), "prompt": "hi again"})
    assert [s.kind for s in learn.signals()] == ["tampered"]


def test_the_next_brief_in_the_project_says_a_lesson_was_broken_this_week(tmp_path, vyre_home):
    from datetime import timedelta

    from vyre import config
    from vyre.hooks import context

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    with Memory(vyre_home) as memory:
        memory.project_add("alpha", folders=[str(a)], caller="local")
        memory.project_add("beta", folders=[str(b)], caller="local")
        learn = memory.learn
        lint = learn.add(
            "always run lint after editing ts", level="ask", scope="project:alpha", caller="local"
        )
        old = learn.add("never push to main", scope="all", caller="local")
        learn.broken(lint.id)
        learn.broken(lint.id)
        learn.broken(old.id, now=config.now() - timedelta(days=8))  # last week's
        text = context.brief(memory, cwd=str(a), session="s")
        assert (
            f"lesson {lint.id} (\u201calways run lint after editing ts\u201d) was broken 2 "
            "times this week" in text
        )
        assert f"lesson {old.id}" not in text
        assert "broken" not in context.brief(memory, cwd=str(b), session="s")  # not its scope
