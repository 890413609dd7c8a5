"""Score `memory ask` against a world's `ask` section (WORLD_FORMAT.md, last section).

Every question is asked as the person would, from its `cwd`, at the world's `now`, through
`Memory.ask` itself.

Definitions the format leaves open, decided here:
- Right: not abstained, at least one string of every answer group in the answer (casefolded,
  white space collapsed), and at least one cited session among the question's `sources`.
- Confident-wrong: answered, and not right (an answer to an abstain question included).
- Grounded: an answer whose every cited quote is in the cited session's turn at that seq
  (the person's own corrections cite no session and are not counted).
- Leakage: cited sessions outside the question's room, counted.
- A world with no `ask` section, or no question of a kind, is "not scored" (None), never 1.0.
"""

from __future__ import annotations

import statistics
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from vyre import config
from vyre.api import Memory
from vyre.ask.answer import room_sessions
from vyre.ask.reply import AskReply
from vyre.errors import WorldError
from vyre.evaluate.memory import build, load_world
from vyre.resolve import fold
from vyre.wording import pieces

# The targets of issue 10; `gate` holds a world to these or, where a target is not reached
# yet, to the figure its ratchet records (never lower than it was).
TARGETS = {
    "accuracy": 0.80,
    "abstain_recall": 0.90,
    "confident_wrong": 2,
    "grounded": 1.0,
    "leakage": 0,
}
LOWER_IS_BETTER = ("confident_wrong", "leakage")
HARD = ("grounded", "leakage")  # never ratcheted: every answer grounded, nothing leaked


def score(world: Path, *, engine: str | None = None) -> dict:
    spec, gold = load_world(world)
    questions = gold.get("ask") or []
    if not questions:
        raise WorldError(f"{world}: gold.json has no `ask` section: not scored")
    now = config.parse_time(spec["now"])
    with tempfile.TemporaryDirectory(prefix="vyre-eval-ask-") as tmp:
        memory = build(world, Path(tmp), engine)
        try:
            return {"world": spec.get("name", ""), **_score(memory, questions, now)}
        finally:
            memory.close()


def _norm(text: str) -> str:
    return " ".join(fold(text).split())


def judge(q: dict, reply: AskReply, memory: Memory) -> dict:
    cited = [s.session for s in reply.sources if s.session]
    room = room_sessions(memory, q["room"])
    leaked = sorted({s for s in cited if s not in room})
    grounded = True
    for s in reply.sources:
        if not s.session:
            continue
        turn = memory.ledger.turn(s.session, s.seq) if s.seq is not None else None
        written = _norm(turn["text"]) if turn else ""
        if turn is None or not all(_norm(p) in written for p in pieces(s.quote)):
            grounded = False  # a shortened quote ("…") is grounded when each piece is there
    text = _norm(reply.answer)
    if q.get("abstain"):
        right = reply.abstained
    else:
        groups = q.get("answer") or []
        has = all(any(_norm(a) in text for a in g) for g in groups)
        sourced = not q.get("sources") or bool(set(cited) & set(q["sources"]))
        right = not reply.abstained and has and sourced
    return {
        "id": q.get("id"),
        "kind": q.get("kind", ""),
        "abstain": bool(q.get("abstain")),
        "abstained": reply.abstained,
        "right": right,
        "grounded": grounded,
        "leaked": leaked,
        "confidence": reply.confidence,
        "via": reply.via,
        "answer": reply.answer,
        "cited": cited,
        "latency_ms": reply.latency_ms,
    }


def _score(memory: Memory, questions: list[dict], now: datetime) -> dict:
    results = []
    for q in questions:
        reply = memory.ask(q["question"], cwd=q.get("cwd"), now=now)
        results.append({"question": q["question"], **judge(q, reply, memory)})
    answerable = [r for r in results if not r["abstain"]]
    should = [r for r in results if r["abstain"]]
    abstained = [r for r in results if r["abstained"]]
    answered = [r for r in results if not r["abstained"]]
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for r in answerable:
        by_kind[r["kind"]].append(r)
    latencies = sorted(r["latency_ms"] for r in results)
    return {
        "questions": len(results),
        "accuracy": _rate(sum(r["right"] for r in answerable), len(answerable)),
        "accuracy_by_kind": {
            k: {"right": sum(r["right"] for r in rs), "of": len(rs)}
            for k, rs in sorted(by_kind.items())
        },
        "abstain_precision": _rate(sum(r["abstain"] for r in abstained), len(abstained)),
        "abstain_recall": _rate(sum(r["abstained"] for r in should), len(should)),
        "confident_wrong": sum(1 for r in answered if not r["right"]),
        "grounded": _rate(sum(r["grounded"] for r in answered), len(answered)),
        "leakage": sum(len(r["leaked"]) for r in results),
        "latency_ms.p50": round(statistics.median(latencies), 3),
        "latency_ms.p95": round(latencies[max(0, int(len(latencies) * 0.95) - 1)], 3),
        "results": results,
    }


def _rate(n: int, of: int) -> float | None:
    return round(n / of, 4) if of else None


def gate(result: dict, ratchet: dict | None = None) -> list[str]:
    """Problems with a result: a hard target missed, or a figure below its ratchet (the
    figure reached so far, for a target not reached yet)."""
    problems = []
    ratchet = ratchet or {}
    for name, target in TARGETS.items():
        value = result.get(name)
        if value is None:
            if name in ("accuracy", "abstain_recall"):
                problems.append(f"{name}: not scored (no questions of that kind)")
            continue
        floor = target
        if name not in HARD and name in ratchet:
            reached = ratchet[name]
            floor = max(target, reached) if name in LOWER_IS_BETTER else min(target, reached)
        if (value > floor) if name in LOWER_IS_BETTER else (value < floor):
            problems.append(f"{name} {value} (target {target}, gate {floor})")
    return problems


def raise_ratchet(result: dict, ratchet: dict | None) -> dict:
    """The ratchet after this run: a figure short of its target is held where it is now, if
    that is better than before; a target met leaves the ratchet; nothing is ever lowered."""
    out = dict(ratchet or {})
    for name, target in TARGETS.items():
        value = result.get(name)
        if name in HARD or value is None:
            continue
        lower = name in LOWER_IS_BETTER
        met = value <= target if lower else value >= target
        if met:
            out.pop(name, None)
            continue
        held = out.get(name)
        if held is None or (value < held if lower else value > held):
            out[name] = value
    return dict(sorted(out.items()))


__all__ = ["TARGETS", "gate", "judge", "raise_ratchet", "score"]
