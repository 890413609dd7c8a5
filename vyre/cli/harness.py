"""`vyre harness ...`: put Vyre's hooks into Claude Code, take them out, show where they are.

Thin: the work is in vyre.hooks.install; a HarnessError (a VyreError) prints one line and
exits 1.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from vyre.cli.common import domain_errors
from vyre.hooks.commands import EVENTS, SCOPES, mcp_command
from vyre.wording import count

if TYPE_CHECKING:
    from vyre.hooks import install as lib

SCOPE = click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="user",
    show_default=True,
    help="user: your settings; project: .claude/settings.json; local: .claude/settings.local.json.",
)
DRY_RUN = click.option("--dry-run", is_flag=True, help="Show the change as a diff; write nothing.")


@click.group()
def harness() -> None:
    """Claude Code integration: Vyre's hooks in your settings, or as a plugin."""


@harness.command("install")
@SCOPE
@DRY_RUN
@domain_errors
def install(scope: str, dry_run: bool) -> None:
    """Add Vyre's hooks to Claude Code's settings (others' hooks stay as they are)."""
    from vyre.hooks import install as lib

    result = lib.install(scope, Path.cwd(), dry_run=dry_run)
    if _report(result, done="installed Vyre's hooks in", same="Vyre's hooks are already in"):
        _next_steps(scope)


@harness.command("uninstall")
@SCOPE
@DRY_RUN
@domain_errors
def uninstall(scope: str, dry_run: bool) -> None:
    """Remove Vyre's hooks (and only them) from Claude Code's settings."""
    from vyre.hooks import install as lib

    result = lib.uninstall(scope, Path.cwd(), dry_run=dry_run)
    _report(result, done="removed Vyre's hooks from", same="no Vyre hooks in")


@harness.command("status")
@domain_errors
def status() -> None:
    """Where Vyre's hooks are installed, which interpreter they run, and whether Vyre's
    plugin is enabled too (then each prompt would get Vyre's context twice)."""
    from vyre.hooks import install as lib

    statuses = lib.status(Path.cwd())
    for s in statuses:
        click.echo(f"{s.scope}: {s.path}")
        for line in _status_lines(s):
            click.echo(f"  {line}")
    plugins, scopes = lib.doubled(statuses)
    if plugins:
        uninstall = "; ".join(f"vyre harness uninstall --scope {scope}" for scope in scopes)
        click.echo(
            f"warning: Vyre's plugin ({', '.join(plugins)}) is enabled and Vyre's hooks are in "
            f"your {' and '.join(scopes)} settings: Claude Code runs both, so each prompt gets "
            f"Vyre's context twice. Keep one: `{uninstall}`, or disable the plugin (/plugin)."
        )


@harness.command("plugin")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@domain_errors
def plugin(folder: Path) -> None:
    """Write Vyre as a Claude Code plugin (hooks and MCP server) into FOLDER."""
    from vyre.hooks import install as lib

    for path in lib.write_plugin(folder):
        click.echo(f"wrote {path}")
    click.echo(f"try it with: claude --plugin-dir {shlex.quote(str(folder))}")
    click.echo("use either the plugin or `vyre harness install`, not both: hooks would run twice")


def _report(result: lib.InstallResult, *, done: str, same: str) -> bool:
    """Print what happened; True when Vyre's hooks are now (or would be) in place."""
    if not result.changed:
        click.echo(f"{same} {result.path}; nothing to change")
    elif result.dry_run:
        click.echo(result.diff, nl=False)
        click.echo(f"(dry run: {result.path} not written)")
    else:
        click.echo(f"{done} {result.path}")
        if result.backup:
            click.echo(f"backup of the previous file: {result.backup}")
    return not result.dry_run


def _next_steps(scope: str) -> None:
    click.echo("next: start the daemon with `vyre daemon start`")
    if scope == "user":
        command, args = mcp_command()
        mcp = shlex.join(["claude", "mcp", "add", "--scope", "user", "vyre", "--", command, *args])
        click.echo(f"and add the MCP server: {mcp}")


def _status_lines(s: lib.ScopeStatus) -> list[str]:
    if not s.exists:
        return ["no settings file"]
    if s.error:
        return [s.error]
    lines = []
    if s.hooks:
        lines.append(f"Vyre's hooks on {len(s.events)}/{len(EVENTS)} events")
        if s.missing:
            lines.append(
                f"missing: {', '.join(s.missing)} (run `vyre harness install --scope {s.scope}`)"
            )
        for python in dict.fromkeys(h.python for h in s.hooks):
            lines.append(f"interpreter {python}: {_python_state(s, python)}")
    else:
        lines.append("no Vyre hooks")
    lines.append(count(s.others, "other hook"))
    for plugin_id, on in s.plugins.items():
        lines.append(f"Vyre's plugin {plugin_id} {'enabled' if on else 'disabled'}")
    return lines


def _python_state(s: lib.ScopeStatus, python: str | None) -> str:
    hook = next(h for h in s.hooks if h.python == python)
    if not hook.python_exists:
        return f"missing: run `vyre harness install --scope {s.scope}` again"
    if not hook.current:
        return "exists, but is not this Vyre's interpreter"
    return "this one"
