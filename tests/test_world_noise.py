"""The bundled world's distractors test something: each `absent` noise row names what the
rules WOULD extract if its words were trusted, so only the trust guards keep it out.

A noise row the rules could never extract (a file name as a "domain", "API" as an org) would
pass whether or not tool output, sidechains and code talk are kept out; this keeps them honest.
"""

from __future__ import annotations

import json
import re

from tests.conftest import WORLD
from vyre.extract.rules import extract

_TAG = re.compile(r"</?[a-z][a-z-]*>")


def _all_text() -> list[tuple[str, str | None]]:
    """Every string in the world's transcripts: prompts, replies, tool results, sidechains."""
    out = []
    for path in (WORLD / "transcripts").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            content = (rec.get("message") or {}).get("content")
            blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
            for block in blocks or []:
                if block.get("type") == "text":
                    out.append((block["text"], rec.get("timestamp")))
                elif block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, list):
                        inner = "\n".join(b.get("text", "") for b in inner if isinstance(b, dict))
                    out.append((inner or "", rec.get("timestamp")))
    return out


def test_every_noise_row_would_be_extracted_from_trusted_words():
    found: set[tuple[str, str, str]] = set()
    for text, ts in _all_text():
        # the same words as the person's own prose: markup tags and code fences unwrapped
        prose = _TAG.sub("\n", text).replace("```", "\n")
        for m in extract("person", "text", prose, ts):
            found.add((m[1].casefold(), m[3], m[4].casefold()))
    gold = json.loads((WORLD / "gold.json").read_text())
    noise = [a for a in gold["absent"] if a["why"] == "noise"]
    assert len(noise) >= 20
    missing = []
    for a in noise:
        if a["rel"] == "deadline":  # deadlines match on their date
            hit = any(rel == "deadline" and obj == a["object"] for _, rel, obj in found)
        else:
            hit = (a["subject"].casefold(), a["rel"], a["object"].casefold()) in found
        if not hit:
            missing.append(f"{a['room']}: {a['subject']} {a['rel']} {a['object']}")
    assert missing == []
