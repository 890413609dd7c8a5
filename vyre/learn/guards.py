"""Guards before tools: Vyre's own rules, held against the model they constrain.

Checked on every call, before any lesson, at every level, with the daemon up or down. A
guard answers `ask` (Claude Code asks the person at the keyboard), or `deny` where no person
can be asked (`bypassPermissions`, `dontAsk`). What is guarded:

- any write, move, delete, truncation, permission change or link under `$VYRE_HOME` (the
  lessons snapshot, the ledger, the socket, the daemon's lock all live there), or a recursive
  change to a folder holding it;
- Claude Code settings files (any `.claude/settings*.json`, managed settings) and hook files
  that could drop Vyre's hooks; Vyre's own installed package;
- shell startup files, where a change could set `VYRE_HOME` for later hooks (an append of
  text that does not mention it stays allowed);
- `vyre learn` weakening or accepting commands, `vyre memory` edits, `vyre daemon stop`,
  `vyre harness install|uninstall`, and forged `vyre hook` calls, whatever `VYRE_HOME` they
  set and however `vyre` is reached (a path, `python -m vyre`, `uv run`);
- stopping the daemon (`kill` of its pid, `pkill`/`killall` patterns that reach it);
- one-liners (Python, `sqlite3`, node, perl, ruby) that import `vyre` or open Vyre's files
  to write;
- encoded or `eval`-ed text that runs and cannot be read.

Look-alikes stay allowed: reading anything, `vyre learn stats`, `ps aux | grep vyre`, a folder
merely named like the home. Standard library only: the PreToolUse hook runs this.
"""

from __future__ import annotations

import os

from vyre.learn import paths as P
from vyre.learn.shell import Command

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: this runs in the hook, importing little
if TYPE_CHECKING:
    import ast

    from vyre.learn.checks import Call
    from vyre.learn.shell import Parsed

_STARTUP = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".envrc",
        ".pam_environment",
        "config.fish",
        "environment",
    }
)
_SETTINGS = frozenset({"settings.json", "settings.local.json", "managed-settings.json"})
# `vyre` subcommands a model may never run: they loosen rules, decide for the user, or
# take Vyre's hooks away
_VYRE_HELD = {
    "learn": {"relax", "retire", "accept", "scope", "decline"},  # `edit` only tightens
    "memory": {"correct", "uncorrect", "pin", "mute", "merge", "split"},
    "daemon": {"stop", "restart", "kill", "install", "uninstall"},
    "harness": {"install", "uninstall", "plugin"},
    "hook": None,  # any: a forged hook call
}
_RUNNERS = {"uv": "run", "poetry": "run", "pdm": "run", "hatch": "run", "rye": "run", "pipx": "run"}
_ONE_LINER = {"python": ("-c",), "node": ("-e", "--eval", "-p"), "perl": ("-e", "-E")}
_ONE_LINER.update({"ruby": ("-e",), "php": ("-r",), "deno": ("eval",), "bun": ("-e", "--eval")})
_DECODERS = frozenset({"base64", "xxd", "openssl", "gzip", "gunzip", "zcat", "rev", "uudecode"})
_WRITE_WORDS = (
    "open(",
    "write",
    "unlink",
    "remove",
    "rmtree",
    "rename",
    "replace(",
    "chmod",
    "chown",
    "symlink",
    "truncate",
    "connect(",
    "execute",
    "mkdir",
    "touch(",
    "copy",
    "move(",
    "system(",
    "subprocess",
    "popen",
    "spawn",
    "exec",
    "writeFile",
    "appendFile",
    "rmSync",
    "unlinkSync",
    "File.",
    "IO.",
)
_PATH_MARKERS = ("vyre.db", "lessons.json", "vyre.sock", "daemon.lock", ".vyre", "VYRE_HOME")


class Guarded:
    """Where this call's guards look: the home, Claude Code's folder, the daemon's pid."""

    def __init__(self, env: dict[str, str]):
        home = env.get("HOME") or os.path.expanduser("~")
        self.user_home = home
        raw = env.get("VYRE_HOME") or os.path.join(home, ".vyre")
        self.home = os.path.normpath(os.path.expanduser(raw))
        claude = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
        self.claude = os.path.normpath(os.path.expanduser(claude))
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the vyre package
        self.package = here if "site-packages" in here else None

    def daemon_pid(self) -> str | None:
        try:
            with open(os.path.join(self.home, "daemon.lock")) as f:
                text = f.read(32).strip()
        except OSError:
            return None
        return text if text.isdigit() else None


def check(call: Call) -> str | None:
    """Why this call is held by a guard, or None. `call` is a `vyre.learn.checks.Call`; the
    permission mode decides only what is done about it (`vyre.learn.judge.decide`)."""
    where = Guarded(call.env)
    tool = call.tool
    if tool in P.READ_ONLY_TOOLS:
        return None
    path = P.file_tool_path(tool, call.data)
    if path:
        return _file_reason(P.join(call.cwd, path), where, call.new_text(), call.old_text())
    if tool in P.CODE_TOOLS:
        code = call.data.get("code")
        if isinstance(code, str) and _code_reason(code, "node", where):
            return "it runs code that writes Vyre's files"
        return None
    if tool not in P.SHELL_TOOLS:
        return None
    parsed = call.parsed
    for touch in call.touches:
        reason = _touch_reason(touch, where)
        if reason:
            return reason
    for cmd in parsed.commands:
        reason = _command_reason(cmd, where, call.env)
        if reason:
            return reason
    if parsed.opaque and _encoded(parsed):
        return "it runs encoded or eval-ed text that cannot be read first"
    return None


def _file_reason(path: str, where: Guarded, new: str | None, old: str) -> str | None:
    if P.under(path, where.home):
        return "it would change Vyre's own files (lessons, ledger, socket)"
    if _is_settings(path, where):
        return "it would change Claude Code settings that hold Vyre's hooks"
    if where.package and P.under(path, where.package):
        return "it would change Vyre's installed code"
    mentions = "VYRE_HOME" in (new or "") or "VYRE_HOME" in (old or "") or _mentions_home(path)
    if os.path.basename(path) in _STARTUP and _startup_path(path, where) and mentions:
        return "it would change a shell startup file that sets VYRE_HOME"
    return None


def _touch_reason(touch: P.Touch, where: Guarded) -> str | None:
    for path in P.expand_glob(touch):
        if P.under(path, where.home) or ((touch.tree or touch.glob) and P.under(where.home, path)):
            return "it would change Vyre's own files (lessons, ledger, socket)"
        if _is_settings(path, where) or (touch.tree and P.under(where.claude, path)):
            return "it would change Claude Code settings that hold Vyre's hooks"
        if where.package and (
            P.under(path, where.package) or (touch.tree and P.under(where.package, path))
        ):
            return "it would change Vyre's installed code"
        name = os.path.basename(path)
        if name in _STARTUP and _startup_path(path, where):
            content = touch.content
            if content is None or "VYRE_HOME" in content or _mentions_home(path):
                return "it would change a shell startup file that could set VYRE_HOME"
    return None


def _is_settings(path: str, where: Guarded) -> bool:
    name = os.path.basename(path)
    parent = os.path.basename(os.path.dirname(path))
    if name in _SETTINGS and (parent == ".claude" or P.under(path, where.claude)):
        return True
    if name in _SETTINGS and parent == "claude-code":  # /etc/claude-code/managed-settings.json
        return True
    if name == "hooks.json" and parent == "hooks":  # a plugin's hooks (Vyre's own plugin)
        return _mentions(path, "vyre")
    return P.under(path, where.claude) and name.endswith(".json") and parent == where.claude


def _startup_path(path: str, where: Guarded) -> bool:
    if os.path.basename(path) == "environment":
        return path == "/etc/environment"
    return True


def _mentions_home(path: str) -> bool:
    return _mentions(path, "VYRE_HOME")


def _mentions(path: str, text: str) -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return text in f.read(1 << 20)
    except OSError:
        return False


# -- commands -----------------------------------------------------------------------------


def _command_reason(cmd: Command, where: Guarded, env: dict[str, str]) -> str | None:
    prog = cmd.program
    args = cmd.args
    vyre_args = _vyre_invocation(cmd)
    if vyre_args is not None:
        return _vyre_reason(vyre_args)
    if prog in ("kill", "pkill", "killall", "skill"):
        return _kill_reason(cmd, where)
    stops = ("stop", "kill", "disable", "unload", "bootout", "mask", "remove")
    service = prog in ("systemctl", "launchctl", "service")
    if service and any("vyre" in a for a in args) and any(a in stops for a in args):
        return "it would stop Vyre's daemon"
    family = _family(prog)
    if family in _ONE_LINER:
        code = _code(cmd, family)
        if code is not None and _code_reason(code, family, where):
            return "it runs code that imports Vyre or writes Vyre's files"
    if prog in ("sqlite3", "sqlite"):
        return _sqlite_reason(cmd, where)
    if (
        family in ("pip", "uv", "pipx", "poetry")
        and "uninstall" in args
        and any(a == "vyre" or a.startswith("vyre=") for a in args)
    ):
        return "it would uninstall Vyre, and its hooks with it"
    return None


def _family(prog: str) -> str:
    from vyre.learn.checks import program_name

    return program_name(prog)


def _vyre_invocation(cmd: Command) -> list[str] | None:
    """The arguments `vyre` is run with, however it is reached; None when it is not."""
    words = [w.text for w in cmd.argv]
    if not words:
        return None
    prog = os.path.basename(words[0])
    if prog in _RUNNERS and len(words) > 2 and words[1] == _RUNNERS[prog]:
        rest = [w for w in words[2:] if not w.startswith("-")]
        if rest and os.path.basename(rest[0]) == "vyre":
            return words[words.index(rest[0]) + 1 :]
    if prog in ("uvx", "pipx") and "vyre" in words[1:3]:
        return words[words.index("vyre") + 1 :]
    if prog == "vyre":
        return words[1:]
    if _family(prog) == "python":
        for i, w in enumerate(words[1:], 1):
            if w == "-m" and i + 1 < len(words):
                mod = words[i + 1]
                if mod == "vyre" or mod.startswith("vyre."):
                    return ["hook"] if mod.startswith("vyre.hooks") else words[i + 2 :]
                return None
            if w.endswith(("vyre/hooks/__main__.py", "vyre/hooks/run.py")):
                return ["hook"]
            if w.endswith("/bin/vyre"):
                return words[i + 1 :]
            if not w.startswith("-"):
                return None
    return None


def _vyre_reason(args: list[str]) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    if not words:
        return None
    group = words[0]
    if group not in _VYRE_HELD:
        return None
    held = _VYRE_HELD[group]
    if held is None:
        return "a hook call made by hand could accept or decline for you"
    sub = words[1] if len(words) > 1 else ""
    if sub in held:
        return f"`vyre {group} {sub}` is yours to run, at your own terminal"
    if group == "learn" and sub == "edit" and _may_weaken(args):
        return "`vyre learn edit` that may lower, narrow or unpin a lesson is yours to run"
    return None


def _may_weaken(args: list[str]) -> bool:
    """An edit that could loosen a lesson: a level or cap under block, a narrower scope,
    an unpin. (Raising to block and pinning only tighten.)"""
    for k, a in enumerate(args):
        name, _, value = a.partition("=")
        if not value and k + 1 < len(args):
            value = args[k + 1]
        if name in ("--level", "--max-level", "--max_level") and value != "block":
            return True
        if name in ("--scope", "--unpin"):
            return True
    return False


def _kill_reason(cmd: Command, where: Guarded) -> str | None:
    pid = where.daemon_pid()
    words = cmd.argv[1:]
    if cmd.program == "kill":
        for w in words:
            t = w.text
            if t.startswith("-") and t not in ("-1", "--"):
                continue
            if t == "-1":
                return "it would stop every process, Vyre's daemon too"
            if pid and t == pid:
                return "it would stop Vyre's daemon"
            if w.dynamic and _mentions_vyre(t):
                return "it would stop Vyre's daemon"
        return None
    patterns = [w.text for w in words if not w.text.startswith("-")]
    flags = " ".join(w.text for w in words if w.text.startswith("-"))
    full = "f" in flags.replace("--", "") or "--full" in flags
    for p in patterns:
        core = p.strip("^$").replace(".*", "").replace("\\", "").lower()
        if "vyre" in core or core in ("python", "python3") or (full and core in "vyre daemon run"):
            return "it would stop Vyre's daemon"
        if core.startswith("python") or (full and "daemon" in core):
            return "it would stop Vyre's daemon"
    return None


def _mentions_vyre(text: str) -> bool:
    low = text.lower()
    return "vyre" in low or "daemon.lock" in low or "pgrep python" in low


def _code(cmd: Command, family: str) -> str | None:
    words = [w.text for w in cmd.argv]
    flags = _ONE_LINER[family]
    for i, w in enumerate(words[1:], 1):
        if w in flags and i + 1 < len(words):
            return words[i + 1]
        if family == "python" and w.startswith("-c") and len(w) > 2:
            return w[2:]
        if w == "-" or (family == "python" and not w.startswith("-")):
            if w == "-":
                return cmd.stdin if cmd.stdin is not None else ""
            return _script(P.join(cmd.cwd, w))
    if len(words) == 1 and cmd.stdin is not None:
        return cmd.stdin
    return None


def _script(path: str) -> str | None:
    try:
        if os.path.getsize(path) > 256 << 10:
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _code_reason(code: str, family: str, where: Guarded, depth: int = 0) -> bool:
    if depth > 3:
        return True
    if family == "python":
        verdict = _python_verdict(code, where)
        if verdict is not None:
            return verdict
    markers = (*_PATH_MARKERS, where.home)
    if any(m in code for m in markers) and any(w in code for w in _WRITE_WORDS):
        return True
    if "import vyre" in code or "from vyre" in code or "require('vyre" in code:
        return True
    for blob in _base64_blobs(code):
        if _code_reason(blob, family, where, depth + 1):
            return True
    if ("b64decode" in code or "fromhex" in code or "Buffer.from" in code) and (
        "exec" in code or "eval" in code
    ):
        return not any(_base64_blobs(code))  # a blob we could not read: it may do anything
    return False


def _python_verdict(code: str, where: Guarded) -> bool | None:
    """Read Python with `ast`: True when it imports vyre or may write Vyre's files, False
    when it plainly does neither, None when it cannot be parsed (the text scan decides)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    strings = []
    calls = set()
    dynamic_exec = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == "vyre" or a.name.startswith("vyre.") for a in node.names):
                return True
        elif isinstance(node, ast.ImportFrom):
            if node.module and (node.module == "vyre" or node.module.startswith("vyre.")):
                return True
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
        elif isinstance(node, ast.Call):
            name = _call_name(node.func)
            calls.add(name)
            if name in ("exec", "eval", "compile", "__import__", "import_module"):
                arg = node.args[0] if node.args else None
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    dynamic_exec = True
                elif (name in ("__import__", "import_module") and arg.value.startswith("vyre")) or (
                    name in ("exec", "eval") and _python_verdict(arg.value, where)
                ):
                    return True
    targets = [s for s in strings if _names_vyre_file(s, where)]
    writes = {"open", "connect", "write_text", "write_bytes", "unlink", "remove", "rmtree"}
    writes |= {"rename", "replace", "chmod", "chown", "symlink", "truncate", "mkdir", "touch"}
    writes |= {"copy", "copyfile", "copy2", "move", "system", "run", "Popen", "call"}
    if targets and calls & writes:
        if calls & writes == {"open"} and not _write_mode(tree):
            return False
        if calls & writes == {"connect"} and all("mode=ro" in s for s in strings if "?" in s):
            return any("mode=ro" not in s for s in targets if s.endswith(".db"))
        return True
    if dynamic_exec:
        blobs = [b for s in strings for b in _base64_blobs(s)]
        return any(_python_verdict(b, where) is not False for b in blobs) or not blobs
    for s in strings:
        for blob in _base64_blobs(s):
            if _python_verdict(blob, where):
                return True
    return False


def _call_name(func: ast.expr) -> str:
    import ast

    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _write_mode(tree: ast.AST) -> bool:
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node.func) == "open":
            mode = node.args[1] if len(node.args) > 1 else None
            for kw in node.keywords:
                if kw.arg == "mode":
                    mode = kw.value
            if mode is None:
                continue
            if not isinstance(mode, ast.Constant) or any(c in str(mode.value) for c in "wax+"):
                return True
    return False


def _names_vyre_file(text: str, where: Guarded) -> bool:
    expanded = os.path.expanduser(text.replace("$HOME", where.user_home))
    if "VYRE_HOME" in text or any(m in text for m in _PATH_MARKERS):
        return True
    return expanded.startswith("/") and P.under(os.path.normpath(expanded), where.home)


def _base64_blobs(text: str) -> list[str]:
    """Readable text hidden as base64 in `text` (runs of 16+ base64 characters)."""
    import binascii

    out, run = [], []
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
    for ch in [*text, " "]:
        if ch in alphabet:
            run.append(ch)
            continue
        if len(run) >= 16:
            blob = "".join(run)
            try:
                decoded = binascii.a2b_base64(blob + "=" * (-len(blob) % 4)).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                decoded = ""
            if decoded and sum(c.isprintable() or c in "\n\t" for c in decoded) > 0.95 * len(
                decoded
            ):
                out.append(decoded)
        run = []
    return out


def _sqlite_reason(cmd: Command, where: Guarded) -> str | None:
    words = cmd.argv[1:]
    if any(w.text in ("-readonly", "--readonly") for w in words):
        return None
    positional = [w.text for w in words if not w.text.startswith("-")]
    if not positional:
        return None
    db = P.join(cmd.cwd, positional[0])
    if not (P.under(db, where.home) or os.path.basename(db) == "vyre.db"):
        return None
    sql = " ".join(positional[1:]) or (cmd.stdin or "")
    if not sql.strip() and cmd.stdin is None and not positional[1:]:
        return "it opens Vyre's ledger to write"
    if _read_only_sql(sql):
        return None
    return "it opens Vyre's ledger to write"


def _read_only_sql(sql: str) -> bool:
    for statement in sql.replace("\n", ";").split(";"):
        s = statement.strip().lower()
        if not s:
            continue
        if s.startswith((".tables", ".schema", ".headers", ".mode", ".dump", ".indexes", ".quit")):
            continue
        if s.startswith(("select", "explain", "with")) and not any(
            k in s for k in (" insert ", " update ", " delete ", " replace ")
        ):
            continue
        if s.startswith("pragma") and "=" not in s:
            continue
        return False
    return True


def _encoded(parsed: Parsed) -> bool:
    """Runs text made at run time in a way that hides it (decoders, eval of variables)."""
    reasons = " ".join(parsed.opaque)
    if "eval" in reasons:
        return True
    programs = set(parsed.programs())
    return bool(programs & _DECODERS) or ("printf" in programs and "pipe" in reasons)
