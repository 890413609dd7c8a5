"""The `vyre` command's entry: `vyre memory ask QUESTION [--cwd P | --project P]` goes
straight to the daemon with the standard library only (a personal fact answers in
milliseconds, where loading the whole CLI takes hundreds); everything else, and any ask the
daemon cannot take, runs the full click CLI, which gives the same answer."""

from __future__ import annotations

import os
import sys


def main() -> None:
    args = sys.argv[1:]
    if args[:2] == ["memory", "ask"]:
        code = _ask(args[2:])
        if code is not None:
            sys.exit(code)
    from vyre.cli.main import main as full

    full()


def _ask(args: list[str]) -> int | None:
    """Exit code after answering through the daemon, or None for the full CLI to do it."""
    question, cwd, project = None, None, None
    while args:
        arg = args.pop(0)
        if arg in ("--cwd", "--project", "-p") and args:
            value = args.pop(0)
            cwd, project = (value, project) if arg == "--cwd" else (cwd, value)
        elif arg.startswith("-") or question is not None:
            return None  # --json, --sources, --help, anything unusual: the full CLI
        else:
            question = arg
    if not question or (cwd and project):
        return None
    from vyre.ask.text import lines
    from vyre.daemon.protocol import DaemonError, DaemonUnavailable, call

    payload: dict = {"question": question, "project": project}
    if not project:
        payload["cwd"] = cwd or os.getcwd()
    now = os.environ.get("VYRE_NOW")
    if now:  # the daemon reads at the caller's clock, as naive UTC like config.now()
        from datetime import UTC, datetime

        try:
            at = datetime.fromisoformat(now.strip().replace("Z", "+00:00"))
        except ValueError:
            return None  # the full CLI says what is wrong with it
        if at.tzinfo is not None:
            at = at.astimezone(UTC).replace(tzinfo=None)
        payload["now"] = {"__dt": at.isoformat()}
    try:
        reply = call("ask", payload, caller="cli", timeout=30)
    except (DaemonUnavailable, DaemonError):
        return None
    if not isinstance(reply, dict) or "answer" not in reply:
        return None
    sys.stdout.write("\n".join(lines(reply)) + "\n")
    return 1 if reply.get("abstained") else 0
