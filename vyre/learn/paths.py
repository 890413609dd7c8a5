"""Which files a tool call changes, and whether a path falls under a lesson's paths.

What must stay true:
- Reading is not touching: only writes, edits, moves (both ends), deletes, truncation,
  permission and owner changes, links and redirections count.
- A path is judged from the call's `cwd` (after any `cd` in the command), on a component
  boundary: `web-old` is not inside `web`.
- A recursive change to a folder (`rm -r`, `mv`, `chmod -R`) touches everything under it.
- Lesson paths read like `.gitignore`: a pattern without an inner slash (`migrations/`,
  `*.lock`) matches at any depth below a root; one with a slash (`src/db/`) is anchored at the
  project's folders, the call's folder and its git root.
- Standard library only, and no `re`/`fnmatch`: the PreToolUse hook uses this.
"""

from __future__ import annotations

import os

from vyre.learn.shell import Command, Word, join

FILE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path"}
NOTEBOOK_TOOLS = {"NotebookEdit": "notebook_path"}
SHELL_TOOLS = frozenset({"Bash", "Monitor"})  # tools whose `command` a shell runs
CODE_TOOLS = frozenset({"REPL"})  # tools that run JavaScript `code`
READ_ONLY_TOOLS = frozenset(
    {"Read", "Grep", "Glob", "LS", "WebSearch", "WebFetch", "TodoWrite", "Task", "BashOutput"}
)
_DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/")

# program -> (how its arguments are changed, options that take a value)
#   all: every path argument is changed; last: only the last (cp's destination);
#   pairs: every argument (mv: source and destination both change)
_WRITERS: dict[str, tuple[str, str]] = {
    "rm": ("all", ""),
    "rmdir": ("all", ""),
    "unlink": ("all", ""),
    "shred": ("all", "nsu"),
    "mv": ("pairs", "tS"),
    "cp": ("last", "tS"),
    "install": ("last", "gmotS"),
    "rsync": ("last", "eT"),
    "scp": ("last", "iPFoSlc"),
    "ln": ("link", "tS"),
    "touch": ("all", "dtr"),
    "mkdir": ("all", "m"),
    "truncate": ("all", "sr"),
    "chmod": ("skip1", ""),
    "chown": ("skip1", ""),
    "chgrp": ("skip1", ""),
    "chattr": ("skip1", ""),
    "setfacl": ("skip1", "mMxX"),
    "tee": ("all", ""),
    "mkfifo": ("all", "m"),
    "sponge": ("all", ""),
    "patch": ("all", "pidorBzFDV"),
}
_RECURSIVE_FLAGS = ("-r", "-R", "--recursive", "-a", "--archive")


class Touch:
    """One path a call changes. `tree`: everything under it changes too. `content`: the text
    written, when the call says it (a Write, a heredoc into a file, an echo redirect)."""

    __slots__ = ("content", "glob", "path", "tree")

    def __init__(
        self, path: str, tree: bool = False, glob: bool = False, content: str | None = None
    ) -> None:
        self.path, self.tree, self.glob, self.content = path, tree, glob, content

    def __repr__(self) -> str:
        return f"Touch({self.path!r}{', tree' if self.tree else ''})"


def file_tool_path(tool: str, data: dict) -> str | None:
    key = FILE_TOOLS.get(tool) or NOTEBOOK_TOOLS.get(tool)
    value = data.get(key) if key else None
    return value if isinstance(value, str) and value else None


def touched(commands: list[Command]) -> list[Touch]:
    """Every path the parsed shell commands change."""
    out: list[Touch] = []
    for cmd in commands:
        for r in cmd.redirects:
            if r.writes and r.target is not None and not r.target.text.startswith(_DEVICES):
                out.append(_touch(cmd.cwd, r.target, content=_written_text(cmd)))
        out += _program_touches(cmd)
    return out


def _written_text(cmd: Command) -> str | None:
    if cmd.program in ("echo", "printf"):
        return " ".join(w.text for w in cmd.argv[1:])
    if cmd.program == "cat" and cmd.stdin is not None:
        return cmd.stdin
    return None


def _touch(cwd: str, word: Word, tree: bool = False, content: str | None = None) -> Touch:
    return Touch(join(cwd, word.text), tree, word.glob, content)


def _program_touches(cmd: Command) -> list[Touch]:
    prog = cmd.program
    words = cmd.argv[1:]
    if prog == "sed" or prog == "perl":
        return _in_place(cmd)
    if prog == "git":
        return _git_touches(cmd)
    if prog == "dd":
        return [
            Touch(join(cmd.cwd, w.text[3:]), glob=w.glob) for w in words if w.text.startswith("of=")
        ]
    if prog == "find":
        if any(w.text == "-delete" for w in words):
            return [_touch(cmd.cwd, w, tree=True) for w in _find_roots(words)]
        return []
    if prog == "tar":
        return _tar(cmd)
    if prog in ("curl", "wget"):
        return _downloads(cmd)
    if prog not in _WRITERS:
        return []
    how, valued = _WRITERS[prog]
    args, recursive = _positionals(words, valued)
    if how == "all":
        tree = prog in ("rm", "shred") and recursive
        return [_touch(cmd.cwd, w, tree=tree) for w in args]
    if how == "pairs":  # mv: each source moves whole; the destination only receives
        return [_touch(cmd.cwd, w, tree=True) for w in args[:-1]] + (
            [_touch(cmd.cwd, args[-1])] if len(args) > 1 else []
        )
    if how == "last":  # cp, install, rsync: the destination changes (rsync --delete: all of it)
        deletes = prog == "rsync" and any(w.text.startswith("--del") for w in words)
        return [_touch(cmd.cwd, args[-1], tree=deletes)] if len(args) > 1 else []
    if how == "link":
        return [_touch(cmd.cwd, args[-1])] if args else []
    if how == "skip1":
        return [_touch(cmd.cwd, w, tree=recursive) for w in args[1:]]
    return []


def _positionals(words: list[Word], valued: str) -> tuple[list[Word], bool]:
    out, recursive, i, options = [], False, 0, True
    while i < len(words):
        t = words[i].text
        if options and t == "--":
            options = False
        elif options and t.startswith("--") and len(t) > 2:
            recursive |= t in _RECURSIVE_FLAGS
        elif options and t.startswith("-") and len(t) > 1:
            letters = t[1:]
            recursive |= "r" in letters or "R" in letters or "a" in letters
            if letters[-1] in valued and len(letters) == 1:
                i += 1
        else:
            out.append(words[i])
        i += 1
    return out, recursive


def _in_place(cmd: Command) -> list[Touch]:
    """`sed -i` / `perl -pi` change the files they are given; otherwise they only read."""
    words = cmd.argv[1:]
    flags = [w.text for w in words if w.text.startswith("-")]
    in_place = any(
        f == "--in-place" or f.startswith("--in-place=") or (not f.startswith("--") and "i" in f)
        for f in flags
    )
    if not in_place:
        return []
    script_given = any(f in ("-e", "--expression", "-f", "--file") for f in flags)
    out, skip_next, first = [], False, not script_given
    for w in words:
        if skip_next:
            skip_next = False
            continue
        if w.text in ("-e", "--expression", "-f", "--file"):
            skip_next = True
            continue
        if w.text.startswith("-"):
            continue
        if first:  # the script itself
            first = False
            continue
        out.append(_touch(cmd.cwd, w))
    return out


def _git_touches(cmd: Command) -> list[Touch]:
    sub, rest, cwd = git_sub(cmd)
    if sub in ("rm", "mv"):
        args, _ = _positionals(rest, "")
        return [_touch(cwd, w, tree=True) for w in args]
    if sub in ("checkout", "restore") and any(w.text == "--" for w in rest):
        after = rest[[w.text for w in rest].index("--") + 1 :]
        return [_touch(cwd, w, tree=True) for w in after]
    if sub == "restore":
        args, _ = _positionals(rest, "s")
        return [_touch(cwd, w, tree=True) for w in args]
    if sub == "clean":
        return [Touch(cwd, tree=True)]
    return []


def git_sub(cmd: Command) -> tuple[str, list[Word], str]:
    """git's subcommand, its words, and the folder it runs in (after `-C`)."""
    words, cwd, i = cmd.argv, cmd.cwd, 1
    while i < len(words):
        t = words[i].text
        if t == "-C" and i + 1 < len(words):
            cwd = join(cwd, words[i + 1].text)
            i += 2
        elif t in ("-c", "--git-dir", "--work-tree", "--namespace", "--exec-path") and "=" not in t:
            if t.startswith("--work-tree") and i + 1 < len(words):
                cwd = join(cwd, words[i + 1].text)
            i += 2
        elif t.startswith("-"):
            if t.startswith("--work-tree="):
                cwd = join(cwd, t.split("=", 1)[1])
            i += 1
        else:
            return t, words[i + 1 :], cwd
    return "", [], cwd


def _find_roots(words: list[Word]) -> list[Word]:
    roots = []
    for w in words:
        if w.text.startswith(("-", "(", "!")):
            break
        roots.append(w)
    return roots or [Word(".")]


def _tar(cmd: Command) -> list[Touch]:
    words = [w.text for w in cmd.argv[1:]]
    mode = words[0] if words and not words[0].startswith("-") else ""
    flags = "".join(w[1:] for w in words if w.startswith("-") and not w.startswith("--")) + mode
    out = []
    for i, t in enumerate(words):
        if t in ("-C", "--directory") and i + 1 < len(words) and "x" in flags:
            out.append(Touch(join(cmd.cwd, words[i + 1]), tree=True))
        if t.startswith("--directory=") and "x" in flags:
            out.append(Touch(join(cmd.cwd, t.split("=", 1)[1]), tree=True))
        if (t == "-f" or t == "--file") and i + 1 < len(words) and "c" in flags:
            out.append(Touch(join(cmd.cwd, words[i + 1])))
    if "x" in flags and not out:
        out.append(Touch(cmd.cwd, tree=True))
    return out


def _downloads(cmd: Command) -> list[Touch]:
    words = [w.text for w in cmd.argv[1:]]
    out = []
    for i, t in enumerate(words):
        named = t in ("-o", "-O", "--output", "--output-document") and i + 1 < len(words)
        if named and not (cmd.program == "curl" and t == "-O"):
            out.append(Touch(join(cmd.cwd, words[i + 1])))
    return out


# -- matching -----------------------------------------------------------------------------


def under(path: str, folder: str) -> bool:
    """`path` is `folder` or inside it, on a component boundary."""
    folder = folder.rstrip("/") or "/"
    return path == folder or path.startswith(folder + "/") or folder == "/"


def gmatch(pattern: str, name: str) -> bool:
    """Shell glob match of one path component: `*`, `?`, `[...]`."""
    if not any(c in pattern for c in "*?["):
        return pattern == name
    return _gm(pattern, 0, name, 0)


def _gm(p: str, i: int, s: str, j: int) -> bool:
    while i < len(p):
        c = p[i]
        if c == "*":
            while i < len(p) and p[i] == "*":
                i += 1
            if i == len(p):
                return True
            return any(_gm(p, i, s, k) for k in range(j, len(s) + 1))
        if j >= len(s):
            return False
        if c == "?":
            i, j = i + 1, j + 1
            continue
        if c == "[":
            end = p.find("]", i + 2)
            if end > 0:
                chars = p[i + 1 : end]
                negate = chars[:1] in ("!", "^")
                if negate:
                    chars = chars[1:]
                hit = _in_class(chars, s[j])
                if hit == negate:
                    return False
                i, j = end + 1, j + 1
                continue
        if c != s[j]:
            return False
        i, j = i + 1, j + 1
    return j == len(s)


def _in_class(chars: str, ch: str) -> bool:
    k = 0
    while k < len(chars):
        if k + 2 < len(chars) and chars[k + 1] == "-":
            if chars[k] <= ch <= chars[k + 2]:
                return True
            k += 3
        else:
            if chars[k] == ch:
                return True
            k += 1
    return False


class PathPattern:
    """One lesson path, like a `.gitignore` line, judged below a set of roots."""

    __slots__ = ("absolute", "anchored", "parts")

    def __init__(self, text: str, home: str = "~"):
        text = text.strip()
        if text.startswith("~/"):
            text = home + text[1:]
        self.absolute = text.startswith("/")
        body = text.strip("/")
        if body.startswith("./"):
            body = body[2:]
        self.anchored = self.absolute or "/" in body or text.startswith("./")
        self.parts = [p for p in body.split("/") if p and p != "."]

    def matches(self, path: str, roots: list[str]) -> bool:
        """`path` (absolute, normalised) falls under this pattern."""
        if not self.parts:
            return False
        if self.absolute:
            return self._starts(path.strip("/").split("/"), 0) or False
        for root in roots:
            if not under(path, root):
                continue
            rel = path[len(root.rstrip("/")) :].strip("/")
            comps = rel.split("/") if rel else []
            if self.anchored:
                if self._starts(comps, 0):
                    return True
            elif any(self._starts(comps, k) for k in range(len(comps))):
                return True
        return False

    def _starts(self, comps: list[str], k: int) -> bool:
        if len(comps) - k < len(self.parts):
            return False
        return all(gmatch(p, comps[k + n]) for n, p in enumerate(self.parts))

    def inside(self, folder: str, roots: list[str]) -> bool:
        """Something this pattern names lies inside `folder` (a recursive change to `folder`
        reaches it): an anchored pattern whose place is below it, or any-depth pattern that
        exists below it."""
        if self.absolute:
            target = "/" + "/".join(self.parts)
            return under(target, folder) and "*" not in target
        for root in roots:
            if self.anchored:
                target = join(root, "/".join(self.parts))
                if under(target, folder) and target != folder:
                    return True
            elif under(root, folder) or under(folder, root):
                base = folder if under(folder, root) else root
                if _exists_below(base, self.parts):
                    return True
        return False


def _exists_below(base: str, parts: list[str], depth: int = 0) -> bool:
    """A folder named like `parts` somewhere under `base` (bounded walk; the hook's budget)."""
    if depth > 3:
        return False
    name = "/".join(parts)
    literal = "*" not in name and "?" not in name and "[" not in name
    if literal and os.path.exists(os.path.join(base, name)):
        return True
    try:
        entries = [e for e in os.scandir(base) if e.is_dir(follow_symlinks=False)][:200]
    except OSError:
        return False
    for e in entries:
        if gmatch(parts[0], e.name) and (len(parts) == 1 or _exists_below(e.path, parts[1:], 9)):
            return True
        if e.name not in (".git", "node_modules") and _exists_below(e.path, parts, depth + 1):
            return True
    return False


def expand_glob(touch: Touch) -> list[str]:
    """The paths a glob word stands for: existing matches, else the folder it lists."""
    if not touch.glob:
        return [touch.path]
    comps = touch.path.split("/")
    k = next((n for n, c in enumerate(comps) if any(ch in c for ch in "*?[")), len(comps))
    base = "/".join(comps[:k]) or "/"
    pattern = comps[k] if k < len(comps) else ""
    try:
        names = [e.name for e in os.scandir(base)][:2000]
    except OSError:
        return [base]
    hits = [os.path.join(base, n) for n in names if gmatch(pattern, n) and not n.startswith(".")]
    return hits or [base]


def hits(pattern: PathPattern, touches: list[Touch], roots: list[str]) -> bool:
    for t in touches:
        for path in expand_glob(t):
            if pattern.matches(path, roots):
                return True
            if (t.tree or t.glob) and pattern.inside(path, roots):
                return True
    return False


def git_root(cwd: str) -> str | None:
    """The folder holding `.git` at or above `cwd` (a few stats)."""
    path = cwd
    for _ in range(40):
        if os.path.exists(os.path.join(path, ".git")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return None


def git_branch(cwd: str) -> str | None:
    """The checked-out branch of the repository at `cwd`, read from `.git/HEAD`."""
    root = git_root(cwd)
    if not root:
        return None
    head = os.path.join(root, ".git")
    try:
        if os.path.isfile(head):  # a worktree: `gitdir: ...`
            with open(head) as f:
                line = f.read(4096).strip()
            head = join(root, line.split(":", 1)[1].strip()) if line.startswith("gitdir:") else head
        with open(os.path.join(head, "HEAD")) as f:
            ref = f.read(4096).strip()
    except OSError:
        return None
    return ref[len("ref: refs/heads/") :] if ref.startswith("ref: refs/heads/") else None
