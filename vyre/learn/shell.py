"""A shell command, parsed the way a shell would run it: the programs it starts, with their
words, where they run and what they redirect. Judging a call reads this, never the raw text.

What must stay true:
- Quoting decides what a word is, never whether it runs: `git commit -m "never push to
  main"` is one program (git) with one message word, so a pattern inside the message is a
  mention. Only text a shell would execute is parsed again: `bash -c`/`sh -c` strings,
  `eval`, `$(...)` and backticks (also inside double quotes), `<(...)`, heredocs and literal
  pipes fed to a shell, and literal base64 fed to one.
- Wrappers are seen through: `env`, `sudo`, `doas`, `nice`, `ionice`, `timeout`, `nohup`,
  `time`, `command`, `exec`, `stdbuf`, `xargs`, `find -exec`, `watch`, `VAR=x` prefixes and
  full binary paths (`/usr/bin/git` is git).
- `cd` (and `pushd`, `git -C`, `env -C`) changes where later relative paths land; a subshell's
  `cd` stays inside it.
- Text that runs but cannot be read (`eval "$X"`, `curl ... | sh`, an undecodable blob) is
  marked `opaque`, so the guards can hold it.
- Standard library only, and no `re`, `shlex` or `json`: the PreToolUse hook imports this on
  its fast path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing's own costs ~1.5 ms, and collections.abc loads collections
if TYPE_CHECKING:
    from collections.abc import Sequence

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_REDIRECTS = ("&>>", "&>", ">>", ">|", ">&", "<<<", "<<-", "<<", "<&", "<>", ">", "<")
_BLANK = " \t\r"
_WORD_END = " \t\r\n;&|()<>"
_GLOB = "*?["
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "busybox"})
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "esac"}
)
MAX_DEPTH = 6  # nested bash -c / eval / $(...) levels; deeper is opaque


class Word:
    """One shell word after quote removal. `dynamic`: part of it comes from a variable or a
    command substitution we could not resolve. `glob`: an unquoted glob character."""

    __slots__ = ("dynamic", "glob", "quoted", "text")

    def __init__(
        self, text: str, quoted: bool = False, dynamic: bool = False, glob: bool = False
    ) -> None:
        self.text, self.quoted, self.dynamic, self.glob = text, quoted, dynamic, glob

    def __repr__(self) -> str:
        return f"Word({self.text!r})"


class Redirect:
    __slots__ = ("body", "fd", "op", "target")

    def __init__(self, op: str, fd: str, target: Word | None, body: str | None = None):
        self.op, self.fd, self.target, self.body = op, fd, target, body

    @property
    def writes(self) -> bool:
        return self.op in (">", ">>", ">|", "&>", "&>>", "<>") or (
            self.op == ">&" and self.target is not None and not self.target.text.isdigit()
        )


class Command:
    """One program as it will run: `program` is the basename of its first word."""

    __slots__ = (
        "argv",
        "assigns",
        "cwd",
        "depth",
        "fed_by",
        "opaque",
        "redirects",
        "stdin",
        "via",
    )

    def __init__(
        self,
        argv: list[Word],
        cwd: str,
        assigns: dict[str, str] | None = None,
        redirects: list[Redirect] | None = None,
        via: tuple[str, ...] = (),
        depth: int = 0,
    ) -> None:
        self.argv: list[Word] = argv
        self.cwd: str = cwd
        self.assigns: dict[str, str] = assigns or {}
        self.redirects: list[Redirect] = redirects or []
        self.via: tuple[str, ...] = via  # the wrappers it ran through (sudo, xargs, ...)
        self.depth = depth
        self.stdin: str | None = None  # literal text piped or heredoc'd in, when known
        # the programs whose output this one reads (`curl x | sh`) or, for a shell or eval,
        # runs (`sh -c "$(curl x)"`)
        self.fed_by: tuple[str, ...] = ()
        self.opaque = False

    @property
    def program(self) -> str:
        return os.path.basename(self.argv[0].text) if self.argv else ""

    @property
    def args(self) -> list[str]:
        return [w.text for w in self.argv[1:]]

    def __repr__(self) -> str:
        return f"Command({[w.text for w in self.argv]!r}, cwd={self.cwd!r})"


class Parsed:
    """Every command a shell text would start, flattened, in order."""

    __slots__ = ("commands", "opaque")

    def __init__(self) -> None:
        self.commands: list[Command] = []
        self.opaque: list[str] = []  # why some of it could not be read

    def programs(self) -> list[str]:
        return [c.program for c in self.commands]


# -- tokens -------------------------------------------------------------------------------


class _Tok:
    __slots__ = ("assign", "body", "kind", "subs", "value", "word")

    def __init__(self, kind: str, value: str = "", word: Word | None = None):
        self.kind, self.value, self.word = kind, value, word  # kind: word | op | redir
        self.assign = False  # NAME= comes before any quoting: an assignment word
        self.subs: list[str] = []  # command substitutions inside this word
        self.body: str | None = None  # a heredoc's text


def _closing(text: str, i: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the `close` matching the `open_` before `i`, skipping quotes."""
    depth, n = 1, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = text.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            i = _dquote_end(text, i + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _dquote_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and text.startswith("$(", i):
            i = _closing(text, i + 2)
            continue
        if c == "`":
            j = text.find("`", i + 1)
            i = n if j < 0 else j + 1
            continue
        i += 1
    return n


def tokenize(text: str, env: dict[str, str]) -> list[_Tok]:
    toks: list[_Tok] = []
    heredocs: list[tuple[_Tok, str, bool, bool]] = []  # (token, delimiter, strip tabs, expand)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _BLANK:
            i += 1
            continue
        if c == "\\" and text.startswith("\\\n", i):
            i += 2
            continue
        if c == "#" and (not toks or toks[-1].kind != "word" or text[i - 1] in _WORD_END):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "\n":
            toks.append(_Tok("op", "\n"))
            i += 1
            if heredocs:
                i = _read_heredocs(text, i, heredocs)
            continue
        # a redirection, with an optional fd number before it
        j = i
        while j < n and text[j].isdigit():
            j += 1
        op = (
            next((r for r in _REDIRECTS if text.startswith(r, j)), None)
            if j < n and text[j] in "<>&"
            else None
        )
        if op and j > i and op[0] not in "<>":
            op = None
        if op and (j == i or text[j] in "<>"):
            if op in ("<", ">") and text.startswith(op + "(", j):  # process substitution
                end = _closing(text, j + 2)
                tok = _Tok("word", "", Word("/dev/fd/63", dynamic=True))
                tok.subs.append(text[j + 2 : end - 1])
                toks.append(tok)
                i = end
                continue
            tok = _Tok("redir", op)
            tok.word = Word(text[i:j])  # the fd, as a word
            toks.append(tok)
            i = j + len(op)
            if op in ("<<", "<<-"):
                while i < n and text[i] in _BLANK:
                    i += 1
                delim, i, quoted = _heredoc_word(text, i)
                toks.append(_Tok("word", delim, Word(delim, quoted=quoted)))
                heredocs.append((tok, delim, op == "<<-", not quoted))
            continue
        op = (
            next((o for o in _OPERATORS if text.startswith(o, i)), None) if c in "&|;()\n" else None
        )
        if op:
            toks.append(_Tok("op", op))
            i += len(op)
            continue
        tok, i = _word(text, i, env)
        toks.append(tok)
    return toks


def _heredoc_word(text: str, i: int) -> tuple[str, int, bool]:
    out, quoted, n = [], False, len(text)
    while i < n and text[i] not in _WORD_END:
        c = text[i]
        if c in "'\"":
            j = text.find(c, i + 1)
            j = n if j < 0 else j
            out.append(text[i + 1 : j])
            quoted, i = True, j + 1
        elif c == "\\":
            quoted = True
            out.append(text[i + 1 : i + 2])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out), i, quoted


def _read_heredocs(text: str, i: int, pending: list) -> int:
    for tok, delim, strip, expand in pending:
        lines = []
        while i < len(text):
            j = text.find("\n", i)
            line = text[i:] if j < 0 else text[i:j]
            i = len(text) if j < 0 else j + 1
            if (line.lstrip("\t") if strip else line) == delim:
                break
            lines.append(line.lstrip("\t") if strip else line)
        tok.body = "\n".join(lines) + "\n"
        if expand:  # an unquoted delimiter: $(...) in the body runs
            tok.subs.extend(_substitutions(tok.body))
    pending.clear()
    return i


def _substitutions(text: str) -> list[str]:
    out: list[str] = []
    i = 0
    while True:
        i = text.find("$(", i)
        if i < 0:
            return out
        if text.startswith("$((", i):
            i += 3
            continue
        end = _closing(text, i + 2)
        out.append(text[i + 2 : end - 1])
        i = end


def _word(text: str, i: int, env: dict[str, str]) -> tuple[_Tok, int]:
    """One word from `i`: quotes removed, variables expanded where known."""
    out: list[str] = []
    tok = _Tok("word")
    quoted = dynamic = glob = False
    n = len(text)
    while i < n:
        c = text[i]
        if c in _WORD_END:
            break
        if c == "=" and not quoted and not tok.assign and out:
            tok.assign = True
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2
                continue
            out.append(text[i + 1 : i + 2])
            quoted = True
            i += 2
        elif c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append(text[i + 1 : j])
            quoted, i = True, j + 1
        elif c == '"':
            quoted = True
            i, dyn = _dquote(text, i + 1, env, out, tok)
            dynamic |= dyn
        elif c == "$":
            i, dyn = _dollar(text, i, env, out, tok)
            dynamic |= dyn
        elif c == "`":
            j = text.find("`", i + 1)
            j = n if j < 0 else j
            tok.subs.append(text[i + 1 : j])
            out.append("`" + text[i + 1 : j] + "`")
            dynamic, i = True, j + 1
        else:
            if c in _GLOB:
                glob = True
            if c == "~" and not out and (i + 1 >= n or text[i + 1] in "/" + _WORD_END):
                out.append(env.get("HOME", "~"))
            else:
                out.append(c)
            i += 1
    tok.value = "".join(out)
    tok.word = Word(tok.value, quoted, dynamic, glob)
    return tok, i


def _dquote(text: str, i: int, env: dict[str, str], out: list[str], tok: _Tok) -> tuple[int, bool]:
    dynamic, n = False, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            return i + 1, dynamic
        if c == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
            out.append(text[i + 1] if text[i + 1] != "\n" else "")
            i += 2
        elif c == "$":
            i, dyn = _dollar(text, i, env, out, tok)
            dynamic |= dyn
        elif c == "`":
            j = text.find("`", i + 1)
            j = n if j < 0 else j
            tok.subs.append(text[i + 1 : j])
            out.append("`" + text[i + 1 : j] + "`")
            dynamic, i = True, j + 1
        else:
            out.append(c)
            i += 1
    return n, dynamic


def _dollar(text: str, i: int, env: dict[str, str], out: list[str], tok: _Tok) -> tuple[int, bool]:
    n = len(text)
    nxt = text[i + 1] if i + 1 < n else ""
    if nxt == "(":
        if text.startswith("$((", i):
            end = _closing(text, i + 3)
            end = _closing(text, end) if end < n and text[end - 1] == ")" else end
            out.append("0")
            return end, True
        end = _closing(text, i + 2)
        tok.subs.append(text[i + 2 : end - 1])
        out.append("$(" + text[i + 2 : end - 1] + ")")
        return end, True
    if nxt == "'":  # $'...' with C escapes
        j = i + 2
        buf = []
        while j < n and text[j] != "'":
            if text[j] == "\\" and j + 1 < n:
                buf.append(text[j : j + 2])
                j += 2
            else:
                buf.append(text[j])
                j += 1
        out.append(unescape_c("".join(buf)))
        return j + 1, False
    if nxt == "{":
        end = _closing(text, i + 2, "{", "}")
        inner = text[i + 2 : end - 1]
        name = ""
        for ch in inner:
            if ch.isalnum() or ch == "_":
                name += ch
            else:
                break
        rest = inner[len(name) :]
        if name in env and not rest:
            out.append(env[name])
            return end, False
        if rest.startswith((":-", "-")) and name not in env:
            default = rest[2:] if rest.startswith(":-") else rest[1:]
            out.append(default.replace("~", env.get("HOME", "~"), 1))
            return end, "$" in default
        if name in env:
            out.append(env[name])
            return end, False
        out.append("${" + inner + "}")
        return end, True
    j = i + 1
    while j < n and (text[j].isalnum() or text[j] == "_"):
        j += 1
    if j == i + 1:
        if nxt and nxt in "?$!#@*-0123456789":
            out.append("$" + nxt)
            return i + 2, True
        out.append("$")
        return i + 1, False
    name = text[i + 1 : j]
    if name in env:
        out.append(env[name])
        return j, False
    out.append("$" + name)
    return j, True


def unescape_c(text: str) -> str:
    """`$'...'` and printf escapes: \\n, \\t, \\xHH, \\0NNN, \\NNN, \\uHHHH."""
    out, i, n = [], 0, len(text)
    simple = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a"}
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in simple:
            out.append(simple[e])
            i += 2
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            digits = ""
            j = i + 2
            while j < n and len(digits) < width and text[j] in "0123456789abcdefABCDEF":
                digits += text[j]
                j += 1
            out.append(chr(int(digits, 16)) if digits else "\\" + e)
            i = j
        elif e in "01234567":
            j, digits = i + 1, ""
            if e == "0":
                j += 1
            while j < n and len(digits) < 3 and text[j] in "01234567":
                digits += text[j]
                j += 1
            out.append(chr(int(digits or "0", 8)))
            i = j
        else:
            out.append("\\" + e)
            i += 2
    return "".join(out)


# -- commands -----------------------------------------------------------------------------


def parse(text: str, cwd: str, env: dict[str, str] | None = None) -> Parsed:
    """Every command `text` would run from `cwd`, wrappers and nesting seen through."""
    result = Parsed()
    _Walker(result, dict(env or {})).run(text, cwd or "/", 0, ())
    return result


class _Walker:
    def __init__(self, result: Parsed, env: dict[str, str]):
        self.result, self.env = result, env

    def run(self, text: str, cwd: str, depth: int, via: tuple[str, ...]) -> str:
        """Parse and walk `text`; returns the cwd after it (for `cd` in sequences)."""
        if depth > MAX_DEPTH:
            self.result.opaque.append("nested too deep")
            return cwd
        toks = tokenize(text, self.env)
        return self._list(toks, 0, len(toks), cwd, depth, via)[1]

    def _list(
        self, toks: list[_Tok], i: int, end: int, cwd: str, depth: int, via: tuple[str, ...]
    ) -> tuple[int, str]:
        """A list of pipelines: cwd flows through `;`, `&&`, `||`; a subshell keeps its own."""
        pipe_prev: list[Command] = []
        while i < end:
            tok = toks[i]
            if tok.kind == "op" and tok.value == "(":
                close = self._match_paren(toks, i, end)
                self._list(toks, i + 1, close, cwd, depth, via)
                i = close + 1
                continue
            if tok.kind == "op":
                if tok.value not in ("|", "|&"):
                    pipe_prev = []
                i += 1
                continue
            j = i
            while j < end and toks[j].kind != "op":
                j += 1
            in_pipe = bool(pipe_prev)
            made, cwd_after = self._simple(toks[i:j], cwd, depth, via, pipe_prev)
            piped = j < end and toks[j].kind == "op" and toks[j].value in ("|", "|&")
            if not in_pipe and not piped:
                cwd = cwd_after  # `cd` in a pipeline runs in a subshell
            pipe_prev = made if piped else []
            i = j
        return i, cwd

    @staticmethod
    def _match_paren(toks: list[_Tok], i: int, end: int) -> int:
        depth = 0
        for k in range(i, end):
            t = toks[k]
            if t.kind == "op" and t.value == "(":
                depth += 1
            elif t.kind == "op" and t.value == ")":
                depth -= 1
                if depth == 0:
                    return k
        return end

    def _simple(
        self,
        toks: list[_Tok],
        cwd: str,
        depth: int,
        via: tuple[str, ...],
        pipe_prev: list[Command],
    ) -> tuple[list[Command], str]:
        assigns: dict[str, str] = {}
        words: list[Word] = []
        redirects: list[Redirect] = []
        k = 0
        before = len(self.result.commands)
        for t in toks:  # substitutions run first, where the command runs
            for sub in t.subs:
                self.run(sub, cwd, depth + 1, (*via, "$()"))
        substituted = tuple(c.program for c in self.result.commands[before:])
        while k < len(toks):
            t = toks[k]
            if t.kind == "redir":
                target = toks[k + 1].word if k + 1 < len(toks) else None
                redirects.append(Redirect(t.value, t.word.text if t.word else "", target, None))
                k += 2
                if t.value in ("<<", "<<-"):
                    redirects[-1].body = t.body
                continue
            w = t.word
            if not words and w and t.assign and _is_assign(w.text):
                name, value = w.text.split("=", 1)
                assigns[name] = value
                k += 1
                continue
            if w:
                words.append(w)
            k += 1
        while words and not words[0].quoted and words[0].text in _KEYWORDS:
            words = words[1:]
        if words and words[0].text in ("for", "select", "case"):
            return [], cwd
        if words and not words[0].quoted and words[0].text.endswith("()"):
            return [], cwd  # a function definition: its body is parsed where it is called
        if not words:
            for name, value in assigns.items():
                self.env[name] = value  # a bare assignment sets a shell variable
            if redirects:
                cmd = Command([Word(":")], cwd, assigns, redirects, via, depth)
                self.result.commands.append(cmd)
                return [cmd], cwd
            return [], cwd
        stdin = _literal_output(pipe_prev)
        for r in redirects:
            if r.op == "<<<" and r.target is not None:
                stdin = r.target.text + "\n"
            elif r.op in ("<<", "<<-"):
                stdin = r.body
        env = {**self.env, **assigns}
        fed = _fed(pipe_prev, stdin)
        made = self._expand(words, cwd, assigns, redirects, via, depth, env, stdin, fed)
        feeders = tuple(c.program for c in pipe_prev)
        for c in made:
            runs_text = c.program in SHELLS or c.program in ("eval", "source", ".")
            c.fed_by = feeders + (substituted if runs_text else ())
        return made, self._cd(words, cwd, env)

    def _cd(self, words: list[Word], cwd: str, env: dict[str, str]) -> str:
        prog = os.path.basename(words[0].text)
        if prog not in ("cd", "pushd"):
            return cwd
        args = [w for w in words[1:] if not w.text.startswith("-") or w.text == "-"]
        if not args:
            return env.get("HOME", cwd)
        if args[0].dynamic or args[0].text == "-":
            return cwd
        return join(cwd, args[0].text)

    def _expand(
        self,
        words: list[Word],
        cwd: str,
        assigns: dict[str, str],
        redirects: list[Redirect],
        via: tuple[str, ...],
        depth: int,
        env: dict[str, str],
        stdin: str | None,
        fed: Sequence[Word] = (),
    ) -> list[Command]:
        """Record the command, then whatever it runs in turn (wrappers, shells, eval)."""
        cmd = Command(words, cwd, assigns, redirects, via, depth)
        cmd.stdin = stdin
        self.result.commands.append(cmd)
        made = [cmd]
        prog = cmd.program
        if words[0].dynamic:
            cmd.opaque = True
            self.result.opaque.append("a program named by a variable")
            return made
        inner = unwrap(prog, words)
        if inner is not None:
            rest, inner_cwd, extra = inner
            if rest and prog == "xargs":
                rest = rest + list(fed)  # xargs appends what it reads to the command
            if rest:
                env2 = {**env, **extra}
                made += self._expand(
                    rest,
                    join(cwd, inner_cwd) if inner_cwd else cwd,
                    {**assigns, **extra},
                    [],
                    (*via, prog),
                    depth,
                    env2,
                    None if prog == "xargs" else stdin,
                )
            return made
        if prog == "find":
            for argv in find_exec(words):
                made += self._expand(argv, cwd, assigns, [], (*via, "find"), depth, env, None)
            return made
        script = shell_script(prog, words)
        if script is not None:
            self._nested(cmd, script, cwd, depth, via, prog)
        elif (prog in SHELLS and len(words) == 1) or (
            prog in SHELLS and words[1].text in ("-s", "-")
        ):
            if cmd.stdin is not None:
                self._nested(cmd, cmd.stdin, cwd, depth, via, prog)
            else:
                cmd.opaque = True
                self.result.opaque.append(f"{prog} reads commands from a pipe")
        elif prog == "eval":
            self._nested(cmd, " ".join(w.text for w in words[1:]), cwd, depth, via, prog)
            if any(w.dynamic for w in words[1:]):
                cmd.opaque = True
                self.result.opaque.append("eval of text made at run time")
        elif prog in ("source", ".") and len(words) > 1 and words[1].text == "/dev/stdin":
            if cmd.stdin is None:
                cmd.opaque = True
                self.result.opaque.append("source from a pipe")
            else:
                self._nested(cmd, cmd.stdin, cwd, depth, via, prog)
        return made

    def _nested(
        self, cmd: Command, script: str, cwd: str, depth: int, via: tuple[str, ...], prog: str
    ) -> None:
        self.run(script, cwd, depth + 1, (*via, prog))


def _is_assign(text: str) -> bool:
    name, eq, _ = text.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def join(cwd: str, path: str) -> str:
    """`path` from `cwd`, normalised (no symlinks resolved: the hook must not touch disk)."""
    return os.path.normpath(os.path.join(cwd or "/", path))


# -- wrappers -----------------------------------------------------------------------------

# option letters that take a value, per wrapper
_WRAP_ARGS = {
    "sudo": set("ughpCUrtDRT"),
    "doas": set("uC"),
    "nice": set("n"),
    "ionice": set("cnpPu"),
    "timeout": set("sk"),
    "stdbuf": set("ioe"),
    "chrt": set(),
    "taskset": set(),
    "xargs": set("InLPdsaEe"),
    "env": set("uCSP"),
    "exec": set("a"),
    "nohup": set(),
    "time": set("fo"),
    "command": set(),
    "builtin": set(),
    "caffeinate": set("tw"),
    "unbuffer": set(),
    "flock": set("wEc"),
    "runuser": set("ugc"),
    "su": set(),
    "strace": set("oeEpsuSU"),
    "ltrace": set("oeEpsuSU"),
}
_WRAP_LONG_ARGS = {
    "--user",
    "--group",
    "--signal",
    "--kill-after",
    "--adjustment",
    "--unset",
    "--chdir",
    "--split-string",
    "--max-args",
    "--max-lines",
    "--max-procs",
    "--delimiter",
    "--replace",
    "--arg-file",
    "--eof",
    "--input",
    "--output",
    "--error",
    "--prompt",
    "--host",
    "--close-from",
    "--role",
    "--type",
}


# runners that start another program: `npx yarn`, `uv run pytest`, `bundle exec rspec`
_RUNNERS = {
    "npx": (),
    "bunx": (),
    "uvx": (),
    "pnpx": (),
    "uv": ("run",),
    "poetry": ("run",),
    "pdm": ("run",),
    "hatch": ("run",),
    "rye": ("run",),
    "pipx": ("run",),
    "bundle": ("exec",),
    "pnpm": ("exec", "dlx"),
    "yarn": ("exec", "dlx"),
    "bun": ("x",),
}


def _python_module(prog: str, words: list[Word]) -> list[Word] | None:
    """`python -m pytest -x` runs pytest: the module, with the words after it."""
    if not prog.startswith("python") or prog.rstrip("0123456789.") != "python":
        return None
    i = 1
    while i < len(words) and words[i].text.startswith("-"):
        t = words[i].text
        if t == "-m":
            return words[i + 1 :] or None
        if t in ("-c", "-"):
            return None
        i += 2 if t in ("-X", "-W", "-Q") else 1
    return None


def _runner(prog: str, words: list[Word]) -> list[Word] | None:
    """The program a runner starts, with its words; None when this is no runner call."""
    module = _python_module(prog, words)
    if module is not None:
        return module
    subs = _RUNNERS.get(prog)
    if subs is None:
        return None
    i = 1
    if subs:
        if len(words) < 2 or words[1].text not in subs:
            return None
        i = 2
    while i < len(words) and words[i].text.startswith("-"):
        t = words[i].text
        i += 2 if t in ("-p", "--package", "--with", "--from", "-w", "--python") else 1
    return words[i:] or None


def unwrap(prog: str, words: list[Word]) -> tuple[list[Word], str | None, dict] | None:
    """For a wrapper: the command it runs, the folder it runs it in (env -C), and variables
    it sets. None when `prog` is not a wrapper."""
    started = _runner(prog, words)
    if started is not None:
        return started, None, {}
    if prog not in _WRAP_ARGS:
        return None
    if prog == "command" and len(words) > 1 and words[1].text in ("-v", "-V"):
        return [], None, {}  # a look-up, not a run
    takes = _WRAP_ARGS[prog]
    extra: dict[str, str] = {}
    cwd = None
    i = 1
    while i < len(words):
        t = words[i].text
        if t == "--":
            i += 1
            break
        if prog == "env" and _is_assign(t):
            name, value = t.split("=", 1)
            extra[name] = value
            i += 1
            continue
        if t.startswith("--") and len(t) > 2:
            name = t.split("=", 1)[0]
            if name in ("--chdir",) and prog == "env":
                cwd = (
                    t.split("=", 1)[1]
                    if "=" in t
                    else (words[i + 1].text if i + 1 < len(words) else None)
                )
            if name == "--split-string" and prog == "env":
                value = (
                    t.split("=", 1)[1]
                    if "=" in t
                    else (words[i + 1].text if i + 1 < len(words) else "")
                )
                return _split_string(value, words[i + (1 if "=" in t else 2) :]), cwd, extra
            i += 2 if "=" not in t and name in _WRAP_LONG_ARGS else 1
            continue
        if t.startswith("-") and len(t) > 1 and not (prog == "nice" and t[1:].isdigit()):
            letters = t[1:]
            if prog == "env" and letters[0] in "S":
                value = letters[1:] or (words[i + 1].text if i + 1 < len(words) else "")
                return _split_string(value, words[i + (1 if letters[1:] else 2) :]), cwd, extra
            if prog == "env" and letters[0] == "C":
                cwd = letters[1:] or (words[i + 1].text if i + 1 < len(words) else None)
            for pos, letter in enumerate(letters):
                if letter in takes:
                    i += 1 if pos + 1 < len(letters) else 2
                    break
            else:
                i += 1
            continue
        if prog == "nice" and t.startswith("-"):
            i += 1
            continue
        break
    if prog == "timeout" and i < len(words):
        i += 1  # the duration
    if prog in ("chrt", "taskset") and i < len(words):
        i += 1  # the priority or the cpu mask
    if prog == "su":
        # `su -c 'cmd' user`: the command is a shell string
        for k, w in enumerate(words):
            if w.text == "-c" and k + 1 < len(words):
                return _split_string(words[k + 1].text, []), cwd, extra
        return [], cwd, extra
    rest = words[i:]
    return rest, cwd, extra


def _split_string(value: str, rest: list[Word]) -> list[Word]:
    inner = [t.word for t in tokenize(value, {}) if t.kind == "word" and t.word]
    return inner + list(rest)


def find_exec(words: list[Word]) -> list[list[Word]]:
    """The commands `find ... -exec CMD {} ;` runs, with `{}` standing for find's roots."""
    roots = []
    for w in words[1:]:
        if w.text.startswith(("-", "(", "!")):
            break
        roots.append(w)
    found = roots[0].text if roots else ""
    for k, w in enumerate(words[:-1]):
        name = words[k + 1].text
        if w.text in ("-name", "-iname") and "/" not in name and found:
            found = found.rstrip("/") + "/" + name  # what it finds is named so, below the root
            break
    out, i = [], 1
    while i < len(words):
        if words[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            argv = []
            while j < len(words) and words[j].text not in (";", "+"):
                w = words[j]
                if "{}" in w.text and roots:
                    argv.append(Word(w.text.replace("{}", found), w.quoted, w.dynamic, True))
                else:
                    argv.append(w)
                j += 1
            if argv:
                out.append(argv)
            i = j + 1
        else:
            i += 1
    return out


def shell_script(prog: str, words: list[Word]) -> str | None:
    """The script a shell runs from `-c` (`bash -c 'x'`, `sh -lc 'x'`), `watch`, `ssh` is not
    here (it runs elsewhere)."""
    if prog in SHELLS:
        for k, w in enumerate(words[1:], 1):
            t = w.text
            if t.startswith("-") and not t.startswith("--") and "c" in t[1:]:
                return words[k + 1].text if k + 1 < len(words) else ""
            if not t.startswith("-"):
                return None
        return None
    if prog == "watch":
        k = 1
        while k < len(words) and words[k].text.startswith("-"):
            k += 2 if words[k].text in ("-n", "-d", "--interval") else 1
        return " ".join(w.text for w in words[k:]) or None
    return None


def _fed(prev: list[Command], stdin: str | None) -> list[Word]:
    """The words `xargs` would read: literal input, else the paths the left side lists
    (`find migrations | xargs rm` reaches into migrations)."""
    if stdin is not None:
        return [Word(t) for t in stdin.split()]
    if not prev:
        return []
    left = prev[-1]
    if left.program in ("find", "ls", "fd", "git", "grep", "rg"):
        paths = [
            w
            for w in left.argv[1:]
            if not w.text.startswith("-")
            and w.text not in ("ls-files", "ls-tree", "diff", "status")
        ]
        if left.program in ("grep", "rg") and paths:
            paths = paths[1:]  # the pattern is not a path
        roots = paths[:1] if left.program in ("find", "fd") else paths
        return [Word(f"{w.text.rstrip('/')}/*", glob=True) for w in roots] or [Word("*", glob=True)]
    return []


def _literal_output(prev: list[Command]) -> str | None:
    """What a pipeline's left side prints, when it is literal: echo, printf, cat of a heredoc,
    and the decoders (base64 -d, xxd -r -p, rev) applied to it."""
    if not prev:
        return None
    cmd = prev[-1]
    prog = cmd.program
    if prog == "echo":
        args = [w for w in cmd.argv[1:]]
        flags = ""
        while args and args[0].text in ("-n", "-e", "-ne", "-en", "-E"):
            flags += args.pop(0).text
        if any(w.dynamic for w in args):
            return None
        text = " ".join(w.text for w in args)
        return (unescape_c(text) if "e" in flags else text) + ("" if "n" in flags else "\n")
    if prog == "printf":
        args = cmd.argv[1:]
        if not args or any(w.dynamic for w in args):
            return None
        fmt = unescape_c(args[0].text)
        if "%s" in fmt and len(args) > 1:
            fmt = fmt.replace("%s", args[1].text, 1)
        return fmt
    if prog == "cat" and len(cmd.argv) == 1 and cmd.stdin is not None:
        return cmd.stdin
    if prog in ("base64", "openssl", "xxd", "rev", "tr") and cmd.stdin is None:
        # the left side's own input: find it from the command before it in the same pipe
        return None
    return _decoded(cmd)


def _decoded(cmd: Command) -> str | None:
    prog, args = cmd.program, cmd.args
    data = cmd.stdin
    if data is None:
        return None
    try:
        if prog == "base64" and any(a in ("-d", "--decode", "-D") for a in args):
            import binascii

            return binascii.a2b_base64(data.strip().encode()).decode("utf-8", "replace")
        if prog == "xxd" and "-r" in args:
            import binascii

            return binascii.unhexlify("".join(data.split())).decode("utf-8", "replace")
        if prog == "rev":
            return "\n".join(line[::-1] for line in data.rstrip("\n").split("\n")) + "\n"
    except ValueError:
        return None
    return None
