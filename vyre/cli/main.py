"""The `vyre` command. Each group lives in its own module; this file only wires them."""

from __future__ import annotations

import click

from vyre import __version__
from vyre.cli.daemon import daemon, hook, mcp_command
from vyre.cli.deck import deck
from vyre.cli.demo import demo
from vyre.cli.doctor import doctor
from vyre.cli.evals import eval_group
from vyre.cli.harness import harness
from vyre.cli.ingest import derive_command, ingest
from vyre.cli.learn import learn
from vyre.cli.memory import memory, why
from vyre.cli.project import project
from vyre.cli.recall import recall


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vyre")
def cli() -> None:
    """Vyre: a local memory of the people, orgs and repos in your Claude Code work.

    Home is $VYRE_HOME (default ~/.vyre); reads use $VYRE_NOW as the time when it is set.
    """


for command in (
    ingest,
    derive_command,
    memory,
    why,
    recall,
    project,
    demo,
    doctor,
    eval_group,
    daemon,
    hook,
    harness,
    mcp_command,
    learn,
    deck,
):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="vyre")


if __name__ == "__main__":
    main()
