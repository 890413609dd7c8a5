"""Distill: a sentence the user said becomes a check, or says plainly why none fits.

What must stay true (ADR 0007 §7):
- A sentence no shape fits is never forced into a check: `distill()` returns the reason and
  the caller queues it as a job. A sentence that is not a rule at all ("Draft a note to
  Priya") is neither a check nor a job.
- Shapes are general ways of saying a rule, never one sentence: a negation or "stop"/"no
  more"/"avoid" before an action; "use X not Y", "X instead of Y", "X only"; "run X after
  changing Y", "run X before Y"; a banned word or phrase; scope words ("in this repo",
  "everywhere", "in docs"). Politeness and a reason after the rule are set aside.
- No side effects: this reads text and returns a value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vyre.learn import checks
from vyre.learn.shell import parse

# Programs people name in rules; anything with a flag, in backticks or called "the X command"
# counts too.
KNOWN_PROGRAMS = frozenset(
    """
    git npm npx pnpm yarn bun deno node pip pip3 pipx uv poetry python python3 pytest ruff black
    isort mypy flake8 pylint eslint prettier tsc jest vitest sed awk perl grep rg ag find fd xargs
    rm mv cp chmod chown ln curl wget ssh scp rsync docker podman kubectl helm terraform make cmake
    cargo rustc go gradle mvn java brew apt apt-get yum dnf sudo kill pkill killall tar zip unzip
    jq yq vim nano emacs code cat less head tail sort uniq tee dd truncate touch mkdir rmdir
    gh hub psql mysql sqlite3 redis-cli mongo aws gcloud az heroku vercel netlify firebase
    bundle gem rake rails composer php dotnet swift xcodebuild flutter dart gofmt golangci-lint
    alembic prisma sequelize knex drizzle-kit next nuxt vite webpack rollup esbuild turbo nx lerna
    ansible vagrant systemctl service crontab open xdg-open osascript say
    """.split()
)
# program names that are everyday English verbs or nouns: "don't make the functions long" is no
# rule about `make`. They count as a command only in backticks, with a flag, or before a word
# that is not an article, a pronoun or a quantity.
ENGLISH_PROGRAMS = frozenset(
    """make find open touch watch say kill sort head tail less more cat cut join paste split time
    test tee yes file look date read print code go which type top free code mail write talk
    """.split()
)
_NOT_AN_ARGUMENT = frozenset(
    """the a an it its them this that these those any every each all my your our their his her
    too so things stuff sure more less much many some everything anything something one
    """.split()
)
KNOWN_PROGRAMS_RE = [re.escape(p) for p in KNOWN_PROGRAMS if p not in ENGLISH_PROGRAMS]
_NEG = (
    r"(?:never(?:\s+ever)?|don'?t(?:\s+ever)?|do\s+not|dont|doesn'?t|stop|quit|avoid|refrain\s+from|"
    r"no\s+more|no\s+longer|not\s+allowed\s+to|you\s+(?:must|should|may|can)\s*(?:not|n'?t)|"
    r"mustn'?t|shouldn'?t|can'?t|cannot|won'?t|please\s+don'?t|i\s+don'?t\s+want\s+you\s+to|"
    r"i\s+do\s+not\s+want\s+you\s+to|under\s+no\s+circumstances(?:\s+should\s+you)?|"
    r"no(?=\s+\w+ing\b)|no(?=\s+force)|no(?=\s+`)|no(?=\s+more)|no(?=\s+(?:"
    + "|".join(sorted(KNOWN_PROGRAMS_RE))
    + r")\b)|ban|forbid|forbidden|prohibit|"
    r"don'?t\s+you\s+(?:dare|ever)|hands\s+off|keep\s+(?:your\s+hands\s+)?off|"
    r"stay\s+(?:away\s+from|out\s+of))"
)
_NEG_RE = re.compile(rf"(?:^|[\s,;:(])(?P<neg>{_NEG})\s+(?P<rest>.+)$", re.I)
# Claude Code's own tools, by the names people use for them
TOOL_NAMES = {
    "webfetch": "WebFetch",
    "web fetch": "WebFetch",
    "websearch": "WebSearch",
    "web search": "WebSearch",
    "the web search tool": "WebSearch",
    "subagents": "Task",
    "sub-agents": "Task",
    "the task tool": "Task",
    "task tool": "Task",
    "notebookedit": "NotebookEdit",
    "multiedit": "MultiEdit",
    "the write tool": "Write",
    "the edit tool": "Edit",
}
# tools people say they use one of (`pnpm only` bans the others)
FAMILIES = (
    ("npm", "pnpm", "yarn", "bun"),
    ("pip", "uv", "poetry", "pipenv", "pdm"),
    ("grep", "rg", "ag"),
    ("find", "fd"),
    ("jest", "vitest", "mocha"),
    ("black", "ruff", "autopep8", "yapf"),
    ("eslint", "biome", "oxlint"),
    ("docker", "podman"),
    ("curl", "wget", "httpie"),
    ("vim", "nano", "emacs"),
    ("make", "just", "task"),
)
NAMED_CHARS = {
    "em dash": "\u2014",
    "em dashes": "\u2014",
    "em-dash": "\u2014",
    "em-dashes": "\u2014",
    "emdash": "\u2014",
    "emdashes": "\u2014",
    "en dash": "\u2013",
    "en dashes": "\u2013",
    "en-dashes": "\u2013",
    "semicolons": ";",
    "exclamation marks": "!",
    "exclamation points": "!",
}
BRANCHES = ("main", "master", "trunk", "develop", "production", "prod", "release", "staging")

_POLITE = re.compile(
    r"^(?:(?:ok|okay|hey|so|also|and|but|oh|well|look|listen|note|fyi|ps|important|reminder|"
    r"rule|btw|again|remember|actually|seriously|claude|please|pls|plz|kindly|from now on|"
    r"going forward|in (?:the )?future|for (?:the )?future|one more thing|one thing)[,:!.]?\s+)+",
    re.I,
)
_REASON = re.compile(
    r"\s*(?:[,;:\u2014\u2013(]|\s-\s|\s--\s)?\s*\b(?:because|since|as\s+(?:it|that|this|they|we)|"
    r"it\s+(?:breaks|kills|messes|ruins|causes|triggers|deploys|will|would|is)|that\s+(?:breaks|"
    r"triggers|deploys|will|would)|otherwise|or\s+else|thanks?|thank\s+you|ok\??|okay\??|please|"
    r"so\s+that|unless|except|we\s+(?:got|had|lost)|this\s+(?:breaks|is)|that'?s|"
    r"the\s+(?:ci|pipeline|deploy)|cheers)\b.*$|\s*[,;]\s*(?:we'?re|we\s+are|it'?s|they'?re|"
    r"that'?s|this\s+is|the\s+\w+\s+(?:bot|team)\s+owns)\b.*$",
    re.I,
)
_SCOPE_PROJECT = re.compile(
    r"\b(?:in|for|on|across|inside|within)\s+(?:this|the|our)\s+(?:repo(?:sitory)?|project|"
    r"codebase|code\s*base|workspace|app|folder)\b|\bhere\b|\bin\s+here\b",
    re.I,
)
_SCOPE_ALL = re.compile(
    r"\b(?:everywhere|anywhere|globally|in\s+(?:any|every|all)\s+(?:of\s+(?:my|our)\s+)?"
    r"(?:repos?|projects?|codebases?)|across\s+(?:all|every)\s+(?:repos?|projects?)|"
    r"in\s+general|ever\s+again|any\s+project)\b",
    re.I,
)
_DOC_SCOPE = re.compile(
    r"\b(?:in|inside|within|for)\s+(?:the\s+|our\s+|any\s+|all\s+)?(?P<where>docs?|documentation|"
    r"readme(?:s)?|markdown(?:\s+files)?|md\s+files|(?:the\s+)?(?P<dir>[\w.-]+/)|"
    r"\*\.(?P<ext>\w+)(?:\s+files)?|\.(?P<ext2>\w+)\s+files|(?P<ext3>\w+)\s+files)(?!\w)"
    r"(?!\s+(?:site|website|project|repo|app|server|team))",
    re.I,
)
_WORDISH = re.compile(r"^(?:the\s+)?(?:words?|phrases?|terms?|expressions?)\b", re.I)
_QUOTED = re.compile(
    r"`([^`]+)`|\"([^\"]+)\"|\u201c([^\u201d]+)\u201d|'([^']{2,})'|\u2018([^\u2019]+)\u2019"
)
_FILE_VERBS = (
    r"touch|edit|edits|editing|modify|modifying|change|changing|alter|write\s+to|write\s+into|"
    r"writing\s+to|delete|deleting|remove|removing|overwrite|overwriting|rename|move|"
    r"mess\s+with|mess\s+around\s+with|update|updating|commit\s+changes\s+to|hand-edit|"
    r"manually\s+edit|regenerate|rewrite|reformat|format|add\s+files\s+to"
)
_FILE_VERB_RE = re.compile(
    rf"^(?:(?:ever|even|directly|manually|again)\s+)*(?:{_FILE_VERBS})\b\s*(?P<obj>.*)$", re.I
)
_USE_VERB_RE = re.compile(
    r"^(?:(?:ever|even|directly|again)\s+)*(?:use|using|uses|run|running|runs|call|calling|invoke|invoking|execute|"
    r"executing|type|do|doing|reach\s+for|rely\s+on|go\s+with|install\s+with|try)\b\s*(?P<obj>.*)$",
    re.I,
)
_SAY_VERB_RE = re.compile(
    r"^(?:(?:ever|even|again)\s+)*(?:say|saying|write|writing|put|putting|include|including|add|adding|"
    r"mention|use\s+the\s+(?:word|phrase|term|expression)|use\s+(?:words?|phrases?)\s+like)"
    r"\b\s*(?P<obj>.*)$",
    re.I,
)
_PUSH_RE = re.compile(
    r"^(?:(?:ever|even|directly|again)\s+)*(?P<force>force[- ]?)?push(?:es|ing)?\b(?P<rest>.*)$",
    re.I,
)
_COMMIT_RE = re.compile(
    r"^(?:(?:ever|even|directly|again)\s+)*commit(?:s|ting)?\b(?P<rest>.*)$", re.I
)
_FORCE_RE = re.compile(r"\bforce[- ]?push(?:es|ing)?\b|\bpush(?:es|ing)?\s+(?:--force|-f)\b", re.I)
_BRANCH_RE = re.compile(
    rf"\b(?:to|on|onto|into|at|directly\s+to|straight\s+to)?\s*(?:the\s+)?(?:`)?(?P<b>{'|'.join(BRANCHES)})(?:`)?(?:\s+branch)?\b",
    re.I,
)
_PREFER_RE = re.compile(
    r"(?:^|\b)(?:(?:we|i)\s+(?:use|prefer|want)\s+|use\s+|prefer\s+|always\s+use\s+|stick\s+(?:to|with)\s+|"
    r"go\s+with\s+|it'?s\s+)?(?P<x>`[^`]+`|[\w.@/+-]+)\s*(?:,\s*)?(?:not|instead\s+of|rather\s+than|over|"
    r"and\s+not|never|,\s*never|not\s+ever)\s+(?P<y>`[^`]+`|[\w.@/+-]+)",
    re.I,
)
_ONLY_RE = re.compile(
    r"^(?:(?:we|i)\s+(?:use|want)\s+|use\s+)?(?:only\s+(?:use\s+)?(?P<a>`[^`]+`|[\w.@/+-]+)|"
    r"(?P<b>`[^`]+`|[\w.@/+-]+)\s+only)\b",
    re.I,
)
_AFTER_RE = re.compile(
    r"(?:^|\b)(?:always\s+|make\s+sure\s+(?:to|you)\s+|be\s+sure\s+to\s+|remember\s+to\s+|you\s+must\s+|"
    r"please\s+)?(?:re-?run|run|execute|do)\s+(?P<x>.+?)\s+(?:after|whenever|every\s+time|each\s+time|"
    r"once)\s+(?:you\s+(?:have\s+)?)?(?:edit|chang|touch|modif|updat|writ|sav)\w*\s+"
    r"(?:any\s+|a\s+|the\s+)?(?P<y>.+)$",
    re.I,
)
_AFTER_LEAD_RE = re.compile(
    r"^(?:after|whenever|every\s+time|each\s+time|once)\s+(?:you\s+(?:have\s+)?)?(?:edit|chang|touch|modif|"
    r"updat|writ|sav)\w*\s+(?:any\s+|a\s+|the\s+)?(?P<y>.+?)[,;:]?\s+(?:always\s+|make\s+sure\s+(?:to|you)\s+|"
    r"you\s+must\s+|please\s+)?(?:re-?run|run|execute)\s+(?P<x>.+)$",
    re.I,
)
_BEFORE_RE = re.compile(
    r"(?:^|\b)(?:always\s+|make\s+sure\s+(?:to|you)\s+|remember\s+to\s+|you\s+must\s+|please\s+)?"
    r"(?:re-?run|run|execute)\s+(?P<x>.+?)\s+(?:before|prior\s+to|ahead\s+of)\s+(?:you\s+)?(?P<y>.+)$",
    re.I,
)
_BEFORE_LEAD_RE = re.compile(
    r"^(?:before|prior\s+to)\s+(?:you\s+)?(?P<y>.+?)[,;:]?\s+(?:always\s+|make\s+sure\s+(?:to|you)\s+|"
    r"you\s+must\s+|please\s+)?(?:re-?run|run|execute)\s+(?P<x>.+)$",
    re.I,
)
_MUST_PASS_RE = re.compile(
    r"^(?P<x>.+?)\s+(?:must|should|have\s+to|has\s+to|need\s+to|needs\s+to)\s+(?:pass|be\s+green|"
    r"succeed|run|be\s+run)\s+(?:before|prior\s+to)\s+(?:you\s+|any\s+|a\s+|every\s+)?(?P<y>.+)$",
    re.I,
)
_NO_BEFORE_RE = re.compile(
    r"^(?:never|don'?t|do\s+not)\s+(?P<y>\w+.*?)\s+(?:before|without|until)\s+(?:you\s+(?:have\s+)?)?"
    r"(?:(?:re-?run|run|execute)(?:ning)?\s+)?(?P<x>.+?)(?:\s+(?:pass(?:es)?|first|green|succeeds?))*$",
    re.I,
)
_NOUN_COMMANDS = {
    name: {"class": "test"}
    for name in (
        "tests",
        "test",
        "the tests",
        "the test suite",
        "test suite",
        "unit tests",
        "the unit tests",
        "your tests",
        "all tests",
        "all the tests",
        "the specs",
        "specs",
    )
}
_NOUN_COMMANDS.update(
    {
        name: {"class": "lint"}
        for name in (
            "lint",
            "the linter",
            "linter",
            "linters",
            "linting",
            "the linters",
            "a lint",
            "lints",
        )
    }
)
_ACTION_COMMANDS = {
    "push": {"program": "git", "sub": ["push"]},
    "pushing": {"program": "git", "sub": ["push"]},
    "commit": {"program": "git", "sub": ["commit"]},
    "committing": {"program": "git", "sub": ["commit"]},
    "deploy": None,
    "merge": {"program": "git", "sub": ["merge"]},
    "merging": {"program": "git", "sub": ["merge"]},
    "tag": {"program": "git", "sub": ["tag"]},
    "publish": {"program": "npm", "sub": ["publish"]},
    "publishing": {"program": "npm", "sub": ["publish"]},
}
_EXT_WORDS = {
    "ts": "*.ts",
    "typescript": "*.ts",
    "tsx": "*.tsx",
    "js": "*.js",
    "javascript": "*.js",
    "python": "*.py",
    "py": "*.py",
    "css": "*.css",
    "scss": "*.scss",
    "go": "*.go",
    "rust": "*.rs",
    "rs": "*.rs",
    "markdown": "*.md",
    "md": "*.md",
    "docs": "docs/",
    "sql": "*.sql",
    "yaml": "*.yaml",
    "yml": "*.yml",
    "json": "*.json",
    "html": "*.html",
    "java": "*.java",
    "ruby": "*.rb",
    "rb": "*.rb",
    "swift": "*.swift",
    "kotlin": "*.kt",
    "c": "*.c",
    "cpp": "*.cpp",
    "php": "*.php",
    "vue": "*.vue",
    "svelte": "*.svelte",
    "jsx": "*.jsx",
}
_RULE_CUE = re.compile(
    rf"(?:^|\b){_NEG}\b|\b(?:always|must|make\s+sure|remember\s+to|instead\s+of|rather\s+than|"
    r"only\s+use|prefer|from\s+now\s+on|going\s+forward|every\s+time|whenever|before\s+you|after\s+you|"
    r"we\s+use|stick\s+to|use\s+\S+\s+not|only|(?:re-?run|run)\b.+\b(?:before|after)|alone|"
    r"off[- ]limits|read[- ]only|hands\s+off|(?:must|should|need\s+to)\s+pass|"
    r"^after\b|^before\b)\b",
    re.I,
)
_STOP_WORDS = re.compile(
    r"\s+(?:in|on|inside|within|for|when|while|because|since|unless|except|without|anymore|any\s+more|"
    r"ever|again|please|at\s+all|directly|yourself|by\s+hand|manually|by|for\s+now|here|there|files?|folders?|directory|"
    r"directories|dir)\b.*$",
    re.I,
)


@dataclass
class Distilled:
    """What a sentence becomes: a check (with its scope), or why it could not."""

    sentence: str
    check: dict | None = None
    scope: str | None = None  # "project" or "all" when the sentence says so
    reason: str = ""
    rule: bool = False  # the sentence reads as a rule at all
    shape: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.check is not None


def sentences(text: str) -> list[str]:
    """Split a prompt into sentences, keeping code spans and paths whole."""
    spans = re.split(r"(?<=[.!?])\s+(?=[A-Z`\"'])|\n+", text.strip())
    return [s.strip() for s in spans if s and s.strip()]


def looks_like_rule(sentence: str) -> bool:
    return bool(_RULE_CUE.search(sentence))


def distill(text: str) -> Distilled:
    """The check one sentence (or the first rule-like sentence of a text) becomes."""
    parts = sentences(text) or [text]
    rules = [s for s in parts if looks_like_rule(s)]
    if not rules:
        return Distilled(text.strip(), reason="not a rule: no never/don't/always/use X not Y")
    best = None
    for s in rules:
        result = _one(s)
        if result.ok:
            return result
        best = best or result
    return best or Distilled(text.strip(), reason="no shape fits")


def _one(sentence: str) -> Distilled:
    original = sentence.strip()
    scope = _scope(original)
    where = _where(original)
    text = _clean(original)
    prose = bool(where) and any(w.startswith(("docs", "*.md", "README")) for w in where)
    for shape in (_after, _before, _prefer, _only, _negated):
        check = _negated(text, prose) if shape is _negated else shape(text)
        if check is None:
            continue
        narrows = check.get("kind") == "phrase" or (
            check.get("kind") == "tool"
            and where
            and all(w.endswith("/") for w in where)
            and not any(w in ("docs/",) for w in where)
        )
        if narrows and where and "paths" not in check:
            check["paths"] = where
        problem = checks.validate(check)
        if problem:
            return Distilled(original, reason=problem, rule=True)
        if not scope:
            scope = _inferred_scope(check)
        return Distilled(original, check, scope, rule=True, shape=shape.__name__.strip("_"))
    return Distilled(original, reason="no check shape fits this sentence", rule=True)


def _clean(sentence: str) -> str:
    text = sentence.strip().strip("*_").strip()
    text = _POLITE.sub("", text)
    text = _SCOPE_PROJECT.sub(" ", text)
    text = _SCOPE_ALL.sub(" ", text)
    text = _protect_quotes(text)
    text = _REASON.sub("", text)
    text = text.replace("\u2019", "'")
    text = re.sub(r"[.!?]+$", "", text).strip()
    text = re.sub(r"^(?:and|but|also|so)\s+", "", text, flags=re.I)
    return _restore_quotes(re.sub(r"\s+", " ", text))


_PROTECT: list[str] = []


def _protect_quotes(text: str) -> str:
    """Quoted spans hold the thing itself: keep reasons and scope words out of them."""

    def keep(m: re.Match) -> str:
        _PROTECT.append(m.group(0))
        return f"\x00{len(_PROTECT) - 1}\x00"

    _PROTECT.clear()
    return _QUOTED.sub(keep, text)


def _restore_quotes(text: str) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: _PROTECT[int(m.group(1))], text)


def explicit_scope(sentence: str) -> str | None:
    """The scope the sentence's own words give ("in this repo", "everywhere"), or None."""
    return _scope(sentence)


def _scope(sentence: str) -> str | None:
    if _SCOPE_ALL.search(sentence):
        return "all"
    if _SCOPE_PROJECT.search(sentence):
        return "project"
    return None


def _inferred_scope(check: dict) -> str:
    """ADR §8: paths, project commands and owed runs belong to the project; style to all."""
    kind = check.get("kind")
    if kind == "phrase":
        return "all"
    if kind in ("path", "after"):
        return "project"
    if check.get("paths"):
        return "project"
    return "all"


def _where(sentence: str) -> list[str] | None:
    m = _DOC_SCOPE.search(_protect_quotes(sentence))
    if not m:
        return None
    where = (m.group("where") or "").lower()
    if m.group("ext") or m.group("ext2"):
        return [f"*.{(m.group('ext') or m.group('ext2')).lower()}"]
    if m.group("ext3"):
        ext = _EXT_WORDS.get(m.group("ext3").lower())
        return [ext] if ext and ext.startswith("*") else None
    if where.startswith(("doc", "documentation")):
        return ["docs/", "*.md"]
    if where.startswith("readme"):
        return ["README*"]
    if where.startswith(("markdown", "md")):
        return ["*.md"]
    if m.group("dir"):
        return [m.group("dir")]
    return None


# -- shapes -------------------------------------------------------------------------------


def _strip_ticks(text: str) -> str:
    text = text.strip().lstrip(",;:").rstrip(",.;:")
    for a, b in (("`", "`"), ('"', '"'), ("'", "'"), ("\u201c", "\u201d"), ("\u2018", "\u2019")):
        if len(text) > 1 and text.startswith(a) and text.endswith(b):
            return text[1:-1].strip()
    return text


def _command_pattern(text: str) -> dict | None:
    """`sed -i`, `npm run lint`, `git push --force` as a command pattern."""
    text = _strip_ticks(text)
    text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.I)
    text = re.sub(r"\s+(?:command|cli|tool|binary|script)s?$", "", text, flags=re.I)
    if not text:
        return None
    parsed = parse(text, "/", {})
    if not parsed.commands:
        return None
    cmd = parsed.commands[-1]
    words = [w.text for w in cmd.argv]
    prog = checks.program_name(words[0]) if words else ""
    if not prog:
        return None
    pattern: dict = {"program": prog}
    flags = []
    for w in words[1:]:
        if w.startswith("--") or not w.startswith("-") or len(w) < 2:
            if w.startswith("--"):
                flags.append(w)
            continue
        letters = w[1:]
        flags += [f"-{c}" for c in letters] if letters.isalpha() and prog != "find" else [w]
    rest = [w for w in words[1:] if not w.startswith("-")]
    if flags:
        pattern["flags"] = flags
    if rest:
        if prog == "git" and rest[0] == "push" and len(rest) > 1:
            pattern["sub"] = ["push"]
            pattern["args"] = [rest[-1]]
        else:
            pattern["sub"] = rest[:2]
    return pattern


def _is_commandish(obj: str) -> bool:
    raw = obj.strip()
    if raw.startswith("`"):
        return True
    words = _strip_ticks(raw).split()
    if not words:
        return False
    first = words[0].lower()
    if first in ("the", "a", "an") and len(words) > 1:
        first = words[1].lower()
        words = words[1:]
    if first in ENGLISH_PROGRAMS:
        nxt = words[1].lower() if len(words) > 1 else ""
        return nxt.startswith("-") or (bool(nxt) and nxt not in _NOT_AN_ARGUMENT)
    if first in KNOWN_PROGRAMS or checks.program_name(first) in KNOWN_PROGRAMS:
        return True
    if len(words) > 1 and words[1].startswith("-"):
        return True
    return bool(re.search(r"\b(?:command|cli)\b", raw, re.I))


def _pathish(obj: str) -> list[str] | None:
    raw = _strip_ticks(obj)
    raw = re.sub(
        r"^(?:the|any|anything\s+in|anything\s+under|files?\s+in|files?\s+under|"
        r"stuff\s+in|what'?s\s+in|code\s+in|the\s+files?\s+in|in)\s+",
        "",
        raw,
        flags=re.I,
    )
    raw = re.sub(r"^(?:the|any)\s+", "", raw, flags=re.I)
    named = re.match(r"^(?P<n>[\w.*-]+)\s+(?:folder|directory|dir|files?|file)\b", raw, re.I)
    if named:
        name = named.group("n")
        if name.lower() in ("lock", "lockfile"):
            return ["*.lock", "package-lock.json"]
        if name.lower() in _EXT_WORDS and named.group(0).lower().endswith(("file", "files")):
            return [_EXT_WORDS[name.lower()]]
        suffix = "" if "." in name or "*" in name else "/"
        return [name + suffix]
    raw = _STOP_WORDS.sub("", raw).strip()
    if raw.lower() in ("lockfile", "lockfiles", "the lockfile", "lock files", "lock file"):
        return ["*.lock", "package-lock.json", "pnpm-lock.yaml"]
    tokens = [t.strip(",") for t in re.split(r"\s+(?:or|and|,)\s+|,\s*|\s+", raw) if t.strip(",")]
    out = []
    for t in tokens:
        t = _strip_ticks(t)
        if "/" in t or re.search(r"\.[A-Za-z0-9]{1,8}$", t) or t.startswith(("*", ".")):
            out.append(t)
        elif t.lower() in ("migrations", "vendor", "dist", "build", "node_modules", "generated"):
            out.append(t + "/")
        else:
            return None
    return out or None


def _phrase_of(obj: str) -> str | None:
    raw = obj.strip()
    m = _QUOTED.search(raw)
    if m:
        return next(g for g in m.groups() if g)
    raw = re.sub(
        r"^(?:the\s+)?(?:word|phrase|term|expression|words|phrases)s?\s+(?:like\s+)?",
        "",
        raw,
        flags=re.I,
    )
    low = raw.lower().strip(" .,")
    for name, char in NAMED_CHARS.items():
        if low == name or low.startswith(name + " "):
            return char
    raw = _STOP_WORDS.sub("", raw).strip(" .,")
    words = raw.split()
    if 1 <= len(words) <= 3 and all(re.match(r"^[\w'-]+$", w) for w in words):
        return raw
    return None


_ALONE_RE = re.compile(
    r"^(?:please\s+)?(?:leave|let)\s+(?P<obj>.+?)\s+(?:alone|be)$|"
    r"^(?P<obj2>.+?)\s+(?:is|are)\s+(?:off[- ]limits|read[- ]only|untouchable|sacred|frozen)$",
    re.I,
)


def _negated(text: str, text_scope: bool = False) -> dict | None:
    alone = _ALONE_RE.match(text)
    if alone:
        found = _pathish(alone.group("obj") or alone.group("obj2"))
        return {"kind": "path", "paths": found} if found else None
    m = _NEG_RE.search(text)
    if not m:
        return None
    rest = m.group("rest").strip()
    rest = re.sub(r"^(?:(?:ever|even|you|to|be|the\s+habit\s+of|dare)\s+)+", "", rest, flags=re.I)
    if re.match(r"^(?:the\s+)?[\w./*-]+(?:/|\s+(?:folder|directory|dir|files?))", rest, re.I) and (
        m.group("neg").lower().startswith(("hands", "keep", "stay"))
    ):
        found = _pathish(rest)
        return {"kind": "path", "paths": found} if found else None
    if _FORCE_RE.search(rest):
        pattern = {"program": "git", "sub": ["push"], "flags": ["--force"]}
        b = _BRANCH_RE.search(rest[_FORCE_RE.search(rest).end() :])
        if b:
            pattern["args"] = [b.group("b").lower()]
        return {"kind": "tool", "command": pattern}
    push = _PUSH_RE.match(rest)
    if push:
        b = _BRANCH_RE.search(push.group("rest"))
        if b:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["push"], "args": [b.group("b").lower()]},
            }
        if not push.group("rest").strip():
            return {"kind": "tool", "command": {"program": "git", "sub": ["push"]}}
        return None
    commit = _COMMIT_RE.match(rest)
    if commit:
        b = _BRANCH_RE.search(commit.group("rest"))
        if b:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["commit"], "branch": b.group("b").lower()},
            }
        flags = re.findall(r"(--?[\w-]+)", commit.group("rest"))
        if flags:
            return {
                "kind": "tool",
                "command": {"program": "git", "sub": ["commit"], "flags": flags},
            }
        return None
    tool = _claude_tool(rest)
    if tool:
        return {"kind": "tool", "tool": tool}
    seen = re.match(r"^(?:want\s+to\s+)?(?:see|read|find|spot)\s+(?P<obj>.+)$", rest, re.I)
    if seen:
        phrase = _phrase_of(seen.group("obj"))
        if phrase and (_QUOTED.search(seen.group("obj")) or _WORDISH.match(seen.group("obj"))):
            return {"kind": "phrase", "phrase": phrase}
    if _WORDISH.match(rest):
        phrase = _phrase_of(rest)
        if phrase:
            return {"kind": "phrase", "phrase": phrase}
    words = rest.split()
    if rest.startswith("`") or (
        len(words) > 1 and words[0] in KNOWN_PROGRAMS and words[1][:1] == "-"
    ):
        pattern = _command_pattern(_command_words(rest))
        return {"kind": "tool", "command": pattern} if pattern else None
    file_verb = _FILE_VERB_RE.match(rest)
    if file_verb:
        found = _pathish(file_verb.group("obj"))
        if found:
            return {"kind": "path", "paths": found}
        return None
    say = _SAY_VERB_RE.match(rest)
    if say and not _is_commandish(say.group("obj")):
        phrase = _phrase_of(say.group("obj"))
        if phrase and not _pathish(say.group("obj")):
            return {"kind": "phrase", "phrase": phrase}
    use = _USE_VERB_RE.match(rest)
    if use:
        obj = use.group("obj")
        if _is_commandish(obj):
            pattern = _command_pattern(_command_words(obj))
            return {"kind": "tool", "command": pattern} if pattern else None
        word = _phrase_of(obj)
        if word and (
            _QUOTED.search(obj) or re.match(r"^(?:the\s+)?(?:word|phrase|term)", obj, re.I)
        ):
            return {"kind": "phrase", "phrase": word}
        if word and text_scope:
            return {"kind": "phrase", "phrase": word}
        named = _STOP_WORDS.sub("", obj).lower().strip(" .,")
        for name, char in NAMED_CHARS.items():
            if named == name:
                return {"kind": "phrase", "phrase": char}
        return None
    # "no `sed -i`", "never `rm -rf`": the thing itself after the negation
    if rest.startswith("`") or _is_commandish(rest):
        pattern = _command_pattern(_command_words(rest))
        return {"kind": "tool", "command": pattern} if pattern else None
    bare = _STOP_WORDS.sub("", rest).lower().strip(" .,")
    for name, char in NAMED_CHARS.items():
        if bare == name:
            return {"kind": "phrase", "phrase": char}
    return None


def _command_words(obj: str) -> str:
    """The command part of an object phrase: the backticked span, or the words up to a stop."""
    m = re.search(r"`([^`]+)`", obj)
    if m:
        return m.group(1)
    obj = obj.split(",")[0]
    obj = _STOP_WORDS.sub("", obj)
    obj = re.sub(r"\s+(?:to|for|and|or|with|on|at|so)\s+.*$", "", obj, flags=re.I)
    return obj.strip(" .,")


def _claude_tool(rest: str) -> str | None:
    low = rest.lower()
    low = re.sub(r"^(?:use|using|call|calling|run|spawn|spawning|launch|launching)\s+", "", low)
    low = re.sub(r"^the\s+", "the ", low).strip(" .")
    for name, tool in TOOL_NAMES.items():
        if low == name or low.startswith(name + " ") or low == f"the {name}":
            return tool
    return None


def _prefer(text: str) -> dict | None:
    m = _PREFER_RE.search(text)
    if not m:
        return None
    x, y = _strip_ticks(m.group("x")), _strip_ticks(m.group("y"))
    if x.lower() == y.lower():
        return None
    y_words = y.split()
    if not y_words or (not _is_commandish(m.group("y")) and y.lower() not in _family_members()):
        return None
    pattern = _command_pattern(y)
    if not pattern:
        return None
    return {"kind": "tool", "command": pattern, "instead": x}


def _family_members() -> set[str]:
    return {name for family in FAMILIES for name in family}


def _only(text: str) -> dict | None:
    m = _ONLY_RE.search(text)
    if not m:
        return None
    name = _strip_ticks(m.group("a") or m.group("b")).lower()
    for family in FAMILIES:
        if name in family:
            others = [p for p in family if p != name]
            return {"kind": "tool", "command": {"programs": others}, "instead": name}
    return None


def _owed(text: str) -> dict | None:
    """The command a rule says must run: `npm run lint`, "the tests", "lint", "prettier"."""
    raw = text.strip().strip(" .,")
    raw = re.sub(r"^(?:the\s+)?", "", raw, flags=re.I)
    raw = re.sub(
        r"(?:\s+(?:again|first|too|as\s+well|afterwards?|after|each\s+time|every\s+time|always|"
        r"right\s+away|straight\s+away|before|and\s+.*|to\s+make\s+sure.*|so\s+.*))+$",
        "",
        raw,
        flags=re.I,
    )
    m = re.search(r"`([^`]+)`", text)
    if m:
        return _command_pattern(m.group(1))
    low = raw.lower()
    if low in _NOUN_COMMANDS or f"the {low}" in _NOUN_COMMANDS:
        return dict(_NOUN_COMMANDS.get(low) or _NOUN_COMMANDS[f"the {low}"])
    if _is_commandish(raw):
        return _command_pattern(raw)
    if re.fullmatch(r"[\w:-]+", raw):  # a script name: `run lint`, `run typecheck`
        return {"program": "npm", "sub": ["run", raw]}
    return None


def _files_of(text: str) -> list[str] | None:
    raw = text.strip().strip(" .,")
    raw = re.sub(r"\s+(?:files?|code|sources?|stuff)$", "", raw, flags=re.I)
    raw = re.sub(r"^(?:any|a|the|some)\s+", "", raw, flags=re.I)
    words = raw.split()
    if not words:
        return None
    word = words[0].lower().strip("`")
    if word in _EXT_WORDS:
        return [_EXT_WORDS[word]]
    if word.startswith("*.") or (word.startswith(".") and len(word) < 8):
        return ["*" + word.lstrip("*")] if word.startswith((".", "*.")) else [word]
    found = _pathish(raw)
    return found


def _after(text: str) -> dict | None:
    m = _AFTER_RE.search(text) or _AFTER_LEAD_RE.search(text)
    if not m:
        return None
    run = _owed(m.group("x"))
    files = _files_of(m.group("y"))
    if not run:
        return None
    check: dict = {"kind": "after", "run": run}
    if files:
        check["paths"] = files
    return check


def _before(text: str) -> dict | None:
    m = (
        _BEFORE_RE.search(text)
        or _BEFORE_LEAD_RE.search(text)
        or _NO_BEFORE_RE.search(text)
        or _MUST_PASS_RE.search(text)
    )
    if not m:
        return None
    run = _owed(m.group("x"))
    action = _action(m.group("y"))
    if not run or not action:
        return None
    return {"kind": "after", "run": run, "before": action}


def _action(text: str) -> dict | None:
    raw = _strip_ticks(text.strip().strip(" .,"))
    m = re.search(r"`([^`]+)`", text)
    if m:
        return _command_pattern(m.group(1))
    first = raw.split()[0].lower() if raw.split() else ""
    first = re.sub(r"^(?:you\s+)?", "", first)
    if _ACTION_COMMANDS.get(first):
        pattern = dict(_ACTION_COMMANDS[first])
        b = _BRANCH_RE.search(raw[len(first) :])
        if b and pattern.get("sub") == ["push"]:
            pattern["args"] = [b.group("b").lower()]
        return pattern
    if _is_commandish(raw):
        return _command_pattern(raw)
    return None
