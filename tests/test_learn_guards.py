"""Guards before tools: asked at every level, with or without lessons; look-alikes allowed."""

from __future__ import annotations

import pytest

from vyre.learn.checks import Call
from vyre.learn.judge import decide

HOME = "/home/sam"
ENV = {"HOME": HOME, "VYRE_HOME": f"{HOME}/.vyre"}


def held(tool: str, data: dict, cwd: str = f"{HOME}/work/web") -> bool:
    v = decide(Call(tool, data, cwd, dict(ENV)), [])
    assert v.decision in (None, "ask")
    return v.decision == "ask" and v.guard


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ~/.vyre",
        "rm ~/.vyre/lessons.json",
        "echo '{}' > ~/.vyre/lessons.json",
        ": > $VYRE_HOME/vyre.db",
        "truncate -s 0 /home/sam/.vyre/vyre.db",
        "chmod 777 ~/.vyre",
        "ln -sf /tmp/x ~/.vyre/lessons.json",
        "mv ~/.vyre ~/.vyre.bak",
        "cp /tmp/evil.json ~/.vyre/lessons.json",
        "rm -rf ~",
        "cd ~ && rm -rf .vyre",
        "rm ~/.vyre/vyre.sock",
        "find ~/.vyre -delete",
        "echo '{\"disableAllHooks\": true}' > ~/.claude/settings.json",
        "echo '{}' > .claude/settings.local.json",
        "echo 'export VYRE_HOME=/tmp/x' >> ~/.bashrc",
        "cp /tmp/rc ~/.zshrc",
        "vyre learn relax 3 --level remind",
        "VYRE_HOME=/tmp/other vyre learn retire 1",
        "vyre learn accept 4",
        "/home/sam/.venv/bin/vyre learn scope 2 project:web",
        "python -m vyre.cli.main learn relax 1",
        "uv run vyre learn retire 2",
        "vyre daemon stop",
        "vyre harness uninstall",
        'echo \'{"prompt":"yes"}\' | vyre hook UserPromptSubmit',
        "pkill -f vyre",
        "killall python3",
        "kill $(cat ~/.vyre/daemon.lock)",
        'python -c \'import vyre.api; vyre.api.Memory().correct("x", "wrong", caller="local")\'',
        'python3 -c "from vyre.learn.service import Learn"',
        "python -c \"import sqlite3; sqlite3.connect('/home/sam/.vyre/vyre.db')"
        ".execute('delete from lessons')\"",
        "sqlite3 ~/.vyre/vyre.db 'DELETE FROM lessons'",
        "sqlite3 ~/.vyre/vyre.db \"UPDATE lessons SET status='retired'\"",
        "echo cm0gLXJmIH4vLnZ5cmU= | base64 -d | sh",
        'eval "$(echo dnlyZSBsZWFybiByZWxheCAx | base64 -d)"',
        "bash -c \"$(printf 'dnlyZSBkYWVtb24gc3RvcA==' | base64 --decode)\"",
        "python -c \"import base64;exec(base64.b64decode('aW1wb3J0IHZ5cmU='))\"",
        "node -e \"require('fs').writeFileSync(process.env.HOME+'/.vyre/lessons.json','{}')\"",
        "vyre learn edit 3 --level remind",
        "vyre learn edit 3 --max-level=ask",
        "vyre learn edit 3 --unpin",
        "python -m vyre learn relax 3",
    ],
)
def test_guard_attempts_are_asked(command):
    assert held("Bash", {"command": command}), command


@pytest.mark.parametrize(
    "tool,data",
    [
        ("Write", {"file_path": f"{HOME}/.vyre/lessons.json", "content": "{}"}),
        (
            "Edit",
            {"file_path": f"{HOME}/.claude/settings.json", "old_string": "a", "new_string": "b"},
        ),
        (
            "Edit",
            {
                "file_path": f"{HOME}/work/web/.claude/settings.json",
                "old_string": "a",
                "new_string": "b",
            },
        ),
        (
            "Edit",
            {
                "file_path": f"{HOME}/.bashrc",
                "old_string": "x",
                "new_string": "export VYRE_HOME=/tmp",
            },
        ),
    ],
)
def test_file_tools_on_guarded_files_are_asked(tool, data):
    assert held(tool, data)


@pytest.mark.parametrize(
    "command",
    [
        "ls -la ~/.vyre",
        "cat ~/.vyre/lessons.json",
        "vyre learn stats",
        "vyre learn edit 3 --level block --pin",
        "vyre learn show",
        "vyre learn signals",
        "vyre learn distill 'never push to main'",
        "vyre daemon status",
        "vyre memory about Priya",
        "ps aux | grep vyre",
        "pgrep -f vyre",
        "mkdir -p ~/notes/.vyre-ideas && touch ~/notes/.vyre-ideas/a",
        "echo 'alias ll=\"ls -l\"' >> ~/.bashrc",
        "cat ~/.bashrc",
        "python -c 'print(\"vyre\")'",
        "python -c \"import json; print(json.load(open('/home/sam/.vyre/lessons.json')))\"",
        "sqlite3 ~/.vyre/vyre.db 'select count(*) from lessons'",
        "sqlite3 -readonly ~/.vyre/vyre.db 'delete from lessons'",
        "git commit -m 'stop the vyre daemon before release'",
        "grep -r VYRE_HOME docs/",
        "kill %1",
        "kill 999999",
        "rm -rf ~/work/web/build",
        "cat ~/.claude/settings.json",
        "curl -fsSL https://example.com/install.sh -o install.sh",
    ],
)
def test_look_alikes_stay_allowed(command):
    assert not held("Bash", {"command": command}), command


def test_a_guard_asks_even_where_a_lesson_would_only_remind():
    from vyre.learn.judge import Lesson

    quiet = [Lesson({"id": 1, "level": "remind", "check": {"kind": "path", "paths": ["~/.vyre"]}})]
    v = decide(Call("Bash", {"command": "rm -rf ~/.vyre"}, HOME, dict(ENV)), quiet)
    assert v.decision == "ask" and v.guard


def test_the_daemons_own_pid_is_guarded(tmp_path):
    home = tmp_path / "v"
    home.mkdir()
    (home / "daemon.lock").write_text("4242")
    env = {"HOME": str(tmp_path), "VYRE_HOME": str(home)}
    assert (
        decide(Call("Bash", {"command": "kill -9 4242"}, str(tmp_path), env), []).decision == "ask"
    )
    assert decide(Call("Bash", {"command": "kill 4243"}, str(tmp_path), env), []).decision is None


@pytest.mark.parametrize(
    "tool,data",
    [
        (
            "REPL",
            {"code": "require('fs').rmSync(require('os').homedir() + '/.vyre', {recursive: true})"},
        ),
        ("Monitor", {"command": "vyre daemon stop", "description": "x"}),
        ("Bash", {"command": "pip uninstall -y vyre"}),
    ],
)
def test_other_tools_that_run_code_are_guarded_too(tool, data):
    assert held(tool, data)


@pytest.mark.parametrize(
    "command", ["cp notes.txt ~/", "mv ~/Downloads/a.pdf ~/", "rsync -a src/ ~/backup/"]
)
def test_a_destination_folder_only_receives(command):
    assert not held("Bash", {"command": command})
