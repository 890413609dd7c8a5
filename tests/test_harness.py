"""`vyre harness`: Vyre's hooks in Claude Code's settings files, and the plugin folder.

Through the library (vyre.hooks.install) and through the `harness` click group with CliRunner.
conftest.py points HOME and CLAUDE_CONFIG_DIR at temp folders: the real ~/.claude is never read.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vyre.cli.harness import harness
from vyre.hooks import install as lib
from vyre.hooks.commands import EVENTS, MARKER, SCRIPT, TIMEOUT_S, TOOL_EVENTS, hook_command
from vyre.hooks.install import HarnessError

OLD_PYTHON = "/opt/old-venv/bin/python"

# A user's ~/.claude/settings.json as Claude Code and its docs write it: someone else's hooks on
# three of Vyre's events (and on Notification), permissions, env, a status line, a schema.
USER_SETTINGS = """\
{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(git diff:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Read(./.env)",
      "Read(./secrets/**)"
    ],
    "defaultMode": "acceptEdits"
  },
  "env": {
    "DISABLE_TELEMETRY": "1",
    "BASH_DEFAULT_TIMEOUT_MS": "120000"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/check-bash.sh",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|MultiEdit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "jq -r '.tool_input.file_path' | xargs npx prettier --write"
          }
        ]
      }
    ],
    "Notification": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude Code' 'Claude Code needs your attention'"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "afplay /System/Library/Sounds/Glass.aiff"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  },
  "includeCoAuthoredBy": false,
  "cleanupPeriodDays": 30
}
"""

# A hand-edited project file: 4-space indent, no final newline, non-ASCII text.
PROJECT_SETTINGS = (
    '{\n    "permissions": {"allow": ["Bash(make test)"]},\n'
    '    "env": {"GREETING": "Grüße aus Köln"},\n'
    '    "hooks": {"SessionStart": [{"matcher": "startup", "hooks": '
    '[{"type": "command", "command": "cat ~/notes/today.md"}]}]}\n}'
)


@pytest.fixture
def cwd(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "work" / "keel-ash"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def user_file() -> Path:
    return Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"


def write(path: Path, text: str, mode: int = 0o644) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path.read_bytes()


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.vyre-backup-*"))


def vyre_group(event: str, python: str | None = None) -> dict:
    hook = {"type": "command", "command": hook_command(event, python), "timeout": TIMEOUT_S}
    return {"matcher": "*", "hooks": [hook]} if event in TOOL_EVENTS else {"hooks": [hook]}


def assert_documented_shape(hooks: dict) -> None:
    """Every Vyre entry is a matcher group of command hooks, a matcher only on tool events."""
    assert set(EVENTS) <= set(hooks)
    for event, groups in hooks.items():
        assert isinstance(groups, list)
        for group in groups:
            assert isinstance(group["hooks"], list) and group["hooks"]
            for hook in group["hooks"]:
                if MARKER not in hook["command"]:
                    continue
                assert set(hook) == {"type", "command", "timeout"}
                assert hook["type"] == "command"
                assert isinstance(hook["command"], str)
                assert isinstance(hook["timeout"], int) and hook["timeout"] == TIMEOUT_S
                assert hook["command"].split()[-1] == event
                if event in TOOL_EVENTS:
                    assert set(group) == {"matcher", "hooks"} and group["matcher"] == "*"
                else:
                    assert set(group) == {"hooks"}


def vyre_commands(data: dict) -> list[str]:
    return [
        h["command"]
        for groups in data.get("hooks", {}).values()
        for g in groups
        for h in g["hooks"]
        if MARKER in h["command"]
    ]


# -- install -------------------------------------------------------------------------------


def test_fresh_install_writes_exactly_the_documented_structure(cwd, user_file):
    result = lib.install("user", cwd)

    assert result.path == user_file and result.changed and result.backup is None
    data = json.loads(user_file.read_text())
    assert data == {"hooks": {event: [vyre_group(event)] for event in EVENTS}}
    assert list(data["hooks"]) == list(EVENTS)
    assert_documented_shape(data["hooks"])
    assert stat.S_IMODE(user_file.stat().st_mode) == 0o600
    command = data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert shlex.split(command) == [sys.executable, "-I", str(SCRIPT), "UserPromptSubmit"]
    assert SCRIPT.is_file() and SCRIPT.name == "__main__.py"


def test_install_merges_beside_someone_elses_hooks(cwd, user_file):
    write(user_file, USER_SETTINGS)
    before = json.loads(USER_SETTINGS)

    lib.install("user", cwd)

    after = json.loads(user_file.read_text())
    assert list(after) == list(before)  # key order kept
    for key in before.keys() - {"hooks"}:
        assert after[key] == before[key]
    hooks = after["hooks"]
    assert_documented_shape(hooks)
    assert list(hooks)[:4] == list(before["hooks"])  # their events first, in their order
    assert hooks["Notification"] == before["hooks"]["Notification"]
    for event, theirs in before["hooks"].items():
        if event in EVENTS:  # theirs first, untouched; Vyre's one group after
            assert hooks[event] == [*theirs, vyre_group(event)]
    for event in set(EVENTS) - set(before["hooks"]):
        assert hooks[event] == [vyre_group(event)]


def test_second_install_is_byte_identical_and_writes_no_backup(cwd, user_file):
    write(user_file, USER_SETTINGS)
    lib.install("user", cwd)
    installed = user_file.read_bytes()
    assert len(backups(user_file)) == 1

    again = lib.install("user", cwd)

    assert not again.changed and again.diff == "" and again.backup is None
    assert user_file.read_bytes() == installed
    assert len(backups(user_file)) == 1


def test_new_interpreter_replaces_vyres_entries_in_place(cwd, user_file):
    write(user_file, USER_SETTINGS)
    lib.install("user", cwd, python=OLD_PYTHON)
    data = json.loads(user_file.read_text())
    later = {"hooks": [{"type": "command", "command": "say done"}]}
    data["hooks"]["Stop"].append(later)  # someone adds a hook after Vyre's
    write(user_file, json.dumps(data, indent=2))

    lib.install("user", cwd)

    after = json.loads(user_file.read_text())
    commands = vyre_commands(after)
    assert len(commands) == len(EVENTS)
    assert not any(OLD_PYTHON in c for c in commands)
    stop = after["hooks"]["Stop"]
    assert stop == [data["hooks"]["Stop"][0], vyre_group("Stop"), later]
    assert list(after["hooks"]) == list(data["hooks"])


def test_a_group_shared_with_someone_else_keeps_their_hook(cwd, user_file):
    shared = {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {"type": "command", "command": hook_command("SessionStart", OLD_PYTHON)},
                        {"type": "command", "command": "cat ~/notes/today.md"},
                    ]
                }
            ]
        }
    }
    write(user_file, json.dumps(shared))

    lib.install("user", cwd)

    theirs = {"hooks": [{"type": "command", "command": "cat ~/notes/today.md"}]}
    assert json.loads(user_file.read_text())["hooks"]["SessionStart"] == [
        vyre_group("SessionStart"),
        theirs,
    ]
    lib.uninstall("user", cwd)
    assert json.loads(user_file.read_text()) == {"hooks": {"SessionStart": [theirs]}}


def test_backup_keeps_the_original_bytes_and_mode(cwd):
    path = cwd / ".claude" / "settings.json"
    original = write(path, PROJECT_SETTINGS, mode=0o640)

    result = lib.install("project", cwd)

    assert backups(path) == [result.backup]
    assert result.backup.read_bytes() == original
    assert result.backup.name.startswith("settings.json.vyre-backup-")
    stamp = result.backup.name.removeprefix("settings.json.vyre-backup-")
    assert len(stamp) == 15 and stamp[8] == "T" and stamp.replace("T", "").isdigit()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE(result.backup.stat().st_mode) == 0o640
    assert json.loads(path.read_text())["env"] == {"GREETING": "Grüße aus Köln"}


def test_backups_in_the_same_second_do_not_overwrite_each_other(cwd, user_file):
    original = write(user_file, USER_SETTINGS)
    lib.install("user", cwd)
    installed = user_file.read_bytes()
    lib.uninstall("user", cwd)

    saved = sorted(b.read_bytes() for b in backups(user_file))
    assert len(saved) == 2 and saved == sorted([original, installed])
    assert not list(user_file.parent.glob(".settings.json.*.tmp"))


def test_dry_run_writes_nothing_and_shows_a_diff(cwd, user_file):
    result = lib.install("user", cwd, dry_run=True)
    assert result.changed and result.dry_run
    assert not user_file.exists() and not user_file.parent.exists()
    assert result.diff.startswith("--- /dev/null")

    original = write(user_file, USER_SETTINGS)
    result = lib.install("user", cwd, dry_run=True)

    assert user_file.read_bytes() == original and backups(user_file) == []
    lines = result.diff.splitlines()
    assert any(json.dumps(hook_command("SessionEnd")) in line for line in lines if line[0] == "+")
    assert not [line for line in lines if line[0] == "-" and not line.startswith("---")]

    lib.install("user", cwd)
    installed = user_file.read_bytes()
    result = lib.uninstall("user", cwd, dry_run=True)
    removed = [line for line in result.diff.splitlines() if line.startswith("-")]
    assert result.changed and any(json.dumps(hook_command("Stop")) in line for line in removed)
    assert user_file.read_bytes() == installed


# -- uninstall -----------------------------------------------------------------------------


def test_uninstall_removes_only_vyres_entries(cwd, user_file):
    write(user_file, USER_SETTINGS)
    before = json.loads(USER_SETTINGS)
    lib.install("user", cwd)
    installed = user_file.read_bytes()

    result = lib.uninstall("user", cwd)

    after = json.loads(user_file.read_text())
    assert after == before
    assert list(after) == list(before) and list(after["hooks"]) == list(before["hooks"])
    assert "SessionStart" not in after["hooks"]  # a list only Vyre used is gone
    assert result.backup.read_bytes() == installed
    assert vyre_commands(after) == []

    again = lib.uninstall("user", cwd)
    assert not again.changed and again.backup is None
    assert len(backups(user_file)) == 2


def test_uninstall_of_a_fresh_install_leaves_no_hooks_key(cwd, user_file):
    write(user_file, '{\n  "model": "sonnet"\n}\n')
    lib.install("user", cwd)

    lib.uninstall("user", cwd)

    assert json.loads(user_file.read_text()) == {"model": "sonnet"}


def test_uninstall_keeps_empty_lists_that_were_not_vyres(cwd, user_file):
    write(user_file, json.dumps({"hooks": {"Notification": [], "SubagentStop": []}}))
    lib.install("user", cwd)

    lib.uninstall("user", cwd)

    assert json.loads(user_file.read_text()) == {"hooks": {"Notification": [], "SubagentStop": []}}


def test_uninstall_without_a_file_creates_nothing(cwd, user_file):
    result = lib.uninstall("user", cwd)
    assert not result.changed and not user_file.exists()


def test_uninstall_also_removes_events_vyre_no_longer_uses(cwd, user_file):
    old = {"type": "command", "command": f"{OLD_PYTHON} -I {MARKER} Notification"}
    write(user_file, json.dumps({"hooks": {"Notification": [{"hooks": [old]}]}}))

    lib.install("user", cwd)

    assert "Notification" not in json.loads(user_file.read_text())["hooks"]


# -- files Vyre will not touch -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "hooks": {\n    "Stop": [\n',  # truncated mid-edit
        '{"model": "opus",}',  # trailing comma
        "",
        '["not", "an", "object"]',
        '{"hooks": []}',
        '{"hooks": "none"}',
        '{"hooks": {"PreToolUse": {"matcher": "*"}}}',
    ],
)
def test_bad_settings_raise_and_stay_untouched(cwd, user_file, text):
    original = write(user_file, text)

    for action in (lib.install, lib.uninstall):
        if action is lib.uninstall and "PreToolUse" in text:
            continue  # uninstall leaves others' odd lists alone: nothing of Vyre's is there
        with pytest.raises(HarnessError) as err:
            action("user", cwd)
        assert "\n" not in str(err.value) and str(user_file) in str(err.value)

    assert user_file.read_bytes() == original
    assert backups(user_file) == []


def test_cli_turns_a_bad_file_into_one_line_and_exit_1(cwd, user_file):
    original = write(user_file, '{"hooks": [}')

    result = CliRunner().invoke(harness, ["install"])

    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert "not valid JSON" in result.output
    assert user_file.read_bytes() == original


# -- scopes --------------------------------------------------------------------------------


def test_project_and_local_scopes_write_their_own_files(cwd, user_file):
    project = lib.install("project", cwd).path
    local = lib.install("local", cwd).path

    assert project == cwd / ".claude" / "settings.json"
    assert local == cwd / ".claude" / "settings.local.json"
    for path in (project, local):
        assert_documented_shape(json.loads(path.read_text())["hooks"])
    assert not user_file.exists()


def test_user_scope_honours_claude_config_dir(cwd, tmp_path, monkeypatch):
    custom = tmp_path / "elsewhere" / "claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))

    assert lib.install("user", cwd).path == custom / "settings.json"
    assert (custom / "settings.json").exists()

    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert lib.settings_path("user", cwd) == Path.home() / ".claude" / "settings.json"
    assert str(Path.home()).startswith(str(tmp_path))  # conftest's home, not the real one


def test_unknown_scope_is_an_error(cwd):
    with pytest.raises(HarnessError):
        lib.settings_path("global", cwd)


def test_a_symlinked_settings_file_stays_a_symlink(cwd, tmp_path, user_file):
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    original = write(dotfiles, USER_SETTINGS)
    user_file.parent.mkdir(parents=True, exist_ok=True)
    user_file.symlink_to(dotfiles)

    result = lib.install("user", cwd)

    assert user_file.is_symlink()
    assert vyre_commands(json.loads(dotfiles.read_text()))
    assert result.backup.read_bytes() == original


# -- status --------------------------------------------------------------------------------


def test_status_reports_each_scope(cwd, user_file):
    write(user_file, USER_SETTINGS)
    lib.install("user", cwd)
    lib.install("local", cwd, python=OLD_PYTHON)
    write(cwd / ".claude" / "settings.json", '{"hooks": "none"}')

    user, project, local = lib.status(cwd)

    assert user.scope == "user" and user.exists and user.path == user_file
    assert sorted(user.events) == sorted(EVENTS) and user.missing == []
    assert all(h.current and h.python_exists and h.python == sys.executable for h in user.hooks)
    assert user.others == 4
    assert project.error and project.hooks == []
    assert sorted(local.events) == sorted(EVENTS) and local.others == 0
    assert all(h.python == OLD_PYTHON and not h.python_exists for h in local.hooks)
    assert not any(h.current for h in local.hooks)


def test_status_without_files(cwd):
    for s in lib.status(cwd):
        assert not s.exists and s.hooks == [] and s.others == 0 and s.missing == list(EVENTS)


# -- plugin --------------------------------------------------------------------------------


def test_plugin_folder_has_the_three_files(tmp_path):
    folder = tmp_path / "vyre-plugin"

    written = lib.write_plugin(folder)

    names = {p.relative_to(folder).as_posix() for p in written}
    assert names == {".claude-plugin/plugin.json", "hooks/hooks.json", ".mcp.json"}
    manifest = json.loads((folder / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "vyre" and manifest["version"]
    assert manifest["description"] and manifest["author"]["name"]
    hooks = json.loads((folder / "hooks" / "hooks.json").read_text())
    assert hooks["description"] and list(hooks["hooks"]) == list(EVENTS)
    assert hooks["hooks"] == {event: [vyre_group(event)] for event in EVENTS}
    assert_documented_shape(hooks["hooks"])
    server = json.loads((folder / ".mcp.json").read_text())["mcpServers"]["vyre"]
    assert Path(server["command"]).is_absolute() and server["command"] == sys.executable
    assert server["args"] == ["-I", "-m", "vyre.mcp"]


def test_plugin_refreshes_its_own_folder_and_refuses_others(tmp_path):
    folder = tmp_path / "vyre-plugin"
    lib.write_plugin(folder, python=OLD_PYTHON)
    lib.write_plugin(folder)
    assert OLD_PYTHON not in (folder / ".mcp.json").read_text()

    busy = tmp_path / "someone-elses"
    (busy / ".claude-plugin").mkdir(parents=True)
    (busy / ".claude-plugin" / "plugin.json").write_text('{"name": "other"}')
    with pytest.raises(HarnessError):
        lib.write_plugin(busy)
    assert (busy / ".claude-plugin" / "plugin.json").read_text() == '{"name": "other"}'
    assert not (busy / ".mcp.json").exists()

    (tmp_path / "a-file").write_text("x")
    with pytest.raises(HarnessError):
        lib.write_plugin(tmp_path / "a-file")


# -- the CLI -------------------------------------------------------------------------------


def invoke(*args: str) -> str:
    result = CliRunner().invoke(harness, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_install_status_uninstall(cwd, user_file):
    write(user_file, USER_SETTINGS)

    out = invoke("install")
    assert f"installed Vyre's hooks in {user_file}" in out
    assert "backup of the previous file" in out
    assert "vyre daemon start" in out
    assert (
        shlex.join(
            [
                "claude",
                "mcp",
                "add",
                "--scope",
                "user",
                "vyre",
                "--",
                sys.executable,
                "-I",
                "-m",
                "vyre.mcp",
            ]
        )
        in out
    )
    assert "nothing to change" in invoke("install")

    out = invoke("status")
    assert f"user: {user_file}" in out and "7/7 events" in out
    assert f"interpreter {sys.executable}: this one" in out and "4 other hooks" in out
    assert "no settings file" in out

    assert f"removed Vyre's hooks from {user_file}" in invoke("uninstall")
    assert json.loads(user_file.read_text()) == json.loads(USER_SETTINGS)
    assert "no Vyre hooks in" in invoke("uninstall")


def test_cli_project_scope_and_dry_run(cwd):
    path = cwd / ".claude" / "settings.local.json"

    out = invoke("install", "--scope", "local", "--dry-run")
    assert "+++ " in out and "(dry run:" in out and "vyre daemon start" not in out
    assert not path.exists()

    out = invoke("install", "--scope", "local")
    assert str(path) in out and "vyre daemon start" in out and "claude mcp add" not in out
    assert path.exists()


def test_cli_plugin(tmp_path):
    out = invoke("plugin", str(tmp_path / "plugin"))
    assert out.count("wrote ") == 3 and "claude --plugin-dir" in out

    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "README.md").write_text("mine")
    result = CliRunner().invoke(harness, ["plugin", str(tmp_path / "taken")])
    assert result.exit_code == 1 and "not empty" in result.output


# -- the plugin and the settings hooks both active (issue 9, item 10) -----------------------------

# Claude Code's record of installed plugins (plugins/installed_plugins.json, version 2): Vyre's
# plugin installed from a marketplace under another name, beside someone else's plugin.
INSTALLED_PLUGINS = """\
{
  "version": 2,
  "plugins": {
    "memory@team-tools": [
      {
        "scope": "user",
        "installPath": "%(vyre)s",
        "version": "0.1.0",
        "installedAt": "2026-11-02T09:14:03.512Z",
        "lastUpdated": "2026-11-02T09:14:03.512Z",
        "gitCommitSha": "4f1c2d7a9b0e"
      }
    ],
    "formatter@acme-tools": [
      {
        "scope": "user",
        "installPath": "%(other)s",
        "version": "2.3.1",
        "installedAt": "2026-10-20T16:40:11.008Z",
        "lastUpdated": "2026-10-20T16:40:11.008Z"
      }
    ]
  }
}
"""


def with_plugins(settings: str, enabled: dict) -> str:
    data = json.loads(settings)
    data["enabledPlugins"] = enabled
    return json.dumps(data, indent=2)


def test_status_warns_when_the_plugin_and_the_settings_hooks_are_both_active(cwd, user_file):
    write(user_file, with_plugins(USER_SETTINGS, {"vyre@vyre-local": True}))
    lib.install("user", cwd)
    out = invoke("status")
    assert "Vyre's plugin vyre@vyre-local enabled" in out
    (warning,) = [line for line in out.splitlines() if line.startswith("warning:")]
    assert warning == (
        "warning: Vyre's plugin (vyre@vyre-local) is enabled and Vyre's hooks are in your user "
        "settings: Claude Code runs both, so each prompt gets Vyre's context twice. Keep one: "
        "`vyre harness uninstall --scope user`, or disable the plugin (/plugin)."
    )
    invoke("uninstall")  # one of the two gone: no warning
    assert "warning:" not in invoke("status")


def test_a_vyre_plugin_installed_under_another_name_is_found(cwd, user_file, tmp_path):
    lib.write_plugin(tmp_path / "cache" / "memory")
    (tmp_path / "cache" / "formatter").mkdir()
    installed = user_file.parent / "plugins" / "installed_plugins.json"
    write(
        installed,
        INSTALLED_PLUGINS
        % {"vyre": tmp_path / "cache" / "memory", "other": tmp_path / "cache" / "formatter"},
    )
    enabled = {"memory@team-tools": True, "formatter@acme-tools": True}
    write(cwd / ".claude" / "settings.json", with_plugins(PROJECT_SETTINGS, enabled))
    lib.install("local", cwd)
    statuses = lib.status(cwd)
    assert statuses[1].plugins == {"memory@team-tools": True}  # not someone else's plugin
    assert lib.doubled(statuses) == (["memory@team-tools"], ["local"])


def test_a_plugin_disabled_in_a_later_scope_is_not_counted(cwd, user_file):
    write(user_file, with_plugins(USER_SETTINGS, {"vyre@vyre-local": True}))
    write(cwd / ".claude" / "settings.local.json", '{"enabledPlugins": {"vyre@vyre-local": false}}')
    lib.install("user", cwd)
    statuses = lib.status(cwd)
    assert lib.enabled_plugins(statuses) == [] and lib.doubled(statuses) == ([], [])
    out = invoke("status")
    assert "Vyre's plugin vyre@vyre-local disabled" in out and "warning:" not in out


def test_the_plugin_alone_is_no_warning(cwd, user_file):
    write(user_file, with_plugins(USER_SETTINGS, {"vyre@vyre-local": True}))
    out = invoke("status")
    assert "no Vyre hooks" in out and "warning:" not in out
