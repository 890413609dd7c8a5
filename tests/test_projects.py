"""Projects as a new user meets them: a suggested slug that `project add` takes for any folder
name; `project add` that says what it did, keeps a name it was not given, refuses a folder
another project holds, and can take one out."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from tests.transcript import Transcript
from vyre.api import Memory
from vyre.cli.main import cli
from vyre.errors import OwnerOnly, ProjectError
from vyre.rooms.names import RESERVED
from vyre.rooms.projects import SLUG, slug_for


@pytest.fixture(autouse=True)
def _owner(at_terminal):
    """The owner at a terminal: every project command here is theirs."""


def cli_run(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def sessions(tmp_path):
    root = tmp_path / "projects"
    folders = ["/home/sam/claude_p", "/home/sam/claude_p", "/w/keel", "/w/My Site.v2"]
    for n, cwd in enumerate(folders):
        t = Transcript(root, cwd=cwd, session=f"s{n}", start=f"2026-09-0{n + 1}T10:00:00Z")
        t.user("Priya Anand, the project architect at Keel & Ash Architects, sent the plans.")
        t.write()
    return root


# -- item 7: a slug for any folder name ----------------------------------------------------------


@pytest.mark.parametrize(
    ("folder", "slug"),
    [
        ("/home/sam/claude_p", "claude-p"),
        ("/w/My Site.v2", "my-site-v2"),
        ("/w/Café Düsseldorf", "cafe-dusseldorf"),
        ("/w/__init__", "init"),
        ("/w/...", "project"),
        ("/w/unfiled", "unfiled-project"),
        ("/", "home"),
        ("/w/" + "x" * 80, "x" * 63),
    ],
)
def test_a_suggested_slug_is_one_project_add_takes(folder, slug):
    assert slug_for(folder) == slug
    assert SLUG.match(slug) and slug not in RESERVED


@given(st.text(max_size=90))
def test_any_folder_name_gives_a_valid_slug(name):
    slug = slug_for("/home/sam/" + name.replace("/", ""))
    assert SLUG.match(slug) and slug not in RESERVED


def test_project_suggest_prints_a_command_that_works(sessions):
    cli_run("ingest", str(sessions))
    out = cli_run("project", "suggest").output
    assert "2 sessions  /home/sam/claude_p" in out and "1 session  /w/keel" in out
    command = re.search(r"vyre project add (\S+) --folder (\S+)", out)
    assert command and command.group(1) == "claude-p"
    done = cli_run("project", "add", command.group(1), "--folder", command.group(2))
    assert "created project claude-p" in done.output


# -- item 8: project add says what happened, refuses a taken folder, removes one ----------------


def test_adding_to_a_project_says_what_it_did_and_keeps_its_name(sessions):
    cli_run("ingest", str(sessions))
    out = cli_run("project", "add", "keel", "--name", "Keel site", "--folder", "/w/keel").output
    assert "created project keel (Keel site): folder /w/keel" in out
    again = cli_run("project", "add", "keel", "--folder", "/w/keel-old").output
    assert "project keel: added folder /w/keel-old" in again
    assert "keel: Keel site" in cli_run("project", "list").output  # the name stays
    same = cli_run("project", "add", "keel", "--folder", "/w/keel").output
    assert "project keel: nothing to change" in same


def test_a_folder_another_project_holds_is_refused_in_one_line(sessions):
    cli_run("ingest", str(sessions))
    cli_run("project", "add", "keel", "--folder", "/w/keel")
    taken = cli_run("project", "add", "other", "--folder", "/w/keel/", ok=False)
    assert taken.exit_code == 1
    assert taken.output.strip().splitlines() == [
        "Error: /w/keel is already in project 'keel' (take it out there first: "
        "vyre project add keel --remove-folder /w/keel)"
    ]
    assert "other" not in cli_run("project", "list").output  # nothing was made


def test_remove_folder_takes_one_folder_out(sessions):
    cli_run("ingest", str(sessions))
    cli_run("project", "add", "keel", "--folder", "/w/keel", "--folder", "/w/keel-old")
    out = cli_run("project", "add", "keel", "--remove-folder", "/w/keel-old").output
    assert "project keel: removed folder /w/keel-old" in out
    listing = cli_run("project", "list").output
    assert "folder /w/keel\n" in listing and "keel-old" not in listing
    missing = cli_run("project", "add", "keel", "--remove-folder", "/w/nope", ok=False)
    assert missing.output.strip() == "Error: /w/nope is not a folder of project 'keel'"


def test_the_library_says_what_changed_and_refuses_without_changing(vyre_home):
    with Memory(vyre_home) as memory:
        made = memory.project_add(
            "keel", None, ["/w/keel"], "Keel & Ash Architects", caller="local"
        )
        assert (made.created, made.name, made.added) == (True, None, ("/w/keel",))
        assert memory.projects()[0].name == "keel"  # no name given: the slug
        renamed = memory.project_add("keel", "Keel site", caller="local")
        assert (renamed.created, renamed.name, renamed.added) == (False, "Keel site", ())
        with pytest.raises(ProjectError, match="already in project 'keel'"):
            memory.project_add("other", None, ["/w/new", "/w/keel"], caller="local")
        with pytest.raises(ProjectError, match="no folder left"):
            memory.project_add("keel", remove_folders=["/w/keel"], caller="local")
        with pytest.raises(ProjectError, match="no project 'nope'"):
            memory.project_add("nope", remove_folders=["/w/keel"], caller="local")
        (keel,) = memory.projects()  # every refusal left the stores as they were
        assert (keel.slug, keel.name, keel.folders) == ("keel", "Keel site", ("/w/keel",))
        assert keel.org == "Keel & Ash Architects"


# -- item 8: project changes are the owner's, and undoable ---------------------------------------


@pytest.mark.parametrize("caller", ["hook", "mcp", "agent:claude-code"])
def test_project_changes_are_refused_for_anyone_but_the_owner(vyre_home, caller):
    with Memory(vyre_home) as memory:
        memory.project_add("keel", None, ["/w/keel"], caller="local")
        for change in (
            lambda: memory.project_add("other", None, ["/w/other"], caller=caller),
            lambda: memory.project_add("keel", "Renamed", caller=caller),
            lambda: memory.project_pick("keel", "s0", caller=caller),
            lambda: memory.project_unpick("keel", "s0", caller=caller),
            lambda: memory.project_remove("keel", caller=caller),
            lambda: memory.project_undo(caller=caller),
        ):
            with pytest.raises(OwnerOnly, match="only you can change memory"):
                change()
        (keel,) = memory.projects()
        assert (keel.slug, keel.name, keel.folders) == ("keel", "keel", ("/w/keel",))
        assert len(memory.project_history()) == 1  # the refused ones left no trace


def test_project_changes_are_refused_inside_claude_code(vyre_home, monkeypatch):
    with Memory(vyre_home) as memory:
        memory.project_add("keel", None, ["/w/keel"], caller="local")
        monkeypatch.setenv("CLAUDECODE", "1")  # a one-line Python call from the model's shell
        with pytest.raises(OwnerOnly, match="inside Claude Code"):
            memory.project_remove("keel", caller="local")
        assert [p.slug for p in memory.projects()] == ["keel"]


@pytest.mark.parametrize(
    "args",
    [
        ["project", "add", "keel", "--folder", "/w/keel"],
        ["project", "pick", "keel", "s2"],
        ["project", "unpick", "keel", "s2"],
        ["project", "remove", "keel"],
        ["project", "undo"],
    ],
    ids=" ".join,
)
def test_project_commands_without_a_terminal_are_refused_in_one_line(sessions, monkeypatch, args):
    cli_run("ingest", str(sessions))
    cli_run("project", "add", "keel", "--folder", "/w/keel")
    monkeypatch.setattr("vyre.cli.common.stdin_is_terminal", lambda: False)  # a script
    refused = cli_run(*args, ok=False)
    assert refused.exit_code == 1
    assert refused.output.strip() == (
        "Error: refused: there is no terminal on stdin; only you, at your own terminal, "
        "can change memory"
    )
    listing = cli_run("project", "list").output
    assert listing == "keel: keel\n  folder /w/keel\n"  # as it was


def test_a_removed_project_comes_back_with_its_folders_picks_and_org(sessions):
    cli_run("ingest", str(sessions))
    cli_run(
        "project", "add", "keel", "--name", "Keel", "--folder", "/w/keel", "--org", "Keel & Ash"
    )
    cli_run("project", "add", "keel", "--folder", "/w/keel-old")
    cli_run("project", "pick", "keel", "s3")
    before = cli_run("project", "list").output
    facts = cli_run("memory", "facts", "--project", "keel", "--json").output
    removed = cli_run("project", "remove", "keel").output
    assert "undo with: vyre project undo 4" in removed
    assert cli_run("project", "list").output.startswith("no projects yet")
    back = cli_run("project", "undo").output
    assert back.startswith(
        "undid change 4 (removed project keel): project keel is back as it was "
        "(2 folders, 1 picked session); derived "
    )
    assert cli_run("project", "list").output == before
    assert cli_run("memory", "facts", "--project", "keel", "--json").output == facts
    history = cli_run("project", "history").output.splitlines()
    assert [line.strip().split("  ")[1] for line in history] == [
        "created project keel",
        "project keel: added folder /w/keel-old",
        "project keel: picked s3",
        "removed project keel",
    ]
    assert history[-1].endswith("[undone today]") and history[0].endswith("[today]")


def test_undo_goes_back_one_change_at_a_time(vyre_home):
    with Memory(vyre_home) as memory:
        made = memory.project_add("keel", "Keel", ["/w/keel"], caller="local")
        more = memory.project_add("keel", "Keel site", ["/w/keel-old"], caller="local")
        same = memory.project_add("keel", folders=["/w/keel"], caller="local")
        assert same.change is None  # nothing changed: nothing to undo
        with pytest.raises(ProjectError, match=r"not as change 1 left it \(undo change 2 first"):
            memory.project_undo(made.change, caller="local")
        undone = memory.project_undo(caller="local")
        assert undone.id == more.change and undone.undone is not None
        (keel,) = memory.projects()
        assert (keel.name, keel.folders) == ("Keel", ("/w/keel",))
        with pytest.raises(ProjectError, match="undone already"):
            memory.project_undo(more.change, caller="local")
        memory.project_undo(made.change, caller="local")  # the create: the project goes
        assert memory.projects() == []
        with pytest.raises(ProjectError, match="no project change to undo"):
            memory.project_undo(caller="local")
        with pytest.raises(ProjectError, match="no project change 99"):
            memory.project_undo(99, caller="local")


def test_undo_refuses_a_folder_another_project_took_since(vyre_home):
    with Memory(vyre_home) as memory:
        memory.project_add("keel", None, ["/w/keel"], caller="local")
        gone = memory.project_remove("keel", caller="local")
        memory.project_add("harbour", None, ["/w/keel"], caller="local")
        with pytest.raises(ProjectError) as refused:
            memory.project_undo(gone.change, caller="local")
        assert str(refused.value) == (
            "cannot undo change 2: /w/keel is in project 'harbour' now (take it out there "
            "first: vyre project add harbour --remove-folder /w/keel)"
        )
        assert [p.slug for p in memory.projects()] == ["harbour"]


def test_project_history_is_kept_with_the_users_rows(vyre_home):
    from vyre.ledger import backup

    with Memory(vyre_home) as memory:
        memory.project_add("keel", None, ["/w/keel"], caller="local")
        memory.project_remove("keel", caller="local")
    _, data = backup.newest(vyre_home)
    rows = data["tables"]["project_changes"]["rows"]
    assert [r[2] for r in rows] == ["add", "remove"]


def test_a_world_is_built_from_inside_claude_code_too(tmp_path, monkeypatch):
    """`vyre demo` and the evals set up a world's projects in a home they made: no owner
    change, so they run from Claude Code's shell too (only corrections need the owner)."""
    from tests.conftest import WORLD
    from vyre.evaluate.memory import build

    monkeypatch.setenv("CLAUDECODE", "1")
    memory = build(WORLD, tmp_path / "home")
    try:
        assert {p.slug for p in memory.projects()} >= {"keel-ash", "harlow"}
        assert {h.caller for h in memory.project_history()} == {"eval-world"}
    finally:
        memory.close()
