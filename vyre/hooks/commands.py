"""What Claude Code runs for Vyre: the hook events we answer and the exact commands.

The command calls this environment's interpreter by its absolute path on the hook script
itself (`<python> -I <...>/vyre/hooks/__main__.py EVENT`): isolated (no user site, nothing
from the current folder on the path), standard library only, and without `-m`, whose module
search costs 3 ms of a 10 ms budget. `vyre hook EVENT` runs the same code through the CLI.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from vyre.hooks.run import EVENTS, TOOL_EVENTS

__all__ = [
    "EVENTS",
    "MARKER",
    "SCOPES",
    "SCRIPT",
    "TIMEOUT_S",
    "TOOL_EVENTS",
    "hook_command",
    "interpreter",
    "mcp_command",
]

SCRIPT = Path(__file__).with_name("__main__.py")
MARKER = "vyre/hooks/__main__.py"  # how install recognises its own entries among others
SCOPES = ("user", "project", "local")  # which settings file: ~/.claude, .claude/, .local
TIMEOUT_S = 5  # Claude Code's per-hook timeout; the hook answers well within it


def interpreter() -> str:
    return sys.executable


def hook_command(event: str, python: str | None = None) -> str:
    return f"{shlex.quote(python or interpreter())} -I {shlex.quote(str(SCRIPT))} {event}"


def mcp_command(python: str | None = None) -> tuple[str, list[str]]:
    """(command, args) that start the MCP server on stdio."""
    return python or interpreter(), ["-I", "-m", "vyre.mcp"]
