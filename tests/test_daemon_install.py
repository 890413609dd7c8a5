"""`vyre daemon install|uninstall`: a systemd user unit or a launchd agent that runs this
interpreter's daemon on this home at login; only a file Vyre wrote is replaced or removed."""

from __future__ import annotations

import configparser
import os
import plistlib
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vyre.cli.main import cli


@pytest.fixture
def user_home(tmp_path, monkeypatch):
    """A throwaway ~ (and no XDG_CONFIG_HOME): where the unit files go."""
    home = tmp_path / "user home"  # a space: the unit must quote its paths
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    return home


def vyre(*args: str, ok: bool = True):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_systemd_unit_runs_this_daemon_on_this_home(user_home, vyre_home, tmp_path):
    out = vyre("daemon", "install", "--system", "systemd").output
    unit = user_home / ".config" / "systemd" / "user" / "vyre.service"
    assert f"wrote {unit}" in out
    assert "systemctl --user daemon-reload && systemctl --user enable --now vyre.service" in out
    assert oct(unit.stat().st_mode & 0o777) == "0o644"
    parsed = configparser.ConfigParser(interpolation=None, strict=False)
    parsed.optionxform = str  # keep the keys as written
    parsed.read_string(unit.read_text())
    service = parsed["Service"]
    assert service["ExecStart"] == f'"{sys.executable}" "-m" "vyre.daemon" "run"'
    assert service["Restart"] == "on-failure"
    assert parsed["Install"]["WantedBy"] == "default.target"
    environment = unit.read_text().count("Environment=")
    assert environment == 2
    assert f'Environment="VYRE_HOME={vyre_home.resolve()}"' in unit.read_text()
    assert f'Environment="CLAUDE_CONFIG_DIR={(tmp_path / "claude").resolve()}"' in unit.read_text()

    again = vyre("daemon", "install", "--system", "systemd").output
    assert f"already installed: {unit}" in again

    wanted = unit.parent / "default.target.wants" / "vyre.service"
    wanted.parent.mkdir()
    wanted.symlink_to(unit)  # what `systemctl --user enable` makes
    gone = vyre("daemon", "uninstall", "--system", "systemd").output
    assert f"removed {unit}" in gone and "systemctl --user stop vyre.service" in gone
    assert not unit.exists() and not wanted.is_symlink()
    assert vyre("daemon", "uninstall", "--system", "systemd").output == "no daemon unit installed\n"


def test_launchd_agent_is_a_plist_that_restarts_after_a_crash(user_home, vyre_home):
    vyre("daemon", "install", "--system", "launchd")
    path = user_home / "Library" / "LaunchAgents" / "dev.vyre.daemon.plist"
    agent = plistlib.loads(path.read_bytes())
    assert agent["Label"] == "dev.vyre.daemon"
    assert agent["ProgramArguments"] == [sys.executable, "-m", "vyre.daemon", "run"]
    assert agent["EnvironmentVariables"]["VYRE_HOME"] == str(vyre_home.resolve())
    assert agent["RunAtLoad"] is True and agent["KeepAlive"] == {"SuccessfulExit": False}
    assert agent["StandardErrorPath"] == str(vyre_home.resolve() / "daemon.log")
    out = vyre("daemon", "uninstall", "--system", "launchd").output
    assert f"launchctl bootout gui/{os.getuid()}/dev.vyre.daemon" in out and not path.exists()


def test_a_file_vyre_did_not_write_is_refused_and_left_alone(user_home):
    unit = user_home / ".config" / "systemd" / "user" / "vyre.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\nExecStart=/usr/bin/something-else\n")
    for args in (["install"], ["uninstall"]):
        refused = vyre("daemon", *args, "--system", "systemd", ok=False)
        assert refused.exit_code == 1
        assert refused.output.strip() == f"Error: {unit} was not written by Vyre: left as it is"
    assert unit.read_text() == "[Service]\nExecStart=/usr/bin/something-else\n"


def test_dry_run_shows_the_unit_and_writes_nothing(user_home):
    out = vyre("daemon", "install", "--system", "systemd", "--dry-run").output
    assert "would write" in out and "ExecStart=" in out
    assert not (user_home / ".config").exists()
    assert Path(out.split("would write ", 1)[1].split(":\n", 1)[0]).name == "vyre.service"
