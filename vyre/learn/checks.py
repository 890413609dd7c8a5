"""Check kinds: what a lesson forbids or owes, how a call is judged against it, and the
sentence the user reads.

A check is a plain dict (stored as JSON in the ledger and the offline snapshot):

    {"kind": "tool",   "command": PATTERN, "instead": "pnpm"?, "paths": [...]?}
    {"kind": "tool",   "tool": "WebFetch"}                    a Claude Code tool itself
    {"kind": "path",   "paths": ["migrations/"]}              files that must not change
    {"kind": "phrase", "phrase": "leverage", "paths": [...]?} text that must not be written
    {"kind": "after",  "run": PATTERN, "paths": ["*.ts"]}      run X after changing these: at Stop
    {"kind": "after",  "run": PATTERN, "before": PATTERN}     run X before Y: when Y is attempted

    PATTERN = {"program": "git", "sub": ["push"], "flags": ["--force"], "args": ["main"],
               "branch": "main"}   (every key but one of program/flags optional)

What must stay true:
- Judging reads the parsed command (`vyre.learn.shell`), never the raw text.
- `validate()` refuses a check that could never fire or would fire on everything.
- Standard library only: the PreToolUse hook imports this.
"""

from __future__ import annotations

import os

from vyre.learn import paths as P
from vyre.learn.shell import SHELLS, Command, Parsed, Word

KINDS = ("tool", "path", "phrase", "after")
# one Claude Code tool under the names it has had
TOOL_ALIASES = {"Task": ("Task", "Agent"), "Agent": ("Task", "Agent")}

# the same flag, spelled other ways, per program (and subcommand)
FLAG_SYNONYMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("sed", "-i"): ("--in-place",),
    ("perl", "-i"): (),
    ("rm", "-r"): ("-R", "--recursive"),
    ("rm", "-f"): ("--force",),
    ("cp", "-r"): ("-R", "--recursive", "-a", "--archive"),
    ("chmod", "-R"): ("--recursive",),
    ("chown", "-R"): ("--recursive",),
    ("git push", "--force"): ("-f", "--force-with-lease", "--force-if-includes"),
    ("git push", "--no-verify"): (),
    ("git push", "--delete"): ("-d",),
    ("pytest", "-x"): ("--exitfirst",),
    ("kill", "-9"): ("-KILL", "-SIGKILL"),
    ("pkill", "-9"): ("-KILL", "-SIGKILL"),
    ("killall", "-9"): ("-KILL", "-SIGKILL"),
    ("pytest", "-s"): ("--capture=no",),
    ("npm install", "--save-dev"): ("-D",),
    ("git commit", "--no-verify"): ("-n",),
    ("git commit", "--amend"): (),
    ("git reset", "--hard"): (),
    ("git clean", "-f"): ("--force",),
    ("git add", "--all"): ("-A",),
    ("git branch", "-D"): (),
    ("npm install", "--global"): ("-g",),
    ("npm install", "--force"): ("-f",),
    ("pip install", "--user"): (),
    ("curl", "-k"): ("--insecure",),
}
# subcommands that mean the same, per program
SUB_ALIASES: dict[str, dict[str, str]] = {
    "npm": {
        "i": "install",
        "add": "install",
        "in": "install",
        "isntall": "install",
        "t": "test",
        "tst": "test",
        "run-script": "run",
        "rm": "uninstall",
        "remove": "uninstall",
        "un": "uninstall",
        "r": "uninstall",
    },
    "pnpm": {"i": "install", "t": "test", "rm": "remove", "un": "remove", "run-script": "run"},
    "yarn": {"rm": "remove"},
    "pip": {},
    "git": {},
}
_RUNNERS = ("npm", "pnpm", "yarn", "bun")  # `npm run lint` and `pnpm lint` name one script
# binaries that are another program's subcommand under an older name
SPLIT_BINARIES = {"docker-compose": ("docker", "compose"), "podman-compose": ("podman", "compose")}
# second words that only look: `git stash list` is not `git stash`
_READ_SUBS = frozenset({"list", "ls", "show", "status", "help"})
_GIT_VALUED = frozenset({"-o", "--push-option", "--repo", "--receive-pack", "--exec"})


_NAMES: dict[str, str] = {}


def program_name(name: str) -> str:
    """`/usr/bin/python3.12` is `python`, `pip3` is `pip`; other names stay as they are."""
    known = _NAMES.get(name)
    if known is not None:
        return known
    _NAMES[name] = _program_name(name)
    return _NAMES[name]


def pattern_programs(pattern: dict | None) -> frozenset[str] | None:
    """The programs a command pattern can match (None: any, for a flag-only pattern): judging
    skips a lesson whose programs the call never runs."""
    if not pattern:
        return frozenset()
    if pattern.get("class"):
        return frozenset(program_name(p["program"]) for p in CLASSES.get(pattern["class"], ()))
    if pattern.get("programs"):
        return frozenset(program_name(p) for p in pattern["programs"])
    if pattern.get("program"):
        if pattern.get("from") and pattern["program"] in SHELLS:
            return SHELLS  # "curl | sh" is curl into any shell
        return frozenset({program_name(pattern["program"])})
    return None


def _program_name(name: str) -> str:
    base = os.path.basename(name)
    for family in ("python", "pip", "node", "ruby", "perl"):
        if base.startswith(family) and all(c in "0123456789." for c in base[len(family) :]):
            return family
    return base


# -- command patterns ---------------------------------------------------------------------


def _subwords(prog: str, cmd: Command) -> tuple[list[str], list[Word], str]:
    """A command's subcommand words (aliases resolved), the words after them and its cwd."""
    if prog == "git":
        sub, rest, cwd = P.git_sub(cmd)
        found = [sub] if sub else []
        if sub and rest and not rest[0].text.startswith("-"):
            found.append(rest[0].text)  # `git stash drop`, `git remote add`
        return found, rest, cwd
    words = cmd.argv[1:]
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        t = words[i].text
        # the package managers' own options that take a value (`npm --prefix web test`)
        if t in ("--prefix", "-C", "--dir", "--cwd", "-w", "--workspace", "--filter", "-F"):
            i += 1
        i += 1
    subs: list[str] = []
    if i < len(words):
        first = SUB_ALIASES.get(prog, {}).get(words[i].text, words[i].text)
        subs.append(first)
        if i + 1 < len(words) and not words[i + 1].text.startswith("-"):
            subs.append(words[i + 1].text)
    return subs, words[i + 1 :], cmd.cwd


def _after_option_values(prog: str, cmd: Command) -> list[list[str]]:
    """Other readings of a command's subcommand: a word right after a `--long` option may be
    that option's value (`kubectl --context prod delete`), so the next word may be the
    subcommand."""
    words = cmd.argv[1:]
    out: list[list[str]] = []
    i = 0
    while i + 1 < len(words) and len(out) < 2:
        t = words[i].text
        if t.startswith("-") and "=" not in t and not words[i + 1].text.startswith("-"):
            rest = [w.text for w in words[i + 2 :] if not w.text.startswith("-")][:2]
            if rest:
                out.append(rest)
            i += 2
        elif t.startswith("-"):
            i += 1
        else:
            break
    return out


def _sub_match(prog: str, want: list[str], have: list[str]) -> bool:
    want = [SUB_ALIASES.get(prog, {}).get(w, w) for w in want]
    if prog in _RUNNERS:
        if want[:1] == ["run"]:
            want = want[1:]
        if have[:1] == ["run"]:
            have = have[1:]
    if len(have) > len(want) and have[len(want)] in _READ_SUBS:
        return False
    if len(have) < len(want):
        return False
    return all(_same_word(w, h) for w, h in zip(want, have, strict=False))


def _same_word(want: str, have: str) -> bool:
    """One word, or one number however written (`chmod 0777` is `chmod 777`)."""
    if want == have:
        return True
    return want.isdigit() and have.isdigit() and want.lstrip("0") == have.lstrip("0")


def _subs_in_order(words: list[Word], want: list[str]) -> bool:
    """`docker compose -f dev.yml down`: each wanted word follows the one before it, with only
    options (and a value after one) between them."""
    texts = [w.text for w in words]
    j = next((i for i, t in enumerate(texts) if not t.startswith("-")), len(texts))
    for k, w in enumerate(want):
        if k:
            while j < len(texts) and texts[j].startswith("-"):
                option = texts[j]
                j += 1
                valued = "=" not in option and j < len(texts) and not texts[j].startswith("-")
                if valued and not _same_word(w, texts[j]):
                    j += 1  # the option's value
        if j >= len(texts) or not _same_word(w, texts[j]):
            return False
        j += 1
    return not (j < len(texts) and texts[j] in _READ_SUBS)


def _flag_spellings(prog: str, sub: str, flag: str) -> set[str]:
    names = {flag}
    # Go-style tools take long options with one dash or two: `-auto-approve`, `--auto-approve`
    if flag.startswith("--") and len(flag) > 3:
        names.add(flag[1:])
    elif flag.startswith("-") and len(flag) > 2:
        names.add("-" + flag)
    for key in ((f"{prog} {sub}".strip(), flag), (prog, flag)):
        names.update(FLAG_SYNONYMS.get(key, ()))
    for (where, canon), others in FLAG_SYNONYMS.items():
        if where in (prog, f"{prog} {sub}".strip()) and flag in others:
            names.add(canon)
            names.update(others)
    return names


# long options that never stand for a short flag of the same letter in a rule
_NOT_LONG_FORMS = frozenset({"--verbose", "--version", "--help", "--quiet", "--dry-run"})


def _has_flag(words: list[Word], spellings: set[str]) -> bool:
    shorts = {s[1] for s in spellings if len(s) == 2 and s[0] == "-" and s[1].isalpha()}
    for w in words:
        t = w.text
        if t == "--":
            return False
        if not t.startswith("-") or t == "-":
            continue
        name = t.split("=", 1)[0]
        long_form = name.startswith("--") and len(name) > 3 and name not in _NOT_LONG_FORMS
        if long_form and name[2] in shorts and name[2:].replace("-", "").isalpha():
            return True  # `-v` and `--volumes`, `-n` and `--no-verify`
        for s in spellings:
            if s.startswith("--"):
                if t == s or t.startswith(s + "="):
                    return True
            elif len(s) == 2 and not t.startswith("--"):
                # a short flag, alone or in a cluster (`-rf`, `-Ei`), or with its value (`-i.bak`)
                letters = t[1:]
                if (letters and letters[0] == s[1]) or s[1] in _cluster(letters):
                    return True
            elif t == s:
                return True
    return False


def _cluster(letters: str) -> str:
    """The flag letters of a short-option cluster, up to the first that is not a letter."""
    out = ""
    for c in letters:
        if not c.isalpha():
            break
        out += c
    return out


def _positional(words: list[Word]) -> list[str]:
    out, skip = [], False
    for w in words:
        if skip:
            skip = False
            continue
        if w.text in _GIT_VALUED:
            skip = True
            continue
        if not w.text.startswith("-") or w.text == "-":
            out.append(w.text)
    return out


def _ref_names(word: str) -> set[str]:
    """The branch names a git refspec word names (`+HEAD:refs/heads/main` → HEAD, main)."""
    out = set()
    for part in word.lstrip("+").split(":"):
        out.add(part.removeprefix("refs/heads/"))
    return out


# commands that run a project's tests or its linter, whatever the stack ("run the tests")
CLASSES: dict[str, tuple[dict, ...]] = {
    "test": (
        {"program": "npm", "sub": ["test"]},
        {"program": "pnpm", "sub": ["test"]},
        {"program": "yarn", "sub": ["test"]},
        {"program": "bun", "sub": ["test"]},
        {"program": "pytest"},
        {"program": "python", "args": ["pytest"]},
        {"program": "go", "sub": ["test"]},
        {"program": "cargo", "sub": ["test"]},
        {"program": "make", "sub": ["test"]},
        {"program": "make", "sub": ["check"]},
        {"program": "jest"},
        {"program": "vitest"},
        {"program": "tox"},
        {"program": "nox"},
        {"program": "rspec"},
        {"program": "mvn", "sub": ["test"]},
        {"program": "gradle", "sub": ["test"]},
        {"program": "dotnet", "sub": ["test"]},
        {"program": "npx", "sub": ["jest"]},
        {"program": "npx", "sub": ["vitest"]},
        {"program": "uv", "sub": ["run", "pytest"]},
        {"program": "poetry", "sub": ["run", "pytest"]},
    ),
    "lint": (
        {"program": "npm", "sub": ["run", "lint"]},
        {"program": "pnpm", "sub": ["lint"]},
        {"program": "yarn", "sub": ["lint"]},
        {"program": "bun", "sub": ["lint"]},
        {"program": "eslint"},
        {"program": "npx", "sub": ["eslint"]},
        {"program": "ruff"},
        {"program": "flake8"},
        {"program": "pylint"},
        {"program": "golangci-lint"},
        {"program": "cargo", "sub": ["clippy"]},
        {"program": "make", "sub": ["lint"]},
        {"program": "rubocop"},
        {"program": "biome"},
        {"program": "uv", "sub": ["run", "ruff"]},
    ),
    "typecheck": (
        {"program": "tsc"},
        {"program": "vue-tsc"},
        {"program": "npx", "sub": ["tsc"]},
        {"program": "npm", "sub": ["run", "typecheck"]},
        {"program": "npm", "sub": ["run", "type-check"]},
        {"program": "npm", "sub": ["run", "tsc"]},
        {"program": "pnpm", "sub": ["typecheck"]},
        {"program": "pnpm", "sub": ["tsc"]},
        {"program": "yarn", "sub": ["typecheck"]},
        {"program": "yarn", "sub": ["tsc"]},
        {"program": "bun", "sub": ["typecheck"]},
        {"program": "mypy"},
        {"program": "pyright"},
        {"program": "uv", "sub": ["run", "mypy"]},
        {"program": "make", "sub": ["typecheck"]},
        {"program": "cargo", "sub": ["check"]},
        {"program": "go", "sub": ["vet"]},
    ),
    "format": (
        {"program": "prettier"},
        {"program": "npx", "sub": ["prettier"]},
        {"program": "npm", "sub": ["run", "format"]},
        {"program": "pnpm", "sub": ["format"]},
        {"program": "yarn", "sub": ["format"]},
        {"program": "black"},
        {"program": "ruff", "sub": ["format"]},
        {"program": "gofmt"},
        {"program": "go", "sub": ["fmt"]},
        {"program": "cargo", "sub": ["fmt"]},
        {"program": "rustfmt"},
        {"program": "make", "sub": ["format"]},
        {"program": "make", "sub": ["fmt"]},
    ),
}


def command_matches(pattern: dict, cmd: Command, state: dict | None = None) -> bool:
    """Does this one running program fit the pattern?"""
    if pattern.get("class"):
        return any(command_matches(p, cmd, state) for p in CLASSES.get(pattern["class"], ()))
    prog = program_name(cmd.program)
    lead: tuple[str, ...] = ()
    if prog in SPLIT_BINARIES and program_name(pattern.get("program") or "") != prog:
        prog, *lead_words = SPLIT_BINARIES[prog]
        lead = tuple(lead_words)
    want = pattern.get("program")
    if pattern.get("from"):
        if not set(cmd.fed_by) & {program_name(p) for p in pattern["from"]}:
            return False
        if want in SHELLS and prog in SHELLS:
            want = prog
    if want and program_name(want) != prog:
        return False
    if pattern.get("programs"):
        if prog not in {program_name(p) for p in pattern["programs"]}:
            return False
        want = prog
    if not want and not pattern.get("flags"):
        return False
    subs, rest, cwd = _subwords(prog, cmd)
    if lead:
        subs = [*lead, *subs][: max(2, len(lead) + 1)]
    if pattern.get("sub") and not _sub_match(prog, pattern["sub"], subs):
        other = next(
            (s for s in _after_option_values(prog, cmd) if _sub_match(prog, pattern["sub"], s)),
            None,
        )
        if prog == "git" or (
            other is None
            and not _subs_in_order([Word(w) for w in lead] + cmd.argv[1:], pattern["sub"])
        ):
            return False
        subs = other or subs
    sub = subs[0] if subs else ""
    scan = cmd.argv[1:] if not want else (rest if prog == "git" else cmd.argv[1:])
    for flag in pattern.get("flags", ()):
        spellings = _flag_spellings(prog, sub, flag)
        if not _has_flag(scan, spellings) and not _refspec_says(prog, sub, flag, rest):
            return False
    branch = pattern.get("branch")
    if branch and _current_branch(cwd, state) != branch:
        return False
    wanted_args = pattern.get("args")
    if wanted_args:
        if pattern.get("sub") or prog == "git":
            positional = _positional(rest)
        else:
            positional = _positional(cmd.argv[1:])
        names: set[str] = set()
        if prog == "git" and sub == "push":
            if any(w.text in ("--all", "--mirror") for w in rest):
                return True
            current = _current_branch(cwd, state)
            refspecs = positional[1:] or ([current] if current else [])
            for r in refspecs:
                found = _ref_names(r)
                if "HEAD" in found and current:
                    found.add(current)
                names |= found
        else:
            for p in positional:
                names |= _ref_names(p) if prog == "git" else {p}
        if not all(a in names for a in wanted_args):
            return False
    return True


def _refspec_says(prog: str, sub: str, flag: str, rest: list[Word]) -> bool:
    """`git push origin +main` forces as surely as `--force` does; `git push origin :old`
    deletes as surely as `--delete` does."""
    if prog != "git" or sub != "push":
        return False
    if flag in ("--force", "-f"):
        return any(w.text.startswith("+") for w in rest)
    if flag in ("--delete", "-d"):
        return any(w.text.startswith(":") and len(w.text) > 1 for w in _positional_words(rest))
    return False


def _positional_words(words: list[Word]) -> list[Word]:
    return [w for w in words if not w.text.startswith("-")]


def _current_branch(cwd: str, state: dict | None) -> str | None:
    if state is not None and cwd in state.get("branch", {}):
        return state["branch"][cwd]
    return P.git_branch(cwd)


def _track(cmd: Command, state: dict) -> None:
    """`git checkout main && git push` pushes main: follow branch switches in one command."""
    if program_name(cmd.program) != "git":
        return
    sub, rest, cwd = P.git_sub(cmd)
    if sub not in ("checkout", "switch"):
        return
    pos = [w.text for w in rest if not w.text.startswith("-")]
    if "--" in [w.text for w in rest] or not pos:
        return
    state.setdefault("branch", {})[cwd] = (
        pos[-1] if any(w.text in ("-b", "-B", "-c", "-C") for w in rest) else pos[0]
    )


def _path_args_under(cmd: Command, patterns: list[P.PathPattern], roots: list[str]) -> bool:
    if any(p.matches(cmd.cwd, roots) for p in patterns):
        return True
    for w in cmd.argv[1:]:
        if w.text.startswith("-"):
            continue
        path = P.join(cmd.cwd, w.text)
        if any(p.matches(path, roots) for p in patterns):
            return True
    return False


# -- judging a call -----------------------------------------------------------------------


class Call:
    """One tool call as PreToolUse sees it, parsed once and shared by every check."""

    def __init__(self, tool: str, data: dict, cwd: str, env: dict[str, str]):
        self.tool, self.data, self.cwd, self.env = tool, data, cwd or "/", env
        self._parsed: Parsed | None = None
        self._touches: list[P.Touch] | None = None
        self._roots: list[str] | None = None
        self._programs: frozenset[str] | None = None

    @property
    def command(self) -> str:
        value = self.data.get("command") if self.tool in P.SHELL_TOOLS else None
        return value if isinstance(value, str) else ""

    @property
    def parsed(self) -> Parsed:
        if self._parsed is None:
            from vyre.learn.shell import parse

            self._parsed = parse(self.command, self.cwd, self.env)
        return self._parsed

    @property
    def programs(self) -> frozenset[str]:
        """Every program this call runs, by `program_name`."""
        if self._programs is None:
            if self.tool in P.SHELL_TOOLS:
                names = {program_name(c.program) for c in self.parsed.commands}
                names |= {SPLIT_BINARIES[n][0] for n in names if n in SPLIT_BINARIES}
                self._programs = frozenset(names)
            else:
                self._programs = frozenset()
        return self._programs

    @property
    def touches(self) -> list[P.Touch]:
        if self._touches is None:
            path = P.file_tool_path(self.tool, self.data)
            if path:
                self._touches = [P.Touch(P.join(self.cwd, path), content=self.new_text())]
            elif self.tool in P.SHELL_TOOLS:
                self._touches = P.touched(self.parsed.commands)
            else:
                self._touches = []
        return self._touches

    def roots(self, folders: list[str]) -> list[str]:
        base = list(folders)
        if self._roots is None:
            git = P.git_root(self.cwd)
            self._roots = [self.cwd] + ([git] if git and git != self.cwd else [])
        return base + [r for r in self._roots if r not in base]

    def new_text(self) -> str | None:
        d = self.data
        if self.tool == "Write":
            return _s(d.get("content"))
        if self.tool == "Edit":
            return _s(d.get("new_string"))
        if self.tool == "MultiEdit":
            return "\n".join(
                _s(e.get("new_string")) for e in d.get("edits") or [] if isinstance(e, dict)
            )
        if self.tool == "NotebookEdit":
            return _s(d.get("new_source"))
        return None

    def old_text(self) -> str:
        d = self.data
        if self.tool == "Edit":
            return _s(d.get("old_string"))
        if self.tool == "MultiEdit":
            return "\n".join(
                _s(e.get("old_string")) for e in d.get("edits") or [] if isinstance(e, dict)
            )
        if self.tool == "Write":
            path = P.file_tool_path(self.tool, d)
            try:
                with open(P.join(self.cwd, path or ""), encoding="utf-8", errors="replace") as f:
                    return f.read(1 << 20)
            except OSError:
                return ""
        return ""


def _s(value: object) -> str:
    return value if isinstance(value, str) else ""


def violates(check: dict, call: Call, folders: list[str]) -> bool:
    """Does this call break the check, at the moment of the call (PreToolUse)?"""
    kind = check.get("kind")
    if kind == "tool":
        return _tool_violation(check, call, folders)
    if kind == "path":
        if call.tool in P.READ_ONLY_TOOLS:
            return False
        patterns = [P.PathPattern(p, call.env.get("HOME", "~")) for p in check.get("paths", ())]
        roots = call.roots(folders)
        return any(P.hits(p, call.touches, roots) for p in patterns)
    if kind == "phrase":
        return _phrase_violation(check, call, folders)
    return False  # `after` is judged from the session's history (vyre.learn.judge)


def _tool_violation(check: dict, call: Call, folders: list[str]) -> bool:
    if check.get("tool"):
        return call.tool in TOOL_ALIASES.get(check["tool"], (check["tool"],))
    pattern = check.get("command")
    if not pattern or call.tool not in P.SHELL_TOOLS:
        return False
    narrow = [P.PathPattern(p, call.env.get("HOME", "~")) for p in check.get("paths", ())]
    roots = call.roots(folders)
    state: dict = {}
    for cmd in call.parsed.commands:
        if command_matches(pattern, cmd, state) and (
            not narrow or _path_args_under(cmd, narrow, roots)
        ):
            return True
        _track(cmd, state)
    return False


def runs(pattern: dict, call: Call) -> bool:
    """Does this shell call run the pattern (for `after` checks: the owed command)?"""
    if call.tool not in P.SHELL_TOOLS:
        return False
    state: dict = {}
    for cmd in call.parsed.commands:
        if command_matches(pattern, cmd, state):
            return True
        _track(cmd, state)
    return False


def changes(check: dict, call: Call, folders: list[str]) -> bool:
    """Does this call change a file the `after` check watches?"""
    if call.tool in P.READ_ONLY_TOOLS:
        return False
    watched = check.get("paths")
    if not watched:
        return bool(call.touches)
    patterns = [P.PathPattern(p, call.env.get("HOME", "~")) for p in watched]
    roots = call.roots(folders)
    return any(P.hits(p, call.touches, roots) for p in patterns)


def count_phrase(text: str, phrase: str) -> int:
    """Case-insensitive occurrences of `phrase` as whole words (`ship` is not in `shipping`)."""
    hay, needle = text.lower(), phrase.lower().strip()
    if not needle:
        return 0
    count, i = 0, hay.find(needle)
    while i >= 0:
        before = hay[i - 1] if i > 0 else " "
        after = hay[i + len(needle)] if i + len(needle) < len(hay) else " "
        word_start = not (needle[0].isalnum() and (before.isalnum() or before == "_"))
        word_end = not (needle[-1].isalnum() and (after.isalnum() or after == "_"))
        if word_start and word_end:
            count += 1
        i = hay.find(needle, i + 1)
    return count


def _phrase_violation(check: dict, call: Call, folders: list[str]) -> bool:
    new = call.new_text()
    if new is None:
        return False
    phrase = check.get("phrase", "")
    if count_phrase(new, phrase) <= count_phrase(call.old_text(), phrase):
        return False  # an edit that keeps or removes the phrase is allowed
    narrow = check.get("paths")
    if not narrow:
        return True
    patterns = [P.PathPattern(p, call.env.get("HOME", "~")) for p in narrow]
    roots = call.roots(folders)
    return any(P.hits(p, call.touches, roots) for p in patterns)


# -- what the user reads ------------------------------------------------------------------


def describe_command(pattern: dict) -> str:
    if pattern.get("class"):
        names = {
            "test": "the tests",
            "lint": "the linter",
            "typecheck": "the type checker",
            "format": "the formatter",
        }
        return names.get(pattern["class"], pattern["class"])
    words = [pattern.get("program") or " or ".join(pattern.get("programs", []))]
    if pattern.get("from"):
        words = [" or ".join(pattern["from"]), "|", *words]
    words += pattern.get("sub", [])
    words += pattern.get("flags", [])
    words += pattern.get("args", [])
    text = " ".join(w for w in words if w)
    if pattern.get("branch"):
        text += f" on {pattern['branch']}"
    return f"`{text}`" if text else "that command"


def enforced(check: dict, level: str) -> str:
    """One sentence saying what Vyre does about this lesson, at this level."""
    how = {"block": "blocks", "ask": "asks you before", "remind": "reminds Claude about"}[level]
    kind = check.get("kind")
    where = ""
    if check.get("paths") and kind in ("tool", "phrase"):
        where = " in " + ", ".join(check["paths"])
    if kind == "tool" and check.get("tool"):
        text = f"Vyre {how} the {check['tool']} tool"
    elif kind == "tool":
        text = f"Vyre {how} {describe_command(check['command'])}{where}"
        if check.get("instead"):
            text += f" (use {check['instead']} instead)"
    elif kind == "path":
        text = f"Vyre {how} any change to {', '.join(check['paths'])}"
    elif kind == "phrase":
        text = f"Vyre {how} writing \u201c{check['phrase']}\u201d{where}"
    elif kind == "after" and check.get("before"):
        verb = {"block": "blocks", "ask": "asks you before", "remind": "reminds Claude at"}[level]
        text = (
            f"Vyre {verb} {describe_command(check['before'])} until "
            f"{describe_command(check['run'])} has run"
        )
    elif kind == "after":
        changed = ", ".join(check.get("paths") or ["files"])
        text = (
            f"Vyre sends Claude back at the end of a turn that changed {changed} without "
            f"running {describe_command(check['run'])} afterwards"
        )
        if level == "remind":
            text = (
                f"Vyre reminds Claude to run {describe_command(check['run'])} after changing "
                f"{changed}"
            )
    else:
        text = "Vyre checks this lesson"
    return text + "."


def validate(check: dict) -> str | None:
    """Why this check cannot be used, or None when it can."""
    kind = check.get("kind")
    if kind not in KINDS:
        return f"unknown check kind {kind!r}"
    if kind == "tool":
        if check.get("tool"):
            return None if isinstance(check["tool"], str) else "tool must be a name"
        return _validate_pattern(check.get("command"))
    if kind == "path":
        given = check.get("paths")
        if not given or not all(isinstance(p, str) and p.strip("/. ") for p in given):
            return "a path check needs at least one path that is not the root"
        return None
    if kind == "phrase":
        phrase = check.get("phrase")
        if not isinstance(phrase, str) or not phrase.strip():
            return "a phrase check needs a phrase"
        if len(phrase.strip()) < 2 and phrase.strip().isalnum():
            return "a phrase check needs a word of two letters or more"
        return None
    if kind == "after":
        problem = _validate_pattern(check.get("run"))
        if problem:
            return problem
        if check.get("before"):
            return _validate_pattern(check["before"])
        return None
    return None


def _validate_pattern(pattern: object) -> str | None:
    if not isinstance(pattern, dict):
        return "a command check needs a command"
    if pattern.get("class"):
        return (
            None if pattern["class"] in CLASSES else f"unknown command class {pattern['class']!r}"
        )
    if not pattern.get("program") and not pattern.get("flags") and not pattern.get("programs"):
        return "a command check needs a program or a flag"
    for key in ("sub", "flags", "args", "programs", "from"):
        if key in pattern and not (
            isinstance(pattern[key], list) and all(isinstance(x, str) for x in pattern[key])
        ):
            return f"{key} must be a list of words"
    return None
