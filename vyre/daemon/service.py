"""Starting the daemon at login: a systemd user unit (Linux) or a launchd agent (macOS).

`vyre daemon install` writes the file that runs `python -m vyre.daemon run` (this
interpreter, this home) whenever the user logs in, and prints the one command that turns it
on; `vyre daemon uninstall` removes it. Neither runs systemctl or launchctl itself: the user
may already run a daemon by hand (`vyre daemon start`), and a second one for the same home
would be refused, so switching over is theirs to do, in the order printed.

What must stay true:
- Only a file Vyre wrote (it carries MARKER) is ever replaced or removed; anything else at
  that path is refused and left as it was.
- The unit names absolute paths only (interpreter, home, Claude Code's folder when set), so
  it runs the same memory as the shell that installed it.
"""

from __future__ import annotations

import os
import plistlib
import shlex
import sys
from pathlib import Path
from typing import Literal, NamedTuple

from vyre import config
from vyre.errors import DaemonControlError
from vyre.files import write_atomic

MARKER = "Written by `vyre daemon install`"
UNIT_NAME = "vyre.service"
AGENT_LABEL = "dev.vyre.daemon"
FILE_MODE = 0o644  # what systemd and launchd expect of a user's own unit
System = Literal["systemd", "launchd"]


class Installed(NamedTuple):
    path: Path
    system: System
    changed: bool  # False: the same file was already there
    enable: str  # the command that turns it on


def system_here() -> System:
    return "launchd" if sys.platform == "darwin" else "systemd"


def unit_path(system: System) -> Path:
    if system == "launchd":
        return Path.home() / "Library" / "LaunchAgents" / f"{AGENT_LABEL}.plist"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user" / UNIT_NAME


def _environment() -> dict[str, str]:
    env = {"VYRE_HOME": str(config.home().resolve())}
    claude = os.environ.get("CLAUDE_CONFIG_DIR")
    if claude:
        env["CLAUDE_CONFIG_DIR"] = str(Path(claude).expanduser().resolve())
    return env


def _command() -> list[str]:
    return [sys.executable, "-m", "vyre.daemon", "run"]


def _quoted(word: str) -> str:
    """A word as systemd reads it inside double quotes."""
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit() -> str:
    env = "".join(
        f"Environment={_quoted(f'{k}={v}')}\n".replace("%", "%%") for k, v in _environment().items()
    )
    command = " ".join(_quoted(w) for w in _command()).replace("%", "%%")
    return (
        f"# {MARKER}; remove it with `vyre daemon uninstall`.\n"
        "[Unit]\n"
        "Description=Vyre memory daemon (hooks, MCP and the Deck read from it)\n\n"
        "[Service]\n"
        f"ExecStart={command}\n"
        f"{env}"
        "Restart=on-failure\n"
        "RestartSec=5\n\n"
        "[Install]\n"
        "WantedBy=default.target\n"
    )


def launchd_plist() -> bytes:
    home = config.home().resolve()
    return plistlib.dumps(
        {
            "Label": AGENT_LABEL,
            "Comment": f"{MARKER}; remove it with `vyre daemon uninstall`.",
            "ProgramArguments": _command(),
            "EnvironmentVariables": _environment(),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False},  # restarted after a crash, not after stop
            "StandardOutPath": str(home / "daemon.log"),
            "StandardErrorPath": str(home / "daemon.log"),
        }
    )


def _enable(system: System, path: Path) -> str:
    """The command that turns it on (after stopping a daemon started by hand)."""
    if system == "launchd":
        return f"vyre daemon stop; launchctl bootstrap gui/{os.getuid()} {shlex.quote(str(path))}"
    return (
        "vyre daemon stop; systemctl --user daemon-reload && "
        f"systemctl --user enable --now {UNIT_NAME}"
    )


def _stop(system: System) -> str:
    """The command that stops the daemon it started (it needs no file)."""
    if system == "launchd":
        return f"launchctl bootout gui/{os.getuid()}/{AGENT_LABEL}"
    return f"systemctl --user stop {UNIT_NAME}; systemctl --user daemon-reload"


def _ours(path: Path) -> bool:
    try:
        return MARKER.encode() in path.read_bytes()
    except FileNotFoundError:
        return False


def install(system: System | None = None, *, dry_run: bool = False) -> Installed:
    """Write the unit (or say it is already there); refuse a file Vyre did not write."""
    system = system or system_here()
    path = unit_path(system)
    data = launchd_plist() if system == "launchd" else systemd_unit().encode()
    if path.exists() and not _ours(path):
        raise DaemonControlError(f"{path} was not written by Vyre: left as it is")
    changed = not path.exists() or path.read_bytes() != data
    if changed and not dry_run:
        write_atomic(path, data, FILE_MODE)
    return Installed(path, system, changed, _enable(system, path))


def uninstall(system: System | None = None) -> tuple[Path, str] | None:
    """Remove the unit Vyre wrote, and systemd's link that enables it at login (what
    `systemctl --user disable` removes): (its path, the command that stops a running one),
    or None when there is none."""
    system = system or system_here()
    path = unit_path(system)
    if not path.exists():
        return None
    if not _ours(path):
        raise DaemonControlError(f"{path} was not written by Vyre: left as it is")
    if system == "systemd":
        wanted = path.parent / "default.target.wants" / UNIT_NAME
        if wanted.is_symlink() and Path(os.readlink(wanted)) in (path, Path(UNIT_NAME)):
            wanted.unlink()
    path.unlink()
    return path, _stop(system)
