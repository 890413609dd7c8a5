"""Score recall: LoCoMo's evidence turns, and the sessions an ask world's answers stand on.

LoCoMo (`../shared/benchmarks/locomo`, written outside the team, read from there and never
copied): its own converter writes the conversations as Claude Code transcripts into a
temporary folder; they are ingested into a fresh temporary home with one project per
conversation (its folder is the transcripts' `cwd`), and every question is asked of its
conversation's project through `Memory.recall`, the same call every surface makes.
recall@k is the share of a question's evidence turns in the top k, averaged over questions;
hit@k counts a question when at least one of them is. Categories 1 to 4 are scored (5, the
adversarial questions, has no evidence by design and is reported for information only).
A question is asked the day after its conversation's last session, as its reader would.

An ask world (WORLD_FORMAT.md, `ask`): each answerable question is asked from its folder;
hit@k counts it when a turn of one of its source sessions is in the top k, and leakage counts
returned turns from sessions outside the question's room.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from vyre import config
from vyre.api import Memory
from vyre.ask import recall as recall_search
from vyre.ask.recall import RANKING, Ranking
from vyre.errors import WorldError
from vyre.evaluate.memory import WORLD_CALLER
from vyre.models import Passage
from vyre.rooms import projects as project_ops

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
SCORED = (1, 2, 3, 4)
KS = (5, 10)

# BM25 alone (the benchmark's own baseline, ../shared/benchmarks/locomo/README.md): no
# category may fall under it.
BM25 = {
    "single-hop": {"recall@5": 0.5432, "recall@10": 0.6092},
    "multi-hop": {"recall@5": 0.1433, "recall@10": 0.2196},
    "temporal": {"recall@5": 0.5434, "recall@10": 0.6295},
    "open-domain": {"recall@5": 0.1628, "recall@10": 0.2757},
    "overall": {"recall@5": 0.4470, "recall@10": 0.5219},
}
# The target with no model (overall, categories 1 to 4).
TARGET = {"recall@5": 0.66, "recall@10": 0.75}


# What each step adds: the ranking built up one step at a time (each row has the steps above
# it), then each step turned off on its own from the full ranking.
_NONE = Ranking(
    stop_words=False,
    neighbour=0.0,
    asking=False,
    other_side=1.0,
    session=0.0,
    dated=0.0,
    timed=0.0,
)
LADDER = {
    "BM25 (stemmed words, OR-ed)": _NONE,
    "+ stop and question words dropped": replace(_NONE, stop_words=True),
    "+ neighbouring turns": replace(_NONE, stop_words=True, neighbour=0.5),
    "+ asking turns lend to answers": replace(_NONE, stop_words=True, neighbour=0.5, asking=True),
    "+ session score": replace(_NONE, stop_words=True, neighbour=0.5, asking=True, session=0.4),
    "+ session dates": replace(
        _NONE, stop_words=True, neighbour=0.5, asking=True, session=0.4, dated=0.5
    ),
    "+ when: a turn that tells a time": replace(RANKING, other_side=1.0),
    "+ who said it (the full ranking)": RANKING,
}
ABLATIONS = {
    "without the stop list": replace(RANKING, stop_words=False),
    "without neighbours": replace(RANKING, neighbour=0.0),
    "without asking": replace(RANKING, asking=False),
    "without the session score": replace(RANKING, session=0.0),
    "without dates": replace(RANKING, dated=0.0),
    "without when/time": replace(RANKING, timed=0.0),
    "without who said it": replace(RANKING, other_side=1.0),
}


def locomo(folder: Path, *, ablations: bool = False) -> dict:
    """Convert, ingest and ask LoCoMo; recall@5/10 and hit@5/10 by category, and latency.
    With `ablations`, the same for each step of the ranking turned off (ABLATIONS)."""
    folder = Path(folder)
    converter = folder / "to_transcripts.py"
    if not converter.is_file() or not (folder / "locomo10.json").is_file():
        raise WorldError(f"{folder} is not the LoCoMo folder (to_transcripts.py, locomo10.json)")
    with tempfile.TemporaryDirectory(prefix="vyre-locomo-") as tmp:
        out = Path(tmp) / "claude"
        source = str(folder / "locomo10.json")
        subprocess.run(
            [sys.executable, str(converter), "--input", source, "--out", str(out)],
            check=True,
            capture_output=True,
        )
        questions = [json.loads(line) for line in (out / "questions.jsonl").open()]
        with Memory(Path(tmp) / "home") as memory:
            started = time.perf_counter()
            asked_at = _projects(memory, out / "projects")
            memory.ingest(out / "projects")
            result = _score_locomo(memory, questions, asked_at)
            result["ingest_s"] = round(time.perf_counter() - started, 2)
            if ablations:
                result["ablations"] = {
                    name: _score_locomo(memory, questions, asked_at, ranking)["categories"]
                    for name, ranking in {**LADDER, **ABLATIONS}.items()
                }
            return result


def _projects(memory: Memory, root: Path) -> dict[str, datetime]:
    """One project per conversation, named for its folder; when each is asked (the day after
    its last turn)."""
    latest: dict[str, datetime] = {}
    for path in sorted(root.glob("*/*.jsonl")):
        for line in path.open():
            record = json.loads(line)
            slug = record["cwd"].rstrip("/").rsplit("/", 1)[-1].lower()
            if slug not in latest:  # a fixture in the eval's own home (see memory.build)
                project_ops.add(
                    memory.ledger,
                    slug,
                    slug,
                    [record["cwd"]],
                    None,
                    caller=WORLD_CALLER,
                    when=config.now(),
                )
            ts = datetime.fromisoformat(record["timestamp"].replace("Z", ""))
            latest[slug] = max(latest.get(slug, ts), ts)
    return {slug: ts + timedelta(days=1) for slug, ts in latest.items()}


def _score_locomo(
    memory: Memory, questions: list[dict], asked_at: dict, ranking: Ranking | None = None
) -> dict:
    """Every question through `Memory.recall` (or, for an ablation, `recall.search` with
    that ranking, in the same scope)."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    latency = []
    projects = memory.ledger.projects()
    for q in questions:
        evidence = {(e["session_id"], e["seq"]) for e in q["evidence"]}
        if not evidence or not (q["in_recall"] or q.get("adversarial")):
            continue
        slug = q["conv"].lower()
        started = time.perf_counter()
        if ranking is None:
            found = memory.recall(q["question"], project=slug, limit=max(KS), now=asked_at[slug])
        else:
            scope = recall_search.scope_for(slug, projects)
            found = recall_search.search(
                memory.ledger,
                q["question"],
                scope,
                limit=max(KS),
                now=asked_at[slug],
                ranking=ranking,
            )
        latency.append((time.perf_counter() - started) * 1000)
        ranked = [(p.session, p.seq) for p in found]
        name = "adversarial" if q.get("adversarial") else CATEGORIES[q["category"]]
        for group in [name] if name == "adversarial" else [name, "overall"]:
            cell = sums[group]
            cell["n"] += 1
            for k in KS:
                got = evidence & set(ranked[:k])
                cell[f"recall@{k}"] += len(got) / len(evidence)
                cell[f"hit@{k}"] += bool(got)
    result: dict = {"categories": {}}
    for group in ("single-hop", "multi-hop", "temporal", "open-domain", "overall", "adversarial"):
        sums_of = sums.get(group)
        if sums_of:
            n = int(sums_of["n"])
            scores = {key: round(value / n, 4) for key, value in sums_of.items() if key != "n"}
            result["categories"][group] = {"n": n, **scores}
    result["latency_ms"] = _latency(latency)
    return result


def _latency(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
    }


def gate(result: dict, baseline: dict | None) -> list[str]:
    """What fails: a category under BM25 alone, or the overall figures under the committed
    ratchet (the target, or the best reached so far where the target is not met yet). An
    empty result is not scored: it fails. Latency is the benchmark's (bench/recall.py), never
    a wall-clock check here."""
    cats = result.get("categories", {})
    if not cats.get("overall", {}).get("n"):
        return ["no LoCoMo question was scored"]
    problems = []
    for name, floors in BM25.items():
        for metric, floor in floors.items():
            value = cats.get(name, {}).get(metric, 0.0)
            if value < floor:
                problems.append(f"{name} {metric} {value:.4f} under BM25 alone ({floor:.4f})")
    ratchet = (baseline or {}).get("locomo", TARGET)
    for metric, floor in ratchet.items():
        value = cats["overall"].get(metric, 0.0)
        if value < floor:
            problems.append(f"overall {metric} {value:.4f} under the ratchet ({floor:.4f})")
    return problems


def world_gate(result: dict, floors: dict[str, float]) -> list[str]:
    """An ask world: no leakage, and hit@k / answer@k at or above the committed floors."""
    problems = [f"{result['leakage']} turns from outside the room"] if result["leakage"] else []
    for metric, floor in floors.items():
        if result.get(metric, 0.0) < floor:
            problems.append(f"{metric} {result.get(metric, 0.0):.4f} under {floor:.4f}")
    return problems


# -- ask worlds ----------------------------------------------------------------------------------


def world(folder: Path, *, ablations: bool = False) -> dict:
    """Recall on a world's answerable `ask` questions (WORLD_FORMAT.md): hit@k, a turn of a
    source session in the top k; answer@k, a top-k turn of a source session that holds the
    answer (a string of every answer group; a count across sessions, whose answer is how
    many sessions say it and no turn's words, is scored by hit@k only); leakage, turns from
    outside the room."""
    from vyre import config
    from vyre.evaluate.memory import build, load_world

    spec, gold = load_world(folder)
    asks = [q for q in gold.get("ask", []) if q.get("sources") and not q.get("abstain")]
    if not asks:
        raise WorldError(f"{folder} has no answerable ask questions with sources")
    now = config.parse_time(spec["now"])
    with (
        tempfile.TemporaryDirectory(prefix="vyre-recall-world-") as tmp,
        build(Path(folder), Path(tmp)) as memory,
    ):
        result = _score_world(memory, asks, now)
        if ablations:
            result["ablations"] = {
                name: _score_world(memory, asks, now, ranking)
                for name, ranking in {**LADDER, **ABLATIONS}.items()
            }
        return result


def _score_world(
    memory: Memory, asks: list[dict], now: datetime, ranking: Ranking | None = None
) -> dict:
    from vyre.ask.count import tally

    hits = {f"{what}@{k}": 0 for what in ("hit", "answer") for k in KS}
    # a count across sessions is no turn's words ("4 times"): only its sessions are scored
    told = [q for q in asks if tally(q["question"], now) is None]
    leaks, latency = 0, []
    rooms: dict[str, set[str]] = {}
    projects = memory.ledger.projects()
    for q in asks:
        room = memory.room_for(q.get("cwd"))
        started = time.perf_counter()
        if ranking is None:
            found = memory.recall(q["question"], cwd=q.get("cwd"), limit=max(KS), now=now)
        else:
            scope = recall_search.scope_for(room, projects)
            found = recall_search.search(
                memory.ledger, q["question"], scope, limit=max(KS), now=now, ranking=ranking
            )
        latency.append((time.perf_counter() - started) * 1000)
        if room not in rooms:
            rooms[room] = _room_sessions(memory, room)
        leaks += sum(1 for p in found if p.session not in rooms[room])
        for k in KS:
            top = [p for p in found[:k] if p.session in q["sources"]]
            hits[f"hit@{k}"] += bool(top)
            if q in told:
                hits[f"answer@{k}"] += any(_holds(memory, p, q["answer"]) for p in top)
    n = len(asks)
    return {
        "n": n,
        **{
            key: round(value / (n if key.startswith("hit") else len(told) or 1), 4)
            for key, value in hits.items()
        },
        "leakage": leaks,
        "latency_ms": _latency(latency),
    }


def _holds(memory: Memory, passage: Passage, groups: list[list[str]]) -> bool:
    turn = memory.ledger.turn(passage.session, passage.seq)
    text = " ".join((turn or {}).get("text", "").casefold().split())
    return all(any(" ".join(a.casefold().split()) in text for a in group) for group in groups)


def _room_sessions(memory: Memory, room: str) -> set[str]:
    from vyre.rooms.membership import session_rooms

    rooms = session_rooms(memory.ledger.sessions(), memory.ledger.projects())
    return {sid for sid, held in rooms.items() if room in held}
