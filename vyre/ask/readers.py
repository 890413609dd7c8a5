"""The optional model reader behind `memory ask`: off by default, never in tests.

A reader gets the question and up to 8 passages (`{session, seq, role, text, ts}`) and
returns candidate answers; `answer.ask` holds them to the same grounding check as its own
extractive answers, so a reader can only ever choose among what the passages say.

- `register(name, factory)` adds a reader; `active()` is the one the settings turn on
  (`{"ask.reader": "claude"}` in `$VYRE_HOME/settings.json`), else None.
- `ClaudeReader` runs `claude -p --bare --no-session-persistence` over the passages. Tests
  register a fake reader through the same `register`, never this one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from vyre import config

if TYPE_CHECKING:
    from vyre.ask.answer import Candidate
    from vyre.ask.question import Question


class Reader(Protocol):
    name: str

    def read(self, question: Question, passages: list[dict]) -> list[Candidate]: ...


_READERS: dict[str, Callable[[], Reader]] = {}


def register(name: str, factory: Callable[[], Reader]) -> None:
    _READERS[name] = factory


def unregister(name: str) -> None:
    _READERS.pop(name, None)


def active() -> Reader | None:
    name = config.settings().get("ask.reader")
    if not name:
        return None
    factory = _READERS.get(str(name))
    return factory() if factory else None


PROMPT = (
    "Answer the question from the numbered passages only, in one or two sentences, in the "
    "passages' own words for names, numbers, dates and files. If the passages do not say, "
    'answer exactly "NOT SURE". Reply as JSON: {"answer": "...", "passage": N}.'
)


class ClaudeReader:
    """Claude Code's own model, read through `claude -p` (the person's plan, no API key)."""

    name = "claude"
    timeout_s = 30.0

    def read(self, question: Question, passages: list[dict]) -> list[Candidate]:
        from vyre.ask.answer import Candidate
        from vyre.ask.reply import AskSource

        binary = shutil.which("claude")
        if not binary or not passages:
            return []
        body = "\n\n".join(f"[{i}] {p['text'][:1500]}" for i, p in enumerate(passages, 1))
        prompt = f"{PROMPT}\n\nQuestion: {question.text}\n\n{body}"
        try:
            done = subprocess.run(
                [binary, "-p", "--bare", "--no-session-persistence", "--output-format", "text"],
                input=prompt,
                capture_output=True,
                text=True,
                timeout=self.timeout_s,
                check=False,
            )
            reply = json.loads(done.stdout.strip().strip("`").removeprefix("json"))
            text, n = str(reply["answer"]).strip(), int(reply["passage"])
        except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
            return []
        if not text or text.upper().startswith("NOT SURE") or not 1 <= n <= len(passages):
            return []
        p = passages[n - 1]
        source = AskSource(
            session=p["session"],
            seq=p["seq"],
            role=p["role"],
            name=f"session {p['session'][:8]}",
            quote=p["text"][:300],
            ts=p["ts"],
        )
        return [Candidate(text, 0.8, "retrieval", [source], [(p["text"], p["ts"])])]


register("claude", ClaudeReader)

__all__ = ["ClaudeReader", "Reader", "active", "register", "unregister"]
