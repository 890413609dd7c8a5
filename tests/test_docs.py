"""Docs that cannot drift: every command the CLI has is in the README."""

from __future__ import annotations

import click

from tests.conftest import ROOT
from vyre.cli.main import cli


def commands(group: click.Group, prefix: str = "vyre") -> list[str]:
    out = []
    for name, command in group.commands.items():
        path = f"{prefix} {name}"
        out.append(path)
        if isinstance(command, click.Group):
            out.extend(commands(command, path))
    return out


def test_every_cli_command_is_in_the_readme():
    readme = (ROOT / "README.md").read_text()
    missing = [c for c in commands(cli) if c not in readme]
    assert missing == []


def test_the_readme_opens_with_the_two_commands_and_ci_runs_the_test_one():
    first = (ROOT / "README.md").read_text().splitlines()[:6]
    assert any(line.startswith("make demo") for line in first)
    assert any(line.startswith("make test") for line in first)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_every_hook_event_and_setting_is_in_the_readme():
    from vyre.config import DEFAULT_SETTINGS
    from vyre.hooks.commands import EVENTS

    readme = (ROOT / "README.md").read_text()
    assert [e for e in EVENTS if e not in readme] == []
    assert [k for k in DEFAULT_SETTINGS if k not in readme] == []


def test_the_fast_help_is_clicks_own_rendering():
    """`vyre --help` prints vyre/cli/help.txt without loading click: it must be what click
    prints (regenerate it with the command in the assertion message)."""
    import os
    import subprocess
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "vyre.cli.main", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        check=True,
    ).stdout
    saved = (ROOT / "vyre" / "cli" / "help.txt").read_text()
    assert shown == saved, (
        'regenerate: COLUMNS=80 python -c "from vyre.cli.main import cli; '
        "cli.main(['--help'], prog_name='vyre')\" > vyre/cli/help.txt"
    )


def test_the_readme_puts_vyre_on_the_path_before_its_first_vyre_command():
    lines = (ROOT / "README.md").read_text().splitlines()
    first_use = next(i for i, line in enumerate(lines) if line.startswith("vyre "))
    assert any(".venv/bin:$PATH" in line for line in lines[:first_use])
