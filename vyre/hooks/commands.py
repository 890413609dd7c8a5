"""What Claude Code runs for Vyre: the hook events we answer and the exact commands.

The command calls this environment's interpreter by its absolute path with `-I -m vyre.hooks`
(isolated: no user site, no current folder on the path), so a hook starts in ~10 ms and
imports only the standard library. `vyre hook EVENT` does the same through the full CLI.
"""

from __future__ import annotations

import shlex
import sys

# Claude Code hook events Vyre installs, in the order they happen in a session.
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SessionEnd",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")  # take a tool matcher
MARKER = "-m vyre.hooks"  # how install recognises its own entries among anyone else's
TIMEOUT_S = 5  # Claude Code's per-hook timeout; the hook answers well within it


def interpreter() -> str:
    return sys.executable


def hook_command(event: str, python: str | None = None) -> str:
    return f"{shlex.quote(python or interpreter())} -I {MARKER} {event}"


def mcp_command(python: str | None = None) -> tuple[str, list[str]]:
    """(command, args) that start the MCP server on stdio."""
    return python or interpreter(), ["-I", "-m", "vyre.mcp"]
