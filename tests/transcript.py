"""Write Claude Code transcript records for tests, shaped like the real ones.

    t = Transcript(root, cwd="/home/sam/work/keel-ash", session="s1", start="2026-09-01T10:00:00Z")
    t.user("Priya Anand, the project architect at Keel & Ash Architects, ...")
    t.assistant("Noted.")
    t.tool("Bash", {"command": "git remote -v"}, "origin\tgit@github.com:a/b.git (fetch)")
    t.write()           # or t.lines() for the raw JSONL lines

Each call adds one record (an assistant reply with a tool call adds two lines sharing one
message id, as Claude Code writes them). Timestamps advance a minute per record.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path


def slug(cwd: str) -> str:
    return cwd.replace("/", "-")


class Transcript:
    def __init__(
        self,
        root: Path,
        *,
        cwd: str,
        session: str,
        start: str,
        sidechain: bool = False,
        agent: str | None = None,
    ):
        self.root, self.cwd, self.session = Path(root), cwd, session
        self.t = datetime.fromisoformat(start.replace("Z", "+00:00"))
        self.sidechain, self.agent = sidechain, agent
        self.records: list[dict] = []
        self._n = 0

    # -- records ------------------------------------------------------------------------

    def _base(self, kind: str, **extra) -> dict:
        self._n += 1
        self.t += timedelta(minutes=1)
        rec = {
            "parentUuid": self.records[-1]["uuid"] if self.records else None,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.40",
            "type": kind,
            "uuid": f"{self.session}-{self._n:04d}",
            "timestamp": self.t.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        }
        if self.agent:
            rec["agentId"] = self.agent
        rec.update(extra)
        self.records.append(rec)
        return rec

    def user(self, text: str, **extra) -> Transcript:
        self._base("user", message={"role": "user", "content": text}, **extra)
        return self

    def user_blocks(self, blocks: list[dict], **extra) -> Transcript:
        self._base("user", message={"role": "user", "content": blocks}, **extra)
        return self

    def assistant(self, text: str, *, msg: str | None = None) -> Transcript:
        msg = msg or f"msg_{self.session}_{self._n + 1}"
        self._base(
            "assistant",
            message={
                "id": msg,
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "text", "text": text}],
            },
        )
        return self

    def tool(self, name: str, tool_input: dict, output: str) -> Transcript:
        use_id = f"toolu_{self.session}_{self._n + 1}"
        self._base(
            "assistant",
            message={
                "id": f"msg_{self.session}_{self._n + 1}",
                "role": "assistant",
                "model": "claude",
                "content": [{"type": "tool_use", "id": use_id, "name": name, "input": tool_input}],
            },
        )
        self._base(
            "user",
            message={
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": use_id, "content": output}],
            },
            toolUseResult={"stdout": output},
        )
        return self

    def meta(self, text: str) -> Transcript:
        return self.user(text, isMeta=True)

    def slash(self, name: str, args: str = "") -> Transcript:
        return self.user(
            f"<command-message>{name}</command-message>\n"
            f"<command-name>/{name}</command-name>\n<command-args>{args}</command-args>"
        )

    def progress(self) -> Transcript:
        self._base(
            "progress",
            data={"type": "hook_progress", "hookName": "SessionStart"},
            toolUseID="t",
            parentToolUseID="t",
        )
        return self

    def raw(self, record: dict) -> Transcript:
        self.records.append(record)
        return self

    # -- output ---------------------------------------------------------------------------

    def lines(self) -> list[bytes]:
        return [json.dumps(r, separators=(",", ":")).encode() for r in self.records]

    @property
    def path(self) -> Path:
        return self.root / slug(self.cwd) / f"{self.session}.jsonl"

    def write(self, path: Path | None = None) -> Path:
        path = path or self.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(line + b"\n" for line in self.lines()))
        return path


def session(
    root: Path, cwd: str, sid: str, start: str, *prompts: str, assistant: str = "Done."
) -> Path:
    """A session of typed prompts, each answered by the assistant, written under root."""
    t = Transcript(root, cwd=cwd, session=sid, start=start)
    for p in prompts:
        t.user(p)
        t.assistant(assistant)
    return t.write()
