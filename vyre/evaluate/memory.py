"""Score memory against an eval world (../shared/design/WORLD_FORMAT.md).

Any world in that format runs: its projects are added, its transcripts ingested into a fresh
temporary home, its picks applied, and every read uses the world's `now`.

Definitions the format leaves open, decided here:
- Only open facts count (closed or past-deadline rows are not what memory holds now).
- A (room, relation) pair is scored for precision only where gold lists that relation in that
  room (gold is complete there); recall is scored for every gold fact.
- Repos match on the name without its owner (gold spells `keelash-site`, memory keeps
  `keel-ash/keelash-site`).
- precision@3 = hits in the top three / the number returned (at most three); a prompt that
  expects facts and gets none scores 0. recall@3 = hits / min(3, expected).
- Relations turned off in settings (`prefers`, `decided` by default) are reported as off and
  not gated.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz

from vyre import config
from vyre.api import Memory
from vyre.errors import WorldError
from vyre.models import Fact
from vyre.resolve import fold
from vyre.rooms import MAIN
from vyre.rooms.projects import ProjectError

SCORED = ("is", "works_at", "has_title", "client_of", "repo_for", "deadline", "prefers", "decided")
FUZZY = ("has_title", "prefers", "decided")
NEW_RELATIONS = ("has_title", "client_of", "repo_for", "deadline", "prefers", "decided")
ENTITY_KINDS = ("person", "org", "address", "domain", "repo")

# The gate CI applies (ADR 0007 §5): leakage 0; these minimums; and no metric more than
# BASELINE_SLACK below the committed baseline.
THRESHOLDS = {
    "identity.precision": 0.95,
    "identity.recall": 0.85,
    "works_at.precision": 0.95,
    "new_relations.min": 0.85,
    "enrich.precision_at_3": 0.8,
    "irrelevant.empty_rate": 0.95,
}
LATENCY_P95_MS = 5.0
BASELINE_SLACK = 0.02


@dataclass(frozen=True)
class Key:
    room: str
    subject: str
    rel: str
    object: str


def load_world(world: Path) -> tuple[dict, dict]:
    world = Path(world)
    try:
        spec = json.loads((world / "world.json").read_text())
        gold = json.loads((world / "gold.json").read_text())
    except FileNotFoundError as exc:
        missing = Path(exc.filename).name
        raise WorldError(f"{world} is not an eval world: {missing} is missing") from exc
    except ValueError as exc:
        raise WorldError(f"{world}: {exc}") from exc
    if not (world / "transcripts").is_dir():
        raise WorldError(f"{world} is not an eval world: transcripts/ is missing")
    return spec, gold


def build(world: Path, home: Path, engine: str | None = None) -> Memory:
    """A memory of the world in `home`, ready to read."""
    spec, _ = load_world(world)
    memory = Memory(home, engine=engine)
    for p in spec.get("projects", []):
        memory.project_add(p["slug"], p.get("name", p["slug"]), p["folders"], p.get("org"))
    memory.ingest(Path(world) / "transcripts")
    for p in spec.get("projects", []):
        for session in p.get("picks", []):
            memory.project_pick(p["slug"], session)
    memory.derive()
    return memory


def score(world: Path, *, engine: str | None = None, repeat: int = 20) -> dict:
    spec, gold = load_world(world)
    now = config.parse_time(spec["now"])
    with tempfile.TemporaryDirectory(prefix="vyre-eval-") as tmp:
        memory = build(world, Path(tmp), engine)
        try:
            return _score(memory, spec, gold, now, repeat)
        finally:
            memory.close()


def _score(memory: Memory, spec: dict, gold: dict, now, repeat: int) -> dict:
    result = {"world": spec.get("name", ""), **_metrics(memory, gold, now, repeat)}
    if gold.get("corrections"):
        apply_script(memory, gold["corrections"]["script"], now)
        result["after_corrections"] = _metrics(memory, corrected_gold(gold), now, 1)
    return result


def apply_script(memory: Memory, script: list[dict], now) -> list[int]:
    """Run a corrections script (`vyre memory ...` argument lists) as the owner. Returns the
    ids of the rows it recorded."""
    ids = []
    for step in script:
        args = list(step["args"])
        command = args.pop(0)
        positional, options = [], {}
        while args:
            arg = args.pop(0)
            if arg.startswith("--"):
                options[arg[2:]] = args.pop(0)
            else:
                positional.append(arg)
        target = positional[0] if len(positional) == 1 else tuple(positional)
        if command == "correct":
            scope = options.get("project", MAIN) if options.get("scope") == "project" else MAIN
            at = config.parse_time(options["at"]) if "at" in options else None
            row, _ = memory.correct(
                target,
                options["action"],
                value=options.get("object"),
                at=at,
                scope=scope,
                note=options.get("note"),
                caller="local",
                now=now,
            )
        elif command == "merge":
            row, _ = memory.merge(*positional, caller="local", now=now)
        elif command == "split":
            row, _ = memory.split(positional[0], room=options.get("room"), caller="local", now=now)
        elif command in ("pin", "mute"):
            row = getattr(memory, command)(target, caller="local", now=now)
        else:
            raise WorldError(f"unknown command in the corrections script: {command!r}")
        ids.append(row.id)
    return ids


def corrected_gold(gold: dict) -> dict:
    """Gold as it stands after the corrections script."""
    fix = gold["corrections"]
    removed = set(fix.get("remove", []))
    replaces = {f["replaces"]: f["id"] for f in fix.get("add", []) if f.get("replaces")}
    facts = [f for f in gold["facts"] if f["id"] not in removed] + [
        {k: v for k, v in f.items() if k not in ("replaces", "expect_in")}
        for f in fix.get("add", [])
    ]
    brings = defaultdict(list)
    for f in fix.get("add", []):
        for case in f.get("expect_in", []):
            brings[case].append(f["id"])
    enrich = [
        {
            **case,
            "expect": (
                [replaces.get(i, i) for i in case["expect"] if i not in removed or i in replaces]
                + brings[case.get("id")]
            )[:3],
        }
        for case in gold.get("enrich", [])
    ]
    return {
        **gold,
        "facts": facts,
        "absent": gold.get("absent", []) + fix.get("absent", []),
        "enrich": [c for c in enrich if c["expect"]],
    }


def _metrics(memory: Memory, gold: dict, now, repeat: int) -> dict:
    settings = config.settings()
    enabled = {rel for rel in SCORED if settings.get(f"relations.{rel}", True) is not False}
    gold_facts = [g for g in gold.get("facts", []) if g["rel"] in SCORED]
    rooms = sorted({g["room"] for g in gold_facts} | set(memory.reader.rooms()))
    held: dict[str, list[Fact]] = {}
    for room in rooms:
        try:
            held[room] = [f for f in memory.facts(room, now=now) if f.rel in SCORED]
        except ProjectError:  # a gold room memory does not have
            held[room] = []
    gold_pairs = {(g["room"], g["rel"]) for g in gold_facts}

    # precision and recall per relation and room
    per: dict[tuple[str, str], dict] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
    matched_gold: set[str] = set()
    for room, rel in sorted(gold_pairs):
        expected = [g for g in gold_facts if g["room"] == room and g["rel"] == rel]
        got = [f for f in held.get(room, []) if f.rel == rel]
        used: set[int] = set()
        for g in expected:
            hit = next((i for i, f in enumerate(got) if i not in used and _match(g, f)), None)
            if hit is None:
                per[(rel, room)]["fn"] += 1
            else:
                used.add(hit)
                matched_gold.add(g["id"])
                per[(rel, room)]["tp"] += 1
        per[(rel, room)]["fp"] += len(got) - len(used)
    relations = {}
    for rel in SCORED:
        cells = {room: c for (r, room), c in per.items() if r == rel}
        tp = sum(c["tp"] for c in cells.values())
        fp = sum(c["fp"] for c in cells.values())
        fn = sum(c["fn"] for c in cells.values())
        if not cells:
            continue
        relations[rel] = {
            "precision": _ratio(tp, tp + fp),
            "recall": _ratio(tp, tp + fn),
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "off": rel not in enabled,
            "rooms": {
                room: {
                    "precision": _ratio(c["tp"], c["tp"] + c["fp"]),
                    "recall": _ratio(c["tp"], c["tp"] + c["fn"]),
                }
                for room, c in sorted(cells.items())
            },
        }

    # leakage and absent hits
    absent = gold.get("absent", [])
    leaks, hits = [], defaultdict(int)
    named = _named_in_rooms(memory)
    for room, facts in held.items():
        if room == "*":
            continue
        for f in facts:
            for a in absent:
                if a["room"] == room and _match(a, f):
                    if a.get("why") == "leak":
                        leaks.append(f"{room}: {f.subject} {f.rel} {f.object}")
                    else:
                        hits[a.get("why", "noise")] += 1
            for label, kind in ((f.subject, f.subject_kind), (f.object, f.object_kind)):
                if kind in ENTITY_KINDS and not _said(label, kind, named.get(room, "")):
                    leaks.append(f"{room}: {label} is never named in the room's own sessions")

    # enrichment
    facts_by_id = {g["id"]: g for g in gold.get("facts", [])}
    precisions, recalls, latencies = [], [], []
    details = []
    for case in gold.get("enrich", []):
        got = memory.relevant(case["prompt"], case.get("cwd"), now=now)[:3]
        expect = case.get("expect", [])
        ids = [_gold_id(f, case["room"], facts_by_id) for f in got]
        good = sum(1 for i in ids if i in expect)
        if got:
            precisions.append(good / len(got))
        elif expect:
            precisions.append(0.0)
        if expect:
            recalls.append(good / min(3, len(expect)))
        details.append({"id": case.get("id"), "got": ids, "expect": expect})
    empties = 0
    for case in gold.get("irrelevant", []):
        if not memory.relevant(case["prompt"], case.get("cwd"), now=now):
            empties += 1
    prompts = [
        (c["prompt"], c.get("cwd")) for c in gold.get("enrich", []) + gold.get("irrelevant", [])
    ]
    for _ in range(repeat):
        for prompt, cwd in prompts:
            t = time.perf_counter()
            memory.relevant(prompt, cwd, now=now)
            latencies.append((time.perf_counter() - t) * 1000)

    identity = relations.get("is", {"precision": 1.0, "recall": 1.0})
    gated_new = [
        relations[r][m]
        for r in NEW_RELATIONS
        if r in relations and not relations[r]["off"]
        for m in ("precision", "recall")
    ]
    irrelevant_total = len(gold.get("irrelevant", []))
    return {
        "relations": relations,
        "identity.precision": identity["precision"],
        "identity.recall": identity["recall"],
        "works_at.precision": relations.get("works_at", {}).get("precision", 1.0),
        "new_relations.min": min(gated_new) if gated_new else 1.0,
        "leakage": len(leaks),
        "leaks": leaks,
        "absent_hits": dict(hits),
        "enrich.precision_at_3": _mean(precisions),
        "enrich.recall_at_3": _mean(recalls),
        "enrich": details,
        "irrelevant.empty_rate": _ratio(empties, irrelevant_total),
        "relevant_ms.p50": round(statistics.median(latencies), 3) if latencies else 0.0,
        "relevant_ms.p95": round(_p95(latencies), 3) if latencies else 0.0,
        "missed": sorted(
            set(facts_by_id) - matched_gold, key=lambda i: int(i[1:]) if i[1:].isdigit() else 0
        ),
    }


def gate(result: dict, baseline: dict | None = None) -> list[str]:
    """Why a result fails CI (empty when it passes); after corrections too, when scored."""
    problems = _gate(result, baseline)
    if "after_corrections" in result:
        after = (baseline or {}).get("after_corrections")
        problems += [
            f"after corrections: {p}"
            for p in _gate(result["after_corrections"], after, latency=False)
        ]
    return problems


def _gate(result: dict, baseline: dict | None, *, latency: bool = True) -> list[str]:
    problems = []
    if result["leakage"] > 0:
        problems.append(f"leakage {result['leakage']} > 0: {result['leaks'][:3]}")
    for name, minimum in THRESHOLDS.items():
        if result[name] < minimum:
            problems.append(f"{name} {result[name]:.3f} < {minimum}")
    if latency and result["relevant_ms.p95"] > LATENCY_P95_MS:
        problems.append(f"relevant p95 {result['relevant_ms.p95']} ms > {LATENCY_P95_MS} ms")
    for name, value in (baseline or {}).items():
        if name in THRESHOLDS and result[name] < value - BASELINE_SLACK:
            problems.append(
                f"{name} {result[name]:.3f} is more than {BASELINE_SLACK} below the "
                f"baseline {value:.3f}"
            )
    return problems


# -- matching ----------------------------------------------------------------------------------


def _label(value: str, kind: str | None) -> str:
    if kind == "repo" and "/" in value:
        value = value.rsplit("/", 1)[1]
    return fold(value)


def _match(g: dict, f: Fact) -> bool:
    if g["rel"] != f.rel:
        return False
    if f.rel == "deadline":
        return g["object"] == f.object
    subject_kind = "repo" if f.subject_kind == "repo" else None
    if _label(g["subject"], subject_kind) != _label(f.subject, f.subject_kind):
        return False
    if f.rel == "is":
        return fold(g["object"]) == fold(f.object)
    if f.rel in FUZZY:
        return fuzz.token_set_ratio(fold(g["object"]), fold(f.object)) >= 85
    return _label(g["object"], f.object_kind) == _label(f.object, f.object_kind)


def _gold_id(f: Fact, room: str, facts_by_id: dict) -> str | None:
    for gid, g in facts_by_id.items():
        if g["room"] == room and _match(g, f):
            return gid
    return None


def _named_in_rooms(memory: Memory) -> dict[str, str]:
    """All the text of each room's own sessions, folded, to check a label was ever said."""
    from vyre.rooms import session_rooms

    membership = session_rooms(memory.ledger.sessions(), memory.projects())
    text: dict[str, list[str]] = defaultdict(list)
    for session, body in memory.ledger.db.execute("SELECT session, text FROM turns"):
        for room in membership.get(session, ()):
            text[room].append(body)
    return {room: fold(" ".join(parts)) for room, parts in text.items()}


def _said(label: str, kind: str, text: str) -> bool:
    if kind == "repo":
        label = label.rsplit("/", 1)[-1]
    return fold(label) in text


def _ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 1.0


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 1.0


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
