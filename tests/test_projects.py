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
from vyre.errors import ProjectError
from vyre.rooms.names import RESERVED
from vyre.rooms.projects import SLUG, slug_for


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
        made = memory.project_add("keel", None, ["/w/keel"], "Keel & Ash Architects")
        assert (made.created, made.name, made.added) == (True, None, ("/w/keel",))
        assert memory.projects()[0].name == "keel"  # no name given: the slug
        renamed = memory.project_add("keel", "Keel site")
        assert (renamed.created, renamed.name, renamed.added) == (False, "Keel site", ())
        with pytest.raises(ProjectError, match="already in project 'keel'"):
            memory.project_add("other", None, ["/w/new", "/w/keel"])
        with pytest.raises(ProjectError, match="no folder left"):
            memory.project_add("keel", remove_folders=["/w/keel"])
        with pytest.raises(ProjectError, match="no project 'nope'"):
            memory.project_add("nope", remove_folders=["/w/keel"])
        (keel,) = memory.projects()  # every refusal left the stores as they were
        assert (keel.slug, keel.name, keel.folders) == ("keel", "Keel site", ("/w/keel",))
        assert keel.org == "Keel & Ash Architects"
