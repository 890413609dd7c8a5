"""Put Vyre's hooks into Claude Code's settings files, take them out again, and say where they are.

What must stay true (tests/test_harness.py checks each):
- Only Vyre's own hooks are ever added, changed or removed; they are recognised by MARKER in
  their command. Everyone else's hooks, every other key and the order of keys stay as they were.
- The hooks are in Claude Code's documented shape: per event a list of matcher groups
  `{"matcher": "*", "hooks": [{"type": "command", "command": ..., "timeout": TIMEOUT_S}]}`,
  with a `matcher` only on TOOL_EVENTS.
- Installing twice changes nothing and writes nothing; installing from another interpreter
  replaces Vyre's entries where they stand instead of adding a second set.
- A file is changed only after a backup of its exact bytes is written beside it, and is
  written atomically (temp file + os.replace) keeping its mode (0600 for a new file).
- A file that is not a JSON object, or whose `hooks` is not an object, is never written: it
  raises HarnessError with a one-line message.
- Standard library only: `vyre.hooks` must stay cheap to import.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import stat
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import vyre
from vyre.errors import HarnessError
from vyre.files import write_atomic
from vyre.hooks.commands import (
    EVENTS,
    MARKER,
    SCOPES,
    TIMEOUT_S,
    TOOL_EVENTS,
    hook_command,
    interpreter,
    mcp_command,
)

NEW_SETTINGS_MODE = 0o600
NEW_PLUGIN_MODE = 0o644
PLUGIN_NAME = "vyre"
DESCRIPTION = "Vyre Memory: a local memory of the people, organisations and repos in your work."


@dataclass
class InstallResult:
    """What install or uninstall did (or, with dry_run, would do) to one settings file."""

    path: Path
    changed: bool
    diff: str
    backup: Path | None = None
    dry_run: bool = False


@dataclass
class VyreHook:
    """One of Vyre's hooks found in a settings file, and the interpreter it runs."""

    event: str
    command: str
    python: str | None
    python_exists: bool
    current: bool


@dataclass
class ScopeStatus:
    scope: str
    path: Path
    exists: bool
    hooks: list[VyreHook] = field(default_factory=list)
    others: int = 0  # hooks in this file that are not Vyre's
    error: str | None = None
    # this file's `enabledPlugins` entries for Vyre's plugin: id -> enabled (a later scope's
    # false turns an earlier scope's true off)
    plugins: dict[str, bool] = field(default_factory=dict)

    @property
    def events(self) -> list[str]:
        return list(dict.fromkeys(h.event for h in self.hooks))

    @property
    def missing(self) -> list[str]:
        return [e for e in EVENTS if e not in self.events]


# -- where the settings live ---------------------------------------------------------------


def _config_dir() -> Path:
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(config_dir).expanduser() if config_dir else Path.home() / ".claude"


def settings_path(scope: str, cwd: Path) -> Path:
    if scope == "user":
        return _config_dir() / "settings.json"
    if scope == "project":
        return Path(cwd) / ".claude" / "settings.json"
    if scope == "local":
        return Path(cwd) / ".claude" / "settings.local.json"
    raise HarnessError(f"unknown scope {scope!r} (one of: {', '.join(SCOPES)})")


# -- the entries ---------------------------------------------------------------------------


def hook_entry(event: str, python: str | None = None) -> dict:
    return {"type": "command", "command": hook_command(event, python), "timeout": TIMEOUT_S}


def matcher_group(event: str, python: str | None = None) -> dict:
    group: dict = {"matcher": "*"} if event in TOOL_EVENTS else {}
    group["hooks"] = [hook_entry(event, python)]
    return group


def vyre_hooks(python: str | None = None) -> dict:
    """The whole `hooks` object Vyre wants, event by event."""
    return {event: [matcher_group(event, python)] for event in EVENTS}


def is_vyre(hook: object) -> bool:
    return isinstance(hook, dict) and MARKER in str(hook.get("command", ""))


def _group_hooks(group: object) -> list:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return hooks if isinstance(hooks, list) else []


def _strip(groups: list) -> tuple[list, int | None]:
    """`groups` without Vyre's hooks, and the index Vyre's first group had (None: none).

    A group left with no hooks because Vyre's were taken out goes too; a group that holds
    someone else's hooks beside Vyre's keeps theirs.
    """
    kept: list = []
    first = None
    for group in groups:
        hooks = _group_hooks(group)
        if not any(is_vyre(h) for h in hooks):
            kept.append(group)
            continue
        if first is None:
            first = len(kept)
        others = [h for h in hooks if not is_vyre(h)]
        if others:
            kept.append({**group, "hooks": others})
    return kept, first


# -- reading and writing settings files ----------------------------------------------------


def _read(path: Path) -> tuple[bytes | None, dict]:
    """The file's bytes (None when missing) and its JSON object."""
    if not path.exists():
        return None, {}
    raw = path.read_bytes()
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HarnessError(f"{path} is not valid JSON ({exc}); fix it and run again") from exc
    if not isinstance(data, dict):
        raise HarnessError(f"{path} is not a JSON object; fix it and run again")
    if not isinstance(data.get("hooks", {}), dict):
        raise HarnessError(f"{path}: `hooks` is not an object; fix it and run again")
    return raw, data


def _dump(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _diff(path: Path, old: bytes | None, new: str) -> str:
    before = old.decode("utf-8").splitlines(keepends=True) if old is not None else []
    if before and not before[-1].endswith("\n"):
        before[-1] += "\n"  # keep the diff's lines apart
    lines = difflib.unified_diff(
        before,
        new.splitlines(keepends=True),
        fromfile="/dev/null" if old is None else str(path),
        tofile=str(path),
    )
    return "".join(lines)


def _backup(path: Path, raw: bytes, mode: int) -> Path:
    """Write `raw` beside `path` under a name no earlier backup has; return that name."""
    stem = f"{path.name}.vyre-backup-{datetime.now():%Y%m%dT%H%M%S}"
    for n in range(1000):
        backup = path.with_name(stem if n == 0 else f"{stem}-{n}")
        try:
            fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        os.chmod(backup, mode)
        return backup
    raise HarnessError(f"too many backups of {path} this second; try again")


def _mode(path: Path, default: int) -> int:
    return stat.S_IMODE(path.stat().st_mode) if path.exists() else default


def _apply(path: Path, raw: bytes | None, old: dict, new: dict, dry_run: bool) -> InstallResult:
    """Write `new` over the settings file (backup first) unless nothing changed or dry_run."""
    if new == old:
        return InstallResult(path, changed=False, diff="", dry_run=dry_run)
    text = _dump(new)
    result = InstallResult(path, changed=True, diff=_diff(path, raw, text), dry_run=dry_run)
    if dry_run:
        return result
    mode = _mode(path, NEW_SETTINGS_MODE)
    try:
        if raw is not None:
            result.backup = _backup(path, raw, mode)
        write_atomic(path, text.encode("utf-8"), mode)
    except OSError as exc:
        raise HarnessError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return result


def _target(scope: str, cwd: Path) -> Path:
    """The settings file itself: a symlinked settings.json (dotfiles) stays a symlink."""
    path = settings_path(scope, cwd)
    return path.resolve() if path.is_symlink() else path


# -- install, uninstall, status ------------------------------------------------------------


def install(
    scope: str, cwd: Path, *, python: str | None = None, dry_run: bool = False
) -> InstallResult:
    """Merge Vyre's hooks into one scope's settings file."""
    path = _target(scope, cwd)
    raw, old = _read(path)
    new = copy.deepcopy(old)
    hooks = new.setdefault("hooks", {})
    for event in EVENTS:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise HarnessError(f"{path}: `hooks.{event}` is not a list; fix it and run again")
        kept, at = _strip(groups)
        kept.insert(len(kept) if at is None else at, matcher_group(event, python))
        hooks[event] = kept
    _strip_events(hooks, [e for e in hooks if e not in EVENTS])  # events Vyre no longer uses
    return _apply(path, raw, old, new, dry_run)


def uninstall(scope: str, cwd: Path, *, dry_run: bool = False) -> InstallResult:
    """Take Vyre's hooks (and only them) out of one scope's settings file."""
    path = _target(scope, cwd)
    raw, old = _read(path)
    new = copy.deepcopy(old)
    hooks = new.get("hooks")
    if hooks and _strip_events(hooks, list(hooks)) and not hooks:
        del new["hooks"]
    return _apply(path, raw, old, new, dry_run)


def _strip_events(hooks: dict, events: list[str]) -> bool:
    """Take Vyre's hooks out of `events`, dropping lists only Vyre used; True if any went."""
    found = False
    for event in events:
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept, at = _strip(groups)
        if at is None:
            continue
        found = True
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    return found


def status(cwd: Path) -> list[ScopeStatus]:
    installed = _installed_vyre_plugins()
    return [_scope_status(scope, cwd, installed) for scope in SCOPES]


def enabled_plugins(statuses: list[ScopeStatus]) -> list[str]:
    """Vyre's plugin ids Claude Code loads from settings here: each scope's `enabledPlugins`
    in turn (user, project, local), a later one overriding an earlier one. A plugin loaded
    with `claude --plugin-dir` is in no settings file and cannot be seen from here."""
    enabled: dict[str, bool] = {}
    for s in statuses:
        enabled.update(s.plugins)
    return sorted(p for p, on in enabled.items() if on)


def doubled(statuses: list[ScopeStatus]) -> tuple[list[str], list[str]]:
    """(plugin ids, scopes with Vyre's hooks) when both are active: Claude Code then runs
    Vyre's hooks twice and each prompt gets Vyre's context twice. Empty lists otherwise."""
    plugins = enabled_plugins(statuses)
    scopes = [s.scope for s in statuses if s.hooks]
    return (plugins, scopes) if plugins and scopes else ([], [])


def _installed_vyre_plugins() -> set[str]:
    """Ids of installed plugins whose folder is Vyre's plugin, whatever they were named
    (Claude Code's plugins/installed_plugins.json, version 1 or 2)."""
    try:
        data = json.loads((_config_dir() / "plugins" / "installed_plugins.json").read_bytes())
    except (OSError, ValueError):
        return set()
    plugins = data.get("plugins") if isinstance(data, dict) else None
    found = set()
    for plugin_id, entries in (plugins if isinstance(plugins, dict) else {}).items():
        for entry in entries if isinstance(entries, list) else [entries]:
            path = entry.get("installPath") if isinstance(entry, dict) else None
            if isinstance(path, str) and is_vyre_plugin(Path(path)):
                found.add(str(plugin_id))
    return found


def _is_vyre_plugin_id(plugin_id: str, installed: set[str]) -> bool:
    return plugin_id in installed or plugin_id.split("@", 1)[0] == PLUGIN_NAME


def _scope_status(scope: str, cwd: Path, installed: set[str]) -> ScopeStatus:
    path = settings_path(scope, cwd)
    result = ScopeStatus(scope, path, exists=path.exists())
    try:
        _, data = _read(path)
    except HarnessError as exc:
        result.error = str(exc)
        return result
    plugins = data.get("enabledPlugins")
    for plugin_id, on in (plugins if isinstance(plugins, dict) else {}).items():
        if _is_vyre_plugin_id(str(plugin_id), installed):
            result.plugins[str(plugin_id)] = on is True
    for event, groups in data.get("hooks", {}).items():
        for group in groups if isinstance(groups, list) else []:
            for hook in _group_hooks(group):
                if is_vyre(hook):
                    result.hooks.append(_vyre_hook(event, str(hook["command"])))
                else:
                    result.others += 1
    return result


def _vyre_hook(event: str, command: str) -> VyreHook:
    python: str | None
    try:
        python = shlex.split(command)[0]
    except (ValueError, IndexError):
        python = None
    if not python:
        return VyreHook(event, command, None, python_exists=False, current=False)
    exists = os.path.isfile(python) and os.access(python, os.X_OK)
    current = os.path.abspath(python) == os.path.abspath(interpreter())
    return VyreHook(event, command, python, exists, current)


# -- the plugin ----------------------------------------------------------------------------


def plugin_files(python: str | None = None) -> dict[str, dict]:
    """Each file of Vyre's Claude Code plugin (path inside the folder → its JSON)."""
    command, args = mcp_command(python)
    return {
        ".claude-plugin/plugin.json": {
            "name": PLUGIN_NAME,
            "version": vyre.__version__,
            "description": DESCRIPTION,
            "author": {"name": "Vyre Memory"},
        },
        "hooks/hooks.json": {
            "description": "Vyre Memory: enrich prompts from your local memory, record sessions.",
            "hooks": vyre_hooks(python),
        },
        ".mcp.json": {"mcpServers": {PLUGIN_NAME: {"command": command, "args": args}}},
    }


def is_vyre_plugin(folder: Path) -> bool:
    try:
        manifest = json.loads((folder / ".claude-plugin" / "plugin.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("name") == PLUGIN_NAME


def write_plugin(folder: Path, *, python: str | None = None) -> list[Path]:
    """Write (or refresh) Vyre's plugin in `folder`, which must be empty or already Vyre's."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise HarnessError(f"{folder} is not a folder")
    if folder.exists() and any(folder.iterdir()) and not is_vyre_plugin(folder):
        raise HarnessError(f"{folder} is not empty and not a Vyre plugin; pick an empty folder")
    written = []
    try:
        for name, data in plugin_files(python).items():
            path = folder / name
            write_atomic(path, _dump(data).encode("utf-8"), _mode(path, NEW_PLUGIN_MODE))
            written.append(path)
    except OSError as exc:
        raise HarnessError(f"cannot write the plugin in {folder}: {exc.strerror or exc}") from exc
    return written
