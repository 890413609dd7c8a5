"""The optional model distiller: a sentence no shape fits, read by a model, off by default.

`Distiller` is the interface (`distill(text) -> dict | None`); `Learn.run_jobs` hands it the
waiting jobs and validates every answer (`vyre.learn.checks.validate`), and a valid one only
ever becomes a *proposed* lesson at ask. `ClaudeDistiller` asks a headless Claude Code
(`claude -p --bare --no-session-persistence`, no tools, strict JSON). Nothing in Vyre calls
it: no command or setting turns it on; a caller of the library passes it to `run_jobs`
itself (tests pass a fake through the same interface).
"""

from __future__ import annotations

import json
import subprocess
from typing import Protocol

PROMPT = """You turn one rule a developer said to their coding assistant into a JSON check.
Answer with JSON only, one object, or null when the rule cannot be checked mechanically.
Shapes:
{"kind":"tool","command":{"program":"git","sub":["push"],"flags":["--force"],"args":["main"]},"instead":"..."}
{"kind":"tool","tool":"WebFetch"}
{"kind":"path","paths":["migrations/"]}
{"kind":"phrase","phrase":"leverage","paths":["docs/"]}
{"kind":"after","run":{"program":"npm","sub":["run","lint"]},"paths":["*.ts"]}
{"kind":"after","run":{"class":"test"},"before":{"program":"git","sub":["push"]}}
Rule: """


class Distiller(Protocol):
    def distill(self, text: str) -> dict | None: ...


class ClaudeDistiller:
    """A headless `claude -p` on the user's own quota: one sentence per call."""

    def __init__(self, command: str = "claude", timeout: float = 120.0):
        self.command, self.timeout = command, timeout

    def distill(self, text: str) -> dict | None:
        argv = [
            self.command,
            "-p",
            "--bare",
            "--no-session-persistence",
            "--output-format",
            "text",
            "--allowedTools",
            "",
            PROMPT + text,
        ]
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return parse_answer(run.stdout) if run.returncode == 0 else None


def parse_answer(text: str) -> dict | None:
    """The one JSON object in a model's answer, or None (strict: anything else is refused)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
