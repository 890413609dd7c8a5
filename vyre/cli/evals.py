"""`vyre eval memory`: score memory against an eval world."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import click

from vyre.cli.common import domain_errors, print_json


@click.group("eval")
def eval_group() -> None:
    """Score memory against eval worlds (../shared/design/WORLD_FORMAT.md)."""


@eval_group.command("memory")
@click.option(
    "--world",
    required=True,
    type=click.Path(path_type=Path, exists=True),
    help="A world folder: world.json, gold.json, transcripts/.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 when the gate fails.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="A baseline JSON; with --check, fail when any figure in it falls 0.02 below it.",
)
@click.option(
    "--ratchet",
    type=click.Path(path_type=Path),
    default=None,
    help="The figures this world has reached where a target is not met yet; the gate holds "
    "those instead of the target.",
)
@click.option(
    "--raise-ratchet",
    "raise_ratchet_",
    is_flag=True,
    help="Write --ratchet again: figures that rose are raised, targets now met leave it; "
    "nothing is ever lowered.",
)
@click.option(
    "--save-baseline",
    type=click.Path(path_type=Path),
    default=None,
    help="Write every gated figure of this run to a baseline JSON.",
)
@domain_errors
def memory_eval(
    world: Path,
    as_json: bool,
    check: bool,
    baseline: Path | None,
    ratchet: Path | None,
    raise_ratchet_: bool,
    save_baseline: Path | None,
) -> None:
    """Precision and recall per relation and room, leakage, enrichment and latency."""
    from vyre.evaluate.memory import figures, gate, raise_ratchet, score

    result = score(world)
    held = json.loads(ratchet.read_text()) if ratchet and ratchet.exists() else None
    problems = gate(result, json.loads(baseline.read_text()) if baseline else None, held)
    if as_json:
        print_json(result)
    else:
        _print(result, held)
    if save_baseline:
        save_baseline.write_text(json.dumps(figures(result), indent=2) + "\n")
    if raise_ratchet_ and ratchet:
        ratchet.write_text(json.dumps(raise_ratchet(result, held), indent=2) + "\n")
    if check and problems:
        for p in problems:
            click.echo(f"FAIL {p}", err=True)
        raise SystemExit(1)


def _f(value: float | None) -> str:
    return "n/s" if value is None else f"{value:.3f}"


def _print(result: dict, ratchet: dict | None) -> None:
    from vyre.evaluate.memory import TARGETS, required

    click.echo(f"world {result['world']}")
    for rel, r in result["relations"].items():
        off = "  (off in settings)" if r["off"] else ""
        click.echo(
            f"  {rel:<10} precision {_f(r['precision'])}  recall {_f(r['recall'])}"
            f"  (tp {r['tp']}, fp {r['fp']}, fn {r['fn']}){off}"
        )
        for room, cell in r["rooms"].items():
            click.echo(f"      {room:<16} P {_f(cell['precision'])}  R {_f(cell['recall'])}")
    click.echo(
        f"  leakage {result['leakage']}   absent hits: noise {result['absent.noise']}, "
        f"wrong {result['absent.wrong']}"
    )
    click.echo(
        f"  enrich precision@3 {_f(result['enrich.precision_at_3'])}  "
        f"recall@3 {_f(result['enrich.recall_at_3'])}"
    )
    click.echo(f"  empty on irrelevant {_f(result['irrelevant.empty_rate'])}")
    click.echo(
        f"  relevant p50 {_f(result['relevant_ms.p50'])} ms  p95 {_f(result['relevant_ms.p95'])} ms"
    )
    if "ask" in result:
        ask = result["ask"]
        scorer = (
            "vyre eval ask" if "ask" in eval_group.commands else "vyre eval ask (not built yet)"
        )
        click.echo(f"  ask: {ask['questions']} questions, not scored here: {scorer}")
    for name, minimum in required(result, ratchet).items():
        target = "" if minimum == TARGETS[name] else f", ratchet; target {TARGETS[name]}"
        click.echo(f"  gate {name:<24} {_f(result.get(name))} (min {minimum}{target})")
    after = result.get("after_corrections")
    if after:
        click.echo(
            f"  after corrections: applied {_f(after['corrections.applied'])}, "
            f"enrich precision@3 {_f(after['enrich.precision_at_3'])}, "
            f"leakage {after['leakage']}"
        )
        for miss in after["corrections.misses"]:
            click.echo(f"      miss {miss['id']}: {miss['error']}")


@eval_group.command("ask")
@click.option(
    "--world",
    required=True,
    type=click.Path(path_type=Path, exists=True),
    help="A world folder whose gold.json has an `ask` section.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 when a target (or its ratchet) fails.")
@click.option(
    "--ratchet",
    type=click.Path(path_type=Path),
    default=None,
    help="The figures this world has reached where a target is not met yet (JSON); the gate "
    "holds those instead of the target.",
)
@click.option(
    "--raise-ratchet",
    "raise_ratchet_",
    is_flag=True,
    help="Write --ratchet again with the figures that rose; nothing is ever lowered.",
)
@domain_errors
def ask_eval(
    world: Path, as_json: bool, check: bool, ratchet: Path | None, raise_ratchet_: bool
) -> None:
    """Accuracy by kind, abstain precision and recall, confident-wrong, grounded, leakage."""
    from vyre.evaluate.ask import TARGETS, gate
    from vyre.evaluate.ask import raise_ratchet as raise_ask_ratchet
    from vyre.evaluate.ask import score as score_ask

    result = score_ask(world)
    floors = json.loads(ratchet.read_text()) if ratchet and ratchet.exists() else {}
    problems = gate(result, floors)
    if raise_ratchet_ and ratchet:
        ratchet.write_text(json.dumps(raise_ask_ratchet(result, floors), indent=2) + "\n")
    if as_json:
        print_json(result)
    else:
        click.echo(f"world {result['world']}: {result['questions']} questions")
        for kind, cell in result["accuracy_by_kind"].items():
            click.echo(f"  {kind:<10} {cell['right']}/{cell['of']}")
        for r in result["results"]:
            mark = "ok " if r["right"] else "NO "
            what = "abstain" if r["abstain"] else r["kind"]
            said = "Not sure yet." if r["abstained"] else r["answer"].replace("\n", " ")[:90]
            click.echo(f"  {mark}{r['id']:<5} {what:<9} {r['question'][:60]:<60} -> {said}")
        for name, target in TARGETS.items():
            value = result[name]
            shown = "not scored" if value is None else value
            floor = floors.get(name)
            note = f"  (ratchet {floor})" if floor is not None else ""
            click.echo(f"  {name:<18} {shown}  target {target}{note}")
        click.echo(
            f"  abstain_precision  {result['abstain_precision']}   latency p50 "
            f"{result['latency_ms.p50']} ms  p95 {result['latency_ms.p95']} ms"
        )
    if check and problems:
        for p in problems:
            click.echo(f"FAIL {p}", err=True)
        raise SystemExit(1)


@eval_group.command("learn")
@click.option(
    "--world",
    required=True,
    type=click.Path(path_type=Path, exists=True),
    help="A lessons world folder with lessons.json (eval/lessons/README.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 when a gate fails.")
@click.option(
    "--ratchet",
    type=click.Path(path_type=Path),
    default=None,
    help="Figures reached where a target is not met yet; the gate holds those instead.",
)
@click.option("--no-daemon", is_flag=True, help="Skip the pass with the daemon running.")
@domain_errors
def learn_eval(
    world: Path, as_json: bool, check: bool, ratchet: Path | None, no_daemon: bool
) -> None:
    """Block precision, violation recall, near misses, guards, sequences, no-shape, latency."""
    from vyre.evaluate import learn as scorer

    result = scorer.score(world, daemon=not no_daemon)
    held = json.loads(ratchet.read_text()) if ratchet and ratchet.exists() else None
    problems = scorer.gate(result, held)
    if as_json:
        print_json(result)
    else:
        _print_learn(result, held, scorer.TARGETS)
    if check and problems:
        for p in problems:
            click.echo(f"FAIL {p}", err=True)
        raise SystemExit(1)


def _print_learn(result: dict, held: dict | None, targets: dict) -> None:
    click.echo(f"world {result['world']}: {result['lessons']} lessons, {result['calls']} hook runs")
    for name in (*targets, "guard_lookalikes_allowed", "no_shape_passes"):
        target = targets.get(name)
        floor = (held or {}).get(name, target)
        note = ""
        if target is not None:
            note = f"  (target {target}" + (f", ratchet {floor}" if floor != target else "") + ")"
        click.echo(f"  {name:<26} {_f(result[name])}{note}")
    click.echo(f"  errors                     {result['errors']}  (target 0)")
    for side, ms in result["hook_ms"].items():
        if ms["n"]:
            click.echo(
                f"  PreToolUse hook, {side:<11} p50 {ms['p50']} ms  p95 {ms['p95']} ms "
                f"({ms['n']} runs)"
            )
    misses = result["misses"]
    for kind in ("violations", "near", "sequences", "no_shape", "not_distilled", "errors"):
        for m in misses[kind]:
            click.echo(f"  miss {kind}: {json.dumps(m, ensure_ascii=False)}")
    for ident in misses["guards"]:
        click.echo(f"  miss guard: {ident}")
    for ident in misses["lookalikes"]:
        click.echo(f"  miss look-alike: {ident}")


@eval_group.command("recall")
@click.option(
    "--locomo",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    default=None,
    help="The LoCoMo folder (../shared/benchmarks/locomo): recall@5/10 of its evidence turns.",
)
@click.option(
    "--world",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    default=None,
    help="A world with an `ask` section: the source sessions its answers stand on.",
)
@click.option("--ablations", is_flag=True, help="Also score each ranking step turned off.")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as JSON.")
@click.option("--check", is_flag=True, help="Exit 1 when the LoCoMo gate fails.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="The committed ratchet (eval/recall_baseline.json) --check holds LoCoMo to.",
)
@domain_errors
def recall_eval(
    locomo: Path | None,
    world: Path | None,
    ablations: bool,
    as_json: bool,
    check: bool,
    baseline: Path | None,
) -> None:
    """Recall without a model: LoCoMo's evidence turns by category, and an ask world's
    sources, through the same search every surface uses."""
    from vyre.evaluate import recall as scorer

    if not locomo and not world:
        raise click.UsageError("give --locomo DIR, --world DIR, or both")
    out: dict = {}
    if locomo:
        out["locomo"] = scorer.locomo(locomo, ablations=ablations)
    if world:
        out["world"] = scorer.world(world, ablations=ablations)
    problems = (
        scorer.gate(out["locomo"], json.loads(baseline.read_text()) if baseline else None)
        if locomo
        else []
    )
    if as_json:
        print_json(out)
    else:
        if locomo:
            _print_locomo(out["locomo"], scorer)
        if world:
            _print_world(out["world"], world, scorer)
    if check and problems:
        for p in problems:
            click.echo(f"FAIL {p}", err=True)
        raise SystemExit(1)


def _print_locomo(result: dict, scorer: Any) -> None:  # scorer: the LoCoMo module
    click.echo("LoCoMo evidence turns (recall@5 / recall@10; BM25 alone in brackets)")
    for name, cell in result["categories"].items():
        bm25 = scorer.BM25.get(name)
        ref = f"  [{bm25['recall@5']:.3f} / {bm25['recall@10']:.3f}]" if bm25 else ""
        click.echo(
            f"  {name:<12} n={cell['n']:<5} {cell['recall@5']:.3f} / {cell['recall@10']:.3f}"
            f"{ref}   hit@10 {cell['hit@10']:.3f}"
        )
    t = scorer.TARGET
    click.echo(f"  target (overall, no model): {t['recall@5']:.2f} / {t['recall@10']:.2f}")
    lat = result["latency_ms"]
    click.echo(f"  latency p50 {lat['p50']:.3f} ms  p95 {lat['p95']:.3f} ms (in process)")
    _print_steps(
        {name: cats["overall"] for name, cats in result.get("ablations", {}).items()},
        result["categories"]["overall"],
        scorer,
        ("recall@5", "recall@10"),
    )


def _print_steps(rows: dict, full: dict, scorer: ModuleType, metrics: tuple[str, ...]) -> None:
    """The ladder (each step's gain over the row above) and each step turned off (its loss)."""
    if not rows:
        return
    before = None
    for name in scorer.LADDER:
        row = rows[name]
        gain = (
            ""
            if before is None
            else "  " + " / ".join(f"{row[m] - before[m]:+.3f}" for m in metrics)
        )
        click.echo(f"  {name:<38} " + " / ".join(f"{row[m]:.3f}" for m in metrics) + gain)
        before = row
    for name in scorer.ABLATIONS:
        row = rows[name]
        loss = " / ".join(f"{row[m] - full[m]:+.3f}" for m in metrics)
        click.echo(f"  {name:<38} " + " / ".join(f"{row[m]:.3f}" for m in metrics) + f"  {loss}")


def _print_world(result: dict, world: Path, scorer: ModuleType) -> None:
    click.echo(f"world {world} ({result['n']} answerable ask questions with sources)")
    click.echo(
        f"  source session hit@5 {result['hit@5']:.3f}  hit@10 {result['hit@10']:.3f}  "
        f"answer turn @5 {result['answer@5']:.3f}  @10 {result['answer@10']:.3f}  "
        f"leakage {result['leakage']}"
    )
    _print_steps(result.get("ablations", {}), result, scorer, ("hit@5", "answer@5", "answer@10"))
