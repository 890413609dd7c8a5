"""The CLI, through click's CliRunner and real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT, WORLD
from tests.transcript import Transcript
from vyre.cli.main import cli


@pytest.fixture
def run(at_terminal):
    def invoke(*args, ok=True):
        result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return invoke


@pytest.fixture
def projects(tmp_path):
    root = tmp_path / "projects"
    t = Transcript(root, cwd="/w/keel", session="k1", start="2026-09-01T10:00:00Z")
    t.user(
        "Priya Anand, the project architect at Keel & Ash Architects, sent the plans. "
        "The site launches October 9."
    )
    t.assistant("I'll draft a reply to Priya Anand.")
    t.write()
    return root


def test_ingest_prints_files_turns_and_skips(run, projects):
    out = run("ingest", str(projects)).output
    assert "1 file (1 with new lines), 2 new turns (agent 1, person 1); skipped 0 lines" in out
    assert "derived 1 room, " in out


def test_ingest_reads_claude_config_dir_by_default(run, projects, monkeypatch, tmp_path):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path))
    assert "2 new turns" in run("ingest").output


def test_missing_root_is_one_line_and_non_zero(run, tmp_path):
    result = run("ingest", str(tmp_path / "nope"), ok=False)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"Error: no Claude Code projects folder at {tmp_path / 'nope'}"
    ]


def test_projects_add_list_pick_unpick_remove(run, projects):
    run("ingest", str(projects))
    out = run(
        "project",
        "add",
        "keel",
        "--name",
        "Keel site",
        "--folder",
        "/w/keel",
        "--org",
        "Keel & Ash Architects",
    ).output
    assert "/w/keel does not exist on this machine" in out
    listing = run("project", "list").output
    assert "keel: Keel site for Keel & Ash Architects" in listing and "folder /w/keel" in listing
    run("project", "add", "other", "--folder", "/w/other")
    assert "picked k1 into other" in run("project", "pick", "other", "k1").output
    assert "picked k1" in run("project", "list").output
    run("project", "unpick", "other", "k1")
    run("project", "remove", "other")
    assert "other" not in run("project", "list").output


@pytest.mark.parametrize(
    "args",
    [
        ["project", "pick", "nope", "k1"],
        ["project", "remove", "nope"],
        ["memory", "facts", "--room", "nope"],
        ["memory", "--project", "nope"],
    ],
)
def test_unknown_project_is_one_line_and_non_zero(run, projects, args):
    run("ingest", str(projects))
    result = run(*args, ok=False)
    assert result.exit_code == 1
    assert result.output.strip() == "Error: no project 'nope' (see `vyre project list`)"


def test_bad_slug_is_refused(run):
    result = run("project", "add", "Bad Slug", "--folder", "/w", ok=False)
    assert result.exit_code == 1 and "bad project slug" in result.output


def test_project_suggest_lists_busy_folders_without_a_project(run, projects):
    run("ingest", str(projects))
    out = run("project", "suggest").output
    assert "1 session  /w/keel" in out
    assert "vyre project add keel --folder /w/keel" in out


def test_facts_json_has_the_documented_shape(run, projects, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", "2026-10-01T12:00:00Z")
    run("ingest", str(projects))
    facts = json.loads(run("memory", "facts", "--room", "unfiled", "--json").output)
    works = next(f for f in facts if f["rel"] == "works_at")
    assert {
        "subject",
        "subject_kind",
        "rel",
        "object",
        "object_kind",
        "room",
        "confidence",
        "fresh",
        "stale",
        "seen",
        "sources",
    } <= set(works)
    assert (works["subject"], works["object"], works["room"]) == (
        "Priya Anand",
        "Keel & Ash Architects",
        "unfiled",
    )
    assert works["sources"][0]["session"] == "k1" and works["sources"][0]["seq"] == 0
    assert "project architect" in works["sources"][0]["quote"]


def test_vyre_now_moves_the_clock_for_reads(run, projects, monkeypatch):
    run("ingest", str(projects))
    monkeypatch.setenv("VYRE_NOW", "2027-09-01T00:00:00Z")
    facts = json.loads(run("memory", "facts", "--room", "unfiled", "--json").output)
    works = next(f for f in facts if f["rel"] == "works_at")
    assert works["stale"] is True and works["fresh"] < 0.5
    assert not any(f["rel"] == "deadline" for f in facts)  # October 9, 2026 has passed


def test_about_why_relevant_and_overview(run, projects, monkeypatch):
    monkeypatch.setenv("VYRE_NOW", "2026-10-01T12:00:00Z")
    run("ingest", str(projects))
    about = run("memory", "about", "Priya").output
    assert about.startswith("Priya Anand (person)")
    assert "Priya Anand works at Keel & Ash Architects" in about
    why = run("why", "Priya Anand", "has_title").output
    assert "has_title.appositive" in why and "session k1 #0" in why
    assert '"Priya Anand, the project architect at Keel & Ash Architects, sent the plans."' in why
    rel = json.loads(
        run(
            "memory", "relevant", "Email Priya about the launch", "--cwd", "/w/keel", "--json"
        ).output
    )
    assert sorted(f["rel"] for f in rel) == ["deadline", "has_title", "works_at"]
    overview = run("memory").output
    assert "1 person" in overview and "Priya Anand" in overview


def test_about_someone_unknown_is_one_line(run, projects):
    run("ingest", str(projects))
    result = run("memory", "about", "Nobody Here", ok=False)
    assert result.exit_code == 1
    assert result.output.strip() == "Error: memory knows nobody called 'Nobody Here' here"


def test_a_store_held_by_another_process_is_one_line(run, projects, tmp_path):
    run("ingest", str(projects))
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from vyre.api import Memory; m = Memory(); m.store; "
            "print('held', flush=True); time.sleep(30)",
        ],
        cwd=ROOT,
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        result = run("memory", "facts", ok=False)
        assert result.exit_code == 1
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "in use by another process" in lines[0]
    finally:
        holder.kill()
        holder.wait()


def test_demo_runs_from_a_fresh_home(tmp_path):
    env = {**os.environ, "VYRE_HOME": str(tmp_path / "ignored")}
    run = subprocess.run(
        [sys.executable, "-m", "vyre.cli.main", "demo", "--home", str(tmp_path / "demo")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Loaded the memory world (39 sessions, 5 projects)" in out
    assert "Priya Anand works at Keel & Ash Architects" in out
    assert "works_at.appositive" in out  # the provenance walk
    assert "site launch is due 2026-10-09" in out  # what the hook would add
    assert "conflict" in out  # two Dana Reyes, one per project


def test_eval_memory_check_passes_on_the_bundled_world(run):
    out = run(
        "eval",
        "memory",
        "--world",
        str(WORLD),
        "--check",
        "--baseline",
        str(ROOT / "eval" / "baseline.json"),
    ).output
    assert "leakage 0" in out


def test_eval_rejects_a_folder_that_is_not_a_world(run, tmp_path):
    result = run("eval", "memory", "--world", str(tmp_path), ok=False)
    assert result.exit_code == 1
    assert "is not an eval world: world.json is missing" in result.output
