"""Every user-decision command from the CLI, as the owner at a terminal.

The first decision goes through a real process with a pty on stdin (what makes the CLI the
owner); the rest run in process with `at_terminal`, where a new interpreter per command would
only pay the import again (test_corrections also runs the owner's CLI at a real pty)."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tests.conftest import ROOT
from vyre.cli.main import cli

KEEL = "/home/sam/work/keel-ash"


def at_a_pty(*args: str) -> str:
    """Run `vyre ARGS` in a process with a terminal on stdin, outside Claude Code."""
    env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
    primary, secondary = pty.openpty()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "vyre.cli.main", *args],
            stdin=secondary,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
        )
    finally:
        os.close(primary)
        os.close(secondary)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def vyre(*args: str) -> str:
    """`vyre ARGS` in process, stdin taken for a terminal (`at_terminal`); returns stdout."""
    run = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert run.exit_code == 0, run.output
    return run.stdout


@pytest.fixture
def demo(world_home, at_terminal):
    return world_home


def ids(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"(?:correction|pin|mute|merge|split) (\d+):", text)]


def works_at_harlow() -> str:
    """Marcus Bell's works_at line in `memory about`, with its marks."""
    about = vyre("memory", "about", "Marcus Bell", "--project", "harlow")
    (line,) = [line for line in about.splitlines() if "Marcus Bell works at Harlow Legal" in line]
    return line


def test_the_whole_loop_of_decisions_from_the_cli(demo):
    conflicts = vyre("memory", "conflicts")
    assert conflicts.startswith("Same Dana Reyes?")
    assert 'vyre memory split "Dana Reyes" --room bramble' in conflicts

    split = at_a_pty("memory", "split", "Dana Reyes", "--room", "bramble")
    assert "split 1: split Dana Reyes in bramble" in split
    assert vyre("memory", "conflicts").strip() == "no conflicts"

    fact = next(
        f
        for f in json.loads(vyre("memory", "facts", "--room", "harlow", "--json"))
        if f["subject"] == "Marcus Bell" and f["rel"] == "works_at"
    )
    ended = vyre(
        "memory",
        "correct",
        fact["id"],
        "--action",
        "ended",
        "--at",
        "2026-09-30",
        "--note",
        "left in September",
    )
    assert "correction 2: ended: Marcus Bell works_at Harlow Legal (at 2026-09-30)" in ended
    assert "closed" in works_at_harlow()

    vyre(
        "memory",
        "correct",
        "Priya Anand",
        "has_title",
        "project architect",
        "--action",
        "replace",
        "--object",
        "lead architect",
        "--scope",
        "project",
        "--project",
        "keel-ash",
    )
    about = vyre("memory", "about", "Priya", "--project", "keel-ash")
    assert "Priya Anand is the lead architect" in about and "your correction, today" in about

    prompt = ("memory", "relevant", "Email Jonas Eberhardt about the plans", "--cwd", KEEL)
    before = vyre(*prompt).splitlines()
    assert before[0].startswith("- Jonas Eberhardt works at")  # the title ranks below it
    assert any("jonas@keelash.com" in line for line in before)
    pinned = vyre("memory", "pin", "Jonas Eberhardt", "has_title", "studio director")
    muted = vyre("memory", "mute", "Jonas Eberhardt", "has_address", "jonas@keelash.com")
    assert ids(pinned) == [4] and ids(muted) == [5]
    after = vyre(*prompt).splitlines()
    assert after[0].startswith("- Jonas Eberhardt is the studio director")  # pinned: first
    assert not any("jonas@keelash.com" in line for line in after)  # muted: never in a prompt
    assert any(line.startswith("- Jonas Eberhardt works at") for line in after)  # the rest stay

    listing = vyre("memory", "corrections")
    assert [int(line.split()[0]) for line in listing.splitlines()] == [1, 2, 3, 4, 5]
    undone = vyre("memory", "uncorrect", "2")
    assert undone.startswith("undid 2 (ended: Marcus Bell works_at Harlow Legal")
    assert "closed" not in works_at_harlow()
    assert "undone today" in vyre("memory", "corrections")
    active = json.loads(vyre("memory", "corrections", "--json"))
    assert [c["id"] for c in active if c["undone"] is None] == [1, 3, 4, 5]

    hubs = vyre("memory", "hubs")
    assert "hub  Ledgerline Payments Ltd: 4 rooms" in hubs
    assert vyre("memory", "suggest-merges").strip() == "no merge candidates"
    merged = vyre("memory", "merge", "Marcus Bell", "Dana Reyes")  # any two people: reversible
    (mid,) = ids(merged)
    assert "dana@harlow.law" in vyre("memory", "about", "Marcus Bell", "--project", "harlow")
    vyre("memory", "uncorrect", str(mid))
    assert "dana@harlow.law" not in vyre("memory", "about", "Marcus Bell", "--project", "harlow")
    assert "dana@harlow.law" in vyre("memory", "about", "Dana Reyes", "--project", "harlow")
