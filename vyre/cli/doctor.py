"""`vyre doctor [--repair]`: check the home's stores and files (vyre/doctor.py says what)."""

from __future__ import annotations

import sys

import click

from vyre import config
from vyre.cli.common import domain_errors


@click.command()
@click.option("--repair", is_flag=True, help="Mend what the checks found (stop the daemon first).")
@domain_errors
def doctor(repair: bool) -> None:
    """Check the home, the daemon's files, the ledger, the backup of your rows and the graph."""
    from vyre import doctor as checks

    home = config.home()
    if repair:
        for line in checks.repair(home, config.projects_root()):
            click.echo(f"repaired: {line}")
    findings = checks.check(home)
    for finding in findings:
        click.echo(finding.line())
    if not all(f.ok for f in findings):
        sys.exit(1)
