"""`vyre eval memory`: score memory against an eval world."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vyre.cli.common import domain_errors, print_json
from vyre.evaluate.memory import THRESHOLDS, gate, score


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
@click.option("--check", is_flag=True, help="Exit 1 when a CI threshold fails.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, exists=True),
    default=None,
    help="A baseline JSON; with --check, fail when a metric falls 0.02 below it.",
)
@domain_errors
def memory_eval(world: Path, as_json: bool, check: bool, baseline: Path | None) -> None:
    """Precision and recall per relation and room, leakage, enrichment and latency."""
    result = score(world)
    problems = gate(result, json.loads(baseline.read_text()) if baseline else None)
    if as_json:
        print_json(result)
    else:
        click.echo(f"world {result['world']}")
        for rel, r in result["relations"].items():
            off = "  (off in settings)" if r["off"] else ""
            click.echo(
                f"  {rel:<10} precision {r['precision']:.3f}  recall {r['recall']:.3f}"
                f"  (tp {r['tp']}, fp {r['fp']}, fn {r['fn']}){off}"
            )
            for room, cell in r["rooms"].items():
                click.echo(f"      {room:<16} P {cell['precision']:.3f}  R {cell['recall']:.3f}")
        click.echo(f"  leakage {result['leakage']}   absent hits {result['absent_hits'] or 0}")
        click.echo(
            f"  enrich precision@3 {result['enrich.precision_at_3']:.3f}  "
            f"recall@3 {result['enrich.recall_at_3']:.3f}"
        )
        click.echo(f"  empty on irrelevant {result['irrelevant.empty_rate']:.3f}")
        click.echo(
            f"  relevant p50 {result['relevant_ms.p50']:.3f} ms  "
            f"p95 {result['relevant_ms.p95']:.3f} ms"
        )
        for name, minimum in THRESHOLDS.items():
            click.echo(f"  gate {name:<24} {result[name]:.3f} (min {minimum})")
    if check and problems:
        for p in problems:
            click.echo(f"FAIL {p}", err=True)
        raise SystemExit(1)
